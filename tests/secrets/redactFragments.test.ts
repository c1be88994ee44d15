// Every fragment of 8+ characters of every secret the console knows is masked, however it is embedded (issue 25,
// point 1): generated secrets (E2B, HF, W&B shapes and arbitrary key alphabets), generated fragments, generated
// surroundings and encodings (URL-encoded, JSON \u-escaped whole or in part, escaped twice, Python \x, upper-cased,
// wrapped over lines). The check decodes the output with its own (regex) decoder and looks for every 8-character
// window of the secret, as written and decoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { redact, rememberSecrets, FRAGMENT_MIN, MASK } from '../../src/services/secrets.js';

const HEX = '0123456789abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEYISH = ALNUM + '_-.+/=';
const chars = (alphabet: string, min: number, max: number) => fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(''));

// Assembled at run time: no key-shaped literal in the repo.
const secretArb = fc.oneof(
  chars(HEX, 32, 40).map((s) => ['e2b', s].join('_')),
  chars(ALNUM, 30, 37).map((s) => ['hf', s].join('_')),
  chars(HEX, 40, 40),
  chars(KEYISH, 8, 64),
);

const hex2 = (c: number) => c.toString(16).padStart(2, '0');
const hex4 = (c: number) => c.toString(16).padStart(4, '0');
const encoders: Record<string, (s: string, cut: number) => string> = {
  raw: (s) => s,
  upper: (s) => s.toUpperCase(),
  urlAll: (s) => [...s].map((c) => `%${hex2(c.charCodeAt(0))}`).join(''),
  urlComponent: (s) => encodeURIComponent(s),
  urlUpperHex: (s) => [...s].map((c) => `%${hex2(c.charCodeAt(0)).toUpperCase()}`).join(''),
  jsonAll: (s) => [...s].map((c) => `\\u${hex4(c.charCodeAt(0))}`).join(''),
  jsonPart: (s, cut) => [...s].map((c, i) => (i % (cut + 2) === 0 ? `\\u${hex4(c.charCodeAt(0))}` : c)).join(''),
  jsonTwice: (s) => [...s].map((c) => `\\\\u${hex4(c.charCodeAt(0))}`).join(''),
  pythonBytes: (s) => [...s].map((c) => `\\x${hex2(c.charCodeAt(0))}`).join(''),
  wrapped: (s, cut) => `${s.slice(0, cut)}\n    ${s.slice(cut)}`,
  wrappedCrlf: (s, cut) => `${s.slice(0, cut)}\r\n${s.slice(cut)}`,
};

/** The checker's own decoding: escapes and line breaks, left to right, by one regex. */
function decoded(text: string): string {
  return text.replace(/\\+u([0-9a-fA-F]{4})|\\+x([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})|\r?\n[ \t]*|\r[ \t]*/g, (_m, u?: string, x?: string, p?: string) =>
    u ? String.fromCharCode(parseInt(u, 16)) : x ? String.fromCharCode(parseInt(x, 16)) : p ? String.fromCharCode(parseInt(p, 16)) : '',
  );
}
const unwrapped = (text: string) => text.replace(/\r?\n[ \t]*|\r[ \t]*/g, '');

/** The first window of the secret still readable in `out`; eight lower-case letters (a word) are the one exception. */
function leakedWindow(out: string, secret: string): string | undefined {
  const views = [unwrapped(out).toLowerCase(), decoded(out).toLowerCase()];
  const s = secret.toLowerCase();
  for (let i = 0; i + FRAGMENT_MIN <= s.length; i++) {
    if (/^[a-z]{8}$/.test(secret.slice(i, i + FRAGMENT_MIN))) continue;
    const w = s.slice(i, i + FRAGMENT_MIN);
    if (views.some((v) => v.includes(w))) return w;
  }
  return undefined;
}

const embedding = fc.record({
  secret: secretArb,
  start: fc.nat(),
  length: fc.integer({ min: FRAGMENT_MIN, max: 80 }),
  encoder: fc.constantFrom(...Object.keys(encoders)),
  cut: fc.integer({ min: 1, max: 7 }),
  before: fc.string({ maxLength: 24 }),
  after: fc.string({ maxLength: 24 }),
});

test('no 8-character window of a secret survives in any embedding of any fragment of it', () => {
  fc.assert(
    fc.property(embedding, fc.constantFrom('E2B_API_KEY', 'HF_TOKEN', 'WANDB_API_KEY', 'DRESSAGE_E2B_API_KEY', 'MY_SERVICE_SECRET'), (e, name) => {
      const from = e.start % (e.secret.length - FRAGMENT_MIN + 1);
      const fragment = e.secret.slice(from, from + e.length);
      const text = `${e.before}${encoders[e.encoder]!(fragment, e.cut)}${e.after}`;
      const out = redact(text, { [name]: e.secret });
      const leak = leakedWindow(out, e.secret);
      assert.equal(leak, undefined, `"${leak}" of the secret survives in ${JSON.stringify(out)} (from ${JSON.stringify(text)})`);
    }),
    { numRuns: 3000 },
  );
});

test('two secrets in one text, in JSON error bodies as E2B sends them: both masked, the rest kept', () => {
  fc.assert(
    fc.property(secretArb, secretArb, fc.integer({ min: 0, max: 12 }), (a, b, drop) => {
      const env = { E2B_API_KEY: a, WANDB_API_KEY: b };
      const partA = a.slice(drop, drop + Math.max(FRAGMENT_MIN, a.length - drop - 3));
      const body = JSON.stringify({ code: 401, message: `Invalid API key: ${partA}`, detail: `wandb key=${b}` }).replace(/[a-z]/g, (c, i: number) => (i % 3 ? c : `\\u${hex4(c.charCodeAt(0))}`));
      const out = redact(`E2B answered 401: ${body}`, env);
      assert.equal(leakedWindow(out, a), undefined, out);
      assert.equal(leakedWindow(out, b), undefined, out);
      assert.match(out, /^E2B answered 401: /);
      assert.ok(out.includes(MASK));
    }),
    { numRuns: 500 },
  );
});

test('text that shares no 8 characters with any secret is left exactly as it was', () => {
  // Secrets in hex; text drawn from letters beyond f, spaces and punctuation: nothing to mask, nothing masked.
  const prose = chars('ghijklmnopqrstuvwxyz ,.:;()[]!?\n\t', 0, 400);
  fc.assert(
    fc.property(chars(HEX, 16, 64), prose, (secret, text) => {
      assert.equal(redact(text, { E2B_API_KEY: secret, HF_TOKEN: secret.slice(3) }), text);
    }),
    { numRuns: 1000 },
  );
});

test('a word of a pass phrase alone stays readable; the phrase, and any run with a digit or sign, do not', () => {
  const env = { MY_SECRET: 'zz-training-key-9f8e7d6c', PASSWORD: 'correcthorsebattery' };
  assert.equal(redact('training started; template ready', env), 'training started; template ready');
  assert.equal(redact('key zz-training-key-9f8e7d6c end', env), `key ${MASK} end`);
  assert.equal(redact('got -training-key', env), `got ${MASK}`);
  assert.equal(redact('pw=correcthorsebattery.', env), `pw=${MASK}.`);
});

test('fragments shorter than 8 characters are not masked (a short common run is not a key)', () => {
  const secret = HEX.repeat(3);
  assert.equal(redact(`see ${secret.slice(2, 9)} here`, { E2B_API_KEY: secret }), `see ${secret.slice(2, 9)} here`);
  assert.equal(redact(`see ${secret.slice(2, 10)} here`, { E2B_API_KEY: secret }), `see ${MASK} here`);
});

test('a secret the console holds outside the environment (saved, --set) is masked by every redact call', () => {
  const saved = ['9f8e7d6c5b4a', '3210fedcba98'].join('');
  assert.equal(redact(`key …${saved.slice(3, 15)}…`, {}), `key …${saved.slice(3, 15)}…`, 'unknown before');
  rememberSecrets([saved, '<your key>', 'short']);
  assert.equal(redact(`key …${saved.slice(3, 15)}…`, {}), `key …${MASK}…`);
  assert.equal(redact('<your key> short', {}), '<your key> short', 'placeholders and short values are not remembered');
});
