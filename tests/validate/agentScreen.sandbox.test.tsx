// The Validate screen runs `validate agent` on the selected task (key e): the real Claude Code CLI in a bubblewrap
// sandbox of a sample task, its model the scripted replay of the gold patch. The screen shows the run live (phase,
// model turns and tool calls from the stream-json reader) and then its graded result, whose counts equal
// agent-log's on the same log; a console opened later shows the task's last run from the workspace.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk } from '../helpers/ink.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { runDemo } from '../../src/services/demo/demo.js';
import { createProvider } from '../../src/services/sandbox/index.js';
import { findClaudeCodeCli } from '../../src/services/demo/localAgent.js';
import { fileLogSource, readAgentLog } from '../../src/services/agent/agentLog.js';
import { readAgentRunRecord } from '../../src/services/validate/agentRecord.js';
import { recipePaths } from '../../src/services/workspace/paths.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

const cli = findClaudeCodeCli();

test('Validate screen: e runs Claude Code on the selected task, live, then shows the graded result; it stays after a restart', { timeout: 180_000, skip: cli.ok ? false : `the real Claude Code CLI is needed: ${cli.reason}` }, async () => {
  const parent = await tempDir('swegym-agent-screen-');
  dirs.push(parent);
  const ws = path.join(parent, 'sample');
  // The sample workspace, its Claude Code step left to the console (as the demo does in a terminal).
  const demo = await runDemo({ provider: createProvider('local', { workspace: ws, local: { log: new CommandLog() } }), workspace: ws, agentInConsole: true });
  assert.ok(demo.ok, JSON.stringify(demo.steps, null, 1));
  assert.equal(demo.agent, null);
  const id = demo.agentInConsole as string;
  assert.match(id, /^sample-org__/);

  const global = { workspace: ws, provider: 'local' as const, debug: false, color: false, json: false };
  const services = createAppServices(global, { commandLog: new CommandLog() });
  const ui = renderInk(<App services={services} size={{ width: 160, height: 34 }} />);
  try {
    await ui.press('5');
    await ui.waitForText('3 tasks: 3 ✓ validated');
    assert.doesNotMatch(ui.frame(), /Claude Code \(validate agent\) on/, 'no agent run yet');
    assert.match(ui.frame(), /\bw Claude Code\b/, 'the footer names the key');
    // The first row is the demo's agent task.
    assert.match(ui.frame(), new RegExp(`›✓ ${id}`));
    await ui.press('w');
    await ui.waitForText('graded in a fresh sandbox: ✓ resolved F2P', 120_000);
    const frames = ui.frames.map((f) => f.replace(/\u001B\[[0-9;?]*[ -/]*[@-~]/g, ''));
    // While it ran: its phase, the scripted model's label, and the reader's counts going up.
    assert.ok(frames.some((f) => f.includes(`Claude Code (validate agent) on ${id}: running · model SCRIPTED`)), 'the running phase was shown');
    const live = frames.flatMap((f) => [...f.matchAll(/Claude Code running: (\d+) model turns?, (\d+) tool calls?/g)].map((m) => Number(m[2])));
    assert.ok(live.length > 0 && live.some((n) => n > 0), `live tool-call counts were shown: ${live.join(',')}`);
    const record = await readAgentRunRecord(recipePaths(ws), id);
    assert.ok(record, 'the run left its record');
    assert.deepEqual([record.resolved, record.reward, record.scripted], [true, 1, true]);
    // The counts shown equal agent-log's on the same log.
    const fromLog = await readAgentLog(fileLogSource(record.logFile));
    assert.match(ui.frame(), new RegExp(`Claude Code success: ${fromLog.modelTurns} model turns, ${fromLog.toolCalls.length} tool calls`));
    assert.ok(live.every((n) => n <= fromLog.toolCalls.length));
    assert.match(ui.frame(), /→ reward 1/);
    assert.match(ui.frame(), /validate agent sample-org__\S+: resolved \(reward 1\)/);
  } finally {
    ui.unmount();
    services.dispose();
  }

  // After: a new console on the same workspace shows the task's last run.
  const again = createAppServices(global, { commandLog: new CommandLog() });
  const ui2 = renderInk(<App services={again} size={{ width: 160, height: 34 }} />);
  try {
    await ui2.press('5');
    await ui2.waitForText(`Claude Code (validate agent) on ${id}: model SCRIPTED (gold patch replay)`);
    assert.match(ui2.frame(), /graded in a fresh sandbox: ✓ resolved F2P \d\/\d P2P \d\/\d → reward 1/);
  } finally {
    ui2.unmount();
    again.dispose();
  }
});
