import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoalescingWriter } from '../../src/services/templates/coalesce.js';

test('coalesced writes: every request is served by a write that started after it; bursts share writes', async () => {
  let value = 0;
  const written: number[] = [];
  let release: (() => void) | undefined;
  const w = new CoalescingWriter(async () => {
    const snapshot = value;
    await new Promise<void>((r) => (release = r));
    written.push(snapshot);
  });
  value = 1;
  const a = w.request();
  // While the first write runs, a burst of changes joins one pending write.
  value = 2;
  const b = w.request();
  value = 3;
  const c = w.request();
  assert.equal(b, c, 'requests made during a write share the next one');
  release!();
  await a;
  assert.deepEqual(written, [1]);
  await new Promise((r) => setImmediate(r));
  release!();
  await b;
  assert.deepEqual(written, [1, 3], 'the second write saw the last change');
  assert.equal(w.writes, 2);
});

test('a failed write rejects its requests and the writer keeps working', async () => {
  let fail = true;
  const w = new CoalescingWriter(async () => {
    if (fail) throw new Error('ENOSPC');
  });
  await assert.rejects(w.request(), /ENOSPC/);
  fail = false;
  await w.request();
});
