// The suite's summary reporter: CI keeps only the tail of the log, so a failure must be named in the summary the
// runner prints last, with the file and the assertion's first lines.
import test from 'node:test';
import assert from 'node:assert/strict';
import summaryReporter from '../../scripts/test-summary-reporter.mjs';

async function* events(list: unknown[]) {
  for (const e of list) yield e;
}

async function summaryOf(list: unknown[]) {
  let out = '';
  for await (const chunk of summaryReporter(events(list))) out += chunk;
  return JSON.parse(out);
}

test('a failure is kept with its name, file and message; passes and skips are counted', async () => {
  const error = Object.assign(new Error('test failed'), { cause: new Error('rollouts differ\n\n3 !== 4\nmore') });
  const doc = await summaryOf([
    { type: 'test:pass', data: { name: 'ok one', file: '/r/a.test.ts', nesting: 0, details: { duration_ms: 5 } } },
    { type: 'test:pass', data: { name: 'skipped', file: '/r/a.test.ts', nesting: 0, skip: 'no python3', details: { duration_ms: 1 } } },
    { type: 'test:fail', data: { name: 'the flaky one', file: '/r/b.test.ts', nesting: 1, details: { duration_ms: 9, error } } },
  ]);
  assert.deepEqual(doc.totals, { passed: 1, failed: 1, skipped: 1, todo: 0 });
  assert.deepEqual(doc.skips, { 'no python3': 1 });
  assert.equal(doc.failures.length, 1);
  assert.equal(doc.failures[0].name, 'the flaky one');
  assert.equal(doc.failures[0].file, '/r/b.test.ts');
  assert.match(doc.failures[0].error, /^rollouts differ\n\n3 !== 4/);
});

test('a failing suite is not counted as a test of its own', async () => {
  const doc = await summaryOf([
    { type: 'test:fail', data: { name: 'suite', file: '/r/c.test.ts', nesting: 0, details: { type: 'suite', duration_ms: 3, error: new Error('1 subtest failed') } } },
  ]);
  assert.deepEqual(doc.totals, { passed: 0, failed: 0, skipped: 0, todo: 0 });
  assert.deepEqual(doc.failures, []);
});
