// `swegym-console demo --json` through the real entry, on bubblewrap: the sample workspace is built, smoke-tested
// and validated for real, offline; the summary is labelled as the sample and its results have the shape of
// `validate harness --json`. Then the files the home screen reads are on disk.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { pipelineStatus } from '../../src/services/pipeline/pipeline.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk } from '../helpers/ink.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

test('demo --json: data → templates → smoke → rows → validation on the sample tasks, for real', async () => {
  const parent = await tempDir('swegym-demo-');
  dirs.push(parent);
  const ws = path.join(parent, 'sample');
  const r = await runCli(['demo', '--json', '--dir', ws]);
  assert.equal(r.code, 0, `stderr:\n${r.err}\nstdout:\n${r.out}`);
  const summary = JSON.parse(r.out);
  assert.equal(summary.sample, true);
  assert.match(summary.label, /^SAMPLE WORKSPACE/);
  assert.equal(summary.workspace, ws);
  assert.equal(summary.provider, 'local');
  assert.deepEqual(summary.steps.map((s: { id: string }) => s.id), ['data', 'templates', 'smoke', 'rows', 'validate', 'agent']);
  assert.ok(summary.steps.every((s: { ok: boolean }) => s.ok), JSON.stringify(summary.steps, null, 1));
  // The real Claude Code CLI (a dev dependency) solved one task in its sandbox, its model a labelled replay.
  assert.equal(summary.agent.scripted, true);
  assert.match(summary.agent.model, /^scripted: replay of the gold patch of sample-org__/);
  assert.match(summary.agent.cli_version, /\(Claude Code\)$/);
  assert.deepEqual([summary.agent.claude_code.status, summary.agent.claude_code.model_turns, summary.agent.reward, summary.agent.error], ['success', 4, 1, null]);
  assert.match(summary.agent.summary, /^resolved F2P 2\/2/);
  const agentLog = await runCli(['agent-log', summary.agent.log_file, '--json']);
  assert.equal(agentLog.code, 0, agentLog.err);
  // The log kept in the workspace reads the same afterwards (the run's own reading adds only its cause).
  const { cause: _cause, ...expected } = summary.agent.claude_code;
  assert.deepEqual(JSON.parse(agentLog.out), expected);
  assert.deepEqual(expected.tool_calls.map((c: { name: string }) => c.name), ['Read', 'Bash', 'Edit', 'Bash']);
  const manifest = JSON.parse(readFileSync('samples/tasks/manifest.json', 'utf8')) as { instances: { instance_id: string; FAIL_TO_PASS: string[] }[] };
  assert.equal(summary.results.length, manifest.instances.length);
  for (const res of summary.results) {
    assert.deepEqual(Object.keys(res).slice(0, 5), ['instance_id', 'gold', 'control', 'ok', 'error']);
    const inst = manifest.instances.find((i) => i.instance_id === res.instance_id);
    assert.ok(inst);
    assert.equal(res.ok, true);
    assert.equal(res.error, null);
    assert.equal(res.gold.resolved, true);
    assert.equal(res.gold.fail_to_pass_success, inst.FAIL_TO_PASS.length);
    assert.equal(res.control.resolved, false);
    assert.equal(res.control.failure_reason, 'fail_to_pass_failure');
  }
  assert.match(r.err, /SAMPLE WORKSPACE/);
  // The workspace reads like a real one on the home screen.
  const paths = recipePaths(ws);
  assert.ok(existsSync(paths.templateMap) && existsSync(paths.trainJsonl) && existsSync(path.join(paths.consoleDir, 'sample-workspace')));
  const steps = Object.fromEntries((await pipelineStatus(paths)).map((s) => [s.id, s.state]));
  // The split is a real parquet in SkyRL's layout, holding the sample tasks; images follow Dressage's naming.
  assert.equal(steps.data, 'present');
  assert.equal(steps.images, 'present');
  assert.equal(steps.artifacts, 'present', 'the sample templates need no artifacts');
  const shown = await runCli(['data', 'show', '--json', '--workspace', ws]);
  assert.equal(shown.code, 0, shown.err);
  const doc = JSON.parse(shown.out) as { rows: number; instances: { instance_id: string; image: string; template: string | null }[] };
  assert.equal(doc.rows, manifest.instances.length);
  assert.deepEqual(doc.instances.map((i) => i.instance_id).sort(), manifest.instances.map((i) => i.instance_id).sort());
  assert.deepEqual(readFileSync(paths.imageList, 'utf8').trim().split('\n').sort(), doc.instances.map((i) => i.image).sort());
  assert.ok(doc.instances.every((i) => i.image.startsWith('xingyaoww/sweb.eval.x86_64.sample-org_s_')));
  assert.equal(steps.templates, 'present');
  assert.equal(steps.smoke, 'present');
  assert.equal(steps.validate, 'present');
  // The sample workspace agrees with itself: the doctor fails nothing the sample needs, the JSONL verifies against
  // the sample's own expectations, and building templates says how the sample's are built instead of failing.
  const doctor = await runCli(['doctor', '--json', '--workspace', ws, '--provider', 'local']);
  const failing = (JSON.parse(doctor.out) as { checks: { id: string; status: string; detail: string }[] }).checks.filter((c) => c.status === 'fail');
  assert.deepEqual(failing.map((c) => `${c.id}: ${c.detail}`), []);
  const verify = await runCli(['convert', '--verify-only', '--workspace', ws]);
  assert.equal(verify.code, 0, verify.out + verify.err);
  assert.match(verify.out, new RegExp(`ok +${manifest.instances.length} rows \\(expected ${manifest.instances.length}\\)`));
  const build = await runCli(['templates', 'build', '--workspace', ws, '--provider', 'local']);
  assert.equal(build.code, 0, build.err);
  assert.match(build.err, /sample workspace: its templates are built by `swegym-console demo`/);
  // In the console: the Validate screen of the sample workspace shows the label and the matrix.
  const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  const ui = renderInk(<App services={services} size={{ width: 140, height: 30 }} />);
  try {
    await ui.waitForText('SAMPLE WORKSPACE (not SWE-Gym) · provider: local (bubblewrap)');
    await ui.press('r'); // the console refreshes Home at start-up (cli/interactive); here the key does
    await ui.waitForText(/✓ 1\. Download the SWE-Gym split +train\.parquet present/, 20_000);
    await ui.waitForText('Three sample tasks (samples/tasks) stand in for the 293 SWE-Gym tasks');
    await ui.waitForText(/Doctor — \d+ ok, 0 fail/, 20_000);
    // The Data screen reads the sample split like the real one: every task, each with its template.
    await ui.press('2');
    await ui.waitForText(`${manifest.instances.length} tasks · / filters`);
    await ui.waitForText('data/swegym-images.txt matches · 3/3 images have a template');
    // Templates: no artifacts to build here, and the screen says why rather than asking for them.
    await ui.press('3');
    await ui.waitForText('artifacts: not built — the sample templates carry local stand-ins');
    await ui.press('b');
    await ui.waitForText('sample workspace: its templates are built by');
    await ui.press('5');
    await ui.waitForText('SAMPLE WORKSPACE —');
    await ui.waitForText(`${manifest.instances.length} tasks: ${manifest.instances.length} ✓ validated, 0 ✗ failing, 0 not run`);
  } finally {
    ui.unmount();
    services.dispose();
  }
  // No sandbox left running.
  const sandboxes = path.join(paths.consoleDir, 'local-sandboxes', 'sandboxes');
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(existsSync(sandboxes) ? readdirSync(sandboxes) : [], []);
});

test('demo without the Claude Code CLI says so in the agent step and still passes', async () => {
  const parent = await tempDir('swegym-demo-nocli-');
  dirs.push(parent);
  const before = process.env.CLAUDE_CODE_BIN;
  process.env.CLAUDE_CODE_BIN = path.join(parent, 'no-claude-here');
  try {
    const r = await runCli(['demo', '--json', '--dir', path.join(parent, 'sample')]);
    assert.equal(r.code, 0, r.err);
    const summary = JSON.parse(r.out);
    const agent = summary.steps.find((s: { id: string }) => s.id === 'agent');
    assert.match(agent.detail, /^NOT RUN: the Claude Code CLI is not installed: CLAUDE_CODE_BIN=.*no-claude-here does not exist; fix: npm install/);
    assert.equal(summary.agent, null);
  } finally {
    if (before === undefined) delete process.env.CLAUDE_CODE_BIN;
    else process.env.CLAUDE_CODE_BIN = before;
  }
});

test('demo refuses a non-empty directory that is not a sample workspace', async () => {
  const parent = await tempDir('swegym-demo-');
  dirs.push(parent);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(path.join(parent, 'precious.txt'), 'keep me');
  const r = await runCli(['demo', '--json', '--dir', parent]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /is not empty and is not a sample workspace/);
  assert.equal(readFileSync(path.join(parent, 'precious.txt'), 'utf8'), 'keep me');
});
