// Python text semantics that Dressage's rules depend on, so our copies of those rules read text the way Python does:
// `str.splitlines()` (more line breaks than `\n`), `shlex.split()` (POSIX words, quotes and backslashes) and
// `float()` for numeric settings. Behaviour follows CPython 3.11's documentation and is checked side by side with
// python3 in the `.upstream` tests.

/** The line boundaries of `str.splitlines()`: \n, \r, \r\n, \v, \f, \x1c–\x1e, \x85, U+2028, U+2029. */
export const PY_LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** True for one character that `str.splitlines()` breaks at (\r\n counts as its \r). */
export function isPyLineBreak(ch: string): boolean {
  return ch.length === 1 && '\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029'.includes(ch);
}

/** `text.splitlines()`: no trailing empty element, `\r\n` is one break. */
export function pySplitLines(text: string): string[] {
  if (text === '') return [];
  const parts = text.split(PY_LINE_BREAK);
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Raised where `shlex.split` raises ValueError. */
export class ShlexError extends Error {}

const SHLEX_WHITESPACE = ' \t\r\n';

/** `shlex.split(text)` (posix=True, comments=False, whitespace_split=True). */
export function shlexSplit(text: string): string[] {
  const out: string[] = [];
  let token = '';
  let quoted = false;
  let inToken = false;
  // ' ' between words, 'a' in a word, a quote char inside quotes, '\\' after a backslash.
  let state: ' ' | 'a' | "'" | '"' | '\\' = ' ';
  let escaped: 'a' | '"' = 'a';
  const flush = () => {
    if (token !== '' || quoted) out.push(token);
    token = '';
    quoted = false;
    inToken = false;
  };
  for (const ch of text) {
    if (state === ' ' || state === 'a') {
      if (SHLEX_WHITESPACE.includes(ch)) {
        if (inToken || token !== '' || quoted) flush();
        state = ' ';
      } else if (ch === '\\') {
        escaped = 'a';
        state = '\\';
        inToken = true;
      } else if (ch === "'" || ch === '"') {
        state = ch;
        inToken = true;
      } else {
        token += ch;
        state = 'a';
        inToken = true;
      }
    } else if (state === "'" || state === '"') {
      quoted = true;
      if (ch === state) state = 'a';
      else if (state === '"' && ch === '\\') {
        escaped = '"';
        state = '\\';
      } else token += ch;
    } else {
      // After a backslash: inside double quotes only \" and \\ are escapes; elsewhere any character is.
      if (escaped === '"' && ch !== '"' && ch !== '\\') token += '\\';
      token += ch;
      state = escaped;
    }
  }
  if (state === "'" || state === '"') throw new ShlexError('No closing quotation');
  if (state === '\\') throw new ShlexError('No escaped character');
  if (token !== '' || quoted) out.push(token);
  return out;
}

const PY_DIGITS = String.raw`\d(?:_?\d)*`;
const PY_FLOAT = new RegExp(String.raw`^[+-]?(?:(?:${PY_DIGITS}(?:\.(?:${PY_DIGITS})?)?|\.${PY_DIGITS})(?:[eE][+-]?${PY_DIGITS})?|inf(?:inity)?|nan)$`, 'i');

/** `float(value)` for what a setting can hold (str, int, float, bool); undefined where Python raises. */
export function pyFloat(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  if (!PY_FLOAT.test(t)) return undefined;
  const s = t.replace(/_/g, '').toLowerCase();
  const sign = s.startsWith('-') ? -1 : 1;
  const body = s.replace(/^[+-]/, '');
  if (body.startsWith('inf')) return sign * Infinity;
  if (body === 'nan') return NaN;
  return Number(s);
}

/** `int(value)` for str/int/bool settings; undefined where Python raises (floats given as text do). */
export function pyInt(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  if (!/^[+-]?\d(?:_?\d)*$/.test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}

/** `repr(value)` for what Dressage's messages quote (`got {raw!r}`): str, int/float, bool, None. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : value === Infinity ? 'inf' : value === -Infinity ? '-inf' : String(value);
  if (typeof value !== 'string') return JSON.stringify(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of value) {
    const c = ch.codePointAt(0) as number;
    if (ch === '\\' || ch === quote) out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return quote + out + quote;
}

/** `shlex.quote(s)`: unchanged when every character is safe (`[\w@%+=:,./-]`, ASCII), else single-quoted. */
export function pyShlexQuote(s: string): string {
  if (s === '') return "''";
  if (!/[^A-Za-z0-9_@%+=:,./-]/.test(s)) return s;
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}
