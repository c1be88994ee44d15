// ink-testing-library helpers: one key per write, then wait for the frame to change.
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { waitFor } from './wait.js';

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

export function renderInk(element: ReactElement) {
  const r = render(element);
  const frame = () => stripAnsi(r.lastFrame() ?? '');
  return {
    ...r,
    frame,
    async press(key: string) {
      const n = r.frames.length;
      r.stdin.write(key);
      await waitFor(() => r.frames.length > n, { timeoutMs: 300 }).catch(() => {});
    },
    async waitForText(text: string | RegExp, timeoutMs = 5000) {
      await waitFor(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())), {
        timeoutMs,
        message: () => `expected ${String(text)} in frame:\n${frame()}`,
      });
    },
  };
}
