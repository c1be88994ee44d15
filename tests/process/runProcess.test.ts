// runProcess on node:child_process: what it promises its callers (lines, tails, timeouts, cancel, input, environment,
// a program that is missing, a child that ignores SIGTERM, children killed when the console's process exits).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { liveChildCount, runProcess } from '../../src/services/process/run.js';
import { waitFor } from '../helpers/wait.js';

const cwd = process.cwd();

test('lines arrive one by one on both streams, a final line without a newline too, CR stripped; the tails keep the last N', async () => {
  const seen: string[] = [];
  const r = await runProcess('sh', ['-c', 'printf "a\\r\\nb\\n"; printf "err1\\n" >&2; printf "c\\nd\\ne"'], { cwd, keepLines: 3, onLine: (s, l) => seen.push(`${s}:${l}`), log: new CommandLog() });
  assert.equal(r.exitCode, 0);
  assert.deepEqual(seen.filter((l) => l.startsWith('stdout')), ['stdout:a', 'stdout:b', 'stdout:c', 'stdout:d', 'stdout:e']);
  assert.deepEqual(r.stdout, ['c', 'd', 'e']);
  assert.deepEqual(r.stderr, ['err1']);
  assert.equal(r.timedOut, false);
  assert.equal(r.cancelled, false);
  assert.equal(liveChildCount(), 0);
});

test('exit codes and signals as the child ended; a missing program is a spawn error, not an exit code', async () => {
  const log = new CommandLog();
  assert.equal((await runProcess('sh', ['-c', 'exit 7'], { cwd, log })).exitCode, 7);
  const killed = await runProcess('sh', ['-c', 'kill -TERM $$'], { cwd, log });
  assert.equal(killed.exitCode, undefined);
  assert.equal(killed.signal, 'SIGTERM');
  const missing = await runProcess('swegym-no-such-tool-xyz', [], { cwd, log });
  assert.match(missing.spawnError ?? '', /spawn swegym-no-such-tool-xyz ENOENT/);
  assert.equal(missing.exitCode, undefined);
  assert.deepEqual(log.entries().map((e) => e.status), ['failed', 'killed', 'not-found']);
});

test('input goes to stdin and is closed; without input stdin is closed from the start', async () => {
  const r = await runProcess('sh', ['-c', 'cat; echo done'], { cwd, input: 'one\ntwo\n', log: new CommandLog() });
  assert.deepEqual(r.stdout, ['one', 'two', 'done']);
  const none = await runProcess('sh', ['-c', 'cat; echo eof'], { cwd, log: new CommandLog() });
  assert.deepEqual(none.stdout, ['eof']);
  // A child that exits without reading a large input: the closed pipe is not our failure.
  const early = await runProcess('sh', ['-c', 'exit 0'], { cwd, input: 'x'.repeat(1 << 20), log: new CommandLog() });
  assert.equal(early.exitCode, 0);
});

test('the environment extends process.env unless extendEnv is false', async () => {
  const extended = await runProcess('sh', ['-c', 'echo "$SWEGYM_RUN_TEST_A|${PATH:+has-path}"'], { cwd, env: { SWEGYM_RUN_TEST_A: 'a' }, log: new CommandLog() });
  assert.deepEqual(extended.stdout, ['a|has-path']);
  const bare = await runProcess('/bin/sh', ['-c', 'echo "$SWEGYM_RUN_TEST_A|${HOME:-no-home}"'], { cwd, env: { SWEGYM_RUN_TEST_A: 'b' }, extendEnv: false, log: new CommandLog() });
  assert.deepEqual(bare.stdout, ['b|no-home']);
});

test('a timeout stops the child (SIGTERM) and says timedOut; one that ignores SIGTERM is killed after the grace', async () => {
  const log = new CommandLog();
  const t = await runProcess('sh', ['-c', 'echo up; exec sleep 30'], { cwd, timeoutMs: 50, log });
  assert.equal(t.timedOut, true);
  assert.equal(t.signal, 'SIGTERM');
  const stubborn = await runProcess('sh', ['-c', "trap '' TERM; echo up; while :; do sleep 0.05; done"], { cwd, timeoutMs: 50, forceKillAfterMs: 100, log });
  assert.equal(stubborn.timedOut, true);
  assert.equal(stubborn.signal, 'SIGKILL');
  assert.deepEqual(log.entries().map((e) => e.status), ['killed', 'killed']);
});

test('a program that ended in time but left a background child holding its output: the deadline bounds the wait, and it is not a timeout', async () => {
  const log = new CommandLog();
  const started = Date.now();
  const r = await runProcess('sh', ['-c', 'sleep 30 & echo $!; echo done'], { cwd, timeoutMs: 300, log });
  assert.ok(Date.now() - started < 10_000, 'returned at the deadline, not when the background child ended');
  assert.equal(r.exitCode, 0);
  assert.equal(r.timedOut, false);
  assert.equal(r.stdout.at(-1), 'done');
  assert.deepEqual(log.entries().map((e) => e.status), ['ok']);
  process.kill(Number(r.stdout[0]), 'SIGKILL');
});

test('cancel: an abort while it runs stops it and says cancelled (stopped in the log); an abort before the start starts nothing', async () => {
  const log = new CommandLog();
  const ctl = new AbortController();
  const r = await runProcess('sh', ['-c', 'echo running; exec sleep 30'], { cwd, signal: ctl.signal, onLine: () => ctl.abort(), log });
  assert.equal(r.cancelled, true);
  assert.equal(r.timedOut, false);
  const before = new AbortController();
  before.abort();
  const none = await runProcess('sh', ['-c', 'echo should-not-run'], { cwd, signal: before.signal, log });
  assert.equal(none.cancelled, true);
  assert.deepEqual(none.stdout, []);
  assert.deepEqual(log.entries().map((e) => e.status), ['stopped', 'stopped']);
});

test('a child still running when the process exits is killed with it', async () => {
  const here = path.resolve('src/services/process/run.ts');
  // The parent starts a long child through runProcess, prints its pid, and exits without waiting for it.
  const script = `
    import { runProcess } from ${JSON.stringify(here)};
    void runProcess('sh', ['-c', 'echo $$; exec sleep 60'], { cwd: process.cwd(), onLine: (_s, l) => { process.stdout.write(l + '\\n'); process.exit(0); } });`;
  const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  parent.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => parent.once('exit', r));
  assert.equal(code, 0);
  const pid = Number(out.trim());
  assert.ok(pid > 0, out);
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await waitFor(() => !alive(), { timeoutMs: 10_000, message: () => `child ${pid} outlived its parent` });
});
