// The retry schedule under a mocked clock: five retries with backoff take no real time, and the waits between the
// attempts are exactly the policy's (doubling from the base, capped, Retry-After winning and capped too). The
// operator's SWEGYM_RETRY_BASE_MS / SWEGYM_RETRY_MAX_MS reach both retry layers.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { withRetry, retryTimingFromEnv } from '../../src/services/sandbox/withRetry.js';
import { BLACKBOX_RETRY, HUB_DOWNLOAD_RETRY, SANDBOX_RETRY as DEFAULT_RETRY, TEMPLATE_BUILD_RETRY as FACTORY_RETRY, backoffDelay } from '../../src/services/util/retry.js';
import { SandboxError } from '../../src/services/sandbox/types.js';

/** Runs withRetry against a function failing `failures` times, advancing the mocked clock; returns when each attempt began. */
async function schedule(failures: number, retryAfterSec?: number, policy = {}): Promise<{ at: number[]; result: string | Error }> {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  try {
    const at: number[] = [];
    const done = withRetry(
      async () => {
        at.push(Date.now());
        if (at.length <= failures) throw new SandboxError('service_busy', 'busy', { retryAfterSec });
        return 'ok';
      },
      { policy: { ...policy, jitter: [1, 1] } },
    ).then((v) => v as string, (e: Error) => e);
    // Let each attempt run, then jump to the next timer; bounded so a broken schedule cannot spin.
    for (let i = 0; i < 20 && at.length <= Math.min(failures, DEFAULT_RETRY.attempts - 1); i++) {
      await new Promise<void>((r) => setImmediate(r));
      mock.timers.runAll();
    }
    return { at, result: await done };
  } finally {
    mock.timers.reset();
  }
}

test('five retries: waits of 1, 2, 4, 8, 16 s, all in mocked time; the sixth failure is the answer', async () => {
  const { at, result } = await schedule(10);
  assert.ok(result instanceof SandboxError, String(result));
  const waits = at.slice(1).map((t, i) => t - at[i]!);
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16_000]);
});

test('the cap bounds every wait, Retry-After included', async () => {
  const capped = await schedule(3, undefined, { baseMs: 5000, maxMs: 7000 });
  assert.equal(capped.result, 'ok');
  assert.deepEqual(capped.at.slice(1).map((t, i) => t - capped.at[i]!), [5000, 7000, 7000]);
  const told = await schedule(2, 30, { maxMs: 7000 });
  assert.deepEqual(told.at.slice(1).map((t, i) => t - told.at[i]!), [7000, 7000]);
});

test('SWEGYM_RETRY_BASE_MS / SWEGYM_RETRY_MAX_MS: whole numbers of ms, anything else ignored', () => {
  assert.deepEqual(retryTimingFromEnv({ SWEGYM_RETRY_BASE_MS: '10', SWEGYM_RETRY_MAX_MS: ' 40 ' }), { baseMs: 10, maxMs: 40 });
  assert.deepEqual(retryTimingFromEnv({ SWEGYM_RETRY_BASE_MS: '1e3', SWEGYM_RETRY_MAX_MS: '-5' }), {});
  assert.deepEqual(retryTimingFromEnv({}), {});
});

test('the template factory: at least Retry-After, never more than its cap', () => {
  const policy = { ...FACTORY_RETRY, random: () => 0 };
  assert.equal(backoffDelay(policy, 1, 2), 2000);
  assert.equal(backoffDelay({ ...policy, maxMs: 40 }, 1, 2), 40);
  assert.equal(backoffDelay({ ...policy, baseMs: 10, maxMs: 40 }, 5), 20);
});

test('one policy for every layer: the sandbox calls honour Retry-After exactly, the builds spread it, the download doubles unjittered', () => {
  const r0 = () => 0;
  assert.equal(backoffDelay({ ...DEFAULT_RETRY, random: r0 }, 1, 3), 3000);
  assert.equal(backoffDelay({ ...DEFAULT_RETRY, random: r0 }, 2), 1600, 'sandbox: 2 s less 20 %');
  assert.equal(backoffDelay({ ...HUB_DOWNLOAD_RETRY, random: r0 }, 4), 4000);
  assert.equal(backoffDelay({ ...BLACKBOX_RETRY, random: () => 0.999999 }, 9), 10_000, 'the cap holds after the jitter');
});
