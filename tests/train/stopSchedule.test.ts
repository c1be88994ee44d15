// The waits of `train stop` (services/train/stop.ts) on a virtual clock: the TERM → grace → KILL schedule and the
// wait for a launch that has not recorded its pid yet, asserted step by step, in milliseconds of real time. The
// process group is real (it ignores TERM), so the signals and the liveness checks are the real ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { stopRun } from '../../src/services/train/stop.js';
import { isGroupAlive, readStopMarker, writeRun, type RunRecord } from '../../src/services/train/registry.js';
import { recipePaths, type RecipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { virtualClock, type VirtualClock } from '../helpers/virtualClock.js';

function record(paths: RecipePaths, name: string, createdAt: number, pid?: number): RunRecord {
  return {
    version: 1,
    name,
    runName: 'sched',
    host: 'this-host',
    createdAt: new Date(createdAt).toISOString(),
    ...(pid ? { pid, pgid: pid } : {}),
    command: { argv: ['bash', 'launcher.sh'], cwd: paths.root },
    logFile: path.join(paths.root, 'run.log'),
    exitFile: path.join(paths.root, 'exit.json'),
    outputsLogDir: path.join(paths.root, 'outputs', 'logs', 'sched'),
    checkpointDir: path.join(paths.root, 'ckpt'),
    config: { explicit: {}, effective: {}, sources: {} },
    expectedEffectiveLines: [],
    status: 'running',
  };
}

/** Writes down what the stop says and when; after KILL, the clock waits in real time for the kernel. */
function hear(said: string[], clock: VirtualClock): (s: string) => void {
  return (s) => {
    said.push(`${clock.elapsed()} ${s}`);
    if (/KILL/.test(s)) clock.paceReal();
  };
}

/** A process group that ignores TERM, as a launcher stuck in a collective would. */
async function stubbornGroup(): Promise<number> {
  const child = spawn('sh', ['-c', "trap '' TERM; echo ready; while :; do sleep 1; done"], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  await once(child.stdout!, 'data');
  child.unref();
  return child.pid!;
}

test('stop: TERM, then every 100 ms a look for 30 s of grace, then KILL; the marker holds the clock\'s times', async () => {
  const root = await fakeDressageCheckout();
  const paths = recipePaths(root);
  const pid = await stubbornGroup();
  try {
    const clock = virtualClock();
    await writeRun(paths, record(paths, 'sched-1', clock.now(), pid));
    const said: string[] = [];
    const r = await stopRun(paths, 'sched-1', { graceMs: 30_000, clock, onProgress: hear(said, clock) });
    assert.equal(r.signal, 'KILL');
    assert.equal(isGroupAlive(pid), false);
    assert.deepEqual(said, [`0 sending TERM to process group ${pid}`, `30100 still running after 30 s; sending KILL`]);
    // The grace period: one look every 100 ms until past 30 s; then the wait for KILL to land, at real pace (the
    // kernel ends the group and Node reaps it in real time).
    const grace = clock.sleeps.filter((s) => s.at < 30_100);
    assert.equal(grace.length, 301);
    assert.ok(clock.sleeps.every((s) => s.ms === 100), 'every wait is one 100 ms step');
    assert.ok(clock.sleeps.length - grace.length < 100, `KILL ends the group within 10 s of virtual time (${clock.sleeps.length - grace.length} looks)`);
    const marker = await readStopMarker(paths, 'sched-1');
    assert.equal(Date.parse(marker!.requestedAt), clock.now() - clock.elapsed(), 'TERM was sent at the start');
    assert.equal(Date.parse(marker!.stoppedAt!), clock.now(), 'stopped when the group was found gone');
  } finally {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await removeDir(root);
  }
});

test('stop of a launch that has not recorded its pid: looks again every 100 ms and stops the group once the pid is there', async () => {
  const root = await fakeDressageCheckout();
  const paths = recipePaths(root);
  const pid = await stubbornGroup();
  try {
    const clock = virtualClock();
    await writeRun(paths, record(paths, 'sched-2', clock.now()));
    clock.at(2_000, () => writeRun(paths, record(paths, 'sched-2', clock.now() - 2_000, pid)));
    const said: string[] = [];
    const r = await stopRun(paths, 'sched-2', { graceMs: 1_000, clock, onProgress: hear(said, clock) });
    assert.equal(said[0], '0 the launch has not recorded its pid yet; waiting for it');
    assert.equal(said[1], `2000 sending TERM to process group ${pid}`);
    assert.equal(clock.sleeps.filter((s) => s.at < 2_000).length, 20, 'twenty looks at the registry before the pid appeared');
    assert.equal(r.signal, 'KILL');
  } finally {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await removeDir(root);
  }
});

test('stop of a launch that never records its pid gives up at the 60 s spawn grace, having signalled nothing', async () => {
  const root = await fakeDressageCheckout();
  const paths = recipePaths(root);
  try {
    const clock = virtualClock();
    await writeRun(paths, record(paths, 'sched-3', clock.now()));
    const r = await stopRun(paths, 'sched-3', { clock });
    assert.equal(r.signal, 'none');
    assert.equal(clock.elapsed(), 60_000);
    assert.equal(clock.sleeps.length, 600);
  } finally {
    await removeDir(root);
  }
});
