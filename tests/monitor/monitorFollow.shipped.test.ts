// Shipped tier: `monitor RUN` of the built console without a terminal follows the run: it prints the rollout line
// and the run's state, keeps following while the launcher runs (new rollouts are printed as they are logged), and
// ends with exit 1 when the launcher dies. The follow job's timers must hold the process; nothing else does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { builtMissing, startConsole } from '../helpers/builtCli.js';
import { waitFor } from '../helpers/wait.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { registerRun, runLogText, startWriter } from './runFixtures.js';
import { rolloutLines } from './builders.js';

test('shipped: monitor RUN headless follows new rollouts until the launcher dies (exit 1)', { timeout: 120_000, skip: builtMissing() }, async () => {
  const ws = await tempDir('swegym-shipped-follow-');
  const writer = startWriter();
  const name = 'swegym-test-20261201-100000';
  try {
    const log = path.join(ws, 'launch.log');
    await writeFile(log, runLogText(2));
    await registerRun(recipePaths(ws), { name, logFile: log, writer });
    // A closed port: no Ray dashboard of this machine is asked.
    const c = startConsole(['monitor', name, '--workspace', ws], { RAY_ADDRESS: 'http://127.0.0.1:1' });
    const out = () => `${c.out()}\n--- stderr\n${c.err()}`;
    await waitFor(() => /state: running · /.test(c.out()), { timeoutMs: 30_000, message: out });
    assert.match(c.out(), /^\d\d:\d\d:\d\d phase: .* · rollouts: 2 · /m);
    // A rollout logged now is printed; the crash is seen at the next writer poll (5 s): the process must still be
    // following by then (a follow whose timers held nothing ended at once with exit 0).
    await appendFile(log, rolloutLines(2, 128).join('\n') + '\n');
    await waitFor(() => /· rollouts: 3 · /.test(c.out()), { timeoutMs: 20_000, message: out });
    process.kill(-writer.pid!, 'SIGKILL');
    const { code } = await c.exited;
    assert.equal(code, 1, out());
    assert.match(c.out(), /state: crashed · .*the launcher \(pid \d+\) is gone and left no exit code/);
  } finally {
    try {
      process.kill(-writer.pid!, 'SIGKILL');
    } catch {}
    await removeDir(ws);
  }
});
