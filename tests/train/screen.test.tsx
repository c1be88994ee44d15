// The Train screen: the form by group with live derived values, validation, launch with confirmation, the runs list,
// stop with confirmation; secrets never on screen.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { readFile } from 'node:fs/promises';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { FIELD_KEYS } from '../../src/services/train/controller.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { isGroupAlive, listRuns } from '../../src/services/train/registry.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { removeDir } from '../helpers/workspace.js';
import { SECRET, killGroupIfOurs, trainWorkspace } from './helpers.js';

const dirs: string[] = [];
const groups: { pgid?: number; procStart?: string }[] = [];
after(async () => {
  for (const g of groups) await killGroupIfOurs(g.pgid, g.procStart);
  for (const d of dirs) await removeDir(d);
});

test('Train screen: form, live derived values, validation, launch and stop with confirmation, no secret on screen', { timeout: 120_000 }, async () => {
  const w = await trainWorkspace();
  dirs.push(w.root);
  const log = new CommandLog();
  const env = { ...w.env, FAKE_LAUNCHER_ROLLOUTS: '100000', FAKE_LAUNCHER_SAMPLES: '1', FAKE_LAUNCHER_LINE_DELAY: '0.05' };
  const services = createAppServices({ workspace: w.root, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: log, env });
  const ui = renderInk(<App services={services} size={{ width: 160, height: 48 }} />);
  const frames = () => ui.frames.join('\n');
  try {
    await ui.press('6');
    await ui.waitForText('Launch settings');
    await ui.waitForText('effective_parallelism: total_actor_gpus=8 TP_SIZE=2 CP_SIZE=4 DP_SIZE=1');
    const f = ui.frame();
    assert.match(f, /4-node GRPO/);
    assert.match(f, /── Model ──/);
    assert.match(f, /MODEL_ROOT +\S*models +\[env\]/);
    assert.match(f, /total GPUs: 8 \(1 node × 8\)/);
    assert.match(f, /✓ DRESSAGE_E2B_API_KEY: set \(28 chars\)/);

    // Move to ACTOR_NUM_NODES and set 4: derived values follow at once and the form is saved.
    for (let i = 0; i < FIELD_KEYS.indexOf('ACTOR_NUM_NODES'); i++) await ui.press(KEYS.down);
    await ui.waitForText('ACTOR_NUM_NODES: nodes in the run');
    await ui.press(KEYS.enter);
    await ui.press('x');
    await ui.press(KEYS.enter);
    await ui.waitForText('ACTOR_NUM_NODES must be a positive integer; got x');
    await ui.press(KEYS.backspace);
    await ui.press('4');
    await ui.press(KEYS.enter);
    await ui.waitForText('total GPUs: 32 (4 nodes × 8)');
    assert.match(ui.frame(), /DP size: 4/);
    assert.match(ui.frame(), /effective_parallelism: total_actor_gpus=32 TP_SIZE=2 CP_SIZE=4 DP_SIZE=4/);
    const savedNodes = async () => JSON.parse(await readFile(w.paths.settingsFile, 'utf8').catch(() => '{}')).train?.values?.ACTOR_NUM_NODES;
    await waitFor(async () => (await savedNodes()) === '4', { timeoutMs: 5000 });
    // Four nodes without HOSTFILE: a warning, not a block. Back to 1 node (u resets to the env value).
    await ui.waitForText(/Nodes \/ Ray workers: 4 nodes but no HOSTFILE/);
    await ui.press('u');
    await ui.waitForText('total GPUs: 8 (1 node × 8)');

    // Launch asks first; n cancels; y launches, detached.
    await ui.press('l');
    await ui.waitForText('Launch the run now (detached)?');
    await ui.press('n');
    await waitFor(() => !ui.frame().includes('Launch the run now'));
    assert.equal((await listRuns(w.paths)).length, 0);
    await ui.press('l');
    await ui.waitForText('Launch the run now (detached)?');
    await ui.press('y');
    // Registered first, then spawned: wait for the pid so that cleanup can always find the group.
    await waitFor(async () => (await listRuns(w.paths))[0]?.pid !== undefined, { timeoutMs: 30_000 });
    const [run] = await listRuns(w.paths);
    assert.equal((await listRuns(w.paths)).length, 1);
    groups.push({ pgid: run!.pgid, procStart: run!.procStart });
    await ui.waitForText(/(starting|running) +swegym-qwen3\.5-4b-claude-code-grpo-sync-/, 30_000);
    assert.ok(log.entries().some((e) => e.status === 'detached' && e.argv[1] === w.paths.launcherScript));

    // Stop: Tab to the runs panel, x asks, y stops.
    await ui.press(KEYS.tab);
    await ui.press(KEYS.tab);
    await ui.press('x');
    await ui.waitForText(`Stop ${run!.name}?`);
    await ui.press('y');
    await ui.waitForText(/stopped +swegym-qwen3\.5-4b/, 40_000);
    assert.equal(isGroupAlive(run!.pgid!), false);
    assert.ok(!frames().includes(SECRET), 'a secret reached the screen');
    assert.ok(!JSON.stringify(services.train.store.getState()).includes(SECRET), 'a secret from the environment reached the train store');
    assert.ok(!JSON.stringify(log.entries()).includes(SECRET), 'a secret reached the command log');
  } finally {
    ui.unmount();
    services.dispose();
  }
});
