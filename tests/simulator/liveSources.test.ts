// The simulated live sources: what a live simulation gives the dashboard in place of E2B's sandbox list, Claude
// Code's log inside an agent sandbox, the proxy's /health and nvidia-smi — each read through the real parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  isLiveStateCurrent,
  readSimLiveState,
  simulatedAgentLog,
  simulatedAgentProgress,
  simulatedAgentSummary,
  simulatedGpuCsv,
  simulatedProxyHealth,
  simulatedSandboxId,
  simulatedSandboxSnapshot,
  simulatedTemplate,
  SIM_LIVE_STALE_MS,
  type SimLiveSandbox,
  type SimLiveState,
} from '../../src/services/simulator/liveSources.js';
import { LiveSimulator } from '../../src/services/simulator/writer.js';
import { parseGpuCsv } from '../../src/services/monitor/gpu.js';
import { summarizeStreamEvent } from '../../src/services/monitor/sandboxes.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

function agent(over: Partial<SimLiveSandbox> = {}): SimLiveSandbox {
  const trajectoryId = over.trajectoryId ?? 'bbs-0f8e5a34-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
  return {
    id: simulatedSandboxId(trajectoryId),
    kind: 'agent',
    trajectoryId,
    instanceId: 'getmoto__moto-5865',
    repo: 'getmoto/moto',
    template: simulatedTemplate('getmoto__moto-5865', 'getmoto/moto'),
    startedAt: NOW - 90_000,
    steps: 12,
    plannedSteps: 40,
    done: false,
    ...over,
  };
}

function state(over: Partial<SimLiveState> = {}): SimLiveState {
  return { simulated: true, at: NOW - 500, phase: 'generating', rollout: 3, samplesDone: 40, samplesPerRollout: 128, gpusPerNode: 8, speed: 1, sandboxes: [], ...over };
}

test('an agent sandbox log is stream-json that the monitor parses: one tool call per step, history stable as it grows', () => {
  const a = agent({ steps: 12 });
  const progress = simulatedAgentProgress(a);
  assert.equal(progress.steps, 12);
  assert.equal(progress.error, undefined);
  assert.equal(progress.events[0]?.type, 'system');
  // As the real CLI prints it: the thought and the call of one reply are two events of one message.
  const calls = progress.events.filter((e) => e.type === 'assistant' && e.tools?.length);
  assert.equal(calls.length, 12);
  assert.equal(progress.events.filter((e) => e.type === 'assistant').length, 24);
  assert.ok(calls.every((e) => e.tools?.length === 1), 'every step calls one tool');
  assert.deepEqual([progress.agent?.status, progress.agent?.modelTurns, progress.agent?.toolCalls.length], ['running', 12, 12]);
  assert.equal(progress.events.filter((e) => e.type === 'tool_result').length, 12);
  assert.equal(progress.lastTool, calls.at(-1)?.tools?.[0]);
  assert.ok(!progress.events.some((e) => e.type === 'result'), 'no result event while the turn runs');
  // The task's repository shows in the calls (paths under its package).
  assert.ok(calls.some((e) => /moto\//.test(e.text)), calls.map((e) => e.text).join('\n'));

  // Later reads see the same first 12 steps (a log only grows), then the result event when the turn ends.
  const later = simulatedAgentLog({ ...a, steps: 40, done: true });
  assert.ok(later.startsWith(simulatedAgentLog(a)), 'the log of 12 steps is a prefix of the log of 40');
  const lines = later.trim().split('\n').map((l) => summarizeStreamEvent(l));
  assert.ok(lines.every(Boolean), 'every line is one JSON event');
  assert.match(lines.at(-1)?.text ?? '', /^success · num_turns=42 · The fix is in place/);
  const ended = simulatedAgentProgress({ ...a, steps: 40, done: true });
  assert.deepEqual([ended.agent?.status, ended.agent?.modelTurns, ended.agent?.numTurns, ended.agent?.usageFinal], ['success', 41, 42, true]);
  // Steps 13–40 differ between sessions: another session is another log.
  assert.notEqual(simulatedAgentLog({ ...a, trajectoryId: 'bbs-11111111-2222-4333-8444-555555555555' }), simulatedAgentLog(a));

  // The tail read (tailBytes) cuts the first line; the parser skips the cut line.
  const tail = simulatedAgentProgress({ ...a, steps: 40 }, 2000);
  assert.equal(tail.steps, 40);
  assert.ok(tail.events.length > 0 && tail.events.length < 80);
  assert.equal(tail.lastTool, simulatedAgentProgress({ ...a, steps: 40 }).lastTool);
  // The panel's row summary reads only the last step, and agrees.
  assert.deepEqual(simulatedAgentSummary({ ...a, steps: 40 }), { steps: 40, lastTool: tail.lastTool });
});

test('gone and evaluation sandboxes read as they would on E2B', () => {
  assert.match(simulatedAgentProgress(undefined).error ?? '', /not running/);
  const evalBox = agent({ kind: 'eval', trajectoryId: 'swegym-eval-0123456789abcdef0123456789abcdef', steps: 0, plannedSteps: 0 });
  assert.equal(simulatedAgentProgress(evalBox).error, 'no Blackbox Server runtime yet');
});

test('the sandbox list classifies agent and evaluation sandboxes by trajectory id, and says when the simulator stopped', () => {
  const a = agent();
  const e = agent({ kind: 'eval', trajectoryId: 'swegym-eval-0123456789abcdef0123456789abcdef', startedAt: NOW - 5000, steps: 0, plannedSteps: 0 });
  const snap = simulatedSandboxSnapshot(state({ sandboxes: [e, a] }), NOW, 100);
  assert.equal(snap.ok, true);
  assert.equal(snap.agents, 1);
  assert.equal(snap.evals, 1);
  assert.deepEqual(
    snap.rows.map((r) => [r.kind, r.id, r.template, r.ageMs]),
    [
      ['agent', a.id, 'swegym-getmoto_s_moto-5865', 90_000],
      ['eval', e.id, 'swegym-getmoto_s_moto-5865', 5000],
    ],
  );
  assert.match(a.id, /^[a-z0-9]{20}$/);
  assert.equal(simulatedSandboxId(a.trajectoryId), a.id, 'ids are stable per session');

  const stale = simulatedSandboxSnapshot(state({ at: NOW - SIM_LIVE_STALE_MS - 1, sandboxes: [a] }), NOW, 100);
  assert.equal(stale.ok, false);
  assert.match(stale.error ?? '', /stopped writing/);
  assert.equal(stale.rows.length, 0);
  for (const phase of ['finished', 'stopped'] as const) {
    const ended = simulatedSandboxSnapshot(state({ phase, sandboxes: [] }), NOW, 100);
    assert.equal(ended.ok, true, phase);
    assert.equal(ended.rows.length, 0);
  }
  assert.equal(isLiveStateCurrent(state({ phase: 'stopped' }), NOW), false);
});

test('proxy health counts running agent sessions and is paused while the policy trains', () => {
  const st = state({ sandboxes: [agent(), agent({ trajectoryId: 'bbs-22222222-3333-4444-8555-666666666666', done: true }), agent({ kind: 'eval', trajectoryId: 'swegym-eval-ab' })] });
  assert.deepEqual(simulatedProxyHealth(st, NOW), { ok: true, at: NOW, status: 'ok', activeSessions: 1, paused: false });
  assert.equal(simulatedProxyHealth(state({ phase: 'training' }), NOW).paused, true);
  assert.deepEqual(simulatedProxyHealth(state({ at: NOW - 60_000 }), NOW), { ok: false, at: NOW, error: 'simulator stopped' });
  assert.equal(simulatedProxyHealth(undefined, NOW).ok, false);
});

test('GPUs come as nvidia-smi CSV that the real parser reads: H200s, busy while generating, idle once stopped', () => {
  const busy = parseGpuCsv(simulatedGpuCsv(state(), NOW));
  assert.deepEqual(busy.problems, []);
  assert.equal(busy.gpus.length, 8);
  for (const g of busy.gpus) {
    assert.equal(g.name, 'NVIDIA H200');
    assert.equal(g.memTotal, 143771);
    assert.ok((g.util ?? 0) >= 78, `gpu ${g.index} util ${g.util}`);
    assert.ok((g.memUsed ?? 0) + (g.memFree ?? 0) < 143771);
    assert.ok((g.power ?? 0) <= (g.powerLimit ?? 0));
    assert.equal(g.fan, undefined, '[N/A] fan, as an H200 reports it');
  }
  assert.equal(new Set(busy.gpus.map((g) => g.uuid)).size, 8);
  const idle = parseGpuCsv(simulatedGpuCsv(state({ phase: 'stopped' }), NOW));
  assert.ok(idle.gpus.every((g) => g.util === 0 && g.memUsed === 0));
  // The same second gives the same readings; the next one moves.
  assert.equal(simulatedGpuCsv(state(), NOW), simulatedGpuCsv(state(), NOW + 400));
  assert.notEqual(simulatedGpuCsv(state(), NOW), simulatedGpuCsv(state(), NOW + 1000));
});

test('a live simulation keeps live.json in step with its sandboxes, and leaves a final state with none', async () => {
  const dir = await tempDir('swegym-sim-live-');
  const sim = new LiveSimulator({ dir, speed: 4, tickMs: 20, config: { numRollouts: 1, rolloutSeconds: 12, trainSeconds: 1, startupSeconds: 1, noiseLinesPerSecond: 5, seed: 5, concurrency: 64 } });
  try {
    await sim.start();
    let seen: SimLiveState | undefined;
    await waitFor(
      async () => {
        const st = await readSimLiveState(dir);
        if (st?.phase === 'generating' && st.sandboxes.length > 0) seen = st;
        return seen !== undefined;
      },
      { timeoutMs: 30_000 },
    );
    const st = seen as SimLiveState;
    assert.ok(Date.now() - st.at < SIM_LIVE_STALE_MS);
    assert.equal(st.speed, 4);
    assert.equal(new Set(st.sandboxes.map((b) => b.trajectoryId)).size, st.sandboxes.length, 'one sandbox per session');
    for (const b of st.sandboxes) {
      assert.match(b.trajectoryId, b.kind === 'agent' ? /^bbs-[0-9a-f-]{36}$/ : /^swegym-eval-[0-9a-f]{32}$/);
      assert.equal(b.id, simulatedSandboxId(b.trajectoryId));
      assert.equal(b.template, simulatedTemplate(b.instanceId, b.repo));
      if (b.kind === 'agent') assert.ok(b.steps >= 1 && b.steps <= b.plannedSteps && b.plannedSteps <= 80, JSON.stringify(b));
    }
    // Never more agent sessions than the configured concurrency.
    assert.ok(st.sandboxes.filter((b) => b.kind === 'agent').length <= 64);
    await sim.finished;
    await sim.stop();
    const final = JSON.parse(await readFile(path.join(dir, 'live.json'), 'utf8')) as SimLiveState;
    assert.equal(final.phase, 'finished');
    assert.deepEqual(final.sandboxes, []);
  } finally {
    await sim.stop();
    await removeDir(dir);
  }
});
