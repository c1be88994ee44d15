// A parser for Python's repr() of dicts, lists, tuples and scalars, as slime/Dressage log them
// (`step 3: {'train/loss': 0.12, 'train/ppo_kl': nan, ...}`). It never throws: bad input gives `undefined`.
// Non-finite floats become JS NaN/±Infinity; callers decide how to print them (JSON cannot hold them).

export type PyValue = number | string | boolean | null | PyValue[] | { [key: string]: PyValue };
export type PyDict = { [key: string]: PyValue };

const MAX_DEPTH = 64;

class Parser {
  i = 0;
  depth = 0;
  constructor(readonly s: string) {}

  ws(): void {
    const s = this.s;
    let c = s.charCodeAt(this.i);
    while (c === 32 || c === 9 || c === 10 || c === 13) c = s.charCodeAt(++this.i);
  }

  value(): PyValue | undefined {
    this.ws();
    const s = this.s;
    const c = s[this.i];
    if (c === undefined) return undefined;
    if (c === '{') return this.dict();
    if (c === '[') return this.seq(']');
    if (c === '(') return this.seq(')');
    if (c === "'" || c === '"') return this.str();
    if ((c >= '0' && c <= '9') || c === '-' || c === '+' || c === '.') return this.num();
    // Python string prefixes: b'..', r'..', u'..', f'..' (rare in metrics, but never fail on them).
    if ((c === 'b' || c === 'r' || c === 'u' || c === 'B' || c === 'R' || c === 'U') && (s[this.i + 1] === "'" || s[this.i + 1] === '"')) {
      this.i++;
      return this.str(c === 'r' || c === 'R');
    }
    return this.word();
  }

  dict(): PyValue | undefined {
    if (++this.depth > MAX_DEPTH) return undefined;
    this.i++; // {
    const out: PyDict = {};
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      const k = this.value();
      if (k === undefined) return undefined;
      this.ws();
      if (this.s[this.i] !== ':') {
        // A set literal {1, 2}: keep it as a list.
        if (this.s[this.i] === ',' || this.s[this.i] === '}') return this.setRest(k);
        return undefined;
      }
      this.i++;
      const v = this.value();
      if (v === undefined) return undefined;
      const name = keyText(k);
      // A `__proto__` key is data, as in Python (an assignment would set the dict's prototype and lose the key).
      if (name === '__proto__') Object.defineProperty(out, name, { value: v, enumerable: true, writable: true, configurable: true });
      else out[name] = v;
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        this.ws();
        if (this.s[this.i] === '}') {
          this.i++;
          break;
        }
        continue;
      }
      if (c === '}') {
        this.i++;
        break;
      }
      return undefined;
    }
    this.depth--;
    return out;
  }

  setRest(first: PyValue): PyValue | undefined {
    const items: PyValue[] = [first];
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === '}') {
        this.i++;
        this.depth--;
        return items;
      }
      if (c !== ',') return undefined;
      this.i++;
      this.ws();
      if (this.s[this.i] === '}') continue;
      const v = this.value();
      if (v === undefined) return undefined;
      items.push(v);
    }
  }

  seq(close: string): PyValue | undefined {
    if (++this.depth > MAX_DEPTH) return undefined;
    this.i++;
    const out: PyValue[] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === close) {
        this.i++;
        break;
      }
      const v = this.value();
      if (v === undefined) return undefined;
      out.push(v);
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === close) {
        this.i++;
        break;
      }
      return undefined;
    }
    this.depth--;
    return out;
  }

  str(raw = false): PyValue | undefined {
    const s = this.s;
    const q = s[this.i] as string;
    // Triple quotes.
    const triple = s[this.i + 1] === q && s[this.i + 2] === q;
    const qlen = triple ? 3 : 1;
    this.i += qlen;
    // Fast path: no backslash before the closing quote.
    let out = '';
    let start = this.i;
    for (;;) {
      const j = this.i;
      if (j >= s.length) return undefined;
      const c = s.charCodeAt(j);
      if (c === 92 /* \ */) {
        out += s.slice(start, j);
        const e = s[j + 1];
        if (e === undefined) return undefined;
        if (raw) {
          out += '\\' + e;
          this.i = j + 2;
        } else {
          const [text, len] = escape(s, j + 1);
          out += text;
          this.i = j + 1 + len;
        }
        start = this.i;
        continue;
      }
      if (s[j] === q && (!triple || (s[j + 1] === q && s[j + 2] === q))) {
        out += s.slice(start, j);
        this.i = j + qlen;
        return out;
      }
      if (!triple && (c === 10 || c === 13)) return undefined;
      this.i++;
    }
  }

  num(): PyValue | undefined {
    const s = this.s;
    // Fast path, the usual metric (`0.25`, `-3`, `1e-06`): scanned by hand where NUMBER would match the same text
    // and what follows cannot change the reading (no `_`, hex, `j` or a cut exponent); anything else below.
    const fast = this.plainNumberEnd();
    if (fast > 0) {
      const v = Number(s.slice(this.i, fast));
      this.i = fast;
      return v;
    }
    const m = NUMBER.exec(s.slice(this.i, this.i + 64));
    if (!m) {
      // -inf / +inf / -nan
      const w = WORD.exec(s.slice(this.i, this.i + 16));
      if (w) {
        const t = w[0].toLowerCase();
        if (t === '-inf' || t === '-infinity') return this.adv(w[0].length, -Infinity);
        if (t === '+inf' || t === '+infinity' || t === 'inf' || t === 'infinity') return this.adv(w[0].length, Infinity);
        if (t === '-nan' || t === '+nan' || t === 'nan') return this.adv(w[0].length, NaN);
      }
      return undefined;
    }
    let text = m[0];
    this.i += text.length;
    // Complex numbers (1+2j) are not metrics; read the real part and skip the rest.
    if (/[jJ]/.test(s[this.i] ?? '')) this.i++;
    text = text.replace(/_/g, '');
    if (/^[+-]?0[xX]/.test(text)) {
      const neg = text.startsWith('-');
      const v = parseInt(text.replace(/^[+-]?0[xX]/, ''), 16);
      return neg ? -v : v;
    }
    const v = Number(text);
    return Number.isNaN(v) ? undefined : v;
  }

  /** The end of `[+-]?\d+(\.\d*)?([eE][+-]?\d+)?` at i when a delimiter (`,` `}` `]` `)` space) follows; else -1. */
  plainNumberEnd(): number {
    const s = this.s;
    let j = this.i;
    let c = s.charCodeAt(j);
    if (c === 43 || c === 45) c = s.charCodeAt(++j);
    if (!(c >= 48 && c <= 57)) return -1;
    const start = j;
    while (c >= 48 && c <= 57) c = s.charCodeAt(++j);
    // NUMBER reads at most 64 characters.
    if (c === 46) {
      c = s.charCodeAt(++j);
      while (c >= 48 && c <= 57) c = s.charCodeAt(++j);
    }
    if (c === 101 || c === 69) {
      c = s.charCodeAt(++j);
      if (c === 43 || c === 45) c = s.charCodeAt(++j);
      if (!(c >= 48 && c <= 57)) return -1;
      while (c >= 48 && c <= 57) c = s.charCodeAt(++j);
    }
    if (j - this.i > 64 || j === start) return -1;
    return c === 44 || c === 125 || c === 93 || c === 41 || c === 32 ? j : -1;
  }

  adv(n: number, v: PyValue): PyValue {
    this.i += n;
    return v;
  }

  word(): PyValue | undefined {
    const s = this.s;
    const w = IDENT.exec(s.slice(this.i, this.i + 200));
    if (!w) return undefined;
    const t = w[0];
    this.i += t.length;
    switch (t) {
      case 'True':
        return true;
      case 'False':
        return false;
      case 'None':
        return null;
      case 'nan':
      case 'NaN':
        return NaN;
      case 'inf':
      case 'Infinity':
        return Infinity;
    }
    this.ws();
    // Wrappers such as np.float64(0.5), tensor(0.25, device='cuda:0'), float('nan'): keep the first argument.
    if (s[this.i] === '(') {
      if (++this.depth > MAX_DEPTH) return undefined;
      this.i++;
      const first = this.value();
      if (first === undefined) return undefined;
      // Skip the remaining arguments, balancing brackets and quotes.
      let level = 0;
      while (this.i < s.length) {
        const c = s[this.i];
        if (c === "'" || c === '"') {
          if (this.str() === undefined) return undefined;
          continue;
        }
        if (c === '(' || c === '[' || c === '{') level++;
        else if (c === ')' || c === ']' || c === '}') {
          if (level === 0) {
            if (c !== ')') return undefined;
            this.i++;
            this.depth--;
            if ((t === 'float' || t.endsWith('.float')) && typeof first === 'string') {
              const f = parseFloatWord(first);
              return f ?? first;
            }
            return first;
          }
          level--;
        }
        this.i++;
      }
      return undefined;
    }
    // A bare identifier (an enum repr like <Status.OK: 1> is not supported): keep its text.
    return t;
  }
}

const NUMBER = /^[+-]?(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?)/;
const WORD = /^[+-]?[A-Za-z]+/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_.]*/;

function parseFloatWord(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'nan' || t === '-nan' || t === '+nan') return NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  const v = Number(t);
  return Number.isNaN(v) ? undefined : v;
}

function escape(s: string, j: number): [string, number] {
  const e = s[j] as string;
  switch (e) {
    case 'n':
      return ['\n', 1];
    case 't':
      return ['\t', 1];
    case 'r':
      return ['\r', 1];
    case '0':
      return ['\0', 1];
    case 'a':
      return ['\x07', 1];
    case 'b':
      return ['\b', 1];
    case 'f':
      return ['\f', 1];
    case 'v':
      return ['\v', 1];
    case '\\':
    case "'":
    case '"':
      return [e, 1];
    case '\n':
      return ['', 1];
    case 'x': {
      const h = s.slice(j + 1, j + 3);
      if (/^[0-9a-fA-F]{2}$/.test(h)) return [String.fromCharCode(parseInt(h, 16)), 3];
      return ['\\x', 1];
    }
    case 'u': {
      const h = s.slice(j + 1, j + 5);
      if (/^[0-9a-fA-F]{4}$/.test(h)) return [String.fromCharCode(parseInt(h, 16)), 5];
      return ['\\u', 1];
    }
    case 'U': {
      const h = s.slice(j + 1, j + 9);
      if (/^[0-9a-fA-F]{8}$/.test(h)) {
        const cp = parseInt(h, 16);
        return [cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD', 9];
      }
      return ['\\U', 1];
    }
    default:
      // Python keeps unknown escapes verbatim.
      return ['\\' + e, 1];
  }
}

function keyText(k: PyValue): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'number') return pyNumberText(k);
  if (k === true) return 'True';
  if (k === false) return 'False';
  if (k === null) return 'None';
  return JSON.stringify(k);
}

function pyNumberText(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  return String(n);
}

/** Parses one Python repr value; the whole text must be consumed (trailing spaces allowed). */
export function parsePyRepr(text: string): PyValue | undefined {
  try {
    const p = new Parser(text);
    const v = p.value();
    if (v === undefined) return undefined;
    p.ws();
    return p.i === text.length ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Parses a dict repr that starts at `start` in `text` and returns it with the index after its closing brace.
 * Trailing text after the dict is left to the caller (Ray may append `[repeated 3x across cluster]`).
 */
export function parsePyDictAt(text: string, start: number): { dict: PyDict; end: number } | undefined {
  const fast = flatDictAsJson(text, start);
  if (fast) return fast;
  return parsePyDictAtGeneral(text, start);
}

/**
 * The usual metrics line, a flat dict of quoted keys to numbers or quoted strings that runs to the end of the text
 * (`{'train/loss': 0.12, 'gpu': '0'}`), read by JSON.parse after swapping its quotes (a third of the parser's time).
 * It answers only where both readings are the same, else undefined (the caller falls back to the parser):
 *   - no `"` or backslash, so each quoted string is the same text in both (no escapes, no other quote inside);
 *   - flat (no `{` after the first, no `[`): no depth limit, no tuples or sets to read differently;
 *   - no nan/inf, True/False/None (JSON has none; JSON.parse fails on them and on any other Python form) and no
 *     bare true/false/null (JSON's literals are Python identifiers, which the parser keeps as text);
 *   - no `__proto__` (left to the parser, which makes it a key as JSON.parse does, but in its own way);
 *   - no run of 65 number characters (the parser reads at most 64 of a number, so a longer one fails there).
 * JSON numbers are a subset of Python's, read to the same double.
 */
export function flatDictAsJson(text: string, start: number): { dict: PyDict; end: number } | undefined {
  if (text.charCodeAt(start) !== 123 /* { */) return undefined;
  let end = text.length;
  while (end > start && WS_END.test(text[end - 1] as string)) end--;
  if (text.charCodeAt(end - 1) !== 125 /* } */) return undefined;
  const seg = start === 0 && end === text.length ? text : text.slice(start, end);
  if (NOT_JSON_ALIKE.test(seg) || seg.indexOf('{', 1) >= 0 || hasLongNumberRun(seg)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(seg.replace(QUOTES, '"'));
  } catch {
    return undefined;
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? { dict: v as PyDict, end } : undefined;
}

/** Whether `s` holds 65 or more number characters in a row. Such a run covers two positions 32 apart that are multiples of 32: only runs through those are measured. */
function hasLongNumberRun(s: string): boolean {
  for (let p = 0; p < s.length; p += 32) {
    if (!isNumberChar(s.charCodeAt(p))) continue;
    let a = p;
    while (a > 0 && isNumberChar(s.charCodeAt(a - 1))) a--;
    let b = p + 1;
    while (b < s.length && isNumberChar(s.charCodeAt(b))) b++;
    if (b - a >= 65) return true;
    while (p + 32 < b) p += 32;
  }
  return false;
}

/** `-+.0-9Ee`, the characters of a number (NUMBER's and JSON's). */
function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 45 || c === 43 || c === 69 || c === 101;
}

const QUOTES = /'/g;
// trimEnd's whitespace, which the callers allow after the dict.
const WS_END = /\s/;
// The Python words are only there to spare JSON.parse's exception on the usual non-JSON values.
const NOT_JSON_ALIKE = /["\\[]|__proto__|true|false|null|: (?:-?nan|-?inf|True|False|None)\b/;

/** parsePyDictAt without the JSON fast path (the differential tests compare the two). */
export function parsePyDictAtGeneral(text: string, start: number): { dict: PyDict; end: number } | undefined {
  try {
    const p = new Parser(text);
    p.i = start;
    p.ws();
    if (text[p.i] !== '{') return undefined;
    const v = p.dict();
    if (v === undefined || Array.isArray(v) || typeof v !== 'object' || v === null) return undefined;
    return { dict: v as PyDict, end: p.i };
  } catch {
    return undefined;
  }
}

function flatAndFinite(d: { [key: string]: PyValue }): boolean {
  for (const k of Object.keys(d)) {
    const x = d[k];
    if (typeof x === 'number' ? !Number.isFinite(x) : x !== null && typeof x === 'object') return false;
  }
  return true;
}

/**
 * JSON-safe copy: a non-finite number (a NaN loss, an Infinity grad norm) becomes null, as JSON has no such number and
 * a string would turn a numeric field into text for every reader (`monitor --help` says so).
 */
export function toJsonSafe(v: PyValue): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map(toJsonSafe);
  if (v && typeof v === 'object') {
    // The usual metrics dict (finite numbers, strings, booleans, None) is JSON-safe as it is: no copy (a run's
    // document holds thousands of them). The result may then be the dict itself, as `samples` already is.
    if (flatAndFinite(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // A `__proto__` key is data (as the dict reader made it), not the copy's prototype.
      if (k === '__proto__') Object.defineProperty(out, k, { value: toJsonSafe(x), enumerable: true, writable: true, configurable: true });
      else out[k] = toJsonSafe(x);
    }
    return out;
  }
  return v;
}
