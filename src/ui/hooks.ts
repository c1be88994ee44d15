// Bridges from stores and service counters to React at a bounded frame rate.
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';

/** Narrow selector on a vanilla zustand store. */
export function useSel<S, T>(store: StoreApi<S>, selector: (s: S) => T): T {
  return useStore(store, selector);
}

/**
 * Re-renders at most `hz` times a second while `version()` changes. Services bump a counter per event;
 * the UI samples it, so a burst of 5k lines/s costs a few renders, not 5k. Not `enabled`, it does not poll (what
 * reads the counter is not drawn); enabled again, it reads the counter at once.
 */
export function usePolledVersion(version: () => number, hz = 10, enabled = true): number {
  const [v, setV] = useState(version());
  useEffect(() => {
    if (!enabled) return;
    const sample = () => {
      const next = version();
      setV((prev) => (prev === next ? prev : next));
    };
    sample();
    const timer = setInterval(sample, Math.max(16, Math.round(1000 / hz)));
    return () => clearInterval(timer);
  }, [version, hz, enabled]);
  return v;
}

export interface TerminalSize {
  columns: number;
  rows: number;
}

function sizeOf(stdout: NodeJS.WritableStream & { columns?: number; rows?: number }): TerminalSize {
  return { columns: stdout.columns || 80, rows: stdout.rows || 24 };
}

/**
 * The terminal's size, re-rendering when it changes. Ink's useWindowSize sets a new object once more as it mounts,
 * so the whole console rendered twice before its first frame had settled (≈ 5 ms of the main thread at start-up,
 * while the home screen's doctor was answering); this one keeps the state when the numbers are the same.
 */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout));
  useEffect(() => {
    const onResize = () =>
      setSize((prev) => {
        const next = sizeOf(stdout);
        return prev.columns === next.columns && prev.rows === next.rows ? prev : next;
      });
    stdout.on('resize', onResize);
    // A resize between the first render and this effect.
    onResize();
    return () => void stdout.off('resize', onResize);
  }, [stdout]);
  return size;
}
