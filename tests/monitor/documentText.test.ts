// RunModel.toJsonText writes the --once --json document in parts, with the metrics texts settleDocumentText wrote
// during the scan; it must be byte for byte JSON.stringify of toJson() with the same extra keys, whenever the
// records change after their text was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from '../helpers/property.js';
import { RunModel, metricsJson } from '../../src/services/monitor/runModel.js';
import { parsePyDictAt, toJsonSafe, type PyDict, type PyValue } from '../../src/services/monitor/pyReprParse.js';
import { ingestOnceFile } from '../../src/services/monitor/parallel.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { metricLine, pyLog, RM, sampleLine, type Py } from './builders.js';

function rng(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

/** A run's lines in a shuffled-enough order: rollouts get rollout, perf and eval lines, steps repeat, values change. */
function runLines(rnd: () => number, rollouts: number): string[] {
  const lines: string[] = [];
  const value = (): Py => [0.25, -3, 1e-6, NaN, Infinity, -Infinity, true, null, 'x', 12020.01680672269, [1, NaN]][Math.floor(rnd() * 11)] as Py;
  for (let r = 0; r < rollouts; r++) {
    for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) lines.push(sampleLine({ reward: Math.floor(rnd() * 2), instance: `t-${Math.floor(rnd() * 5)}`, reason: rnd() < 0.5 ? '' : 'fail_to_pass_failure' }));
    lines.push(metricLine('perf', r, { 'rollout/raw_reward_trajectory_mean': value(), 'perf/rollout_time': value() }));
    lines.push(metricLine('rollout', r, { 'rollout/raw_reward': value(), 'rollout/rewards': value() }));
    // An earlier rollout or step changes again, after its text may have been written.
    const back = Math.max(0, r - Math.floor(rnd() * 4));
    if (rnd() < 0.3) lines.push(metricLine('eval', back, { 'eval/score': value(), 'rollout/raw_reward': value() }));
    lines.push(metricLine('step', r, { 'train/loss': value(), 'train/step': r }));
    if (rnd() < 0.3) lines.push(metricLine('step', back, { 'train/loss': value(), 'train/grad_norm': value() }));
    if (rnd() < 0.1) lines.push(RM + pyLog('rollout.py', 1, `perf ${back}: {'10': 1, 'b': 'y'}`));
  }
  return lines;
}

test('toJsonText is JSON.stringify of the document, with texts settled between any batches of lines', () => {
  const rnd = rng(2024);
  for (let run = 0; run < 40; run++) {
    const limits = run % 4 === 0 ? { steps: 16, rollouts: 16 } : {};
    const cached = new RunModel({ name: `run-${run}`, limits, documentText: true, clock: () => 1000 });
    const plain = new RunModel({ name: `run-${run}`, limits, clock: () => 1000 });
    const lines = runLines(rnd, 10 + Math.floor(rnd() * 50));
    for (const l of lines) {
      cached.ingestLine(l);
      plain.ingestLine(l);
      if (rnd() < 0.2) cached.settleDocumentText();
      if (rnd() < 0.03) assert.equal(cached.toJsonText({ liveness: { state: 'x' } }), JSON.stringify({ ...(plain.toJson() as object), liveness: { state: 'x' } }));
    }
    cached.settleDocumentText();
    const extra = { liveness: { state: 'finished', last_line_ago_s: 3, gone: undefined } };
    assert.equal(cached.toJsonText(extra), JSON.stringify({ ...(plain.toJson() as object), ...extra }), `run ${run}`);
    assert.equal(cached.toJsonText(), JSON.stringify(plain.toJson()));
    // Settling did write texts (else this compares the plain path with itself).
    assert.ok(cached['metricsText'] !== undefined);
  }
});

test('toJsonText: extra keys the document has, or array indices, take their place as a spread would put them', () => {
  const m = new RunModel({ documentText: true });
  for (const l of runLines(rng(5), 5)) m.ingestLine(l);
  m.settleDocumentText();
  m.settleDocumentText();
  for (const extra of [{ samples: 1 }, { '1': 'x' }, { run: undefined }, { 'a b': [1] }]) {
    assert.equal(m.toJsonText(extra), JSON.stringify({ ...(m.toJson() as object), ...extra }), JSON.stringify(extra));
  }
});

test('settled texts are used: a record left alone for a batch is written once, during the scan', () => {
  const m = new RunModel({ documentText: true });
  m.ingestLine(metricLine('step', 1, { 'train/loss': 0.5 }));
  m.ingestLine(metricLine('rollout', 1, { 'rollout/raw_reward': 0.25 }));
  m.settleDocumentText();
  m.settleDocumentText();
  const metrics = m.steps.get(1)?.metrics as object;
  assert.equal((m['metricsText'] as WeakMap<object, string>).get(metrics), '{"train/loss":0.5}');
  assert.equal((m['metricsText'] as WeakMap<object, string>).get(m.rollouts.get(1)?.metrics as object), '{"rollout/raw_reward":0.25}');
  // A change drops the text; the document shows the change.
  m.ingestLine(metricLine('step', 1, { 'train/loss': NaN }));
  assert.equal((m['metricsText'] as WeakMap<object, string>).get(metrics), undefined);
  assert.match(m.toJsonText(), /"metrics":\{"train\/loss":null\}/);
  // Nor is it written again: a log that comes back to its records would write and drop texts without end.
  m.settleDocumentText();
  m.settleDocumentText();
  assert.equal((m['metricsText'] as WeakMap<object, string>).get(metrics), undefined);
  assert.match(m.toJsonText(), /"metrics":\{"train\/loss":null\}/);
  // A line that adds keys to a settled record: its metrics are a new object (kept compact), still left to the end.
  const rolloutMetrics = m.rollouts.get(1)?.metrics as object;
  m.ingestLine(metricLine('perf', 1, { 'perf/rollout_time': 12.5 }));
  const grown = m.rollouts.get(1)?.metrics as object;
  assert.notEqual(grown, rolloutMetrics);
  assert.deepEqual(grown, { 'rollout/raw_reward': 0.25, 'perf/rollout_time': 12.5 });
  m.settleDocumentText();
  m.settleDocumentText();
  assert.equal((m['metricsText'] as WeakMap<object, string>).get(grown), undefined);
  assert.match(m.toJsonText(), /"rollout":1,"metrics":\{"rollout\/raw_reward":0.25,"perf\/rollout_time":12.5\}/);
});

test('the --once --json scan on workers settles texts as segments arrive; the document is the one of classifying every line', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines = runLines(rng(31), 120);
    await writeFile(file, lines.join('\n') + '\n');
    const reference = new RunModel({ name: 'run' });
    for (const l of lines) reference.ingestLine(l);
    const extra = { liveness: { state: 'finished' } };
    const want = JSON.stringify({ ...(reference.toJson() as object), ...extra });
    for (const workers of [1, 2]) {
      const { model } = await ingestOnceFile(file, { name: 'run', documentOnly: true, workers, minBytes: 0, segmentBytes: 2000 });
      // The settling runs after the results are applied (setImmediate): let the last one run.
      await new Promise((resolve) => setImmediate(resolve));
      const cache = model['metricsText'] as WeakMap<object, string>;
      // On one thread the scan runs without a break, so nothing settles before the end (nor needs to).
      if (workers > 1) assert.ok(model.sortedRollouts().some((r) => cache.has(r.metrics)), `workers=${workers}: texts were written during the scan`);
      assert.equal(model.toJsonText(extra), want, `workers=${workers}`);
    }
  } finally {
    await removeDir(dir);
  }
});

// Values as the dict parser gives them: finite and non-finite numbers (-0 too), strings, booleans, None, lists and
// dicts at any depth, keys that look like numbers, and `__proto__` as a key (data, as in Python).
const key = fc.oneof(fc.string(), fc.constantFrom('0', '10', '-1', 'train/loss', '__proto__'));
const pyValue: fc.Arbitrary<PyValue> = fc.letrec<{ value: PyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.double(),
    fc.constantFrom(NaN, Infinity, -Infinity, -0, 1e21, 5e-324),
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

test('fast-check: metricsJson writes a parsed dict as JSON.stringify(toJsonSafe(…)) does, non-finite numbers as null at any depth', () => {
  fc.assert(
    fc.property(fc.dictionary(key, pyValue, { maxKeys: 8 }), (dict) => {
      assert.equal(metricsJson(dict as PyDict), JSON.stringify(toJsonSafe(dict)));
    }),
    { numRuns: 2000 },
  );
  const parsed = parsePyDictAt("{'a': nan, 'b': [inf, {'c': -inf}], 'd': (1, -0.0), 'e': None, 'f': 'x'}", 0)?.dict as PyDict;
  assert.equal(metricsJson(parsed), '{"a":null,"b":[null,{"c":null}],"d":[1,0],"e":null,"f":"x"}');
  assert.equal(metricsJson(parsed), JSON.stringify(toJsonSafe(parsed)));
  // `__proto__` is a key like any other, the last of two equal keys wins (Python's dict), in both writers.
  for (const [repr, json] of [
    ["{'__proto__': None, '__proto__': {}}", '{"__proto__":{}}'],
    ["{'__proto__': 1, 'a': nan}", '{"__proto__":1,"a":null}'],
    ["{'x': {'__proto__': [inf]}}", '{"x":{"__proto__":[null]}}'],
  ] as const) {
    const d = parsePyDictAt(repr, 0)?.dict as PyDict;
    assert.equal(metricsJson(d), json, repr);
    assert.equal(JSON.stringify(toJsonSafe(d)), json, repr);
  }
});
