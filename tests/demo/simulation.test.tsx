// The demo's monitoring part: a simulated run written live into the sample workspace, labelled as simulated, that
// the dashboard opens first; it never replaces a real run's log.
import { test } from 'node:test';
import React from 'react';
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, realpath, stat, utimes, writeFile } from 'node:fs/promises';
import { readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { startDemoSimulation, DEMO_RUN_NAME } from '../../src/services/demo/simulation.js';
import { isSimulatedRun, resolveMonitorTarget } from '../../src/services/monitor/resolve.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { renderInk } from '../helpers/ink.js';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { runSourcesPicker } from '../../src/app/monitorSources.js';

test('the demo simulation writes a live, labelled run that the monitor follows; stop() ends it', async () => {
  const ws = await tempDir();
  const paths = recipePaths(ws);
  // Fast clock: the first rollout's samples arrive within a second or two.
  const sim = await startDemoSimulation(ws, { speed: 400 });
  const monitor = new MonitorService({ paths, store: createMonitorStore(), sources: runSourcesPicker({ paths }), gpuRunner: async () => ({ ok: false, stdout: '', error: 'no GPU here' }), hz: 20, pollMs: { log: 50, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 60_000 } });
  try {
    assert.equal(sim.dir, paths.runLogDir(DEMO_RUN_NAME));
    const manifest = JSON.parse(await readFile(path.join(sim.dir, 'simulation.json'), 'utf8')) as { simulated: boolean };
    assert.equal(manifest.simulated, true);
    const target = await resolveMonitorTarget(sim.dir, paths);
    assert.equal(await isSimulatedRun(target), true);

    await monitor.open(sim.dir);
    await waitFor(() => (monitor.store.getState().snapshot?.totals.total ?? 0) > 0, { timeoutMs: 30_000 });
    const snap = monitor.store.getState().snapshot;
    assert.equal(snap?.header.simulated, true);
    assert.equal(snap?.live, true);

    await sim.stop();
    // Nothing can be written after stop(): no descriptor of this process is open on the log for writing (the
    // monitor's, for reading, may stay).
    const log = await realpath(path.join(sim.dir, 'run.log'));
    const writable = (await readdir('/proc/self/fd')).filter((fd) => {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`) !== log) return false;
        const flags = parseInt(/^flags:\s*(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '0', 8);
        return (flags & 0o3) !== 0; // O_WRONLY or O_RDWR
      } catch {
        return false;
      }
    });
    assert.deepEqual(writable, [], 'the simulator still holds run.log open for writing after stop()');

    // A second demo start replaces the earlier simulated run.
    const again = await startDemoSimulation(ws, { speed: 400 });
    await again.stop();
  } finally {
    await monitor.close();
    await sim.stop();
    await removeDir(ws);
  }
});

test('the demo simulation never replaces a real run that happens to sit where it would write', async () => {
  const ws = await tempDir();
  try {
    const dir = recipePaths(ws).runLogDir(DEMO_RUN_NAME);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'run.log'), 'real training output\n');
    await assert.rejects(startDemoSimulation(ws, { speed: 400 }), /already exists/);
    assert.equal(await readFile(path.join(dir, 'run.log'), 'utf8'), 'real training output\n');
    assert.equal(await isSimulatedRun(await resolveMonitorTarget(dir, recipePaths(ws))), false);
  } finally {
    await removeDir(ws);
  }
});

test('the console opened by the demo shows the simulated run in the dashboard, not the newest run on disk', async () => {
  const ws = await tempDir();
  const paths = recipePaths(ws);
  const sim = await startDemoSimulation(ws, { speed: 400 });
  await waitFor(async () => (await stat(path.join(sim.dir, 'run.log'))).size > 10_000);
  await sim.stop();
  // A newer run directory, which "newest run" discovery would pick.
  const other = paths.runLogDir('a-real-run');
  await mkdir(other, { recursive: true });
  await writeFile(path.join(other, 'train.log'), 'starting\n');
  // Newer than the simulated run by its clock, not by how long this test took.
  const later = new Date(Date.now() + 60_000);
  await utimes(path.join(other, 'train.log'), later, later);
  await utimes(other, later, later);
  const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'dashboard', monitorTarget: sim.dir });
  const ui = renderInk(<App services={services} size={{ width: 140, height: 40 }} />);
  try {
    await ui.waitForText('SIMULATED RUN', 30_000);
    await ui.waitForText('swegym-demo-simulated ·', 30_000);
    assert.doesNotMatch(ui.frame(), /a-real-run/);
  } finally {
    ui.unmount();
    await services.monitor.close();
    services.dispose();
    await sim.stop();
    await removeDir(ws);
  }
});

test('a live simulated run fills the sandboxes, proxy and GPU panels from its live.json, and a sandbox opens', async () => {
  const ws = await tempDir();
  const paths = recipePaths(ws);
  const sim = await startDemoSimulation(ws, { speed: 3 });
  const monitor = new MonitorService({ paths, store: createMonitorStore(), sources: runSourcesPicker({ paths }), hz: 20, pollMs: { log: 100, gpu: 200, proxy: 200, sandboxes: 200, ray: 60_000, stream: 200 } });
  try {
    await monitor.open(sim.dir);
    // Agent sandboxes of the first rollout, each with its steps and last tool call.
    await waitFor(() => (monitor.store.getState().snapshot?.sandboxes?.agents ?? 0) > 0, { timeoutMs: 30_000 });
    let snap = monitor.store.getState().snapshot!;
    const agents = snap.sandboxes!.rows.filter((r) => r.kind === 'agent');
    assert.ok(agents.every((r) => /^bbs-/.test(r.trajectoryId) && /^swegym-/.test(r.template)));
    assert.ok(agents.every((r) => (r.steps ?? 0) >= 1 && /^\w+\(/.test(r.lastTool ?? '')), JSON.stringify(agents.slice(0, 2)));
    // Sessions in flight: the proxy reports none between a rollout's last sample and the next rollout (training).
    await waitFor(() => {
      const s = monitor.store.getState().snapshot;
      return s?.proxy.last?.ok === true && (s.proxy.last.activeSessions ?? 0) > 0 && s.gpus.latest.length === 8;
    }, { timeoutMs: 20_000 });
    snap = monitor.store.getState().snapshot!;
    assert.ok(snap.gpus.latest.every((g) => g.name === 'NVIDIA H200'));

    // Drill into the youngest agent sandbox of the newest list: Claude Code's events, read by the same parser as on
    // E2B. The simulated sessions end as the run goes on (on a loaded machine, one picked a few seconds ago may be
    // gone, its transcript then read from trajectory files): a session that ended first is traded for a newer one.
    let youngest = agents.at(-1)!;
    await waitFor(async () => {
      const rows = monitor.store.getState().snapshot?.sandboxes?.rows.filter((r) => r.kind === 'agent') ?? [];
      const stream = monitor.store.getState().snapshot?.sandboxStream;
      if (stream?.id === youngest.id && stream.events.length > 1) return true;
      if (stream?.id !== youngest.id || stream.error) {
        youngest = rows.at(-1) ?? youngest;
        await monitor.followSandbox(youngest.id);
      }
      return false;
    }, { timeoutMs: 20_000, message: () => JSON.stringify(monitor.store.getState().snapshot?.sandboxStream ?? null).slice(0, 2000) });
    const stream = monitor.store.getState().snapshot!.sandboxStream!;
    assert.equal(stream.id, youngest.id);
    // From its init event when the sandbox was opened early, else from where the readable window starts.
    assert.ok(['system', 'assistant'].includes(stream.events[0]?.type ?? ''), JSON.stringify(stream.events.slice(0, 2)));
    assert.ok(stream.events.some((e) => e.type === 'assistant'));
    assert.ok((stream.steps ?? 0) >= 1);

    // Stopped: the panels say so instead of showing the last sandboxes for ever.
    await sim.stop();
    await waitFor(() => monitor.store.getState().snapshot?.sandboxes?.rows.length === 0 && monitor.store.getState().snapshot?.proxy.last?.ok === false, { timeoutMs: 10_000 });
  } finally {
    await monitor.close();
    await sim.stop();
    await removeDir(ws);
  }
});

test('a simulation played faster is listed faster: the sandbox list keeps 10 s of the run\'s time between reads', async () => {
  const ws = await tempDir();
  const paths = recipePaths(ws);
  const sim = await startDemoSimulation(ws, { speed: 50 });
  // Only the sandbox list at its default cadence (10 s / 50 = 200 ms); the rest slow.
  const monitor = new MonitorService({ paths, store: createMonitorStore(), sources: runSourcesPicker({ paths }), hz: 20, refreshMs: 50, pollMs: { log: 100, gpu: 60_000, proxy: 60_000, ray: 60_000, stream: 60_000 } });
  try {
    await monitor.open(sim.dir);
    const seen = new Set<number>();
    await waitFor(
      () => {
        const at = monitor.store.getState().snapshot?.sandboxes?.at;
        if (at !== undefined) seen.add(at);
        return seen.size >= 4;
      },
      { timeoutMs: 5000, message: () => `sandbox list read ${seen.size} times` },
    );
  } finally {
    await monitor.close();
    await sim.stop();
    await removeDir(ws);
  }
});
