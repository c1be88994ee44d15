import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { PARALLEL_MIN_BYTES, PRESTARTED_WORKER, WORKER_LIMITS, ingestOnceFile } from '../../src/services/monitor/parallel.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { EFFECTIVE_LINES, RM, metricLine, pyLog, rolloutLines, sampleLine } from './builders.js';

const NOISE = '(SGLangEngine pid=4, ip=10.0.0.3) [2026-08-01 12:00:00 TP0] Decode batch. #running-req: 12, gen throughput (token/s): 1234.56 é';

test('the segment scan on worker threads gives the document of classifying every line (segments cut inside lines, no final newline)', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [...EFFECTIVE_LINES];
    for (let r = 0; r < 12; r++) for (const l of rolloutLines(r, 64)) lines.push(NOISE, l, NOISE);
    lines.push(sampleLine({ reward: 1, instance: 'ünïcode__last-1' }));
    await writeFile(file, lines.join('\n')); // no trailing newline
    const seq = new RunModel();
    for (const l of lines) seq.ingestLine(l);
    for (const [workers, segmentBytes] of [[2, 4096], [3, 997], [5, 65_536], [2, 64]]) {
      for (const mainScans of [false, true]) {
        const par = await ingestOnceFile(file, { workers, minBytes: 0, segmentBytes, aheadPerWorker: 1, mainScans });
        assert.equal(par.workers, workers, 'ran on several threads');
        if (!mainScans) assert.equal(par.segmentsByWorkers, par.segments, 'every segment on a worker thread');
        assert.deepEqual(par.model.toJson(), seq.toJson(), `${workers} threads, segments of ${segmentBytes} bytes, main thread scanning: ${mainScans}`);
      }
    }
    const small = await ingestOnceFile(file);
    assert.equal(small.workers, 1, 'small files stay on the main thread');
    assert.deepEqual(small.model.toJson(), seq.toJson());
  } finally {
    await removeDir(dir);
  }
});

test('--once task totals are exact past the dashboard cap, and a rollout in progress does not count yet', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [];
    // 3 rollouts × 30 tasks, 2 samples each; task t is solved in every attempt when t % 3 = 0, in one of two when 1.
    for (let r = 0; r < 3; r++) {
      for (let t = 0; t < 30; t++) for (let k = 0; k < 2; k++) lines.push(sampleLine({ reward: t % 3 === 0 || (t % 3 === 1 && k === 0) ? 1 : 0, instance: `task__t-${t}` }), NOISE);
      lines.push(metricLine('rollout', r, { 'rollout/raw_reward_trajectory_mean': 0.5 }));
    }
    // In progress: a new task, not closed by a summary line.
    lines.push(sampleLine({ reward: 1, instance: 'task__late-1' }));
    await writeFile(file, lines.join('\n') + '\n');
    const capped = new RunModel({ limits: { tasks: 10 } });
    for (const l of lines) capped.ingestLine(l);
    assert.equal(capped.taskSummary().seen, 10, 'the dashboard model keeps at most its cap');
    for (const workers of [1, 2]) {
      const { model } = await ingestOnceFile(file, { workers, minBytes: 0, segmentBytes: 2000 });
      const s = model.taskSummary();
      assert.deepEqual({ seen: s.seen, always: s.always, sometimes: s.sometimes, never: s.never }, { seen: 30, always: 10, sometimes: 10, never: 10 }, `workers=${workers}`);
    }
  } finally {
    await removeDir(dir);
  }
});

test('--once task totals stay exact through the byte table growing (6,000 names, long and short)', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [];
    const N = 6000;
    // Task i: two attempts, solved in both when i % 3 = 0, in one when 1, in none when 2; names of 3 to 60 bytes.
    for (let k = 0; k < 2; k++) for (let i = 0; i < N; i++) lines.push(sampleLine({ reward: i % 3 === 0 || (i % 3 === 1 && k === 0) ? 1 : 0, instance: `t${i}${'_x'.repeat(i % 29)}` }));
    lines.push(metricLine('rollout', 0, { 'rollout/raw_reward_trajectory_mean': 0.5 }));
    await writeFile(file, lines.join('\n') + '\n');
    for (const workers of [1, 2]) {
      const { model } = await ingestOnceFile(file, { workers, minBytes: 0, segmentBytes: 64 * 1024 });
      const s = model.taskSummary();
      assert.deepEqual({ seen: s.seen, always: s.always, sometimes: s.sometimes, never: s.never }, { seen: N, always: N / 3, sometimes: N / 3, never: N / 3 }, `workers=${workers}`);
    }
  } finally {
    await removeDir(dir);
  }
});

test('a log with more steps and rollouts than the limits: counts exact, series thinned, and the document says so', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [];
    for (let r = 0; r < 300; r++) {
      lines.push(sampleLine({ reward: r % 2, instance: `t-${r}` }));
      lines.push(metricLine('rollout', r, { 'rollout/raw_reward_trajectory_mean': r / 300 }));
      lines.push(RM + pyLog('rollout.py', 1, `perf ${r}: {'perf/rollout_time': 1.5}`));
      lines.push(metricLine('step', r, { 'train/loss': r }));
    }
    await writeFile(file, lines.join('\n') + '\n');
    const m = new RunModel({ limits: { steps: 40, rollouts: 40 } });
    for (const l of lines) m.ingestLine(l);
    const doc = m.toJson() as { steps: { step: number }[]; rollouts: { rollout: number; samples: { total: number } }[]; samples: { total: number }; series?: Record<string, { count: number; listed: number; every: number }> };
    assert.equal(doc.samples.total, 300);
    assert.deepEqual(doc.series, { steps: { count: 300, listed: doc.steps.length, every: 8 }, rollouts: { count: 300, listed: doc.rollouts.length, every: 8 } });
    assert.ok(doc.rollouts.length <= 41);
    assert.equal(doc.rollouts[0]?.rollout, 0);
    assert.equal(doc.rollouts[doc.rollouts.length - 1]?.rollout, 299, 'the newest rollout is always listed');
    assert.ok(doc.rollouts.every((r) => r.samples.total === 1), 'a perf line after a thinned rollout does not open it again');
    assert.equal(m.inProgressRollout, 300);
    // Under the limits nothing is thinned and the document has no `series`.
    const { model } = await ingestOnceFile(file, { workers: 2, minBytes: 0, segmentBytes: 5000 });
    assert.equal((model.toJson() as { series?: unknown }).series, undefined);
    assert.equal((model.toJson() as { rollouts: unknown[] }).rollouts.length, 300);
  } finally {
    await removeDir(dir);
  }
});

test('a scan worker started before its file is known (as bin/swegym-console starts one) is adopted by the scan, once', async () => {
  const dir = await tempDir();
  const slot = globalThis as { [PRESTARTED_WORKER]?: Worker };
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [...EFFECTIVE_LINES];
    for (let r = 0; r < 6; r++) for (const l of rolloutLines(r, 32)) lines.push(NOISE, l);
    await writeFile(file, lines.join('\n') + '\n');
    const seq = new RunModel();
    for (const l of lines) seq.ingestLine(l);
    const worker = new Worker(new URL('../../src/services/monitor/scanWorker.ts', import.meta.url), { workerData: { deferred: true }, resourceLimits: WORKER_LIMITS });
    worker.unref();
    slot[PRESTARTED_WORKER] = worker;
    const adopted = await ingestOnceFile(file, { workers: 2, minBytes: 0, segmentBytes: 2048, mainScans: false });
    assert.equal(adopted.adoptedPrestarted, true);
    assert.equal(slot[PRESTARTED_WORKER], undefined, 'taken once');
    assert.equal(adopted.segmentsByWorkers, adopted.segments);
    assert.deepEqual(adopted.model.toJson(), seq.toJson());
    const again = await ingestOnceFile(file, { workers: 2, minBytes: 0, segmentBytes: 2048, mainScans: false });
    assert.equal(again.adoptedPrestarted, false, 'the next scan starts its own');
    assert.deepEqual(again.model.toJson(), seq.toJson());
  } finally {
    slot[PRESTARTED_WORKER] = undefined;
    await removeDir(dir);
  }
});

test("the entry starts its scan worker with the scan's own limits, for logs as large as the scan's threshold", () => {
  const entry = readFileSync('bin/swegym-console', 'utf8');
  const threshold = /st\.size >= (\d+) \* (\d+) \* (\d+)\)/.exec(entry);
  assert.ok(threshold, 'bin/swegym-console names the size');
  assert.equal(Number(threshold[1]) * Number(threshold[2]) * Number(threshold[3]), PARALLEL_MIN_BYTES);
  const limits = /resourceLimits: \{ maxOldGenerationSizeMb: (\d+), maxYoungGenerationSizeMb: (\d+) \}/.exec(entry);
  assert.ok(limits, 'bin/swegym-console names the limits');
  assert.deepEqual({ maxOldGenerationSizeMb: Number(limits[1]), maxYoungGenerationSizeMb: Number(limits[2]) }, WORKER_LIMITS);
});
