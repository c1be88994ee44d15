// The built binary's dashboard in a real terminal (tmux) at 120×40 and 80×24: a registry run on a 4-node Ray cluster
// (the Ray dashboard fake) reads running, then crashed once its launcher is killed; the GPUs panel shows every node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { startFakeRayDashboard } from '../fakes/rayDashboard.js';
import { registerRun, runLogText, startWriter } from './runFixtures.js';
import { recipePaths } from '../../src/services/workspace/paths.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

test('dashboard in tmux: running → crashed after SIGKILL of the launcher, the whole Ray cluster, at 120×40 and 80×24', { timeout: 120_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await tempDir('swegym-tmux-liveness-');
  const ray = await startFakeRayDashboard({ jobs: [{ submission_id: 'raysubmit_T1', status: 'RUNNING' }] });
  const writer = startWriter();
  const wide = new TmuxSession('liveness-wide');
  const small = new TmuxSession('liveness-small');
  try {
    const log = path.join(ws, 'launch.log');
    await writeFile(log, runLogText(4));
    const name = 'swegym-test-20261201-100000';
    await registerRun(recipePaths(ws), { name, logFile: log, writer });
    // The proxy named in the log is unreachable here, which the panel says; nothing else leaves the machine.
    const env = { RAY_ADDRESS: ray.url, NO_COLOR: '1' };
    wide.start([process.execPath, BIN, 'monitor', name, '--workspace', ws], { cols: 120, rows: 40, env });
    let screen = await wide.waitForText(/▶ running · last line (<5|\d+) s ago · [^\n]*swegym-test/, 30_000);
    screen = await wide.waitForText(/… \d+ of 32 GPUs hidden \(4 nodes\)/, 30_000);
    assert.match(screen, /GPUs — Ray cluster · 4 nodes · 32 GPUs/);
    for (const n of [0, 1, 2, 3]) assert.match(screen, new RegExp(`n${n} gpu-node-${n}${n === 0 ? ' \\(head\\)' : ''} [▁▂▃▄▅▆▇█]{8} util +\\d+%`));
    assert.match(screen, /ETA \S+/);
    small.start([process.execPath, BIN, 'monitor', name, '--workspace', ws], { cols: 80, rows: 24, env });
    // At 80 columns the ETA comes before the run's long name, so that the cut never takes it.
    await small.waitForText(/▶ running · last line [^\n]* · ETA \S+/, 30_000);

    process.kill(-writer.pid!, 'SIGKILL');
    screen = await wide.waitForText('✗ crashed', 30_000);
    const head = screen.split('\n').slice(0, 5).join('\n');
    assert.doesNotMatch(head, /ETA|following|generating/);
    assert.match(screen, /run crashed: the launcher \(pid \d+\) is gone and left no exit code/);
    screen = await small.waitForText(/✗ crashed · last line (<5|\d+) s ago/, 30_000);
    for (const row of screen.split('\n')) assert.ok([...row].length <= 80, row);
    // The GPUs panel of the small terminal: Tab to it, one key at a time (each waits for its panel).
    for (const panel of ['Rollouts', 'Samples', 'Sandboxes']) {
      small.key('Tab');
      await small.waitForText(`▸ ${panel}`, 15_000);
    }
    small.key('Tab');
    screen = await small.waitForText('▸ GPUs — Ray cluster · 4 nodes · 32 GPUs', 15_000);
    assert.match(screen, /^n3 gpu-node-3 /m);
    assert.match(screen, /… \d+ of 32 GPUs hidden/);
  } finally {
    wide.kill();
    small.kill();
    try {
      process.kill(-writer.pid!, 'SIGKILL');
    } catch {}
    await ray.close();
    await removeDir(ws);
  }
});
