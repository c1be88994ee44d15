// The poller (services/util/poll.ts) on node:test's mock timers: it asks on schedule, never twice at once while an
// answer is still coming (a slow E2B list must not pile up requests), and a failed poll is only a missed sample.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { pollEvery } from '../../src/services/util/poll.js';

const turn = () => new Promise((r) => setImmediate(r));

test('pollEvery: every 2 s on the clock, a slow answer skips the ticks it spans, an error skips one sample', async (t) => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 });
  t.after(() => mock.timers.reset());
  const calls: number[] = [];
  let answer: (() => void) | undefined;
  let fail = false;
  const timer = pollEvery(2000, () => {
    calls.push(Date.now());
    if (fail) {
      fail = false;
      throw new Error('list failed');
    }
    if (calls.length === 2) return new Promise<void>((r) => (answer = r));
    return undefined;
  }, { immediate: true });
  try {
    await turn();
    assert.deepEqual(calls, [0], 'immediate: the first poll at once');
    mock.timers.tick(2000);
    await turn();
    assert.deepEqual(calls, [0, 2000]);
    // The second answer takes 5 s: the ticks at 4 s and 6 s find it busy and ask nothing.
    mock.timers.tick(2000);
    mock.timers.tick(2000);
    await turn();
    assert.deepEqual(calls, [0, 2000]);
    answer!();
    await turn();
    fail = true;
    mock.timers.tick(2000);
    await turn();
    assert.deepEqual(calls, [0, 2000, 8000], 'after the slow answer, the next tick asks again');
    mock.timers.tick(2000);
    await turn();
    assert.deepEqual(calls, [0, 2000, 8000, 10000], 'a failed poll is a missed sample; the next one asks again');
  } finally {
    clearInterval(timer);
  }
});
