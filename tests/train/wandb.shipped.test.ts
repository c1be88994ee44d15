// The run's W&B link: `train status` of the built console (online: wandb's run URL from the log; offline: its
// run directory with `wandb sync` / `wandb beta leet`), and the dashboard header (the monitor service's snapshot).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { writeRun } from '../../src/services/train/registry.js';
import { wandbRun } from '../../src/services/train/wandb.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { waitFor } from '../helpers/wait.js';
import { loopbackFetch, registerRun, runLogText } from '../monitor/runFixtures.js';
import { headerLines } from '../../src/screens/dashboardHeader.js';

const ONLINE = [
  '(MegatronTrainRayActor pid=4242) wandb: Currently logged in as: op (team-x). Use `wandb login --relogin` to force relogin',
  '(MegatronTrainRayActor pid=4242) wandb: Tracking run with wandb version 0.19.8',
  '(MegatronTrainRayActor pid=4242) wandb: Run data is saved locally in /home/op/Dressage/wandb/run-20261201_000000-abc123xy',
  '(MegatronTrainRayActor pid=4242) wandb: Syncing run swegym-run',
  '(MegatronTrainRayActor pid=4242) wandb: ⭐️ View project at https://wandb.ai/team-x/dressage-swegym',
  '(MegatronTrainRayActor pid=4242) wandb: 🚀 View run at https://wandb.ai/team-x/dressage-swegym/runs/abc123xy',
];
const OFFLINE = [
  '(MegatronTrainRayActor pid=4242) wandb: Tracking run with wandb version 0.19.8',
  '(MegatronTrainRayActor pid=4242) wandb: W&B syncing is set to `offline` in this directory.',
  '(MegatronTrainRayActor pid=4242) wandb: Run `wandb online` or set WANDB_MODE=online to enable cloud syncing.',
  '(MegatronTrainRayActor pid=4242) wandb: Run data is saved locally in /home/op/Dressage/wandb/offline-run-20261201_000000-abc123xy',
];

test('wandbRun: off without USE_WANDB; before the lines, the project from the settings', () => {
  assert.equal(wandbRun({ WANDB_PROJECT: 'p' }, {}), undefined);
  const early = wandbRun({ USE_WANDB: '1', WANDB_TEAM: 'team-x', WANDB_PROJECT: 'swe gym' }, {});
  assert.equal(early?.summary, 'W&B project https://wandb.ai/team-x/swe%20gym · run link not logged yet');
  assert.equal(wandbRun({ USE_WANDB: '1', WANDB_MODE: 'offline' }, {})?.mode, 'offline');
});

test('train status (built console): the W&B run link, or the offline dir with wandb sync / wandb beta leet', { timeout: 120_000 }, async () => {
  const ws = await tempDir('swegym-wandb-');
  try {
    const paths = recipePaths(ws);
    for (const [name, lines, mode] of [['swegym-online-20261201-000000', ONLINE, 'online'], ['swegym-offline-20261201-000000', OFFLINE, 'offline']] as const) {
      const log = path.join(ws, `${name}.log`);
      await writeFile(log, runLogText(2) + lines.join('\n') + '\n');
      const rec = await registerRun(paths, { name, logFile: log, exitCode: 0 });
      await writeRun(paths, { ...rec, config: { explicit: { USE_WANDB: '1' }, effective: { USE_WANDB: '1', WANDB_PROJECT: 'dressage-swegym', WANDB_API_KEY: '****', ...(mode === 'offline' ? { WANDB_MODE: 'offline' } : {}) }, sources: {} } });
      const r = await runShipped(['-w', ws, 'train', 'status', name]);
      assert.equal(r.code, 0, explain(r));
      const j = await runShipped(['-w', ws, 'train', 'status', name, '--json']);
      const w = (JSON.parse(j.out) as { wandb: { mode: string; runUrl?: string; dir?: string; manual: string[] } }).wandb;
      if (mode === 'online') {
        assert.match(r.out, /^ {2}W&B https:\/\/wandb\.ai\/team-x\/dressage-swegym\/runs\/abc123xy$/m);
        assert.equal(w.runUrl, 'https://wandb.ai/team-x/dressage-swegym/runs/abc123xy');
      } else {
        assert.match(r.out, /^ {2}W&B offline · \/home\/op\/Dressage\/wandb\/offline-run-20261201_000000-abc123xy$/m);
        assert.match(r.out, /by hand: wandb sync \/home\/op\/Dressage\/wandb\/offline-run-20261201_000000-abc123xy/);
        assert.match(r.out, /by hand: wandb beta leet \/home\/op\/Dressage\/wandb\/offline-run-/);
        assert.equal(w.mode, 'offline');
      }
    }

    // The dashboard header's second line carries it.
    const svc = new MonitorService({ paths, store: createMonitorStore(), fetchImpl: loopbackFetch, rayDashboardUrl: 'http://127.0.0.1:1', gpuRunner: async () => ({ ok: false, stdout: '', error: 'none' }), refreshMs: 20 });
    try {
      await svc.open('swegym-online-20261201-000000', { live: false });
      await waitFor(() => svc.store.getState().snapshot !== undefined, { timeoutMs: 10_000 });
      const snap = svc.store.getState().snapshot!;
      assert.equal(snap.header.wandb, 'W&B https://wandb.ai/team-x/dressage-swegym/runs/abc123xy');
      assert.match(headerLines(snap, 200).at(-1)!.text, / · W&B https:\/\/wandb\.ai\/team-x\/dressage-swegym\/runs\/abc123xy$/);
    } finally {
      await svc.close();
    }
  } finally {
    await removeDir(ws);
  }
});
