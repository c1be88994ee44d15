// Which RUN_NAME a run folder's trajectories are filed under (services/monitor/runName.ts), on renamed folders: the
// folder's name is the last thing to go by (runName.upstream.test.ts holds it against the launcher's own shell).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from '../helpers/property.js';
import { namesStatedIn, resolveRunName } from '../../src/services/monitor/runName.js';
import { resolveMonitorTarget } from '../../src/services/monitor/resolve.js';
import { TrajectoryIndex } from '../../src/services/monitor/trajIndex.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { removeDir, tempDir } from '../helpers/workspace.js';

async function session(root: string, instance: string, id: string, file = 'session.json'): Promise<void> {
  await mkdir(path.join(root, instance, id), { recursive: true });
  await writeFile(path.join(root, instance, id, file), '{}');
}

test('a stated name is read from the launcher\'s line shapes whatever RUN_NAME holds (property)', () => {
  const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._+=-]{0,40}$/).filter((n) => n.trim() === n);
  fc.assert(
    fc.property(name, fc.constantFrom('/home/op/Dressage/outputs/logs', '/data/x y/logs'), (n, root) => {
      const lines = [`Clearing DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR: ${root}/${n}/traj_payload/${n}`, `Dressage proxy failed; see ${root}/${n}/proxy/${n}.log`];
      for (const l of lines) assert.deepEqual(namesStatedIn(`noise\n${l}\r\nmore`).map((s) => s.name), [n], l);
    }),
  );
});

test('renamed folders: on-disk names beat the folder\'s; W&B\'s run name only counts when its folder exists; a flat layout is not a run name', async () => {
  const dir = await tempDir();
  try {
    // One trajectory folder, a log that says nothing: that folder.
    const a = path.join(dir, 'laptop-copy');
    await session(path.join(a, 'traj_payload', 'real-run'), 'i1', 's1');
    assert.deepEqual(await resolveRunName({ runDir: a, logFile: undefined }), { name: 'real-run', from: 'trajectory-dirs', evidence: 'the one folder under traj_payload/traj_err' });

    // W&B's run with slime's random suffix names the group; it counts because that folder exists.
    const b = path.join(dir, 'b');
    await session(path.join(b, 'traj_payload', 'grp'), 'i1', 's1');
    await session(path.join(b, 'traj_err', 'older'), 'i1', 's2', 'error.json');
    await utimes(path.join(b, 'traj_err', 'older'), new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    await writeFile(path.join(b, 'run.log'), '(MegatronTrainRayActor pid=1) wandb: Syncing run grp_a1b2c3d4-RANK_0\n');
    assert.equal((await resolveRunName({ runDir: b, logFile: path.join(b, 'run.log') })).name, 'grp');
    // Without the log: the newest of two folders.
    assert.equal((await resolveRunName({ runDir: b, logFile: undefined })).name, 'older');

    // A flat layout (DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR pointed at traj_payload itself): instance dirs, no RUN_NAME.
    const c = path.join(dir, 'flat-run');
    await session(path.join(c, 'traj_payload'), 'getmoto__moto-1', 'bbs-1');
    assert.deepEqual(await resolveRunName({ runDir: c, logFile: undefined }), { name: 'flat-run', from: 'folder' });
    const flat = await new TrajectoryIndex(c, 'flat-run').refresh();
    assert.deepEqual(flat.map((e) => e.instance), ['getmoto__moto-1']);

    // The registry's launch record wins over everything (it is what launched the run).
    const ws = path.join(dir, 'ws');
    const paths = recipePaths(ws);
    await mkdir(path.join(paths.runsDir, 'r1'), { recursive: true });
    await writeFile(path.join(paths.runsDir, 'r1', 'run.json'), JSON.stringify({ name: 'r1', runName: 'grp', outputsLogDir: b }));
    const t = await resolveMonitorTarget('r1', paths);
    assert.equal(t.runName, 'grp');
    assert.equal(t.runNameFrom, 'launch-record');
    // A run directory named directly.
    const d = await resolveMonitorTarget(a, paths);
    assert.equal(d.runName, 'real-run');
    assert.equal(d.name, 'laptop-copy', 'the display name stays what was opened');
  } finally {
    await removeDir(dir);
  }
});
