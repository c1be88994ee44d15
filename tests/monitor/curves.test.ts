// The curves' pure parts: raw envelope + EMA on one grid, the rollout x-axis, names that fit, group histograms,
// smoothing steps, and the model data they are drawn from (groups, every metric key, steps per rollout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brailleChart, curvePlot, ema, fitName, groupHistogram, stepSmoothing, xAxisLabels, type CurveSegment } from '../../src/ui/charts.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { metricSeries, sortedRecords } from '../../src/services/monitor/curves.js';
import { EFFECTIVE_LINES, metricLine, rolloutLines, stepMetrics } from './builders.js';

const cells = (row: CurveSegment[], layer: CurveSegment['layer']) => row.filter((s) => s.layer === layer).reduce((n, s) => n + [...s.text].length, 0);

test('a single spike among 1000 points reaches the top row as raw, and sets the y range; the EMA stays low', () => {
  const y = Array.from({ length: 1000 }, (_, i) => (i === 500 ? 5 : 0.3));
  const x = y.map((_, i) => i);
  const p = curvePlot({ x, y }, 20, 4, { smoothing: 0.9 });
  assert.deepEqual(p.range, [0.3, 5]);
  assert.ok(cells(p.rows[0]!, 'raw') > 0, 'the spike is drawn in the top row');
  assert.equal(cells(p.rows[0]!, 'ema'), 0, 'the smoothed line does not reach the spike');
  assert.ok(cells(p.rows[3]!, 'ema') >= 18, 'the EMA runs along the bottom');
  // What was drawn before: the EMA alone, with its own range, where the spike is a bump of 0.47.
  const old = brailleChart(ema(y, 0.9), 20, 4);
  assert.ok((old.range?.[1] ?? 0) < 1, `old range ${old.range}`);
  assert.deepEqual(p.domain, [0, 999]);
});

test('no smoothing: only raw; a compared run is its own layer, and widens the range where it overlaps', () => {
  const main = { x: [0, 1, 2, 3, 4], y: [0.2, 0.22, 0.24, 0.26, 0.3] };
  const p0 = curvePlot(main, 10, 3, { smoothing: 0 });
  assert.ok(p0.rows.every((r) => cells(r, 'ema') === 0 && cells(r, 'compare') === 0));
  const cmp = { x: [0, 1, 2, 3, 4, 5, 6], y: [0.9, 0.9, 0.9, 0.9, 0.9, 50, 50] };
  const p = curvePlot(main, 10, 3, { smoothing: 0, compare: cmp });
  // Rollouts 5 and 6 lie beyond the open run's last rollout: not drawn, not in the range.
  assert.deepEqual(p.range, [0.2, 0.9]);
  assert.ok(cells(p.rows[0]!, 'compare') >= 9, 'the compared run runs along the top');
});

test('gaps (NaN, inf) are skipped; an empty series is blank', () => {
  const p = curvePlot({ x: [0, 1, 2, 3], y: [1, NaN, Infinity, 2] }, 4, 2);
  assert.deepEqual(p.range, [1, 2]);
  const e = curvePlot({ x: [], y: [] }, 5, 2);
  assert.equal(e.range, undefined);
  assert.deepEqual(e.rows.map((r) => r.map((s) => s.text).join('')), ['     ', '     ']);
});

test('x-axis: first and last rollout at the ends, round ticks between, the cursor where it hides no label', () => {
  const a = xAxisLabels([0, 29], 30);
  assert.equal(a.length, 30);
  assert.match(a, /^0 /);
  assert.match(a, / 29$/);
  const wide = xAxisLabels([0, 100], 60);
  assert.match(wide, /^0\s+20\s+40\s+60\s+80\s+100$/);
  assert.equal(xAxisLabels([0, 29], 30, 10)[10], '▲');
  assert.equal(xAxisLabels(undefined, 4), '    ');
});

test('names fit without losing what tells metrics apart', () => {
  assert.equal(fitName('reward (trajectory mean)', 'rollout/raw_reward_trajectory_mean', 30), 'reward (trajectory mean)');
  assert.equal(fitName('reward (trajectory mean)', 'rollout/raw_reward_trajectory_mean', 16), 'reward traj mean');
  assert.equal(fitName('reward (trajectory mean)', 'rollout/raw_reward_trajectory_mean', 23), 'reward trajectory mean');
  assert.equal(fitName('rollout/zero_std/count_0.0', 'rollout/zero_std/count_0.0', 18), 'zero std/count 0.0');
  const cut = fitName('perf/effective_tokens_per_gpu_per_sec', 'perf/effective_tokens_per_gpu_per_sec', 14);
  assert.equal([...cut].length, 14);
  assert.match(cut, /…/);
  assert.match(cut, /sec$/, 'the end is kept');
});

test('group histogram counts groups by solved samples', () => {
  const h = groupHistogram([
    { n: 8, solved: 0 },
    { n: 8, solved: 0 },
    { n: 8, solved: 3 },
    { n: 8, solved: 8 },
  ]);
  assert.deepEqual(h.counts, [2, 0, 0, 1, 0, 0, 0, 0, 1]);
  assert.equal(h.uniform, true);
  assert.equal(groupHistogram([{ n: 8, solved: 1 }, { n: 6, solved: 6 }]).uniform, false);
});

test('smoothing steps like a slider: 0 … 0.99, clamped', () => {
  assert.equal(stepSmoothing(0.6, 1), 0.8);
  assert.equal(stepSmoothing(0.6, -1), 0.3);
  assert.equal(stepSmoothing(0, -1), 0);
  assert.equal(stepSmoothing(0.99, 1), 0.99);
  assert.equal(stepSmoothing(0.5, 1), 0.6);
});

test('the model keeps each rollout\'s groups, every metric key, and the steps per rollout; --once --json is unchanged', () => {
  const m = new RunModel();
  for (const l of EFFECTIVE_LINES) m.ingestLine(l);
  for (let r = 0; r < 3; r++) for (const l of rolloutLines(r)) m.ingestLine(l);
  const rec = m.rollouts.get(2)!;
  // rolloutLines: 128 samples over task__repo-0..7, every third solved → groups of 16 with 6 or 5 solved.
  assert.equal(rec.groups.length, 8);
  assert.deepEqual(rec.groups.map((g) => g.solved), [6, 5, 5, 6, 5, 5, 6, 5]);
  assert.ok(rec.groups.every((g) => g.n === 16 && g.raw === g.solved));
  assert.deepEqual(groupHistogram(rec.groups).counts.slice(5, 7), [5, 3]);
  for (const k of ['train/grad_norm', 'rollout/raw_reward', 'perf/rollout_time', 'rollout/zero_std/count_0.0']) assert.ok(m.metricKeys.has(k), k);
  assert.equal(m.metricKeys.get('train/loss'), 'step');
  assert.equal(m.metricKeys.get('perf/rollout_time'), 'rollout');
  assert.equal(m.stepsPerRollout, 1);
  const json = m.toJson() as { rollouts: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(json.rollouts[0]!), ['rollout', 'metrics', 'samples']);
  assert.deepEqual(Object.keys(json).sort(), ['effective', 'in_progress', 'rollouts', 'run', 'samples', 'steps']);
});

test('train metrics land on the rollout axis (2 steps per rollout: step 5 is rollout 2.5)', () => {
  const m = new RunModel();
  m.ingestLine('effective_batch: num_rollout=10 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=64');
  for (let s = 0; s < 6; s++) m.ingestLine(metricLine('step', s, stepMetrics(s)));
  assert.equal(m.stepsPerRollout, 2);
  const series = metricSeries(sortedRecords(m), 'step', 'train/loss', 'loss');
  assert.deepEqual(series.x, [0, 0.5, 1, 1.5, 2, 2.5]);
  assert.equal(series.y[5], 0.0123 + 5 / 1000);
});
