// JSON as Python's `json.loads` reads it (the reward function parses the marker with it): JSON.parse's grammar plus
// the literals NaN, Infinity and -Infinity, with the error texts kept short. Everything else (strings, escapes,
// whitespace, numbers, duplicate keys: the last wins) is standard JSON, which both read alike.

export type PyJsonResult = { ok: true; value: unknown } | { ok: false; error: string };

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
/** Python stops at its recursion limit; nesting this deep is refused rather than risking the stack. */
const MAX_DEPTH = 1000;

class Fail extends Error {}

export function parsePyJson(text: string): PyJsonResult {
  let i = 0;
  const fail = (what: string): never => {
    throw new Fail(`${what} at char ${i}`);
  };
  const ws = () => {
    while (i < text.length && WS.has(text[i] as string)) i++;
  };
  const literal = (word: string, value: unknown): unknown => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail('Expecting value');
  };
  const str = (): string => {
    // text[i] is the opening quote.
    i++;
    let out = '';
    let run = i;
    for (;;) {
      if (i >= text.length) fail('Unterminated string starting');
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) {
        out += text.slice(run, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('Invalid control character');
      if (c !== 92 /* \ */) {
        i++;
        continue;
      }
      out += text.slice(run, i);
      const e = text[i + 1];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) {
        out += simple[e];
        i += 2;
      } else if (e === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid \\uXXXX escape');
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else fail('Invalid \\escape');
      run = i;
    }
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
        const key = str();
        ws();
        if (text[i] !== ':') fail("Expecting ':' delimiter");
        i++;
        const v = value(depth + 1);
        // defineProperty: a "__proto__" key is data, as in Python, not the prototype.
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail("Expecting ',' delimiter");
      }
    }
    if (ch === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail("Expecting ',' delimiter");
      }
    }
    if (ch === '"') return str();
    if (ch === 't') return literal('true', true);
    if (ch === 'f') return literal('false', false);
    if (ch === 'n') return literal('null', null);
    if (ch === 'N') return literal('NaN', NaN);
    if (ch === 'I') return literal('Infinity', Infinity);
    if (ch === '-' && text.startsWith('-Infinity', i)) return literal('-Infinity', -Infinity);
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('Expecting value');
    i += m[0].length;
    return Number(m[0]);
  };
  try {
    const v = value(0);
    ws();
    if (i !== text.length) fail('Extra data');
    return { ok: true, value: v };
  } catch (err) {
    if (err instanceof Fail) return { ok: false, error: err.message };
    throw err;
  }
}
