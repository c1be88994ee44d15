// One keymap table drives both the key handlers and the generated help overlay and footer.
import type { Key } from 'ink';

export interface Binding {
  /** Keys as shown to people, e.g. ['q'] or ['↑', 'k']. */
  keys: string[];
  description: string;
  /** Returns true when this input/key triggers the binding. */
  match: (input: string, key: Key) => boolean;
  run: () => void;
  /** Hidden from the footer (still in help). */
  footer?: boolean;
}

export const is = {
  char: (c: string) => (input: string, key: Key) => input === c && !key.ctrl && !key.meta,
  up: (input: string, key: Key) => key.upArrow || input === 'k',
  down: (input: string, key: Key) => key.downArrow || input === 'j',
  left: (_input: string, key: Key) => key.leftArrow,
  right: (_input: string, key: Key) => key.rightArrow,
  enter: (_input: string, key: Key) => key.return,
  escape: (_input: string, key: Key) => key.escape,
  tab: (_input: string, key: Key) => key.tab && !key.shift,
  shiftTab: (_input: string, key: Key) => key.tab && key.shift,
  pageUp: (_input: string, key: Key) => key.pageUp,
  pageDown: (_input: string, key: Key) => key.pageDown,
  home: (input: string, key: Key) => key.home || input === 'g',
  end: (input: string, key: Key) => key.end || input === 'G',
};

/** Runs the first binding that matches; returns whether one did. */
export function dispatchKey(bindings: readonly Binding[], input: string, key: Key): boolean {
  for (const b of bindings) {
    if (b.match(input, key)) {
      b.run();
      return true;
    }
  }
  return false;
}
