// Shipped tier: a run folder keeps its trajectories wherever it lies. `simulate DIR/sim` files them under
// traj_payload/<RUN_NAME>/ (as Dressage does); the folder is then renamed, as an rsync to a laptop or a `mv` does.
// `monitor DIR/x-renamed --once --json` must still find every one of them, say which RUN_NAME it used and where it
// read it, and carry the sandboxes and cluster sections beside them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';

async function countFiles(root: string, name: string): Promise<number> {
  let n = 0;
  for (const inst of await readdir(root).catch(() => [] as string[])) {
    for (const sess of await readdir(path.join(root, inst)).catch(() => [] as string[])) {
      if ((await readdir(path.join(root, inst, sess)).catch(() => [] as string[])).includes(name)) n++;
    }
  }
  return n;
}

test('shipped: monitor --once --json on a renamed simulated run folder keeps its trajectories and names the RUN_NAME it used', { timeout: 180_000 }, async () => {
  const dir = await tempDir('swegym-shipped-renamed-');
  try {
    const sim = path.join(dir, 'sim');
    const s = await runShipped(['simulate', sim, '--rollouts', '2', '--prompts', '2', '--samples-per-prompt', '4', '--traj', 'all', '--run-name', 'my-grpo-run', '--json']);
    assert.equal(s.code, 0, explain(s));
    const onDisk = await countFiles(path.join(sim, 'traj_payload', 'my-grpo-run'), 'session.json');
    const errsOnDisk = await countFiles(path.join(sim, 'traj_err', 'my-grpo-run'), 'error.json');
    assert.ok(onDisk > 0, 'the simulator wrote trajectory files');

    for (const folder of [sim, path.join(dir, 'x-renamed')]) {
      if (folder !== sim) await rename(sim, folder);
      const r = await runShipped(['monitor', folder, '--once', '--json']);
      assert.equal(r.code, 0, explain(r));
      const doc = JSON.parse(r.out) as { run: { name: string }; trajectories: { run_name: string; run_name_from: string; files: number; errors: number; run_dir: string }; sandboxes: { available: boolean }; cluster: { source: string; ok: boolean } };
      assert.equal(doc.trajectories.run_name, 'my-grpo-run', `${folder}: ${JSON.stringify(doc.trajectories)}`);
      assert.notEqual(doc.trajectories.run_name_from, 'folder');
      assert.equal(doc.trajectories.files, onDisk, `${folder}: every session.json`);
      assert.equal(doc.trajectories.errors, errsOnDisk);
      assert.equal(doc.trajectories.run_dir, folder);
      assert.equal(doc.run.name, 'my-grpo-run', 'the run is named by what it says, not by its folder');
      assert.equal(typeof doc.sandboxes.available, 'boolean');
      assert.equal(doc.cluster.source, 'ray');
    }
    // The log named directly, inside its renamed folder: the same trajectories.
    const r = await runShipped(['monitor', path.join(dir, 'x-renamed', 'run.log'), '--once', '--json']);
    assert.equal(r.code, 0, explain(r));
    const doc = JSON.parse(r.out) as { trajectories: { run_name: string; files: number } };
    assert.equal(doc.trajectories.files, onDisk);
  } finally {
    await removeDir(dir);
  }
});
