// The dashboard on shapes real runs take (issue 27): a log replaced or truncated under it, rows that move between
// refreshes, a finished run's header and panels, a compared run without colour. Rendered by Ink.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import type { Sandbox, SandboxInfo, SandboxProvider } from '../../src/services/sandbox/types.js';
import { rolloutLines } from './builders.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { loopbackFetch, registerRun, runLogText } from './runFixtures.js';
import { EFFECTIVE_LINES } from './builders.js';

type Size = { width: number; height: number };

/** A provider double listing whatever `list` holds at the time (rows come and go between refreshes). */
function listingProvider(list: () => SandboxInfo[]): SandboxProvider {
  const sandbox = { id: 'x', provider: 'memory', template: 't', run: async () => ({ exitCode: 0, stdout: 'STEPS=1\n{"type":"system","subtype":"init"}', stderr: '', timedOut: false }) } as unknown as Sandbox;
  return { name: 'memory', list: async () => list(), connect: async () => sandbox } as unknown as SandboxProvider;
}

const agent = (id: string, ageMin: number): SandboxInfo => ({ id, template: `swegym-task-${id}`, metadata: { trajectory_id: `bbs-${id}`, paddock_mode: 'blackbox' }, startedAt: new Date(Date.now() - ageMin * 60_000).toISOString(), state: 'running', provider: 'memory' });

async function focusPanel(ui: ReturnType<typeof renderInk>, title: string) {
  for (let i = 0; i < 8 && !ui.frame().includes(`▸ ${title}`); i++) await ui.press(KEYS.tab);
  await ui.waitForText(`▸ ${title}`);
}

async function open(size: Size, logText: string, o: { provider?: SandboxProvider; fetchImpl?: typeof fetch; exitCode?: number; runDir?: string; before?: (ws: string) => Promise<void> } = {}) {
  const ws = await tempDir();
  const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'dashboard' });
  services.monitor.dispose();
  await o.before?.(ws);
  const dir = o.runDir ? path.join(ws, o.runDir) : ws;
  await mkdir(dir, { recursive: true });
  const log = path.join(dir, o.runDir ? 'train.log' : 'launch.log');
  await writeFile(log, logText);
  if (o.exitCode !== undefined) await registerRun(services.paths, { name: 'swegym-test-20261201-100000', logFile: log, exitCode: o.exitCode });
  services.monitor = new MonitorService({
    paths: services.paths,
    store: createMonitorStore(),
    fetchImpl: o.fetchImpl ?? loopbackFetch,
    rayDashboardUrl: 'http://127.0.0.1:1',
    gpuRunner: async () => ({ ok: false, stdout: '', error: 'nvidia-smi not found on this node' }),
    ...(o.provider ? { provider: async () => o.provider } : {}),
    hz: 10,
    refreshMs: 50,
    pollMs: { log: 50, gpu: 60_000, proxy: 60_000, sandboxes: o.provider ? 50 : 60_000, agents: 60_000, stream: o.provider ? 50 : 60_000, ray: 60_000, cluster: 60_000, writer: 100 },
  });
  services.monitorTarget = o.runDir ? dir : log;
  const ui = renderInk(<App services={services} size={size} />);
  const waitForText = ui.waitForText;
  ui.waitForText = (text: string | RegExp, timeoutMs = 30_000) => waitForText(text, timeoutMs);
  return {
    ui,
    ws,
    log,
    services,
    async teardown() {
      ui.unmount();
      await services.monitor.close();
      await removeDir(ws);
    },
  };
}

test('a log replaced by mv, then truncated and rewritten: the totals are the file\'s, never added up, and an alert says it was read again', { timeout: 60_000 }, async () => {
  const d = await open({ width: 160, height: 44 }, runLogText(2));
  try {
    await d.ui.waitForText('256 total');
    await writeFile(d.log + '.tmp', runLogText(3));
    await rename(d.log + '.tmp', d.log);
    await d.ui.waitForText('384 total');
    await d.ui.waitForText(/launch\.log was replaced by another file/);
    assert.doesNotMatch(d.ui.frame(), /640 total/);
    await writeFile(d.log, runLogText(1));
    await d.ui.waitForText('128 total');
    await d.ui.waitForText(/launch\.log got shorter/);
  } finally {
    await d.teardown();
  }
});

test('the cursor stays on the same sandbox when the rows above it go (k9s, htop): Enter opens the sandbox that was highlighted', { timeout: 60_000 }, async () => {
  let list = [agent('aaaa1111', 40), agent('bbbb2222', 30), agent('cccc3333', 20), agent('dddd4444', 10)];
  const d = await open({ width: 160, height: 44 }, runLogText(2), { provider: listingProvider(() => list) });
  try {
    await d.ui.waitForText('4 agent');
    await focusPanel(d.ui, 'Sandboxes');
    await d.ui.press(KEYS.down);
    await d.ui.press(KEYS.down);
    // The oldest sandbox's sample finished: it leaves the list, every row below moves up one.
    list = list.slice(1);
    await d.ui.waitForText('3 agent');
    await d.ui.press(KEYS.enter);
    await d.ui.waitForText(/Sandbox cccc3333/);
    assert.doesNotMatch(d.ui.frame(), /Sandbox dddd4444/);
    await d.ui.press(KEYS.escape);
    // The highlighted sandbox itself goes: the cursor stays where it was (the row now there).
    list = [list[0] as SandboxInfo, list[2] as SandboxInfo];
    await d.ui.waitForText('2 agent');
    await d.ui.press(KEYS.enter);
    await d.ui.waitForText(/Sandbox dddd4444/);
  } finally {
    await d.teardown();
  }
});

test('a rollout\'s drill-in stays on the rollout it was opened on as newer ones finish; f follows the newest, explicitly', { timeout: 60_000 }, async () => {
  const d = await open({ width: 160, height: 44 }, runLogText(2));
  try {
    await d.ui.waitForText('256 total');
    await focusPanel(d.ui, 'Rollouts');
    await d.ui.press(KEYS.enter);
    await d.ui.waitForText(/Rollout 1: 128 samples/);
    await appendFile(d.log, rolloutLines(2, 128).join('\n') + '\n');
    await waitFor(() => d.services.monitor.store.getState().snapshot?.rollouts.length === 3, { timeoutMs: 30_000, message: () => d.ui.frame() });
    await d.ui.waitForText('rollout 3/500');
    assert.match(d.ui.frame(), /Rollout 1: 128 samples/);
    assert.match(d.ui.frame(), /f follow the newest rollout off/);
    await d.ui.press('f');
    await d.ui.waitForText(/Rollout 2: 128 samples.*following the newest rollout/);
  } finally {
    await d.teardown();
  }
});

test('while the first read goes, the dashboard says `reading <log> … N%` with an ETA, and a header drawn meanwhile shows no state beside partial totals', { timeout: 60_000 }, async () => {
  // A log of a few read chunks (4 MiB each): the read reports its progress several times.
  const lines: string[] = [runLogText(2)];
  const filler = `${'(RolloutManager pid=1, ip=10.0.0.1) '}${'x'.repeat(200)}\n`;
  lines.push(filler.repeat(Math.ceil((9 * 1048576) / filler.length)));
  const d = await open({ width: 160, height: 44 }, lines.join(''));
  try {
    const store = d.services.monitor.store;
    const seen: { loading: string; header: ReturnType<typeof d.services.monitor.snapshot>['header'] }[] = [];
    const unsub = store.subscribe((st) => {
      if (st.status === 'loading' && st.loading && st.loading.bytes > 0 && d.services.monitor.model) seen.push({ loading: JSON.stringify(st.loading), header: d.services.monitor.snapshot().header });
    });
    await d.ui.waitForText('256 total');
    unsub();
    assert.ok(seen.length > 0, 'the read reported progress');
    for (const s of seen) {
      assert.equal(s.header.liveness, undefined, 'no state before the log\'s end is read');
      assert.equal(s.header.reading?.file, 'launch.log', s.loading);
    }
  } finally {
    await d.teardown();
  }
  // The loading view and a header drawn during the read, as the screen words them.
  const e = await open({ width: 120, height: 30 }, runLogText(1));
  try {
    await e.ui.waitForText('128 total');
    const store = e.services.monitor.store;
    const snap = e.services.monitor.snapshot();
    await e.services.monitor.close();
    store.getState().set({ status: 'loading', snapshot: undefined, loading: { bytes: 40 * 1048576, total: 100 * 1048576, file: 'run.log', etaSec: 12 } });
    await e.ui.waitForText('reading run.log … 40% (40 of 100 MiB) · ETA 12s');
    store.getState().set({ snapshot: { ...snap, header: { ...snap.header, liveness: undefined, reading: { bytes: 50 * 1048576, total: 100 * 1048576, file: 'run.log', etaSec: 75 } } } });
    await e.ui.waitForText('reading run.log … 50% (50 of 100 MiB) · ETA 1m');
    assert.match(e.ui.frame(), /so far: solved \d+\/128/);
    assert.doesNotMatch(e.ui.frame(), /no line yet|starting|opening/);
  } finally {
    await e.teardown();
  }
});

test('a finished run: its proxy is gone, not DOWN in alarm colours; the reward figures say their scope; a filter shows matched/total; a smaller group reads k/15', { timeout: 60_000 }, async () => {
  // Rollout 0 with one sample of task__repo-3 missing: that group has 15 samples (5 solved).
  const r0 = rolloutLines(0, 128).filter((_, i) => i !== 3);
  assert.match(rolloutLines(0, 128)[3] as string, /reward=1\.0 .*instance=task__repo-3 /);
  assert.equal(r0.length, 128 + 3 - 1);
  const text = [...EFFECTIVE_LINES, 'Current Ray node count: 4; expected ACTOR_NUM_NODES: 4', ...r0, ...rolloutLines(1, 128)].join('\n') + '\n';
  const proxyDown = (async (input: string | URL | Request) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.hostname === '127.0.0.1') return fetch(url);
    throw new TypeError('fetch failed: connect ECONNREFUSED');
  }) as typeof fetch;
  const d = await open({ width: 160, height: 44 }, text, { fetchImpl: proxyDown, exitCode: 0 });
  try {
    await d.ui.waitForText(/✓ finished/);
    await waitFor(() => d.services.monitor.store.getState().snapshot?.proxy.last !== undefined, { timeoutMs: 30_000 });
    await d.ui.waitForText('proxy gone (run ended)');
    let f = d.ui.frame();
    assert.doesNotMatch(f, /proxy DOWN/);
    assert.match(f, /GPUs — .* · proxy gone \(the run ended\)/);
    assert.match(f, /reward\(traj\) 0\.3 \(r1\)/);
    assert.match(f, /solved 85\/255 samples/);
    // A filter: each filtered panel says how many rows match of how many.
    await d.ui.press('/');
    for (const c of 'repo-3') await d.ui.press(c);
    await d.ui.press(KEYS.enter);
    await d.ui.waitForText(/Samples — paused · \/repo-3 31\/255 recent|Samples — follow · \/repo-3 31\/255 recent/);
    await focusPanel(d.ui, 'Tasks');
    await d.ui.waitForText(/Tasks — \/repo-3 1\/8 · /);
    // The rollout's histogram labels the 15-sample group by its own count.
    await d.ui.press('/');
    await d.ui.press(KEYS.backspace);
    for (let i = 0; i < 6; i++) await d.ui.press(KEYS.backspace);
    await d.ui.press(KEYS.enter);
    await focusPanel(d.ui, 'Rollouts');
    await d.ui.press(KEYS.up);
    await d.ui.press(KEYS.enter);
    await d.ui.waitForText(/Rollout 0: 127 samples/);
    f = d.ui.frame();
    assert.match(f, /^\s+5\/15 █+ +1$/m, f);
    assert.match(f, /^\s+5\/16 █+ +\d+$/m);
    assert.match(f, /a smaller group shows its own count/);
  } finally {
    await d.teardown();
  }
});

test('the header says which rollout reward(traj) is and how many failed groups it leaves out', async () => {
  const { rewardParts } = await import('../../src/screens/dashboardHeader.js');
  const snap = { rollouts: [{ rollout: 12, rawTrajMean: 0.491, failedGroups: 2 }], totals: { reward_one: 70, total: 127 } } as unknown as Parameters<typeof rewardParts>[0];
  assert.deepEqual(rewardParts(snap), ['reward(traj) 0.491 (r12, 2 failed groups left out)', 'solved 70/127 samples']);
});

test('a finished sample\'s drill-in switches to its trajectory transcript, in a run folder copied under another name', { timeout: 60_000 }, async () => {
  let gone = false;
  const running = ['STEPS=3', '{"type":"system","subtype":"init"}', JSON.stringify({ type: 'assistant', message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'pytest -x' } }] } })].join('\n');
  const sandbox = { id: 'sbx-agent-1', provider: 'memory', template: 't', run: async () => {
    if (gone) throw new Error('sandbox not found (killed or expired)');
    return { exitCode: 0, stdout: running, stderr: '', timedOut: false };
  } } as unknown as Sandbox;
  const provider = { name: 'memory', list: async () => (gone ? [] : [agent('agent-1', 5)].map((a) => ({ ...a, id: 'sbx-agent-1', metadata: { trajectory_id: 'bbs-1234', paddock_mode: 'blackbox' } }))), connect: async (id: string) => {
    if (gone) throw new Error(`sandbox ${id} not found (killed or expired)`);
    return sandbox;
  } } as unknown as SandboxProvider;
  // The launcher said where it filed trajectories (RUN_NAME real-run); the folder was copied as copied-run.
  const text = `Clearing DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR: /home/op/Dressage/outputs/logs/real-run/traj_payload/real-run\n${runLogText(1)}`;
  const d = await open({ width: 160, height: 44 }, text, {
    provider,
    runDir: 'outputs/logs/copied-run',
    before: async (ws) => {
      const sess = path.join(ws, 'outputs/logs/copied-run/traj_payload/real-run/task__repo-1/bbs-1234');
      await mkdir(path.join(sess, 'samples'), { recursive: true });
      await writeFile(path.join(sess, 'session.json'), JSON.stringify({ success: true, data: [{ messages: [{ role: 'user', content: 'Fix the bug in the parser' }, { role: 'assistant', content: 'Done: the parser now handles it' }] }] }));
      await writeFile(path.join(sess, 'samples', '0.json'), JSON.stringify({ metadata: { execute_cmds: [{ stage: 'after_agent', name: 'swegym_harness', cmd: 'x', cmd_result: { stdout: 'DRESSAGE_SWEGYM_REWARD_JSON={"resolved":true,"fail_to_pass_success":2,"fail_to_pass_total":2,"pass_to_pass_success":40,"pass_to_pass_total":40}\n' } }] } }));
    },
  });
  try {
    await d.ui.waitForText('1 agent');
    await waitFor(() => d.services.monitor.store.getState().snapshot?.trajectories.length === 1, { timeoutMs: 30_000, message: () => d.ui.frame() });
    await focusPanel(d.ui, 'Sandboxes');
    await d.ui.press(KEYS.enter);
    await d.ui.waitForText(/Sandbox sbx-agent-1 .*steps so far 3/);
    // The sample finishes: its sandbox is killed, Dressage has written its trajectory files.
    gone = true;
    await d.ui.waitForText('finished: the sandbox is gone; its transcript from the trajectory files');
    const f = d.ui.frame();
    assert.match(f, /Fix the bug in the parser/);
    assert.match(f, /reward 1 · marker/);
    assert.doesNotMatch(f, /was running when last read|its transcript shows once Dressage writes/);
  } finally {
    await d.teardown();
  }
});

test('a run folder without trajectory files says which RUN_NAME they were looked for under, and where it was read', { timeout: 60_000 }, async () => {
  const text = `Clearing DRESSAGE_TRAJECTORY_ERROR_LOG_DIR: /home/op/Dressage/outputs/logs/real-run/traj_err/real-run\n${runLogText(1)}`;
  const d = await open({ width: 160, height: 44 }, text, { runDir: 'outputs/logs/copied-run' });
  try {
    await d.ui.waitForText('128 total');
    for (const panel of ['Rollouts', 'Samples', 'Sandboxes', 'GPUs', 'Tasks', 'Trajectories']) await focusPanel(d.ui, panel);
    await d.ui.waitForText('no trajectory files under traj_*/real-run/ (RUN_NAME from the log)');
  } finally {
    await d.teardown();
  }
});
