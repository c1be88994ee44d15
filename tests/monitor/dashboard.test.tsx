import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { rolloutLines, sampleLine } from './builders.js';
import { waitFor } from '../helpers/wait.js';
import { setup, teardown, assertFits } from './dashboardSetup.js';

test('wide dashboard: header, charts, rollouts, live samples, sandboxes, GPUs, proxy, alerts', async () => {
  const size = { width: 160, height: 48 };
  const x = await setup(size);
  try {
    await x.ui.waitForText(/generating · rollout 4\/500 .* samples 5\/128/);
    await x.ui.waitForText('proxy 42 sessions');
    await x.ui.waitForText('1 agent · 1 eval · 2/20 of plan');
    await x.ui.waitForText(/ 0 █+\S* +99% +██\S*·+ +41\/140G 56C 690W/);
    const f = x.ui.frame();
    assert.match(f, /▶ running · demo-run · generating · rollout 4\/500 · ckpt – · elapsed \S+ · ETA \S+ · samples 5\/128 · last line (<5|\d+) s ago/);
    assert.match(f, /reward\(traj\) 0\.5 \(r3\) · nodes 4\/4 · router 10\.0\.0\.1:8000 · train\.log following · proxy 42 sessions · sandboxes 2\/20 · solved \d+\/\d+/);
    assert.match(f, /reward \(trajectory mean\) 0\.5/);
    assert.match(f, /loss /);
    assert.match(f, /grad norm 0\.31/);
    assert.match(f, /Rollouts — 4/);
    assert.match(f, /\s+3\s+34%\s+0\.5\s+128\s+4\s+0\s+0\s+fail_to_pass_failure:85/);
    assert.match(f, /✓ r4 live__task-4/);
    // Half-width panel: the sandbox id's head (rows of one template differ by it) and the last tool call rather than
    // the trajectory id (the drill-in and `v` show that).
    await x.ui.waitForText(/agent swegym-getmoto-moto-1 +sbx-agen +10m +7\/80 Bash\(pyte/);
    assert.doesNotMatch(f, /not-dressage/);
    assert.match(f, /nodes 4\/4 · router 10\.0\.0\.1:8000/);
    assert.doesNotMatch(f, /SIMULATED/, 'a real run is not labelled');
    assertFits(f, size);
    // Live: a new rollout summary arrives in the log and shows up without any key press.
    await writeFile(path.join(x.runDir, 'train.log'), rolloutLines(4, 0, { mean: 0.9 }).join('\n') + '\n', { flag: 'a' });
    await x.ui.waitForText('Rollouts — 5');
    await x.ui.waitForText(/generating · rollout 5\/500 .* samples 0\/128/);
  } finally {
    await teardown(x);
  }
});

test('a run written by the simulator is labelled SIMULATED above everything else, in wide and small terminals', async () => {
  for (const size of [{ width: 160, height: 48 }, { width: 60, height: 16 }]) {
    const x = await setup(size, { simulated: true });
    try {
      // Wide: the counts last; narrow: right after the state, then the ETA, where the cut line still shows them.
      await x.ui.waitForText(size.width > 100 ? /generating · rollout 4\/500 .* samples 5\/128/ : /generating 5\/128/);
      const rows = x.ui.frame().split('\n');
      const title = rows.findIndex((r) => r.includes('SIMULATED RUN'));
      const runLine = rows.findIndex((r) => /generating/.test(r));
      assert.ok(title >= 0 && title < runLine, `the label comes first:\n${rows.slice(0, 5).join('\n')}`);
      assertFits(x.ui.frame(), size);
    } finally {
      await teardown(x);
    }
  }
});

test('Tab cycles panels, Enter drills into a sandbox stream and a trajectory, Esc goes back', async () => {
  const size = { width: 140, height: 40 };
  const x = await setup(size);
  try {
    await x.ui.waitForText('1 agent · 1 eval');
    for (let i = 0; i < 3; i++) await x.ui.press(KEYS.tab);
    await x.ui.waitForText('▸ Sandboxes');
    await x.ui.press(KEYS.enter);
    await x.ui.waitForText('Sandbox sbx-agent-1 · swegym-getmoto-moto-1 · bbs-1234 · steps so far 7');
    assert.match(x.ui.frame(), /assistant\s+Let me run the tests · Bash\(pytest tests\/test_x\.py\)/);
    assert.match(x.ui.frame(), /result\s+success · num_turns=7/);
    await x.ui.press(KEYS.escape);
    await x.ui.waitForText('▸ Sandboxes');
    await x.ui.press(KEYS.tab);
    await x.ui.press(KEYS.tab);
    await x.ui.press(KEYS.tab);
    await x.ui.waitForText('▸ Trajectories');
    await x.ui.press(KEYS.enter);
    await x.ui.waitForText('reward 1 · marker');
    const f = x.ui.frame();
    assert.match(f, /\[user\] Fix the bug/);
    assert.match(f, /→ Bash \{"command":"pytest -x"\}/);
    assert.match(f, /\+fixed/);
    assert.match(f, /"f2p":"2\/2"/);
    assertFits(f, size);
    await x.ui.press(KEYS.escape);
    await x.ui.waitForText('▸ Trajectories');
  } finally {
    await teardown(x);
  }
});

const recording = (name: string) => readFile(path.join(import.meta.dirname, '..', 'fixtures', 'claude-code', `${name}.jsonl`), 'utf8');

async function drillIntoAgentSandbox(x: Awaited<ReturnType<typeof setup>>) {
  await x.ui.waitForText('1 agent · 1 eval');
  for (let i = 0; i < 3; i++) await x.ui.press(KEYS.tab);
  await x.ui.waitForText('▸ Sandboxes');
  await x.ui.press(KEYS.enter);
}

test('drill-in on a real Claude Code log that ended in API 529: the error ending with its cause, each retry marked', async () => {
  const size = { width: 160, height: 40 };
  const x = await setup(size, { agentLog: `STEPS=1\n${await recording('api-529-exhausted')}` });
  try {
    // The row says how the agent ended instead of its last tool call.
    await x.ui.waitForText(/agent\s+swegym-getmoto-moto-1 .*✗ API error 529/);
    await drillIntoAgentSandbox(x);
    await x.ui.waitForText('✗ Claude Code ended: API error 529 after 2 retries: API Error: 529 Overloaded');
    const f = x.ui.frame();
    assert.match(f, /! api_retry\s+API retry 1\/2: 529 overloaded/);
    assert.match(f, /! api_retry\s+API retry 2\/2: 529 overloaded/);
    assert.match(f, /✗ api_error\s+API Error: 529 Overloaded/);
    assert.match(f, /✗ result\s+API error 529 after 2 retries/);
    assert.doesNotMatch(f, /success · num_turns/, 'an API error is not shown as a success');
    assertFits(f, size);
  } finally {
    await teardown(x);
  }
});

test('drill-in: max turns is an error ending; retries show while the agent still runs', async () => {
  const size = { width: 160, height: 40 };
  const maxTurns = await setup(size, { agentLog: `STEPS=2\n${await recording('max-turns')}` });
  try {
    await drillIntoAgentSandbox(maxTurns);
    await maxTurns.ui.waitForText('✗ Claude Code ended: max turns (Reached maximum number of turns (2))');
  } finally {
    await teardown(maxTurns);
  }
  // The 500-recovered run cut right after its two retries: still running, the retries counted as they happen.
  const lines = (await recording('api-500-recovered')).trim().split('\n');
  const cut = lines.findLastIndex((l) => l.includes('"api_retry"'));
  const live = await setup(size, { agentLog: `STEPS=0\n${lines.slice(0, cut + 1).join('\n')}\n{"type":"assist` });
  try {
    await drillIntoAgentSandbox(live);
    await live.ui.waitForText('! Claude Code running · API retries so far 2 (last: 500)');
  } finally {
    await teardown(live);
  }
});

test('drill-in on a finished sample: the sandbox is gone, its transcript comes from the trajectory files', async () => {
  const size = { width: 160, height: 40 };
  const x = await setup(size, { gone: true });
  try {
    // The trajectory Dressage wrote for the agent sandbox's session (its trajectory_id).
    const sess = path.join(x.runDir, 'traj_payload', 'demo-run', 'getmoto__moto-1', 'bbs-1234');
    await mkdir(path.join(sess, 'samples'), { recursive: true });
    await writeFile(path.join(sess, 'session.json'), JSON.stringify({ success: true, data: [{ messages: [{ role: 'user', content: 'Fix moto' }, { role: 'assistant', content: 'Editing models.py', tool_calls: [{ id: '1', type: 'function', function: { name: 'Edit', arguments: '{"file_path":"moto/models.py"}' } }] }] }] }));
    await writeFile(path.join(sess, 'samples', '0.json'), JSON.stringify({ metadata: { execute_cmds: [{ stage: 'after_agent', name: 'swegym_harness', cmd: 'x', cmd_result: { stdout: 'DRESSAGE_SWEGYM_REWARD_JSON={"resolved":false,"fail_to_pass_success":0,"fail_to_pass_total":1,"pass_to_pass_success":3,"pass_to_pass_total":3,"failure_reason":"fail_to_pass_failed"}\n' } }] } }));
    await drillIntoAgentSandbox(x);
    await x.ui.waitForText('finished: the sandbox is gone; its transcript from the trajectory files');
    const f = x.ui.frame();
    assert.match(f, /Trajectory getmoto__moto-1 \/ bbs-1234/);
    assert.match(f, /\[user\] Fix moto/);
    assert.match(f, /→ Edit \{"file_path":"moto\/models.py"\}/);
    assert.match(f, /reward 0 · marker .*fail_to_pass_failed/);
    assert.doesNotMatch(f, /not found \(killed or expired\)/);
  } finally {
    await teardown(x);
  }
});

test('/ filters the sample feed; f toggles follow; the filter field owns the keyboard', async () => {
  const size = { width: 120, height: 30 };
  const x = await setup(size);
  try {
    await x.ui.waitForText('live__task-4');
    await x.ui.press(KEYS.tab);
    await x.ui.press(KEYS.tab);
    await x.ui.waitForText('▸ Samples');
    await x.ui.press('f');
    await x.ui.waitForText('Samples — paused');
    assert.match(x.ui.frame(), /live__task-4/, 'pausing keeps the newest rows in view');
    await x.ui.press('/');
    for (const c of 'task-2') await x.ui.press(c);
    await x.ui.waitForText('filter: task-2');
    // '2' typed in the filter did not jump to screen 2.
    assert.match(x.ui.frame(), /▸ Samples/);
    await x.ui.press(KEYS.enter);
    const f = x.ui.frame();
    assert.match(f, /live__task-2/);
    assert.doesNotMatch(f, /live__task-3/);
    assertFits(f, size);
  } finally {
    await teardown(x);
  }
});

test('small terminals get one panel at a time and every frame fits', async () => {
  for (const size of [
    { width: 80, height: 24 },
    { width: 60, height: 16 },
    { width: 40, height: 10 },
  ]) {
    const x = await setup(size);
    try {
      await x.ui.waitForText('▶ running');
      assertFits(x.ui.frame(), size);
      for (let i = 0; i < 7; i++) {
        await x.ui.press(KEYS.tab);
        assertFits(x.ui.frame(), size);
      }
    } finally {
      await teardown(x);
    }
  }
});

test('a run that cannot be opened explains itself', async () => {
  const ws = await tempDir();
  try {
    const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'dashboard' });
    const ui = renderInk(<App services={services} size={{ width: 100, height: 30 }} />);
    await ui.waitForText('Cannot open the run');
    assert.match(ui.frame(), /No run to monitor/);
    ui.unmount();
    await services.monitor.close();
  } finally {
    await removeDir(ws);
  }
});

test('no setState per log line: publishing is bounded by the ticker', async () => {
  const size = { width: 120, height: 30 };
  const x = await setup(size);
  try {
    await x.ui.waitForText(/generating 5\/128|samples 5\/128/);
    let sets = 0;
    const unsub = x.services.monitor.store.subscribe(() => sets++);
    const extra: string[] = [];
    for (let i = 0; i < 3000; i++) extra.push(sampleLine({ reward: 0, instance: `burst-${i}` }));
    await writeFile(path.join(x.runDir, 'train.log'), extra.join('\n') + '\n', { flag: 'a' });
    await waitFor(() => x.services.monitor.model!.pending.total === 3005, { timeoutMs: 10_000 });
    await x.ui.waitForText(/(generating|samples) 3005\/128/);
    unsub();
    assert.ok(sets < 100, `store updated ${sets} times for 3000 lines`);
  } finally {
    await teardown(x);
  }
});
