// ink-testing-library helpers: one key per write, then wait for the frame to change.
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { DEFAULT_WAIT_MS, waitFor } from './wait.js';

export const KEYS = {
  up: '\u001B[A',
  down: '\u001B[B',
  right: '\u001B[C',
  left: '\u001B[D',
  enter: '\r',
  escape: '\u001B',
  tab: '\t',
  shiftTab: '\u001B[Z',
  backspace: '\u007F',
  ctrlC: '\u0003',
  pageUp: '\u001B[5~',
  pageDown: '\u001B[6~',
} as const;

export function stripAnsi(text: string): string {
  return text.replace(/\u001B\[[0-9;?]*[ -/]*[@-~]/g, '');
}

/** Event-loop turns a key press is given to be drawn. */
const PRESS_TURNS = 10;

/**
 * The testing library's stdout has columns but no rows, so Ink asks `terminal-size` on every frame, which runs
 * `tput cols` and `tput lines` synchronously (two processes a frame: most of the screen tests' CPU). Rows are given
 * once, as the 24 that lookup answers without a terminal, for this render and every later one in the process.
 */
function giveRows(stdout: object) {
  const proto = Object.getPrototypeOf(stdout) as object;
  if (!('rows' in proto)) Object.defineProperty(proto, 'rows', { get: () => 24, configurable: true });
}

export function renderInk(element: ReactElement) {
  const r = render(element);
  giveRows(r.stdout);
  const frame = () => stripAnsi(r.lastFrame() ?? '');
  return {
    ...r,
    frame,
    /**
     * Writes one key and lets the app handle it. The testing library renders unthrottled (debug mode), so a key that
     * changes state is drawn within a few event-loop turns of its write (React's scheduler runs on setImmediate);
     * a key that changes nothing draws nothing, and waiting longer would only cost time. What comes later (I/O a
     * key starts) is waited for with waitForText.
     */
    async press(key: string) {
      const n = r.frames.length;
      r.stdin.write(key);
      for (let turn = 0; turn < PRESS_TURNS && r.frames.length === n; turn++) await new Promise((resolve) => setImmediate(resolve));
    },
    async waitForText(text: string | RegExp, timeoutMs = DEFAULT_WAIT_MS) {
      await waitFor(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())), {
        timeoutMs,
        message: () => `expected ${String(text)} in frame:\n${frame()}`,
      });
    },
  };
}
