// Key bindings as data: a binding names an intent (src/ui/intents.ts), and its `keys` come from that one table (or
// the user's override of it), so a key is listed, matched and documented one way. Shared actions take their keys
// from the same table (one meaning per key on every screen); screen-specific actions use keys no other screen or
// shared action uses (tests/ui/keymap).
import type { Key } from 'ink';
import { INTENTS, KEYBOARD_SHARES, isIntent, type IntentId, type IntentSpec } from './intents.js';

export { INTENTS, isIntent, type IntentId } from './intents.js';

export interface Binding {
  /** Keys as shown to people and as matched: a character ('q', '?', 'G'), or a named key (KEY_NAMES). */
  keys: readonly string[];
  /** What the keys mean: an id of the intent table, the same on every screen that offers it. */
  intent: IntentId;
  description: string;
  run: () => void;
  /** The binding applies only while this holds (focus, a running job, an open detail); else its keys fall through. */
  when?: () => boolean;
  /**
   * Why the action cannot run now (a download is running): its keys are still taken, and pressing them says this
   * instead of running it; help shows it too.
   */
  disabledReason?: () => string | undefined;
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

type Extra = Pick<Binding, 'when' | 'footer' | 'context' | 'short' | 'disabledReason'>;

/** The intent's keys and description from the table: spread it into a binding (`{ ...intent('train.launch'), run }`). */
export function intent(id: IntentId): Pick<Binding, 'intent' | 'keys' | 'description'> {
  const spec = INTENTS[id];
  return { intent: id, keys: spec.keys, description: spec.description };
}

/** A binding for an intent: keys and description from the table, the screen's handler. */
export function bind(id: IntentId, run: () => void, extra: Extra & { description?: string } = {}): Binding {
  return { ...intent(id), run, ...extra };
}

/** Actions that several screens offer: the same keys, the same meaning, everywhere (the table's first section). */
export const SHARED = Object.fromEntries(Object.entries(INTENTS).filter(([, s]) => s.where === 'several screens')) as unknown as Record<SharedAction, IntentSpec>;

export type SharedAction = 'up' | 'down' | 'pageUp' | 'pageDown' | 'first' | 'last' | 'open' | 'view' | 'back' | 'filter' | 'refresh' | 'stop' | 'retryFailed' | 'runAll' | 'verify' | 'confirm' | 'cancel' | 'copy' | 'prevItem' | 'nextItem';

/** A binding for a shared action: keys from the table, the screen's own description (worded for its rows) and handler. */
export function shared(action: SharedAction, description: string, run: () => void, extra: Extra = {}): Binding {
  return { ...intent(action), description, run, ...extra };
}

/** The user's keys for some intents (keys.json): intent → keys, already checked by `resolveKeyOverrides`. */
export type KeyOverrides = Partial<Record<IntentId, readonly string[]>>;

/** The bindings with the user's keys where an override names their intent. */
export function withKeymap(bindings: readonly Binding[], overrides: KeyOverrides | undefined): Binding[] {
  if (!overrides || Object.keys(overrides).length === 0) return [...bindings];
  return bindings.map((b) => {
    const keys = overrides[b.intent];
    return keys ? { ...b, keys } : b;
  });
}

/** The keys an intent has once the overrides are applied. */
export function keysOf(id: IntentId, overrides?: KeyOverrides): readonly string[] {
  return overrides?.[id] ?? INTENTS[id].keys;
}

export interface ResolvedKeymap {
  overrides: KeyOverrides;
  /** What was wrong with the file, worded for people; every entry named here kept its default keys. */
  problems: string[];
}

function isKeyName(k: string): boolean {
  return (KEY_NAMES as readonly string[]).includes(k) || [...k].length === 1;
}

/** The keyboard an intent is answered on: the main one, or a picker's (with the shared keys it also answers). */
function keyboardOf(id: IntentId): string {
  return INTENTS[id].keyboard ?? 'main';
}

function membersOf(keyboard: string): IntentId[] {
  const ids = Object.keys(INTENTS) as IntentId[];
  if (keyboard === 'main') return ids.filter((id) => keyboardOf(id) === 'main' && !INTENTS[id].fixed);
  return [...ids.filter((id) => keyboardOf(id) === keyboard), ...(KEYBOARD_SHARES[keyboard as 'picker'] ?? [])];
}

/** Key → the intents that hold it on one keyboard, with the overrides applied. */
function clashes(overrides: KeyOverrides): { key: string; intents: IntentId[] }[] {
  const out: { key: string; intents: IntentId[] }[] = [];
  for (const keyboard of ['main', ...Object.keys(KEYBOARD_SHARES)]) {
    const holders = new Map<string, IntentId[]>();
    for (const id of membersOf(keyboard)) for (const k of keysOf(id, overrides)) holders.set(k, [...(holders.get(k) ?? []), id]);
    for (const [key, intents] of holders) if (intents.length > 1) out.push({ key, intents });
  }
  return out;
}

/**
 * Checks the user's overrides (the parsed keys.json: intent → a key or a list of keys) against the table. An unknown
 * intent, a key that is not a key, a fixed text-field key, or a key another intent holds is reported and that intent
 * keeps its default keys; the rest apply.
 */
export function resolveKeyOverrides(raw: Record<string, unknown>, source = 'keys.json'): ResolvedKeymap {
  const problems: string[] = [];
  const overrides: KeyOverrides = {};
  for (const [id, value] of Object.entries(raw)) {
    if (!isIntent(id)) {
      problems.push(`${source}: "${id}" is not an intent (swegym-console keys lists them); ignored`);
      continue;
    }
    if (INTENTS[id].fixed) {
      problems.push(`${source}: ${id} is a text field's key and cannot be changed; it keeps ${INTENTS[id].keys.join(' / ')}`);
      continue;
    }
    const keys = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((k) => typeof k === 'string') ? (value as string[]) : undefined;
    if (!keys || keys.length === 0) {
      problems.push(`${source}: ${id} must be a key or a list of keys (e.g. "x" or ["x", "Ctrl-C"]); it keeps ${INTENTS[id].keys.join(' / ')}`);
      continue;
    }
    const bad = keys.filter((k) => !isKeyName(k));
    if (bad.length) {
      problems.push(`${source}: ${id}: ${bad.map((k) => JSON.stringify(k)).join(', ')} is not a key (one character, or one of ${KEY_NAMES.join(' ')}); it keeps ${INTENTS[id].keys.join(' / ')}`);
      continue;
    }
    overrides[id] = [...new Set(keys)];
  }
  // A clash takes the overrides that caused it back to their defaults, until none is left (defaults never clash).
  for (;;) {
    const found = clashes(overrides).find((c) => c.intents.some((id) => id in overrides));
    if (!found) break;
    const others = (id: IntentId) => found.intents.filter((o) => o !== id).join(', ');
    for (const id of found.intents.filter((i) => i in overrides)) {
      problems.push(`${source}: ${found.key} for ${id} is also ${others(id)}'s key; ${id} keeps ${INTENTS[id].keys.join(' / ')}`);
      delete overrides[id];
    }
  }
  return { overrides, problems };
}

/** Every intent with its keys (the overrides applied), for `swegym-console keys` and docs/KEYS.md. */
export function keyReference(overrides?: KeyOverrides): { intent: IntentId; keys: readonly string[]; description: string; where: string; overridden: boolean }[] {
  return (Object.keys(INTENTS) as IntentId[]).map((id) => ({ intent: id, keys: keysOf(id, overrides), description: INTENTS[id].description, where: INTENTS[id].where, overridden: Boolean(overrides?.[id]) }));
}

/** The key reference as a Markdown table, grouped by where the keys apply (docs/KEYS.md holds exactly this). */
export function keyReferenceMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = keyReference().map((r) => `| ${cell(r.where)} | \`${r.intent}\` | ${r.keys.map((k) => `\`${cell(k)}\``).join(' ')} | ${cell(r.description)} |`);
  return ['| where | intent | keys | what it does |', '| --- | --- | --- | --- |', ...rows, ''].join('\n');
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

/**
 * Runs the first binding that matches; returns whether one did. A disabled one (its `disabledReason` says why) takes
 * the key and hands the reason to `onDisabled` instead of running.
 */
export function dispatchKey(bindings: readonly Binding[], input: string, key: Key, onDisabled?: (reason: string, b: Binding) => void): boolean {
  for (const b of bindings) {
    if (bindingMatches(b, input, key)) {
      const reason = b.disabledReason?.();
      if (reason !== undefined) onDisabled?.(reason, b);
      else b.run();
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
