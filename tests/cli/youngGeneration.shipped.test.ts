// The young-generation cap is given at start: bin/swegym-console, run as a program, execs node with
// --max-semi-space-size=8 (and passes it on when it re-runs itself from an old Node), and that flag holds V8's new
// space at 16 MiB under the steady allocation of a follower, where without it V8 doubles it past 16 MiB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BIN } from '../helpers/shipped.js';
import { builtMissing } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const FLAG = '--max-semi-space-size=8';
/** The young generation starts at its cap: the start-up's allocations need no scavenges of a growing one. */
const START_FLAG = '--min-semi-space-size=8';
const NODE24_BIN = path.dirname(process.execPath);
/** A process's argv, or [] once it is gone (a child read while it execs or ends). */
function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
// Starting node (and, from an old Node, a second one) takes seconds on a machine that is busy.
const START_MS = 60_000;
const OLD_NODE = '/usr/bin/node';
const PROJECT_NODE = path.resolve('node_modules/node/bin/node');
const oldNodeMissing = (() => {
  const r = spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  if (r.status !== 0) return `no ${OLD_NODE}`;
  const [major, minor] = r.stdout.trim().split('.').map(Number) as [number, number];
  return major < 22 || (major === 22 && minor < 12) ? false : `${OLD_NODE} is Node ${r.stdout.trim()}, not older than 22.12`;
})();

/** A long-running command of the built binary (a live simulated run), started as a program with PATH first. */
async function startLive(pathFirst: string, dir: string): Promise<ChildProcess> {
  const child = spawn(BIN, ['simulate', dir, '--live', '--speed', '1'], { env: { ...process.env, PATH: `${pathFirst}:${process.env.PATH}` }, stdio: 'ignore' });
  // sh first, then (exec) node on the same pid.
  await waitFor(() => child.pid !== undefined && /node$/.test(cmdline(child.pid)[0] ?? ''), { timeoutMs: START_MS, message: () => 'the console never started' });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const ended = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await ended;
}

test('run as a program, the entry is node with the cap, in the same process (exec)', { skip: builtMissing() }, async () => {
  const dir = await tempDir('swegym-young-');
  const child = await startLive(NODE24_BIN, path.join(dir, 'run'));
  try {
    const argv = cmdline(child.pid!);
    assert.match(argv[0]!, /node$/, argv.join(' '));
    assert.ok(argv.includes(FLAG), argv.join(' '));
    assert.ok(argv.includes(START_FLAG), argv.join(' '));
    assert.deepEqual(children(child.pid!).filter((pid) => cmdline(pid).includes(BIN)), [], 'no second console process');
  } finally {
    await stop(child);
    await removeDir(dir);
  }
});

test('from an older Node the entry re-runs itself on the project Node with the cap', { skip: builtMissing() || oldNodeMissing }, async () => {
  const dir = await tempDir('swegym-young-');
  const wrapper = await startLive(path.dirname(OLD_NODE), path.join(dir, 'run'));
  try {
    let real: number | undefined;
    // Between fork and exec a child still shows the wrapper's own argv: wait for the one that runs the project Node.
    await waitFor(() => (real = children(wrapper.pid!).find((pid) => cmdline(pid)[0] === PROJECT_NODE && cmdline(pid).includes(BIN))) !== undefined, { timeoutMs: START_MS, message: () => `the wrapper started no console: ${children(wrapper.pid!).map((p) => cmdline(p).join(' ')).join(' | ')}` });
    const argv = cmdline(real!);
    assert.equal(argv[0], PROJECT_NODE, argv.join(' '));
    assert.ok(argv.includes(FLAG), argv.join(' '));
    assert.ok(argv.includes(START_FLAG), argv.join(' '));
  } finally {
    await stop(wrapper);
    await removeDir(dir);
  }
});

test('the flag holds new space at 16 MiB under a follower-like allocation loop; without it V8 grows it further', () => {
  const script = `
    const v8 = process.getBuiltinModule('node:v8');
    const keep = [];
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 100000; i++) keep.push({ i, s: 'line ' + i });
      if (keep.length > 200000) keep.splice(0, 100000);
      await new Promise((r) => setImmediate(r));
    }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(young.space_size / 1048576));`;
  const young = (flags: string[]) => Number(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 }));
  const free = young([]);
  const capped = young([FLAG]);
  assert.ok(free > 16, `uncapped new space ${free} MiB (expected growth, or the test proves nothing)`);
  assert.ok(capped <= 16, `capped new space ${capped} MiB`);
});
