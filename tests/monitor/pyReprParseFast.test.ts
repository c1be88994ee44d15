// The fast paths of the metrics-line reading against the general ones they stand in for: the JSON reading of flat
// dicts (pyReprParse.ts) and the cached day of the logging prefix's time (lines.ts). Each must give exactly what the
// general path gives, or step aside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { flatDictAsJson, parsePyDictAt, parsePyDictAtGeneral } from '../../src/services/monitor/pyReprParse.js';
import { logTime, parseLine } from '../../src/services/monitor/lines.js';

function rng(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

const KEYS = ['train/loss', 'rollout/raw_reward', 'perf/step_time', 'gpu', '10', '2', 'a b', 'x}y', "it's", 'q"q', 'b\\s', 'n[0]', '__proto__', 'true', 'is_null', 'inf', 'nan', '', 'é/ü', 'k{'];
const VALUES = [
  '0.30', '-3', '128', '1e-06', '-1.0958962927530332e-09', '1.5E+20', '-0', '-0.0', '0.0', '1' + '0'.repeat(70), '1' + '0'.repeat(63), '9'.repeat(30),
  '+7', '.5', '1.', '007', '0x1F', '1_000', 'nan', 'inf', '-inf', 'True', 'False', 'None', 'true', 'null', "'0'", "'text, with: {brace}'", '"dq"', "'a\\'b'",
  "''", '[1, 2]', '(1,)', "{'in': 1}", 'np.float64(0.5)', "'\t'",
];
const SEPS = [', ', ',', ' , ', ',\t', ',\n '];

function flatDict(rnd: () => number, plain: boolean): string {
  const n = Math.floor(rnd() * 8);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = plain ? (KEYS[Math.floor(rnd() * 4)] as string) : (KEYS[Math.floor(rnd() * KEYS.length)] as string);
    const key = k.includes("'") ? `"${k}"` : `'${k}'`;
    const v = plain ? (VALUES[Math.floor(rnd() * 7)] as string) : (VALUES[Math.floor(rnd() * VALUES.length)] as string);
    parts.push(`${key}: ${v}`);
  }
  let body = '';
  parts.forEach((p, i) => (body += (i ? (plain ? ', ' : (SEPS[Math.floor(rnd() * SEPS.length)] as string)) : '') + p));
  const tails = ['', '', ' ', '  \t', '\u00a0', ' [repeated 2x across cluster]', '}', ' x'];
  return `{${body}}${plain ? '' : (tails[Math.floor(rnd() * tails.length)] as string)}`;
}

function same(text: string, start: number): void {
  const fast = parsePyDictAt(text, start);
  const general = parsePyDictAtGeneral(text, start);
  assert.ok(isDeepStrictEqual(fast, general), `${JSON.stringify(text)}: ${String(fast && JSON.stringify(fast))} vs ${String(general && JSON.stringify(general))}`);
  // deepStrictEqual compares prototypes by reference; one set from a `__proto__` key is a new object each time.
  if (fast) assert.ok(isDeepStrictEqual(Object.getPrototypeOf(fast.dict), Object.getPrototypeOf(general?.dict)), `${JSON.stringify(text)}: prototype`);
}

test('the JSON reading of flat dicts answers the usual metrics line, as the parser reads it', () => {
  const line = "{'train/loss': -0.0065, 'train/ppo_kl': -6.69644471082756e-06, 'train/lr-pg_0': 1e-06, 'train/step': 5, 'gpu': '0', 'z': -0.0, '10': 2}";
  const fast = flatDictAsJson(line, 0);
  assert.ok(fast, 'the fast path reads the usual line');
  assert.ok(isDeepStrictEqual(fast, parsePyDictAtGeneral(line, 0)));
  assert.ok(Object.is(fast.dict['z'], -0));
  assert.deepEqual(Object.keys(fast.dict), ['10', 'train/loss', 'train/ppo_kl', 'train/lr-pg_0', 'train/step', 'gpu', 'z']);
  // After a message, with trailing spaces: the end is the dict's.
  const msg = `step 5: ${line}  `;
  const r = parsePyDictAt(msg, msg.indexOf('{'));
  assert.equal(r?.end, msg.length - 2);
});

test('the JSON reading steps aside where Python and JSON differ', () => {
  const aside = [
    "{'a': nan}", "{'a': -inf}", "{'a': True}", "{'a': None}", // not JSON
    "{'a': true}", "{'a': null}", // JSON literals, which Python reads as names
    "{'__proto__': {'x': 1}}", "{'__proto__': 1}", // a key in both, left to the parser (rare)
    `{'k': 1${'0'.repeat(70)}}`, // the parser reads 64 characters of a number at most
    "{'a': [1, 2]}", "{'a': {'b': 1}}", "{'a': (1,)}", // nested
    `{"it's": 1}`, "{'a\\'b': 1}", // other quotes, escapes
    "{'a': 1} trailing", "{'a': 1}}", // not the dict alone
  ];
  for (const text of aside) {
    assert.equal(flatDictAsJson(text, 0), undefined, text);
    same(text, 0);
  }
  // The parser's readings where the fast path steps aside.
  assert.equal(parsePyDictAt(`{'k': 1${'0'.repeat(70)}}`, 0), undefined);
  const proto = parsePyDictAt("{'__proto__': {'x': 1}}", 0)?.dict as object;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype, 'a key, not the prototype');
  assert.deepEqual(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value, { x: 1 });
  assert.ok(Object.is(parsePyDictAt("{'a': nan}", 0)?.dict['a'], NaN));
});

test('differential: generated and mutated dicts read the same by both paths', () => {
  const rnd = rng(4242);
  let answered = 0;
  const alphabet = "{}[]()'\",: \\nafTNe-+.0123456789_x\t";
  for (let i = 0; i < 6000; i++) {
    const plain = i % 3 === 0;
    const text = flatDict(rnd, plain);
    if (flatDictAsJson(text, 0)) answered++;
    same(text, 0);
    const prefixed = `rollout 3: ${text}`;
    same(prefixed, prefixed.indexOf('{'));
    let m = text;
    for (let j = 0; j < 2; j++) {
      const pos = Math.floor(rnd() * (m.length + 1));
      const c = alphabet[Math.floor(rnd() * alphabet.length)] as string;
      const op = rnd();
      m = op < 0.33 ? m.slice(0, pos) + m.slice(pos + 1) : op < 0.66 ? m.slice(0, pos) + c + m.slice(pos) : m.slice(0, pos) + c + m.slice(pos + 1);
    }
    same(m, 0);
  }
  // Enough of them went the fast way for the comparison to mean something.
  assert.ok(answered > 2000, `fast path answered ${answered}`);
});

test('logTime gives Date.parse’s time, valid or not, across day changes', () => {
  const rnd = rng(99);
  const pad = (n: number) => String(n).padStart(2, '0');
  const dates = ['2026-11-20', '2026-11-21', '2024-02-29', '2023-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-04-31', '2026-12-31', '0000-01-01', '2026-11-00', '2026-11-32'];
  for (let i = 0; i < 20000; i++) {
    const d = dates[Math.floor(rnd() * dates.length)] as string;
    const t = `${pad(Math.floor(rnd() * 26))}:${pad(Math.floor(rnd() * 61))}:${pad(Math.floor(rnd() * 61))}`;
    const want = Date.parse(`${d}T${t}Z`);
    assert.ok(Object.is(logTime(d, t), want), `${d} ${t}: ${logTime(d, t)} vs ${want}`);
  }
  // Through parseLine: the logging prefix's time.
  const p = parseLine("[2026-11-20 23:59:59] model.py:586 - step 5: {'train/loss': 0.5}");
  assert.equal(p.time, Date.parse('2026-11-20T23:59:59Z'));
  assert.equal(parseLine("[2026-11-21 24:00:00] model.py:586 - step 5: {'a': 1}").time, Date.parse('2026-11-21T24:00:00Z'));
});
