// `monitor RUN` without a terminal follows the log and now also the run's state: it prints the state when it changes
// and ends when the run does (a killed launcher: exit 1), instead of following a dead run's log for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { monitorCommand } from '../../src/cli/commands/monitor.js';
import type { CommandContext } from '../../src/cli/context.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { registerRun, runLogText, startWriter, withFastWriterPolls } from './runFixtures.js';

test('headless follow: running, then crashed when the launcher is killed; the command ends with exit 1', { timeout: 60_000 }, async () => {
  const ws = await tempDir();
  const writer = startWriter();
  const ac = new AbortController();
  try {
    const log = path.join(ws, 'launch.log');
    await writeFile(log, runLogText(2));
    await registerRun(recipePaths(ws), { name: 'swegym-test-20261201-100000', logFile: log, writer });
    let stdout = '';
    const out = new PassThrough();
    out.on('data', (d) => (stdout += d));
    const ctx: CommandContext = {
      command: ['monitor'],
      positionals: ['swegym-test-20261201-100000'],
      options: {},
      global: { workspace: ws, provider: 'e2b', debug: false, color: false, json: false },
      paths: recipePaths(ws),
      stdout: out,
      stderr: new PassThrough(),
      // A closed port: no Ray dashboard of this machine is asked.
      env: { RAY_ADDRESS: 'http://127.0.0.1:1' },
      signal: ac.signal,
    };
    const done = monitorCommand(withFastWriterPolls(ctx));
    await waitFor(() => /state: running · last line (<5|\d+) s ago · the launcher is running/.test(stdout), { timeoutMs: 15_000, message: () => stdout });
    process.kill(-writer.pid!, 'SIGKILL');
    assert.equal(await done, 1, stdout);
    assert.match(stdout, /state: crashed · last line (<5|\d+) s ago · the launcher \(pid \d+\) is gone and left no exit code/);
  } finally {
    ac.abort();
    try {
      process.kill(-writer.pid!, 'SIGKILL');
    } catch {}
    await removeDir(ws);
  }
});
