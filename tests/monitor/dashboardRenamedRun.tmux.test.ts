// The built binary's dashboard in a real terminal (tmux, NO_COLOR) on a simulated run whose folder was renamed after
// it was written (an rsync to a laptop, a `mv`): the Trajectories panel lists every trajectory file Dressage filed
// under traj_payload/<RUN_NAME>/, and the finished run's header does not call its gone proxy DOWN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

test('dashboard in tmux on a renamed simulated run folder: its trajectories are listed; an ended run\'s proxy is not DOWN', { timeout: 120_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await tempDir('swegym-tmux-renamed-');
  const t = new TmuxSession('renamed');
  try {
    const sim = path.join(ws, 'sim');
    const s = await runShipped(['simulate', sim, '--rollouts', '2', '--prompts', '2', '--samples-per-prompt', '4', '--traj', 'all']);
    assert.equal(s.code, 0, explain(s));
    let files = 0;
    const root = path.join(sim, 'traj_payload', 'swegym-qwen3.5-4b-claude-code-grpo-sync');
    for (const inst of await readdir(root)) files += (await readdir(path.join(root, inst))).length;
    assert.ok(files > 0);
    const moved = path.join(ws, 'x-renamed');
    await rename(sim, moved);
    t.start([process.execPath, BIN, 'monitor', moved, '--workspace', ws], { cols: 120, rows: 40, env: { NO_COLOR: '1', RAY_ADDRESS: 'http://127.0.0.1:1' } });
    let screen = await t.waitForText(/✓ finished/, 30_000);
    // The Trajectories panel: Tab to it, one key at a time.
    for (const panel of ['Rollouts', 'Samples', 'Sandboxes', 'GPUs', 'Tasks', 'Trajectories']) {
      t.key('Tab');
      screen = await t.waitForText(`▸ ${panel}`, 15_000);
    }
    screen = await t.waitForText(new RegExp(`▸ Trajectories — ${files} files`), 15_000);
    assert.doesNotMatch(screen, /no trajectory files under/);
    assert.doesNotMatch(screen, /proxy DOWN/);
    t.key('q');
  } finally {
    t.kill();
    await removeDir(ws);
  }
});
