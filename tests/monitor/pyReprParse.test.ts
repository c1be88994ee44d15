import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePyRepr, parsePyDictAt, toJsonSafe } from '../../src/services/monitor/pyReprParse.js';
import { pyRepr } from './builders.js';

test('parses slime metric dicts: quotes, exponents, nan/inf, True/False/None', () => {
  const v = parsePyRepr(
    "{'train/loss': 0.0123, 'train/ppo_kl': 1.2e-05, 'train/lr-pg_0': 1e-06, 'x': nan, 'y': inf, 'z': -inf, 'b': True, 'c': False, 'n': None, 'i': 128, 'neg': -3.5E+2}",
  ) as Record<string, unknown>;
  assert.equal(v['train/loss'], 0.0123);
  assert.equal(v['train/ppo_kl'], 1.2e-5);
  assert.equal(v['train/lr-pg_0'], 1e-6);
  assert.ok(Number.isNaN(v['x']));
  assert.equal(v['y'], Infinity);
  assert.equal(v['z'], -Infinity);
  assert.equal(v['b'], true);
  assert.equal(v['c'], false);
  assert.equal(v['n'], null);
  assert.equal(v['i'], 128);
  assert.equal(v['neg'], -350);
});

test('strings: both quote styles and escapes', () => {
  assert.deepEqual(parsePyRepr(`{"it's": 'say "hi"', 'esc': 'a\\'b\\\\c\\nd\\x41\\u00e9\\t'}`), { "it's": 'say "hi"', esc: "a'b\\c\nd" + 'A\u00e9\t' });
  assert.equal(parsePyRepr(`'unknown \\q escape'`), 'unknown \\q escape');
  assert.equal(parsePyRepr(`b'bytes'`), 'bytes');
});

test('nested dicts, lists, tuples, sets, wrappers and trailing commas', () => {
  assert.deepEqual(parsePyRepr("{'a': {'b': [1, 2, (3, 4)], 'c': ()}, 'd': (5,), 'e': [], 'f': {}}"), { a: { b: [1, 2, [3, 4]], c: [] }, d: [5], e: [], f: {} });
  assert.deepEqual(parsePyRepr("{'s': {1, 2}}"), { s: [1, 2] });
  assert.deepEqual(parsePyRepr("{'a': np.float64(0.5), 'b': tensor(0.25, device='cuda:0'), 'c': float('nan')}"), { a: 0.5, b: 0.25, c: NaN });
  assert.deepEqual(parsePyRepr("{1: 'x', 0.5: 'y', None: 'z', 'k': [1,],}"), { '1': 'x', '0.5': 'y', None: 'z', k: [1] });
});

test('garbage never throws and gives undefined', () => {
  for (const bad of ["{'a': 1", "{'a' 1}", "{'a': }", '{', '}', "{'a': 'unterminated}", "{'a': 1}}", '', '{{{{', "{'a': [1, 2}", "{'a': 1,, }", '{a b}']) {
    assert.equal(parsePyRepr(bad), undefined, bad);
  }
  // Deep nesting is refused, not a stack overflow.
  assert.equal(parsePyRepr('['.repeat(100_000)), undefined);
  assert.equal(parsePyRepr('['.repeat(10) + ']'.repeat(10)) !== undefined, true);
});

test('parsePyDictAt leaves trailing text to the caller', () => {
  const text = "step 3: {'a': 1} [repeated 2x across cluster]";
  const r = parsePyDictAt(text, text.indexOf('{'));
  assert.ok(r);
  assert.deepEqual(r.dict, { a: 1 });
  assert.equal(text.slice(r.end), ' [repeated 2x across cluster]');
});

test('JSON-safe conversion writes non-finite numbers as strings', () => {
  assert.deepEqual(toJsonSafe({ a: NaN, b: Infinity, c: -Infinity, d: [NaN], e: 1 }), { a: null, b: null, c: null, d: [null], e: 1 });
  // Flat finite dicts (kept as they are) and nested ones (converted) print as a converted copy would.
  const flat = parsePyRepr("{'b': 1, '10': 2.5, 'a': 'x', '2': True, 'n': None, 'z': -0.0}") as Record<string, number>;
  assert.equal(JSON.stringify(toJsonSafe(flat)), '{"2":true,"10":2.5,"b":1,"a":"x","n":null,"z":0}');
  assert.deepEqual(toJsonSafe({ a: 1, inner: { b: NaN }, l: [1, -Infinity] }), { a: 1, inner: { b: null }, l: [1, null] });
  assert.deepEqual(toJsonSafe({ a: 1, b: 'x', c: NaN }), { a: 1, b: 'x', c: null });
});

test('fuzz: random values round-trip through a Python-style repr; mutated text never throws', () => {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const gen = (depth: number): any => {
    const r = rnd();
    if (depth > 3 || r < 0.5) {
      const k = Math.floor(rnd() * 8);
      return [rnd() * 1000 - 500, Math.floor(rnd() * 1e6), NaN, Infinity, -Infinity, true, null, `s'"\\\n${Math.floor(rnd() * 99)}é`][k];
    }
    if (r < 0.75) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(depth + 1));
    const o: Record<string, any> = {};
    for (let i = 0; i < rnd() * 5; i++) o[`k/${i}_${Math.floor(rnd() * 100)}`] = gen(depth + 1);
    return o;
  };
  const alphabet = "{}[]()'\",: \\nafTNe-+.0123456789";
  for (let i = 0; i < 2000; i++) {
    const v = gen(0);
    const text = pyRepr(v);
    const parsed = parsePyRepr(text);
    assert.deepEqual(toJsonSafe(parsed as any), toJsonSafe(v), text);
    // Mutate: delete, insert or replace a few characters.
    let m = text;
    for (let j = 0; j < 3; j++) {
      const pos = Math.floor(rnd() * (m.length + 1));
      const c = alphabet[Math.floor(rnd() * alphabet.length)] as string;
      const op = rnd();
      m = op < 0.33 ? m.slice(0, pos) + m.slice(pos + 1) : op < 0.66 ? m.slice(0, pos) + c + m.slice(pos) : m.slice(0, pos) + c + m.slice(pos + 1);
    }
    assert.doesNotThrow(() => parsePyRepr(m));
  }
});

test('numbers: the hand-scanned usual forms and the ones left to the full reading give Python’s values', () => {
  const cases: [string, number | undefined][] = [
    ['0.25', 0.25], ['-3', -3], ['+7', 7], ['1e-06', 1e-6], ['-3.5E+2', -350], ['1.', 1], ['007', 7], ['-0', -0],
    ['0x1F', 31], ['-0x10', -16], ['1_000', 1000], ['1_0.5', 10.5], ['.5', 0.5], ['-.5e1', -5], ['2j', 2],
    // NUMBER reads at most 64 characters: a longer number does not parse.
    ['1' + '0'.repeat(70), undefined],
  ];
  for (const [text, want] of cases) {
    for (const after of [',', '}', ' }', ')']) {
      const doc = after === ')' ? `{'k': (${text}${after}}` : `{'k': ${text}${after}${after.endsWith('}') ? '' : " 'z': 1}"}`;
      const v = parsePyRepr(doc) as Record<string, unknown> | undefined;
      const got = v === undefined ? undefined : Array.isArray(v['k']) ? (v['k'] as number[])[0] : v['k'];
      assert.ok(Object.is(got, want), `${JSON.stringify(doc)}: ${String(got)}, want ${String(want)}`);
    }
  }
  // A cut exponent or a stray character ends the number where NUMBER ends it: the dict does not parse.
  for (const bad of ["{'k': 1.5e, 'z': 1}", "{'k': 1x}", "{'k': 1e+}", "{'k': --1}"]) assert.equal(parsePyRepr(bad), undefined, bad);
});
