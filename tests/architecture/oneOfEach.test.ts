// One of each (issue 26): one sleep, one retry policy, one publisher. The one modules exist and do what the rest of
// src/ relies on; a copy written anywhere else fails here (and, for sleeps and backoffs, in eslint too: eslint.config.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from '../../src/services/util/sleep.js';
import { backoffDelay, retrying, SANDBOX_RETRY } from '../../src/services/util/retry.js';
import { MAX_PUBLISH_HZ, publishPeriodMs, throttle } from '../../src/services/jobs/publish.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'vendor' || e.name === 'generated' ? [] : files(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Every source file under src/ (vendored and generated code left out), comments removed, by its path under src/. */
const SOURCES = new Map(
  files(SRC).map((f) => [relative(SRC, f).split('\\').join('/'), readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')]),
);

function offenders(pattern: RegExp, allowed: Record<string, string>): string[] {
  return [...SOURCES].filter(([file, text]) => pattern.test(text) && !(file in allowed)).map(([file]) => file);
}

test('one sleep: no Promise resolved by a setTimeout, no timers/promises, outside services/util/sleep.ts', () => {
  // A deadline (a timer that rejects or answers for a promise it races) is not a sleep: setTimeout(() => …) is left alone.
  assert.deepEqual(offenders(/new Promise\b[^;]*?\bsetTimeout\(\s*\w+\s*,/, { 'services/util/sleep.ts': 'the one sleep' }), []);
  assert.deepEqual(offenders(/from ['"](node:)?timers\/promises['"]/, {}), []);
});

test('one retry policy: no retry policy type, preset or doubling backoff outside services/util/retry.ts', () => {
  const one = { 'services/util/retry.ts': 'the one retry module' };
  assert.deepEqual(offenders(/^\s*(export\s+)?(interface|type)\s+\w*Retry\w*Policy\b/m, one), [], 'a second RetryPolicy type');
  assert.deepEqual(offenders(/\bconst\s+\w*RETRY\w*\s*(:\s*[\w<>]+\s*)?=\s*\{/, one), [], 'a retry preset outside the one module');
  assert.deepEqual(offenders(/\b2\s*\*\*\s*\(?\s*\w*attempt/i, one), [], 'a local exponential backoff');
});

test('one publisher: a store is published through services/jobs/publish.ts, not a setInterval of its own', () => {
  const allowed = {
    'services/jobs/publish.ts': 'the one publisher',
    'services/util/poll.ts': 'the poller (reads sources; publishes nothing itself)',
    'services/simulator/writer.ts': "the simulator's clock: writes the run's files",
    'services/workspace/owner.ts': "the workspace owner's heartbeat file",
    'ui/hooks.ts': 'the kit re-renders on a version it reads (ui imports no services)',
    'cli/progress.ts': "the headless progress line's redraw",
    'screens/App.tsx': "the header's clock",
    'screens/TrainScreen.tsx': 'the run list refresh (issue 26b moves it into the train controller)',
  };
  assert.deepEqual(offenders(/\bsetInterval\(/, allowed), []);
});

test('the one modules: sleep ends on abort, retrying stops after the policy, the throttle holds 10 Hz', async () => {
  const ctl = new AbortController();
  const slept = sleep(60_000, ctl.signal);
  ctl.abort(new Error('stop'));
  await assert.rejects(slept, /stop/);
  let calls = 0;
  const policy = { ...SANDBOX_RETRY, attempts: 3, baseMs: 0, maxMs: 0 };
  await assert.rejects(retrying(async () => { calls++; throw new Error('busy'); }, { policy, retryable: () => ({}) }), /busy/);
  assert.equal(calls, 3);
  assert.equal(backoffDelay({ ...SANDBOX_RETRY, jitter: [1, 1] }, 3), 4000);
  assert.equal(publishPeriodMs(50), 1000 / MAX_PUBLISH_HZ, 'asked for 50 Hz, held to 10');
  let now = 1000;
  const published: number[] = [];
  let firstPublished!: () => void;
  const first = new Promise<void>((r) => (firstPublished = r));
  const t = throttle(() => (published.push(now), firstPublished()), { now: () => now });
  t.mark();
  assert.deepEqual(published, [], 'after the other changes of this tick');
  await first;
  assert.deepEqual(published, [1000], 'the first change of a quiet spell, without waiting for a period');
  // Within the period: held (a timer for the rest of it), and a cancel drops it.
  t.mark();
  t.mark();
  t.cancel();
  now = 1100;
  assert.deepEqual(published, [1000]);
});
