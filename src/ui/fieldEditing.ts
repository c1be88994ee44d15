// The one set of rules for a one-line text field, as a pure model (the hook in TextField.tsx feeds it keys):
// Esc cancels (the value goes back to what it was when editing began), Enter submits, Backspace deletes before the
// cursor and Delete at it, ←/→ Home/End (Ctrl-A/Ctrl-E) move, Ctrl-U clears to the start, typed and pasted text is
// inserted at the cursor without line breaks or control characters, cut at `maxLength` graphemes (the field then
// says so). A secret field never shows its value, nor its length.
import { displayWidth, graphemes, truncate } from './text.js';

export interface FieldKey {
  escape?: boolean;
  return?: boolean;
  backspace?: boolean;
  delete?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  home?: boolean;
  end?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  tab?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
}

export interface FieldState {
  value: string;
  /** In graphemes from the start. */
  cursor: number;
  /** The value when editing began: Esc puts it back. */
  initial: string;
  /** The last insertion was cut at the limit. */
  cut: boolean;
}

export interface FieldOptions {
  maxLength: number;
  secret?: boolean;
}

export type FieldOutcome = { state: FieldState; action?: 'submit' | 'cancel' };

export const DEFAULT_MAX_LENGTH = 256;
export const CURSOR = '▏';
/** What a secret field shows once something is typed: neither the value nor how long it is. */
export const SECRET_SHOWN = '(hidden)';

export function beginEdit(value: string): FieldState {
  return { value, cursor: graphemes(value).length, initial: value, cut: false };
}

/** Text as a field accepts it: one line, no control characters (a pasted line break becomes nothing). */
export function cleanInput(text: string): string {
  return text.replace(/\r\n|[\r\n\t]/g, '').replace(/[\u0000-\u001F\u007F-\u009F]/g, '');
}

export function insertText(s: FieldState, text: string, opts: FieldOptions): FieldState {
  const chars = graphemes(s.value);
  const add = graphemes(cleanInput(text));
  if (add.length === 0) return s;
  const room = Math.max(0, opts.maxLength - chars.length);
  const kept = add.slice(0, room);
  const cursor = Math.min(s.cursor, chars.length);
  const value = [...chars.slice(0, cursor), ...kept, ...chars.slice(cursor)].join('');
  return { ...s, value, cursor: cursor + kept.length, cut: kept.length < add.length };
}

export function applyKey(s: FieldState, input: string, key: FieldKey, opts: FieldOptions): FieldOutcome {
  const chars = graphemes(s.value);
  const cursor = Math.min(s.cursor, chars.length);
  const at = (value: string[], c: number): FieldState => ({ ...s, value: value.join(''), cursor: c, cut: false });
  if (key.escape) return { state: { ...s, value: s.initial, cursor: graphemes(s.initial).length, cut: false }, action: 'cancel' };
  if (key.return) return { state: s, action: 'submit' };
  // Backspace, and Delete at the end (some terminals send Delete for the Backspace key).
  if (key.backspace || (key.delete && cursor >= chars.length)) {
    if (cursor === 0) return { state: s };
    return { state: at([...chars.slice(0, cursor - 1), ...chars.slice(cursor)], cursor - 1) };
  }
  if (key.delete) return { state: at([...chars.slice(0, cursor), ...chars.slice(cursor + 1)], cursor) };
  if (key.leftArrow) return { state: { ...s, cursor: Math.max(0, cursor - 1) } };
  if (key.rightArrow) return { state: { ...s, cursor: Math.min(chars.length, cursor + 1) } };
  if (key.home || (key.ctrl && input === 'a')) return { state: { ...s, cursor: 0 } };
  if (key.end || (key.ctrl && input === 'e')) return { state: { ...s, cursor: chars.length } };
  if (key.ctrl && input === 'u') return { state: at(chars.slice(cursor), 0) };
  // Other keys (↑↓, Tab, PgUp/PgDn, Ctrl-combinations) do nothing while the field owns the keyboard.
  if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.tab || key.pageUp || key.pageDown || !input) return { state: s };
  return { state: insertText(s, input, opts) };
}

/**
 * The field as text: the value with the cursor mark while editing, and a length indicator near the limit
 * ("78/80") or when an insertion was cut ("80/80 limit"). With `room` (columns), a longer value is shown as a window
 * that keeps the cursor in view, cut with "…" on the side(s) it hides. A secret shows `(hidden)` once anything is typed.
 */
export function fieldText(s: Pick<FieldState, 'value' | 'cursor' | 'cut'>, opts: FieldOptions & { editing: boolean; room?: number }): string {
  if (opts.secret) return `${s.value ? SECRET_SHOWN : ''}${opts.editing ? CURSOR : ''}`;
  if (!opts.editing) return opts.room === undefined ? s.value : truncate(s.value, opts.room);
  const chars = graphemes(s.value);
  const cursor = Math.min(s.cursor, chars.length);
  const near = chars.length >= Math.ceil(opts.maxLength * 0.8);
  const indicator = s.cut ? ` ${chars.length}/${opts.maxLength} limit` : near ? ` ${chars.length}/${opts.maxLength}` : '';
  const left = chars.slice(0, cursor).join('');
  const right = chars.slice(cursor).join('');
  const body = left + CURSOR + right;
  const budget = opts.room === undefined ? Infinity : Math.max(2, opts.room - displayWidth(indicator));
  if (displayWidth(body) <= budget) return body + indicator;
  // Too long: a little of what follows the cursor, and as much of what precedes it as fits.
  const after = truncate(right, Math.min(displayWidth(right), Math.floor(budget / 4)));
  const leftRoom = budget - 1 - displayWidth(after);
  if (displayWidth(left) <= leftRoom) return left + CURSOR + truncate(right, budget - 1 - displayWidth(left)) + indicator;
  return tail(left, leftRoom) + CURSOR + after + indicator;
}

/** "…" and the end of `text`, in `width` columns. */
function tail(text: string, width: number): string {
  if (width <= 1) return width === 1 ? '…' : '';
  const chars = graphemes(text);
  let out = '';
  let used = 1;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = displayWidth(chars[i] as string);
    if (used + w > width) break;
    out = (chars[i] as string) + out;
    used += w;
  }
  return '…' + out;
}
