// The benchmark regression check (bench/check.ts): a headline ratio more than 25 % above its committed baseline
// fails; one within it, a better one, or a benchmark not run passes; a failed benchmark fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BASELINE_FILE, baselineOf, benchmarkOf, compareRatios, report, type Baseline } from '../../bench/check.js';
import { result, type BenchResult } from '../../bench/lib.js';

function ran(id: string, value: number, status: BenchResult['status'] = 'ok'): BenchResult {
  return { ...result(id, id), status, ratio: { value, what: 'a / b' } };
}

const baseline: Baseline = { recorded: 'test', ratios: { a: { value: 2, what: 'a / b' }, b: { value: 1, what: 'a / b' }, c: { value: 4, what: 'a / b' }, d: { value: 1, what: 'a / b' } } };

test('worse past 25 % fails; within it, better, or not run passes; a failed benchmark fails', () => {
  const v = compareRatios(baseline, [ran('a', 2.49), ran('b', 1.26), ran('c', 1)]);
  assert.deepStrictEqual(
    v.map((x) => [x.id, x.status]),
    [
      ['a', 'ok'],
      ['b', 'worse'],
      ['c', 'ok'],
      ['d', 'not run'],
    ],
  );
  assert.equal(report(v).pass, false);
  assert.equal(report(compareRatios(baseline, [ran('a', 2.5), ran('b', 0.5)])).pass, true);
  const failed = compareRatios(baseline, [ran('a', 1, 'failed')]);
  assert.equal(failed[0]?.status, 'failed');
  assert.equal(report(failed).pass, false);
});

test('a run records as a baseline of its headline ratios, which it then passes against', () => {
  const results = [ran('a', 3), ran('x', 1.5), ran('y', 2, 'failed'), { ...result('z', 'z') }];
  const b = baselineOf(results, 'now');
  assert.deepStrictEqual(Object.keys(b.ratios), ['a', 'x']);
  assert.equal(report(compareRatios(b, results)).pass, true);
});

test('the committed baseline has ratios, each a finite positive number', () => {
  const b = JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline;
  assert.ok(Object.keys(b.ratios).length >= 3, 'ingestion and start-up at least');
  for (const [id, r] of Object.entries(b.ratios)) assert.ok(Number.isFinite(r.value) && r.value > 0, id);
});

test('each baseline ratio names the benchmark that gives it: one per ingestion log, two for start-up', () => {
  assert.deepStrictEqual(['ingest-dense', 'ingest-sparse', 'startup', 'startup-home', 'dashboard-open', 'model-heap'].map(benchmarkOf), ['ingest', 'ingest', 'startup', 'startup', 'dashboard-open', 'model-heap']);
  const b = JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline;
  assert.ok('startup-home' in b.ratios, 'the home screen goal (≤ 4× bare node) is guarded too');
});
