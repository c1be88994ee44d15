// Key bindings as data: a binding's `keys` are both what help and the footer show and what matching uses, so a
// key can never be listed one way and handled another. Shared actions take their keys from SHARED (one meaning per
// key on every screen); screen-specific actions use keys no other screen or shared action uses (tests/ui/keymap).
import type { Key } from 'ink';

export interface Binding {
  /** Keys as shown to people and as matched: a character ('q', '?', 'G'), or a named key (KEY_NAMES). */
  keys: readonly string[];
  description: string;
  run: () => void;
  /** The binding applies only while this holds (focus, a running job, an open detail). */
  when?: () => boolean;
  /** Meaning of the keys: a SHARED action's id, or `<screen>.<action>` for a screen-specific one. */
  id?: string;
  /** Hidden from the footer (still in help). */
  footer?: boolean;
  /**
   * Where it applies, when a key means something else there (the large chart, a drill-in, a panel): help lists the
   * screen's keys grouped by it, so no group shows one key twice.
   */
  context?: string;
  /** Its shortest form for a narrow footer ("launch", "drill in"); else the description's first word. */
  short?: string;
}

/** Actions that several screens offer: the same keys, the same meaning, everywhere. */
export const SHARED = {
  up: { keys: ['↑', 'k'], meaning: 'previous row' },
  down: { keys: ['↓', 'j'], meaning: 'next row' },
  pageUp: { keys: ['PgUp'], meaning: 'page up' },
  pageDown: { keys: ['PgDn'], meaning: 'page down' },
  first: { keys: ['g', 'Home'], meaning: 'first row' },
  last: { keys: ['G', 'End'], meaning: 'last row' },
  open: { keys: ['Enter'], meaning: 'drill into the selected row (its log, its whole record), or edit it in a form' },
  view: { keys: ['v'], meaning: 'show the selected row whole (detail view)' },
  back: { keys: ['Esc'], meaning: 'close / back' },
  filter: { keys: ['/'], meaning: 'filter' },
  refresh: { keys: ['r'], meaning: 'refresh (re-read from disk)' },
  stop: { keys: ['x'], meaning: 'stop the running job (asks when it loses work)' },
  retryFailed: { keys: ['F'], meaning: 'retry the failed rows' },
  runAll: { keys: ['b'], meaning: 'run the screen’s job on every row' },
  verify: { keys: ['V'], meaning: 'verify the file on disk against the rules (reads only)' },
  confirm: { keys: ['y'], meaning: 'yes (in a question)' },
  cancel: { keys: ['n'], meaning: 'no (in a question)' },
  copy: { keys: ['c'], meaning: 'copy the command (OSC 52)' },
  prevItem: { keys: ['←'], meaning: 'previous item' },
  nextItem: { keys: ['→'], meaning: 'next item' },
} as const;

export type SharedAction = keyof typeof SHARED;

/** A binding for a shared action: keys and id from SHARED, the screen's own description and handler. */
export function shared(action: SharedAction, description: string, run: () => void, extra: Pick<Binding, 'when' | 'footer' | 'context' | 'short'> = {}): Binding {
  return { keys: SHARED[action].keys, id: action, description, run, ...extra };
}

/** A state Esc backs out of: an open detail or log, a kept filter, a question. */
export interface BackLayer {
  isOpen: () => boolean;
  close: () => void;
  /** What closing it does, for help: 'close the detail', 'clear the filter'. */
  description: string;
}

/**
 * Esc's one rule, on every screen: it backs out of the innermost state that is open, one state per press. A screen
 * lists its states innermost first (a detail over a kept filter, …); when none is open, Esc falls through to the
 * app's own back. The binding is hidden from the footer (it is navigation) and listed in help.
 */
export function backOut(layers: readonly BackLayer[]): Binding {
  return shared(
    'back',
    layers.map((l) => l.description).join(', else '),
    () => layers.find((l) => l.isOpen())?.close(),
    { when: () => layers.some((l) => l.isOpen()), footer: false },
  );
}

/** Named keys a binding may list; anything else of one character is matched as that character. */
export const KEY_NAMES = ['↑', '↓', '←', '→', 'Enter', 'Esc', 'Tab', 'Shift-Tab', 'PgUp', 'PgDn', 'Home', 'End', 'Backspace', 'Space', 'Ctrl-C'] as const;

/** Whether one key name of a binding matches an Ink key event. */
export function keyMatches(name: string, input: string, key: Key): boolean {
  switch (name) {
    case '↑':
      return key.upArrow;
    case '↓':
      return key.downArrow;
    case '←':
      return key.leftArrow;
    case '→':
      return key.rightArrow;
    case 'Enter':
      return key.return;
    case 'Esc':
      return key.escape;
    case 'Tab':
      return key.tab && !key.shift;
    case 'Shift-Tab':
      return key.tab && key.shift;
    case 'PgUp':
      return key.pageUp;
    case 'PgDn':
      return key.pageDown;
    case 'Home':
      return key.home;
    case 'End':
      return key.end;
    case 'Backspace':
      return key.backspace || key.delete;
    case 'Space':
      return input === ' ' && !key.ctrl && !key.meta;
    case 'Ctrl-C':
      return key.ctrl && input === 'c';
    default:
      return input === name && !key.ctrl && !key.meta && !key.escape;
  }
}

export function bindingMatches(b: Binding, input: string, key: Key): boolean {
  return (!b.when || b.when()) && b.keys.some((k) => keyMatches(k, input, key));
}

/** Runs the first binding that matches; returns whether one did. */
export function dispatchKey(bindings: readonly Binding[], input: string, key: Key): boolean {
  for (const b of bindings) {
    if (bindingMatches(b, input, key)) {
      b.run();
      return true;
    }
  }
  return false;
}

/**
 * A terminal sends Esc followed quickly by another key as one chunk, which Ink reads as Alt+key: the Esc is lost
 * and the key is ignored. The console binds no Alt keys, so split it back into the two keys people pressed.
 */
export function splitEscPrefix(input: string, key: Key): [Key, string][] | undefined {
  if (!key.meta || key.ctrl || key.escape || [...input].length > 1) return undefined;
  const esc: Key = { ...key, meta: false, escape: true };
  return [
    [esc, ''],
    [{ ...key, meta: false }, input],
  ];
}
