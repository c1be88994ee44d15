import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brailleChart, buckets, ema, fmtNum, sparkline } from '../../src/ui/charts.js';

test('sparkline: scale, gaps and downsampling', () => {
  assert.equal(sparkline([0, 1, 2, 3, 4, 5, 6, 7], 8), '▁▂▃▄▅▆▇█');
  assert.equal(sparkline([0, NaN, 7], 3), '▁ █');
  assert.equal(sparkline([1, 1, 1], 3), '▁▁▁');
  assert.equal(sparkline(Array.from({ length: 100 }, (_, i) => i), 10).length, 10);
  assert.equal(sparkline([], 5), '');
  assert.equal(sparkline([50], 1, { min: 0, max: 100 }), '▅');
});

test('ema smoothing is debiased and skips gaps', () => {
  const s = ema([1, 1, 1, NaN, 1], 0.9);
  assert.ok(s.every((v, i) => (i === 3 ? Number.isNaN(v) : Math.abs(v - 1) < 1e-12)));
  assert.deepEqual(ema([1, 2], 0), [1, 2]);
  assert.deepEqual(buckets([1, 2, 3, 4], 2), [1.5, 3.5]);
});

test('braille chart: fixed size, rising line goes bottom-left to top-right, NaN gap', () => {
  const { rows, range } = brailleChart([0, 1, 2, 3, 4, 5, 6, 7], 4, 2);
  assert.equal(rows.length, 2);
  assert.ok(rows.every((r) => [...r].length === 4));
  assert.deepEqual(range, [0, 7]);
  assert.notEqual(rows[1]![0], ' ', 'starts at the bottom');
  assert.notEqual(rows[0]![3], ' ', 'ends at the top');
  assert.equal(rows[0]![0], ' ');
  const flat = brailleChart([NaN, NaN], 3, 2);
  assert.deepEqual(flat.rows, ['   ', '   ']);
  assert.equal(flat.range, undefined);
  assert.equal(brailleChart([5, 5, 5], 3, 1).rows[0]!.trim().length > 0, true);
});

test('fmtNum', () => {
  assert.equal(fmtNum(0.000123), '1.2e-4');
  assert.equal(fmtNum(12345), '12.3k');
  assert.equal(fmtNum(0.3101), '0.31');
  assert.equal(fmtNum(NaN), '–');
  assert.equal(fmtNum(undefined), '–');
});
