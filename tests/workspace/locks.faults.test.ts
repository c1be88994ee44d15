// The workspace lock (issue 16, points 1 and 4), through the built binary: `validate harness` and `convert` refuse
// while another console holds the lock; two `train launch` at once start one run, not two.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { listRuns } from '../../src/services/train/registry.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { removeDir } from '../helpers/workspace.js';
import { trainWorkspace, killGroupIfOurs } from '../train/helpers.js';

/** /proc/<pid>/stat field 22 (the process start time), as a lock records it. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

test('validate harness and convert take the workspace lock: refused while another console holds it', { skip: builtMissing() }, async () => {
  const w = await trainWorkspace();
  const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    await mkdir(path.dirname(w.paths.lockFile), { recursive: true });
    await writeFile(w.paths.lockFile, JSON.stringify({ pid: holder.pid, startedAt: new Date().toISOString(), purpose: 'templates build', pidStart: startTime(holder.pid!) }));
    const env = { E2B_API_KEY: 'fake-key', E2B_API_URL: 'http://127.0.0.1:9', E2B_SANDBOX_URL: 'http://127.0.0.1:9' };
    const validate = await runConsole(['validate', 'harness', '--all', '-w', w.root], env);
    assert.equal(validate.code, 3, validate.err);
    assert.match(validate.err, new RegExp(`workspace is busy: another swegym-console \\(pid ${holder.pid}\\) is running "templates build"`));
    const convert = await runConsole(['convert', '-w', w.root], env);
    assert.equal(convert.code, 3, convert.err);
    assert.match(convert.err, /workspace is busy/);
  } finally {
    holder.kill('SIGKILL');
    await removeDir(w.root);
  }
});

test('two `train launch` at once on one workspace: one run starts, the other is refused', { skip: builtMissing(), timeout: 120_000 }, async () => {
  const w = await trainWorkspace();
  const env = { ...w.env, FAKE_LAUNCHER_ROLLOUTS: '100000', FAKE_LAUNCHER_LINE_DELAY: '0.05', PATH: `${path.dirname(process.execPath)}:/nonexistent-ray:${w.env.PATH}` };
  try {
    const [a, b] = await Promise.all([runConsole(['train', 'launch', '--json', '-w', w.root], env), runConsole(['train', 'launch', '--json', '-w', w.root], env)]);
    const codes = [a.code, b.code].sort();
    assert.deepEqual(codes, [0, 3], `${a.err}\n${b.err}`);
    const refused = a.code === 3 ? a : b;
    assert.match(refused.err + refused.out, /already (starting|running)|active-run|workspace is busy/);
    const runs = await listRuns(recipePaths(w.root));
    assert.equal(runs.length, 1, runs.map((r) => r.name).join(' '));
    for (const r of runs) await killGroupIfOurs(r.pgid, r.procStart);
  } finally {
    for (const r of await listRuns(recipePaths(w.root)).catch(() => [])) await killGroupIfOurs(r.pgid, r.procStart);
    await removeDir(w.root);
  }
});
