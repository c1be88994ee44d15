import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignedBuckets, brailleChart, buckets, ema, fmtNum, sparkline } from '../../src/ui/charts.js';
import fc from '../helpers/property.js';

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

const series = fc.array(fc.oneof({ weight: 9, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) }, { weight: 1, arbitrary: fc.constant(NaN) }), { minLength: 0, maxLength: 600 });

test('alignedBuckets: at most n buckets of ceil(length / n) values, their bounds at multiples of that width', () => {
  fc.assert(
    fc.property(series, fc.integer({ min: 1, max: 80 }), (values, n) => {
      const out = alignedBuckets(values, n);
      assert.ok(out.length <= n);
      if (values.length <= n) return assert.deepEqual(out, values);
      const w = Math.ceil(values.length / n);
      assert.equal(out.length, Math.ceil(values.length / w));
      out.forEach((v, i) => {
        const slice = values.slice(i * w, (i + 1) * w).filter((x) => Number.isFinite(x));
        if (slice.length === 0) return assert.ok(Number.isNaN(v));
        assert.ok(Math.abs(v - slice.reduce((a, b) => a + b, 0) / slice.length) <= 1e-9 * Math.max(1, Math.abs(v)));
      });
    }),
  );
});

test('a live chart: a value appended changes only its last columns while the bucket width and the range hold', () => {
  let checked = 0;
  fc.assert(
    fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 41, maxLength: 900 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 10, max: 40 }), (values, next, width) => {
      const px = width * 2;
      const before = brailleChart(values, width, 4);
      const grown = [...values, next];
      const after = brailleChart(grown, width, 4);
      const sameWidth = Math.ceil(values.length / px) === Math.ceil(grown.length / px);
      const sameCount = alignedBuckets(values, px).length === alignedBuckets(grown, px).length;
      if (values.length <= px || !sameWidth || !sameCount || String(before.range) !== String(after.range)) return;
      checked++;
      before.rows.forEach((row, r) => assert.equal([...(after.rows[r] as string)].slice(0, -2).join(''), [...row].slice(0, -2).join(''), `row ${r}`));
    }),
    { numRuns: 300 },
  );
  assert.ok(checked > 50, `appends within one bucket width were drawn (${checked})`);
});
