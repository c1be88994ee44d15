// The built binary's dashboard in a real terminal (tmux) on a Ray whose private /nodes?view=summary is gone: the
// GPUs panel fills from Ray's Prometheus metrics (the endpoints the dashboard lists for service discovery, on the
// fake built from Ray's reporter agent) and says that this is its source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { startFakeRayDashboard } from '../fakes/rayDashboard.js';
import { registerRun, runLogText, startWriter } from '../monitor/runFixtures.js';
import { recipePaths } from '../../src/services/workspace/paths.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

test("dashboard in tmux: without Ray's node summary, the cluster's GPUs from its Prometheus metrics, source named", { timeout: 120_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await tempDir('swegym-tmux-raymetrics-');
  const ray = await startFakeRayDashboard({ summary: false, metrics: true, jobs: [{ submission_id: 'raysubmit_T1', status: 'RUNNING' }] });
  const writer = startWriter();
  const wide = new TmuxSession('raymetrics-wide');
  try {
    const log = path.join(ws, 'launch.log');
    await writeFile(log, runLogText(4));
    const name = 'swegym-test-20261201-100000';
    await registerRun(recipePaths(ws), { name, logFile: log, writer });
    wide.start([process.execPath, BIN, 'monitor', name, '--workspace', ws], { cols: 160, rows: 40, env: { RAY_ADDRESS: ray.url, NO_COLOR: '1' } });
    const screen = await wide.waitForText(/GPUs — Ray cluster · 4 nodes · 32 GPUs · via Prometheus 4\/4/, 30_000);
    assert.match(screen, /n0 10\.1\.0\.10 [▁▂▃▄▅▆▇█]{8} util +\d+% · mem +\d+\/1123G · 8 GPUs/);
    assert.ok(ray.requests.includes('GET /api/prometheus/sd'));
    assert.ok(ray.requests.some((r) => r.startsWith('METRICS 3 /metrics')));
  } finally {
    wide.kill();
    try {
      process.kill(-writer.pid!, 'SIGKILL');
    } catch {}
    await ray.close();
    await removeDir(ws);
  }
});
