// Bridges from stores and service counters to React at a bounded frame rate.
import { useEffect, useState } from 'react';
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
