// The curves' pure parts: raw envelope + EMA on one grid, the rollout x-axis, names that fit, group histograms,
// smoothing steps, and the model data they are drawn from (groups, every metric key, steps per rollout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brailleChart, ema, fitName, groupHistogram } from '../../src/ui/charts.js';
import { curvePlot, plotAxis, stepSmoothing, xAxisLabels, type CurveSegment } from '../../src/ui/curvePlot.js';
import fc from '../helpers/property.js';
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

const cellsOf = (row: CurveSegment[]) => [...row.map((s) => s.text).join('')];
/** `min`..`max` values of 0..1 in steps of 1/1000 (fast-check's doubles crowd at the bounds, which moves every range). */
const unitSeries = (min: number, max: number) => fc.integer({ min, max }).chain((n) => fc.array(fc.integer({ min: 0, max: 1000 }).map((v) => v / 1000), { minLength: n, maxLength: n }));

test('plotAxis: the data lies inside the plot and fills a third of it or more, at whole pixels per unit or whole units per pixel', () => {
  fc.assert(
    fc.property(fc.integer({ min: -4e5, max: 4e5 }).map((q) => q / 4), fc.double({ min: 0, max: 1e5, noNaN: true }), fc.integer({ min: 2, max: 240 }), (x0, data, px) => {
      const x1 = x0 + data;
      const { start, span } = plotAxis(x0, x1, px);
      if (!(x1 - x0 > 0)) return assert.equal(span, 0);
      assert.ok(start <= x0 && x1 <= start + span + 1e-9 * Math.max(1, Math.abs(x1)), `[${x0}, ${x1}] outside [${start}, ${start + span}]`);
      assert.ok((x1 - x0) / span >= 1 / 3 - 1e-12, `fill ${(x1 - x0) / span}`);
      // Whole pixels per x unit, or whole x units per pixel (a range far below one unit is spread over the plot).
      const perPixel = span / (px - 1);
      const whole = (v: number) => Math.abs(v - Math.round(v)) <= 1e-6 * v;
      assert.ok(perPixel > 1 ? Number.isInteger(perPixel) : whole(1 / perPixel) || span === data, `${perPixel} x per pixel`);
    }),
  );
});

/** Cells left of `col` in every row of two plots. */
const leftCells = (p: { rows: CurveSegment[][] }, col: number) => p.rows.map((r) => cellsOf(r).slice(0, col).join(''));

test('a live curve: a rollout appended changes only the last columns while the axis and the range hold', () => {
  let checked = 0;
  fc.assert(
    fc.property(unitSeries(2, 1500), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 10, max: 40 }), fc.constantFrom(0, 0.6), (ys, next, width, smoothing) => {
      const before = curvePlot({ x: ys.map((_, i) => i), y: ys }, width, 4, { smoothing });
      const grown = [...ys, next];
      const after = curvePlot({ x: grown.map((_, i) => i), y: grown }, width, 4, { smoothing });
      if (String(before.axis) !== String(after.axis) || String(before.range) !== String(after.range)) return;
      checked++;
      const col = before.colOf(ys.length - 1);
      assert.deepEqual(leftCells(after, col), leftCells(before, col), `cells left of ${col} moved (${ys.length} values, axis ${before.axis})`);
    }),
    { numRuns: 300 },
  );
  assert.ok(checked > 100, `appends within one axis step were drawn (${checked})`);
});

test('a sliding window (the last 1000 rollouts): a step of the window keeps the columns between its ends', () => {
  let checked = 0;
  fc.assert(
    fc.property(unitSeries(60, 400), fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 10, max: 30 }), (ys, first, next, width) => {
      const x = ys.map((_, i) => first + i);
      const before = curvePlot({ x, y: ys }, width, 4, { smoothing: 0 });
      const after = curvePlot({ x: [...x.slice(1), first + ys.length], y: [...ys.slice(1), next] }, width, 4, { smoothing: 0 });
      if (String(before.axis) !== String(after.axis) || String(before.range) !== String(after.range)) return;
      checked++;
      const from = after.colOf(first + 1) + 1;
      const to = before.colOf(first + ys.length - 1);
      const middle = (p: typeof before) => p.rows.map((r) => cellsOf(r).slice(from, to).join(''));
      assert.deepEqual(middle(after), middle(before));
    }),
    { numRuns: 300 },
  );
  assert.ok(checked > 100, `window steps within one axis step were drawn (${checked})`);
});

test('x-axis under a plot that does not fill its width: the last rollout where its data ends', () => {
  const p = curvePlot({ x: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24], y: Array(25).fill(0.5) }, 30, 3);
  const labels = xAxisLabels(p.domain, 30, undefined, p.colOf);
  assert.equal(labels.length, 30);
  assert.equal(labels.trimEnd().length, p.colOf(24) + 1, labels);
  assert.match(labels.trimEnd(), / 24$/);
});
