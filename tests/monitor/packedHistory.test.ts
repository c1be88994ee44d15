import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { PackedHistory, PackedRollout, PackedStep, hasMetric, metricOf } from '../../src/services/monitor/packedHistory.js';
import { RunModel, type RolloutRecord, type StepRecord } from '../../src/services/monitor/runModel.js';
import type { PyDict, PyValue } from '../../src/services/monitor/pyReprParse.js';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { rolloutLines, runWithLateLines } from './builders.js';

/** A deep copy with ordinary prototypes and a `__proto__` key as data, as the log's dict reader builds a dict. */
function plain<T>(v: T): T {
  if (Array.isArray(v)) return v.map(plain) as T;
  if (v === null || typeof v !== 'object') return v;
  const out = {};
  for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: plain((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
  return out as T;
}

const key = fc.oneof(fc.constantFrom('rollout/raw_reward', 'perf/rollout_time', 'train/loss', 'a', '', '__proto__', 'toString'), fc.string({ maxLength: 12 }));
const number = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1, 2 ** 53), fc.integer());
const pyValue: fc.Arbitrary<PyValue> = fc.oneof(
  { weight: 8, arbitrary: number },
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(number, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), number, { maxKeys: 2 }),
);
const metrics: fc.Arbitrary<PyDict> = fc.dictionary(key, pyValue, { maxKeys: 40 });
const count = fc.nat({ max: 2 ** 31 - 1 });
const counts = fc.dictionary(fc.oneof(fc.string({ maxLength: 24 }), fc.constant('__proto__')), count, { maxKeys: 5 });
const time = fc.option(fc.double({ min: 0, max: 2e12, noNaN: true }), { nil: undefined });

const rolloutRecord: fc.Arbitrary<RolloutRecord> = fc.record({
  rollout: fc.nat(),
  metrics,
  samples: fc.record({ total: count, reward_one: count, raw_one: count, integrity_violations: count, by_reason: counts }),
  failures: fc.record({ aborted_samples: count, failed_groups: count, group_retries: count, eval_failures: count, early_stops: counts, transient_retries: count }),
  at: time,
  startedAt: time,
  groups: fc.array(fc.record({ instance: fc.string({ maxLength: 30 }), n: count, solved: count, raw: count }), { maxLength: 20 }),
}).map(plain);

/** The record's fields as a packed record answers them: equal values (Object.is: NaN, -0) and the same key order. */
function assertSameRollout(packed: RolloutRecord, r: RolloutRecord): void {
  assert.deepEqual(packed.metrics, r.metrics);
  assert.deepEqual(Object.keys(packed.metrics), Object.keys(r.metrics));
  assert.deepEqual(packed.samples, r.samples);
  assert.deepEqual(Object.keys(packed.samples.by_reason), Object.keys(r.samples.by_reason));
  assert.deepEqual(packed.failures, r.failures);
  assert.equal(JSON.stringify(packed.failures), JSON.stringify(r.failures), 'in the same key order');
  assert.deepEqual(packed.groups, r.groups);
  assert.equal(packed.at, r.at);
  assert.equal(packed.startedAt, r.startedAt);
  assert.equal(packed.rollout, r.rollout);
}

test('fast-check: a packed rollout answers every field as the record it was packed from (numbers of any kind, non-numbers, key order)', () => {
  // One store for many records: interned key lists, names and chunks shared between them.
  const store = new PackedHistory();
  fc.assert(
    fc.property(fc.array(rolloutRecord, { minLength: 1, maxLength: 8 }), (records) => {
      const packed = records.map((r) => store.packRollout(r));
      records.forEach((r, i) => {
        const p = packed[i] as PackedRollout;
        assert.ok(p instanceof PackedRollout);
        assertSameRollout(p, r);
        assertSameRollout(p.unpacked(), r);
        for (const k of [...Object.keys(r.metrics), 'missing key', 'toString', '__proto__']) {
          assert.deepEqual(metricOf(p, k), Object.hasOwn(r.metrics, k) ? r.metrics[k] : undefined, k);
          assert.equal(hasMetric(p, k), Object.hasOwn(r.metrics, k), k);
        }
      });
    }),
    { numRuns: 300 },
  );
});

test('fast-check: a packed step answers its metrics and time as the record it was packed from', () => {
  const store = new PackedHistory();
  fc.assert(
    fc.property(fc.record({ step: fc.nat(), metrics, at: time }).map(plain), (s: StepRecord) => {
      const p = store.packStep(s);
      assert.ok(p instanceof PackedStep);
      assert.deepEqual(p.metrics, s.metrics);
      assert.deepEqual(Object.keys(p.metrics), Object.keys(s.metrics));
      assert.equal(p.at, s.at);
      assert.deepEqual(p.unpacked(), s);
      for (const k of Object.keys(s.metrics)) assert.deepEqual(metricOf(p, k), s.metrics[k]);
    }),
    { numRuns: 300 },
  );
});

test('a record larger than a chunk gets one of its own, and the records around it stay whole', () => {
  const store = new PackedHistory();
  const big: PyDict = {};
  for (let i = 0; i < 40_000; i++) big[`k${i}`] = i / 7;
  const small = (n: number): RolloutRecord => ({ rollout: n, metrics: { a: n, b: 'x' }, samples: { total: n, reward_one: 0, raw_one: 0, integrity_violations: 0, by_reason: { r: n } }, failures: { aborted_samples: 0, failed_groups: 0, group_retries: 0, eval_failures: 0, early_stops: {}, transient_retries: 0 }, at: n, startedAt: undefined, groups: [{ instance: 't', n: 2, solved: 1, raw: 1 }] });
  const records = [small(1), { ...small(2), metrics: big }, small(3)];
  const packed = records.map((r) => store.packRollout(r) as PackedRollout);
  records.forEach((r, i) => assertSameRollout(packed[i] as PackedRollout, r));
});

test('a count that is not a 32-bit integer leaves the record unpacked', () => {
  const store = new PackedHistory();
  const r: RolloutRecord = { rollout: 0, metrics: {}, samples: { total: 2 ** 31, reward_one: 0, raw_one: 0, integrity_violations: 0, by_reason: {} }, failures: { aborted_samples: 0, failed_groups: 0, group_retries: 0, eval_failures: 0, early_stops: {}, transient_retries: 0 }, at: undefined, startedAt: undefined, groups: [] };
  assert.equal(store.packRollout(r), undefined);
  assert.equal(store.packRollout({ ...r, samples: { ...r.samples, total: 1.5 } }), undefined);
  assert.ok(store.packRollout({ ...r, samples: { ...r.samples, total: 2 ** 31 - 1 } }));
});

test('a model that packs its older records answers as one that does not: document, curves, sorted records, tasks', () => {
  for (const seed of [1, 2, 3]) {
    for (const limits of [undefined, { rollouts: 16, steps: 16 }]) {
      const lines = runWithLateLines(seed, 60);
      const plain = new RunModel({ name: 'r', clock: () => 0, limits });
      for (const l of lines) plain.ingestLine(l);
      for (const unpacked of [0, 1, 7]) {
        const m = new RunModel({ name: 'r', clock: () => 0, limits, unpackedRecords: unpacked });
        for (const l of lines) m.ingestLine(l);
        const what = `seed ${seed}, limits ${JSON.stringify(limits)}, ${unpacked} unpacked`;
        assert.equal(m.toJsonText(), plain.toJsonText(), what);
        assert.deepEqual(m.toJson(), plain.toJson(), what);
        const packedNow = [...m.rollouts.values()].filter((r) => r instanceof PackedRollout).length;
        assert.ok(packedNow >= Math.min(m.rollouts.size, 16) - unpacked - 5, `${what}: ${packedNow} of ${m.rollouts.size} packed`);
        const recs = m.sortedRollouts();
        plain.sortedRollouts().forEach((r, i) => assertSameRollout(recs[i] as RolloutRecord, r));
        for (const k of ['rollout/raw_reward', 'rollout/late', 'perf/flag', 'rollout/zero_std/count_0.0']) assert.deepEqual(m.series('rollout', k), plain.series('rollout', k), `${what}: ${k}`);
        for (const k of ['train/loss', 'train/late']) assert.deepEqual(m.series('step', k), plain.series('step', k), `${what}: ${k}`);
        assert.deepEqual(m.taskSummary(), plain.taskSummary(), what);
        assert.equal(m.secondsPerRollout(), plain.secondsPerRollout(), what);
      }
    }
  }
});

test('the dashboard of a followed run whose older records are packed shows what it shows with none packed', async () => {
  const dir = await tempDir();
  const log = path.join(dir, 'run.log');
  await writeFile(log, runWithLateLines(7, 80).join('\n') + '\n');
  const service = (unpackedRecords: number) =>
    new MonitorService({ paths: recipePaths(dir), store: createMonitorStore(), clock: () => 1_790_000_000_000, unpackedRecords, rayDashboardUrl: 'http://127.0.0.1:1', gpuRunner: async () => ({ ok: false, stdout: '', error: 'none' }), provider: async () => undefined, pollMs: { log: 60_000, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 60_000, stream: 60_000 } });
  const packing = service(4);
  const plain = service(Number.POSITIVE_INFINITY);
  try {
    await packing.open(log);
    await plain.open(log);
    await waitFor(() => packing.snapshot().header.rollout === 80 && plain.snapshot().header.rollout === 80, { timeoutMs: 20_000, message: () => 'the log was never read whole' });
    const packed = [...(packing.model as RunModel).rollouts.values()].filter((r) => r instanceof PackedRollout).length;
    assert.ok(packed >= 70, `${packed} rollouts packed`);
    assert.equal([...(plain.model as RunModel).rollouts.values()].filter((r) => r instanceof PackedRollout).length, 0);
    // The curve view's focus opens every metric's full series too.
    for (const s of [packing, plain]) s.curves.focus('rollout/late');
    // Everything read from the run model; the pollers' panels (GPUs, Ray, the proxy) answer on their own time.
    const fromModel = (svc: MonitorService) => {
      const { header, charts, curves, rollouts, feed, failures, totals, tasks, alerts } = svc.snapshot();
      return { header, charts, curves, rollouts, feed, failures, totals, tasks, alerts };
    };
    const a = fromModel(packing);
    assert.ok(a.rollouts.length === 80 && a.charts.some((c) => c.x.length === 80) && a.curves?.focus !== undefined, 'rows, charts and the focused curve are all there');
    assert.deepEqual(a, fromModel(plain));
  } finally {
    await packing.close();
    await plain.close();
    await removeDir(dir);
  }
});

test('past the series\' limits the packed bytes stay bounded: a thinned-out record leaves nothing behind', () => {
  const m = new RunModel({ clock: () => 0, limits: { rollouts: 64, steps: 64 }, unpackedRecords: 8 });
  const plain = new RunModel({ clock: () => 0, limits: { rollouts: 64, steps: 64 } });
  const bytes: number[] = [];
  for (let r = 0; r < 2000; r++) {
    for (const l of rolloutLines(r, 4)) {
      m.ingestLine(l);
      plain.ingestLine(l);
    }
    if (r % 250 === 249) bytes.push((m as unknown as { packed: PackedHistory }).packed.bytes);
  }
  // 2000 rollouts thinned to ≤ 65 kept: a chunk or two of each kind, however long the run.
  assert.ok(Math.max(...bytes) <= 4 * 16_384 * 8, `packed bytes ${bytes.join(', ')}`);
  assert.ok(m.rollouts.every >= 32);
  assert.equal(m.toJsonText(), plain.toJsonText());
});
