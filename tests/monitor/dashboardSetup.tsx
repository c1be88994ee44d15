// The dashboard tests' run: a small log (4 rollouts, live samples), a trajectory, two Dressage sandboxes (one agent
// whose Claude Code log the double prints), nvidia-smi from the H200 fixture and a proxy /health.
import assert from 'node:assert/strict';
import React from 'react';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { RUNTIME_ROOT } from '../../src/services/monitor/sandboxes.js';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import type { Sandbox, SandboxInfo, SandboxProvider } from '../../src/services/sandbox/types.js';
import { renderInk } from '../helpers/ink.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { EFFECTIVE_LINES, rolloutLines, sampleLine, RM, pyLog } from './builders.js';

const FIX = path.join(import.meta.dirname, '..', 'fixtures', 'nvidia-smi');

/** Runs a script with bash, as a sandbox's command runs (asynchronously: the console's event loop keeps going). */
function runBash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (error) => resolve({ code: 127, stdout, stderr: stderr + String(error) }));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** A tiny provider double: lists what it is given, connects to a sandbox whose command prints a Claude Code log. */
function providerDouble(list: SandboxInfo[], agentLog: string | (() => string), gone: boolean | (() => boolean) = false): SandboxProvider {
  let runtimeRoot: string | undefined;
  let writtenLog: string | undefined;
  let writtenSteps = 0;
  const sandbox = {
    id: list[0]?.id ?? 'x',
    provider: 'memory',
    template: 't',
    run: async (script: string) => {
      // A sandbox that was killed (its sample finished) fails every command, as E2B does.
      if (typeof gone === 'function' && gone()) throw new Error('sandbox not found (killed or expired)');
      // The console's own command runs with bash against a runtime folder here: `STEPS=N` then the log's text
      // become N tool_summary files and claude_code.stdout.log (rewritten each time; a growing log keeps its prefix).
      const [stepsLine = '', ...log] = (typeof agentLog === 'function' ? agentLog() : agentLog).split('\n');
      const root = (runtimeRoot ??= mkdtempSync(path.join(tmpdir(), 'sbx-double-')));
      const logs = path.join(root, 'bbs-double', 'logs');
      // Written only when it changed (the console polls every few tens of milliseconds; rewriting the same files and
      // running bash synchronously each time was most of these tests' CPU).
      const text = log.join('\n');
      const steps = Number(/^STEPS=(\d+)/.exec(stepsLine)?.[1] ?? 0);
      if (text !== writtenLog || steps !== writtenSteps) {
        mkdirSync(logs, { recursive: true });
        for (let i = writtenSteps; i < steps; i++) writeFileSync(path.join(logs, `tool_summary.${i}.json`), '{}');
        writeFileSync(path.join(logs, 'claude_code.stdout.log'), text);
        writtenLog = text;
        writtenSteps = Math.max(writtenSteps, steps);
      }
      const r = await runBash(script.replaceAll(RUNTIME_ROOT, root));
      return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr, timedOut: false };
    },
  } as unknown as Sandbox;
  return {
    name: 'memory',
    list: async (filter: { metadata?: Record<string, string> }) => list.filter((s) => Object.entries(filter.metadata ?? {}).every(([k, v]) => s.metadata[k] === v)),
    connect: async (id: string) => {
      if (gone === true || (typeof gone === 'function' && gone())) throw new Error(`sandbox ${id} not found (killed or expired)`);
      return sandbox;
    },
  } as unknown as SandboxProvider;
}

export async function setup(size: { width: number; height: number }, opts: { simulated?: boolean; agentLog?: string | (() => string); gone?: boolean | (() => boolean); moreSandboxes?: SandboxInfo[] } = {}) {
  const ws = await tempDir();
  const runDir = path.join(ws, 'outputs', 'logs', 'demo-run');
  await mkdir(runDir, { recursive: true });
  const lines = [...EFFECTIVE_LINES, 'Current Ray node count: 4; expected ACTOR_NUM_NODES: 4', 'Router launched at 10.0.0.1:8000, Prometheus port: 29000'];
  for (let r = 0; r < 4; r++) lines.push(...rolloutLines(r, 128, { mean: 0.2 + r * 0.1 }));
  for (let i = 0; i < 5; i++) lines.push(sampleLine({ reward: 1, instance: `live__task-${i}` }, 20_000 + i));
  lines.push(RM + pyLog('x.py', 1, 'blackbox rollout failed for session_id=bbs-dead: blackbox agent returned failed state \'desynced\''));
  await writeFile(path.join(runDir, 'train.log'), lines.join('\n') + '\n');
  // The run simulator's manifest (src/services/simulator/writer.ts) marks a run as simulated.
  if (opts.simulated) await writeFile(path.join(runDir, 'simulation.json'), JSON.stringify({ simulated: true, note: 'Simulated Dressage SWE-Gym run' }));
  // One trajectory file pair (success) for the browser.
  const sess = path.join(runDir, 'traj_payload', 'demo-run', 'task__repo-1', 'bbs-0001');
  await mkdir(path.join(sess, 'samples'), { recursive: true });
  await writeFile(path.join(sess, 'session.json'), JSON.stringify({ success: true, mode: 'trajectory', data: [{ messages: [{ role: 'user', content: 'Fix the bug' }, { role: 'assistant', content: 'Looking', tool_calls: [{ id: '1', type: 'function', function: { name: 'Bash', arguments: '{"command":"pytest -x"}' } }] }] }] }));
  await writeFile(path.join(sess, 'samples', '0.json'), JSON.stringify({ metadata: { execute_cmds: [{ stage: 'after_agent', name: 'swegym_harness', cmd: 'x', cmd_result: { stdout: 'noise\nDRESSAGE_SWEGYM_REWARD_JSON={"resolved":true,"fail_to_pass_success":2,"fail_to_pass_total":2,"pass_to_pass_success":40,"pass_to_pass_total":40}\n' } }, { stage: 'after_agent', name: 'patch', cmd: 'cd /testbed && git add -A && git diff --cached --binary', cmd_result: { stdout: 'diff --git a/x.py b/x.py\n+fixed\n' } }] } }));
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'dashboard' });
  services.monitor.dispose();
  const gpuCsv = await readFile(path.join(FIX, 'query-common-load-nounits.csv'), 'utf8');
  const now = Date.now();
  const sandboxes: SandboxInfo[] = [
    { id: 'sbx-agent-1', template: 'swegym-getmoto-moto-1', metadata: { trajectory_id: 'bbs-1234', paddock_mode: 'blackbox' }, startedAt: new Date(now - 600_000).toISOString(), state: 'running', provider: 'memory' },
    { id: 'sbx-eval-1', template: 'swegym-getmoto-moto-1', metadata: { trajectory_id: 'swegym-eval-abcd', paddock_mode: 'blackbox' }, startedAt: new Date(now - 60_000).toISOString(), state: 'running', provider: 'memory' },
    { id: 'not-dressage', template: 'other', metadata: { swegym_console: '1' }, startedAt: new Date(now).toISOString(), state: 'running', provider: 'memory' },
    ...(opts.moreSandboxes ?? []),
  ];
  const agentLog = opts.agentLog ?? ['STEPS=7', '{"type":"system","subtype":"init"}', JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'Let me run the tests' }, { type: 'tool_use', name: 'Bash', input: { command: 'pytest tests/test_x.py' } }] } }), '{"type":"result","num_turns":7,"is_error":false}'].join('\n');
  const fetchImpl = (async () => new Response(JSON.stringify({ status: 'ok', active_sessions: 42, rollout_pause: { paused: false } }), { status: 200 })) as typeof fetch;
  services.monitor = new MonitorService({
    paths: services.paths,
    store: createMonitorStore(),
    gpuRunner: async () => ({ ok: true, stdout: gpuCsv }),
    provider: async () => providerDouble(sandboxes, agentLog, opts.gone),
    sandboxLimit: 20,
    fetchImpl,
    hz: 10,
    pollMs: { log: 50, gpu: 250, proxy: 250, sandboxes: 250, ray: 10_000, stream: 50, agents: 250 },
  });
  const ui = renderInk(<App services={services} size={size} />);
  // Generous deadlines: the shared test machine can be very busy (waits end as soon as the text appears).
  const waitForText = ui.waitForText;
  ui.waitForText = (text: string | RegExp, timeoutMs = 30_000) => waitForText(text, timeoutMs);
  return { ws, runDir, services, ui };
}

export async function teardown(x: Awaited<ReturnType<typeof setup>>) {
  x.ui.unmount();
  await x.services.monitor.close();
  await removeDir(x.ws);
}

export function assertFits(frame: string, size: { width: number; height: number }) {
  const rows = frame.split('\n');
  assert.ok(rows.length <= size.height, `frame has ${rows.length} rows for a ${size.height}-row terminal`);
  for (const r of rows) assert.ok([...r].length <= size.width, `row wider than ${size.width}: ${r}`);
}

