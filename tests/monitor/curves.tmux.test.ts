// The dashboard's curves through the built binary in tmux, on a run written by `simulate`: the rollout x-axis, the
// large view (Enter), the metric picker (m), a second simulated run drawn over it (o), at 120×40 and then 80×24.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

function simulate(dir: string, seed: number): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [BIN, 'simulate', dir, '--rollouts', '5', '--seed', String(seed)], { timeout: 120_000 }, (err, _o, stderr) => (err ? reject(new Error(`simulate failed: ${stderr}`)) : resolve())),
  );
}

test('curves in the built console: x-axis in rollouts, large view, metric picker, a compared run, at 120×40 and 80×24', { timeout: 240_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await tempDir();
  const run = path.join(ws, 'run-a');
  const other = path.join(ws, 'run-b');
  await simulate(run, 1);
  await simulate(other, 2);
  const t = new TmuxSession('curves');
  try {
    t.start([process.execPath, BIN, '--workspace', ws, 'monitor', run], { cols: 120, rows: 40 });
    let s = await t.waitForText(/rollout 0 +4/, 30_000);
    assert.match(s, /grad norm \S+ · ema \S+/);
    assert.doesNotMatch(s, /reward \(trajectory mean\) 0\.\d…/);
    t.key('Enter');
    s = await t.waitForText('reward (trajectory mean) · rollout/raw_reward_trajectory_mean · logged per rollout');
    // Each on its own wait: a capture can land while the frame is being written.
    await t.waitForText(/rollout 4 · raw \S+ · ema \S+/);
    await t.waitForText('Reward per group · rollout 4');
    await t.waitForText(/zero-std groups \(all solved or none\) \d+\/\d+/);
    t.key('m');
    await t.waitForText(/metric: ▏ \d+ of \d+ logged/);
    t.literal('perf/rollout_t');
    await t.waitForText(/metric: perf\/rollout_t▏ 1 of \d+ logged/);
    await t.waitForText(/perf\/rollout_time +\S+ +5 pts {2}rollout/);
    t.key('Enter');
    await t.waitForText('perf/rollout_time · logged per rollout');
    t.key('O');
    await t.waitForText('compare with: ▏');
    t.literal(path.join(other, 'run.log'));
    await t.waitForText(`log file or run directory: ${path.join(other, 'run.log')}`);
    t.key('Enter');
    await t.waitForText('run-b/run.log drawn in yellow');
    await t.waitForText(/compare run-b\/run\.log: \S+ \(5 pts\)/);
    t.resize(80, 24);
    // Redrawn for 80 columns (until then tmux shows the old frame reflowed).
    await waitFor(() => /^perf\/rollout_time · logged per rollout$/m.test((s = t.screen())) && /^rollout 0 .* 4\s*$/m.test(s), { timeoutMs: 15_000, message: () => s });
    assert.ok(s.split('\n').every((l) => [...l].length <= 80));
    t.key('Escape');
    await t.waitForTextGone('logged per rollout');
    t.key('q');
    assert.equal(await t.exitCode(), 0);
  } finally {
    t.kill();
    await removeDir(ws);
  }
});
