import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fetchProxyHealth, proxyUrlFrom } from '../../src/services/monitor/proxy.js';
import { classifyTrajectory, listDressageSandboxes, parseAgentProgress, summarizeStreamEvent, toRows } from '../../src/services/monitor/sandboxes.js';
import { computeAlerts } from '../../src/services/monitor/alerts.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { findMarker, listTrajectories, loadTrajectory } from '../../src/services/monitor/offline.js';
import type { SandboxInfo, SandboxProvider } from '../../src/services/sandbox/types.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { metricLine, RM, pyLog, sampleLine } from './builders.js';

async function server(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => s.close(() => r())) };
}

test('proxy /health: active_sessions from the documented shape; errors and timeouts are values', async () => {
  const ok = await server((req, res) => {
    assert.equal(req.url, '/health');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'ok', active_sessions: 17, store: { total_items: 3, total_instances: 2, ready_instances: 1 }, rollout_pause: { paused: true, reason: 'weight_update' }, config: {} }));
  });
  try {
    const h = await fetchProxyHealth(ok.url + '/');
    assert.deepEqual({ ok: h.ok, s: h.activeSessions, p: h.paused, r: h.readyInstances }, { ok: true, s: 17, p: true, r: 1 });
  } finally {
    await ok.close();
  }
  const bad = await server((_req, res) => {
    res.statusCode = 502;
    res.end('bad gateway');
  });
  try {
    const h = await fetchProxyHealth(bad.url);
    assert.equal(h.ok, false);
    assert.equal(h.error, 'HTTP 502');
  } finally {
    await bad.close();
  }
  const down = await fetchProxyHealth('http://127.0.0.1:1');
  assert.equal(down.ok, false);
  assert.equal(proxyUrlFrom({ blackbox: { proxy: 'https://proxy.example.com' } }), 'https://proxy.example.com');
  assert.equal(proxyUrlFrom({ blackbox: { proxy: '<url>' } }), undefined);
  assert.equal(proxyUrlFrom({}, 'http://reg:8800'), 'http://reg:8800');
});

test('sandboxes: agent vs eval by trajectory_id, age, list by paddock_mode, failures as values', async () => {
  assert.equal(classifyTrajectory('bbs-6f1c'), 'agent');
  assert.equal(classifyTrajectory('swegym-eval-0af3'), 'eval');
  assert.equal(classifyTrajectory(undefined), 'other');
  const now = Date.parse('2026-08-01T12:00:00Z');
  const infos: SandboxInfo[] = [
    { id: 'a', template: 'tpl-a', metadata: { trajectory_id: 'bbs-1', paddock_mode: 'blackbox' }, startedAt: '2026-08-01T11:50:00Z', state: 'running', provider: 'memory' },
    { id: 'b', template: 'tpl-b', metadata: { trajectory_id: 'swegym-eval-2', paddock_mode: 'blackbox' }, startedAt: '2026-08-01T11:59:00Z', state: 'running', provider: 'memory' },
  ];
  const rows = toRows(infos, now);
  assert.deepEqual(rows.map((r) => [r.id, r.kind, r.ageMs]), [['a', 'agent', 600_000], ['b', 'eval', 60_000]]);
  let asked: unknown;
  const provider = { list: async (f: { metadata?: Record<string, string> }) => ((asked = f.metadata), infos) } as unknown as SandboxProvider;
  const snap = await listDressageSandboxes(provider, { limit: 20, clock: () => now });
  assert.deepEqual(asked, { paddock_mode: 'blackbox' });
  assert.deepEqual([snap.ok, snap.agents, snap.evals, snap.limit], [true, 1, 1, 20]);
  const failing = { list: async () => { throw new Error('rate limited'); } } as unknown as SandboxProvider;
  const f = await listDressageSandboxes(failing, { limit: 20 });
  assert.deepEqual([f.ok, f.error], [false, 'rate limited']);
});

test('Claude Code stream-json: tool calls, results, partial first line, no runtime yet', () => {
  const out = [
    'STEPS=3',
    '"partial":true}',
    JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Edit', input: { file_path: '/testbed/x.py' } }] } }),
    JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', is_error: true, content: 'File not found' }] } }),
    JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'git diff' } }] } }),
  ].join('\n');
  const p = parseAgentProgress(out);
  assert.equal(p.steps, 3);
  assert.equal(p.lastTool, 'Bash(git diff)');
  assert.deepEqual(p.events.map((e) => e.type), ['assistant', 'tool_result', 'assistant']);
  assert.equal(p.events[1]?.text, 'error: File not found');
  assert.equal(parseAgentProgress('NO_RUNTIME\n').error, 'no Blackbox Server runtime yet');
  assert.equal(summarizeStreamEvent('not json'), undefined);
});

test('alerts: error streak, all-zero rollout, failed groups, proxy down, quota, no progress, failed phase', () => {
  let clock = 0;
  const m = new RunModel({ clock: () => clock });
  m.ingestLine(sampleLine({ reward: 0 }));
  for (let i = 0; i < 10; i++) m.ingestLine(RM + pyLog('x.py', 1, `blackbox rollout failed for session_id=bbs-${i}: x`));
  m.ingestLine(RM + pyLog('x.py', 1, 'rollout group exhausted retries and will be marked failed: task_error=X: y'));
  m.ingestLine(metricLine('perf', 0, { 'rollout/zero_std/count_0.0': 8 }));
  const ids = (a: ReturnType<typeof computeAlerts>) => a.map((x) => x.id).sort();
  const sb = { ok: true, at: 0, rows: new Array(19).fill({}), agents: 19, evals: 0, limit: 20 } as any;
  clock = 0;
  assert.deepEqual(ids(computeAlerts({ model: m, now: 0, proxy: { consecutiveFailures: 3, last: { ok: false, at: 0, error: 'ECONNREFUSED' } }, sandboxes: sb, live: true })), ['all-zero', 'error-streak', 'failed-groups', 'proxy-down', 'quota']);
  // Training phase with no new line for an hour.
  assert.ok(ids(computeAlerts({ model: m, now: 60 * 60_000, live: true })).includes('no-progress'));
  assert.ok(!ids(computeAlerts({ model: m, now: 60 * 60_000, live: false })).includes('no-progress'));
  m.ingestLine('Timed out waiting for Ray workers to join.');
  assert.ok(ids(computeAlerts({ model: m, now: 0, live: true })).includes('failed'));
});

test('offline: trajectory files are listed and read; reward recomputed from the marker and integrity flags', async () => {
  const dir = await tempDir();
  try {
    const payload = path.join(dir, 'traj_payload', 'my-run', 'getmoto__moto-1', 'bbs-aaa');
    await mkdir(path.join(payload, 'samples'), { recursive: true });
    await writeFile(path.join(payload, 'session.json'), JSON.stringify({ success: true, data: [{ messages: [{ role: 'assistant', content: [{ type: 'text', text: 'hi' }], tool_calls: [{ function: { name: 'Bash', arguments: '{"command":"ls"}' } }] }] }] }));
    const marker = 'DRESSAGE_SWEGYM_REWARD_JSON={"resolved":true,"fail_to_pass_success":1,"fail_to_pass_total":1,"pass_to_pass_success":5,"pass_to_pass_total":5}';
    await writeFile(path.join(payload, 'samples', '0.json'), JSON.stringify({ reward: 0.0, metadata: {} }));
    await writeFile(path.join(payload, 'samples', '1.json'), JSON.stringify({ reward: null, metadata: { execute_cmds: [{ stage: 'after_agent', name: 'swegym_harness', cmd: 'x', cmd_result: { stdout: `log\n${marker}\n`, stderr: '' } }], swegym_invalid_tool_call: true, swegym_integrity: { violations: [{ kind: 'invalid_tool_call', reason: 'blocked_repo_web_access', repo: 'getmoto/moto' }] } } }));
    const err = path.join(dir, 'traj_err', 'my-run', 'getmoto__moto-2', 'bbs-bbb');
    await mkdir(err, { recursive: true });
    await writeFile(path.join(err, 'error.json'), JSON.stringify({ success: false, error: { type: 'RuntimeError', message: 'boom', summary: 'RuntimeError: boom' }, http: { response: { status_code: 504 } }, sample: { metadata: {} } }));
    // A half-written session (no session.json yet) is skipped.
    await mkdir(path.join(dir, 'traj_payload', 'my-run', 'getmoto__moto-3', 'bbs-ccc'), { recursive: true });
    const entries = await listTrajectories(dir, 'my-run');
    assert.deepEqual(entries.map((e) => [e.kind, e.instance]).sort(), [['error', 'getmoto__moto-2'], ['payload', 'getmoto__moto-1']]);
    const p = await loadTrajectory(entries.find((e) => e.kind === 'payload')!);
    assert.equal(p.marker?.['resolved'], true);
    assert.equal(p.reward, 0, 'integrity violation zeroes the reward');
    assert.equal(p.integrityViolations.length, 1);
    assert.equal(p.messages[0]?.toolCalls[0]?.name, 'Bash');
    const e = await loadTrajectory(entries.find((x) => x.kind === 'error')!);
    assert.deepEqual(e.error, { type: 'RuntimeError', message: 'boom', summary: 'RuntimeError: boom', httpStatus: 504 });
    assert.deepEqual(findMarker([{ stage: 'after_agent', name: 'swegym_harness', cmd_result: { stdout: 'DRESSAGE_SWEGYM_REWARD_JSON={bad' } }]), { error: 'invalid_reward_marker' });
    assert.deepEqual(findMarker([]), { error: 'missing_reward_marker' });
  } finally {
    await removeDir(dir);
  }
});

test('the monitor service follows `ray job logs -f` through a child process and stops it on close', async () => {
  const { chmod } = await import('node:fs/promises');
  const { MonitorService } = await import('../../src/services/monitor/session.js');
  const { createMonitorStore } = await import('../../src/state/monitor.js');
  const { recipePaths } = await import('../../src/services/workspace/paths.js');
  const { waitFor } = await import('../helpers/wait.js');
  const { rolloutLines } = await import('./builders.js');
  const dir = await tempDir();
  try {
    const logs = path.join(dir, 'job.txt');
    await writeFile(logs, rolloutLines(0, 2).join('\n') + '\n');
    const ray = path.join(dir, 'ray');
    // Prints the job's log, then keeps following (sleeps) like `ray job logs -f` on a running job.
    await writeFile(ray, `#!/bin/sh\n[ "$3" = "-f" ] || exit 7\ncat ${JSON.stringify(logs)}\nexec sleep 600\n`);
    await chmod(ray, 0o755);
    const svc = new MonitorService({ paths: recipePaths(dir), store: createMonitorStore(), rayBin: ray, gpuRunner: async () => ({ ok: false, stdout: '', error: 'none' }), pollMs: { ray: 60_000, proxy: 60_000 } });
    await svc.open('raysubmit_job1');
    await waitFor(() => svc.model?.rollouts.size === 1, { timeoutMs: 10_000 });
    svc.publish(true);
    assert.equal(svc.store.getState().snapshot?.header.source, 'ray job logs raysubmit_job1');
    await svc.close();
    // The child is gone: the command log entry finished.
    const { commandLog } = await import('../../src/services/process/commandLog.js');
    await waitFor(() => commandLog.entries().filter((e) => e.argv.includes('raysubmit_job1')).every((e) => e.status !== 'running'), { timeoutMs: 10_000 });
  } finally {
    await removeDir(dir);
  }
});

test('secrets in log text never reach the dashboard snapshot', async () => {
  const { MonitorService } = await import('../../src/services/monitor/session.js');
  const { createMonitorStore } = await import('../../src/state/monitor.js');
  const { recipePaths } = await import('../../src/services/workspace/paths.js');
  const dir = await tempDir();
  try {
    const log = path.join(dir, 'run.log');
    await writeFile(log, RM + pyLog('x.py', 1, 'blackbox rollout failed for session_id=bbs-1: sandbox create failed with key e2b_abcdef012345 DRESSAGE_E2B_API_KEY=e2b_abcdef012345') + '\nTraceback (most recent call last): token hf_abcdefghijklmnopqrstuv\n');
    const svc = new MonitorService({ paths: recipePaths(dir), store: createMonitorStore() });
    await svc.open(log, { live: false });
    const snap = svc.store.getState().snapshot!;
    const text = JSON.stringify({ f: snap.failures, a: snap.alerts });
    assert.doesNotMatch(text, /e2b_abcdef012345|hf_abcdefghijklmnopqrstuv/);
    assert.match(text, /\*\*\*\*/);
    await svc.close();
  } finally {
    await removeDir(dir);
  }
});

test('a live run is redrawn at most once per data refresh however fast lines arrive; a drill-in shows at once', async () => {
  const dir = await tempDir();
  const log = path.join(dir, 'run.log');
  await writeFile(log, sampleLine({ reward: 1, instance: 'first__task-1' }) + '\n');
  const svc = new MonitorService({
    paths: recipePaths(dir),
    store: createMonitorStore(),
    gpuRunner: async () => ({ ok: false, stdout: '', error: 'none' }),
    provider: async () => undefined,
    hz: 10,
    refreshMs: 400,
    pollMs: { log: 20, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 60_000, stream: 60_000 },
  });
  try {
    await svc.open(log);
    let publishes = 0;
    const unsub = svc.store.subscribe((s, prev) => {
      if (s.snapshot !== prev.snapshot) publishes++;
    });
    const started = performance.now();
    // Each line is read on its own before the next is written (the worst case: one model change per line), yet the
    // store takes a snapshot at most once per refresh.
    for (let i = 0; i < 40; i++) {
      await writeFile(log, sampleLine({ reward: 0, instance: `burst__task-${i}` }) + '\n', { flag: 'a' });
      await waitFor(() => svc.snapshot().header.samplesDone === i + 2, { timeoutMs: 10_000, message: () => `line ${i} never read` });
    }
    await waitFor(() => svc.store.getState().snapshot?.header.samplesDone === 41, { timeoutMs: 10_000 });
    const elapsed = performance.now() - started;
    assert.ok(publishes <= Math.ceil(elapsed / 400) + 1, `${publishes} redraws in ${Math.round(elapsed)} ms at a 400 ms refresh`);
    assert.ok(publishes >= 2, 'but it does refresh while lines arrive');

    // A key press (drill into a sandbox) does not wait for the refresh.
    const slow = new MonitorService({ paths: recipePaths(dir), store: createMonitorStore(), gpuRunner: async () => ({ ok: false, stdout: '', error: 'none' }), provider: async () => undefined, refreshMs: 60_000, pollMs: { log: 60_000, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 60_000, stream: 60_000 } });
    try {
      await slow.open(log);
      await slow.followSandbox('sbx-1');
      assert.equal(slow.store.getState().snapshot?.sandboxStream?.id, 'sbx-1');
      assert.equal(slow.store.getState().snapshot?.sandboxStream?.error, 'no sandbox provider configured');
    } finally {
      await slow.close();
    }
    unsub();
  } finally {
    await svc.close();
    await removeDir(dir);
  }
});
