// The dashboard's header (liveness) and GPUs panel (the whole Ray cluster) at 120×40 and 80×24, rendered by Ink.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { startFakeRayDashboard, type FakeRayDashboard } from '../fakes/rayDashboard.js';
import { loopbackFetch, registerRun, runLogText, startWriter } from './runFixtures.js';

type Size = { width: number; height: number };

async function setup(size: Size, o: { exitCode?: number; writer?: boolean; ray?: boolean }) {
  const ws = await tempDir();
  const ray: FakeRayDashboard | undefined = o.ray === false ? undefined : await startFakeRayDashboard();
  const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'dashboard' });
  services.monitor.dispose();
  const log = path.join(ws, 'launch.log');
  await writeFile(log, runLogText(3));
  const writer: ChildProcess | undefined = o.writer ? startWriter() : undefined;
  const name = 'swegym-test-20261201-100000';
  await registerRun(services.paths, { name, logFile: log, writer, exitCode: o.exitCode });
  services.monitor = new MonitorService({
    paths: services.paths,
    store: createMonitorStore(),
    fetchImpl: loopbackFetch,
    rayDashboardUrl: ray?.url ?? 'http://127.0.0.1:1',
    gpuRunner: async () => ({ ok: false, stdout: '', error: 'nvidia-smi not found on this node' }),
    hz: 10,
    refreshMs: 50,
    pollMs: { log: 50, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 100, cluster: 100, writer: 100 },
  });
  services.monitorTarget = name;
  const ui = renderInk(<App services={services} size={size} />);
  const waitForText = ui.waitForText;
  ui.waitForText = (text: string | RegExp, timeoutMs = 30_000) => waitForText(text, timeoutMs);
  return {
    ui,
    writer,
    async teardown() {
      ui.unmount();
      await services.monitor.close();
      if (writer?.pid) {
        try {
          process.kill(-writer.pid, 'SIGKILL');
        } catch {}
      }
      await ray?.close();
      await removeDir(ws);
    },
  };
}

function assertFits(frame: string, size: Size) {
  const rows = frame.split('\n');
  assert.ok(rows.length <= size.height, `frame has ${rows.length} rows for a ${size.height}-row terminal`);
  for (const r of rows) assert.ok([...r].length <= size.width, `row wider than ${size.width}: ${r}`);
}

/** GPU rows of the panel: index, util bar, %, mem bar, used/total, temperature. */
const GPU_ROW = /^\s*(n\d+:)?\d+ [█▉▊▋▌▍▎▏·]+ +\d+% +[█▉▊▋▌▍▎▏·]+ +\d+\/140G \d+C/;

function gpuPanel(frame: string, width: number, x0: number): string[] {
  return frame.split('\n').map((r) => [...r].slice(x0, x0 + width).join(''));
}

test('120×40: a live registry run reads running with the age of its last line; the GPU panel shows the Ray cluster by node and says how many GPUs are hidden', async () => {
  const size = { width: 120, height: 40 };
  const x = await setup(size, { writer: true });
  try {
    await x.ui.waitForText(/▶ running · [^\n]*swegym-test-20261201-100000/);
    await x.ui.waitForText('GPUs — Ray cluster · 4 nodes · 32 GPUs');
    await x.ui.waitForText(/… \d+ of 32 GPUs hidden \(4 nodes\) — Enter lists every GPU/);
    const f = x.ui.frame();
    assert.match(f, /last line (<5|\d+) s ago/);
    assert.match(f, /ETA \S+/);
    assert.match(f, /launch\.log following/);
    // Right half of the lower row: the GPUs panel, node headings and one row per shown GPU with a history.
    const right = gpuPanel(f, 60, 60);
    // Each node heading carries one cell per GPU: the whole cluster's utilisation even where rows are hidden.
    // Not every GPU fits: every node's heading comes first, then GPU rows named n<node>:<gpu>.
    for (const n of [0, 1, 2, 3]) assert.ok(right.some((r) => new RegExp(`^n${n} gpu-node-${n}${n === 0 ? ' \\(head\\)' : ''} [▁▂▃▄▅▆▇█]{8} util +\\d+% · mem +\\d+/\\d+G`).test(r)), `node ${n}:\n${right.join('\n')}`);
    assert.ok(right.some((r) => /^ *n0:0 /.test(r)));
    assert.ok(right.some((r) => /util 0–100%.*mem used\/total.*temp power · 10 s\/col →/.test(r)), 'a scale for the bars and the history');
    const shown = right.filter((r) => GPU_ROW.test(r)).length;
    const hidden = Number(/… (\d+) of 32 GPUs hidden/.exec(f)![1]);
    assert.ok(shown >= 4, `${shown} GPU rows`);
    assert.equal(shown + hidden, 32, 'every GPU is either shown or counted as hidden');
    assertFits(f, size);
    // The launcher killed: crashed within the writer poll, no ETA, not "following".
    process.kill(-x.writer!.pid!, 'SIGKILL');
    await x.ui.waitForText('✗ crashed');
    const g = x.ui.frame();
    assert.doesNotMatch(g.split('\n').slice(0, 6).join('\n'), /ETA|following|generating/);
    assert.match(g, /stopped at rollout 3\/500/);
    assert.match(g, /crashed: the launcher \(pid \d+\) is gone and left no exit code/);
    assertFits(g, size);
  } finally {
    await x.teardown();
  }
});

test('80×24: the header keeps state and last-line age in view; the GPUs panel (Tab) lists the nodes and the hidden count', async () => {
  const size = { width: 80, height: 24 };
  const x = await setup(size, { writer: true });
  try {
    await x.ui.waitForText(/▶ running · last line (<5|\d+) s ago · /);
    for (let i = 0; i < 4; i++) await x.ui.press(KEYS.tab);
    await x.ui.waitForText('GPUs — Ray cluster · 4 nodes · 32 GPUs');
    await x.ui.waitForText(/… \d+ of 32 GPUs hidden/);
    const f = x.ui.frame();
    const rows = f.split('\n');
    const shown = rows.filter((r) => GPU_ROW.test(r)).length;
    assert.equal(shown + Number(/… (\d+) of 32/.exec(f)![1]), 32);
    assert.ok(rows.some((r) => /^n0 gpu-node-0 \(head\) [▁▂▃▄▅▆▇█]{8} util +\d+% · mem +\d+\/\d+G · 8 GPUs · 10\.1\.0\.10$/.test(r)), f);
    assert.ok(rows.some((r) => /^n3 gpu-node-3 /.test(r)), 'every node heading, the last one too');
    // The full width leaves room for the power and a longer history.
    assert.ok(rows.some((r) => GPU_ROW.test(r) && / \d+W [▁▂▃▄▅▆▇█]+$/.test(r)), f);
    assertFits(f, size);
    // Enter: every GPU of every node.
    await x.ui.press(KEYS.enter);
    await x.ui.waitForText('GPUs — Ray cluster · 4 nodes · 32 GPUs');
    await x.ui.waitForText(/GPU 7 NVIDIA H200 · util \d+% · mem \d+\/143771 MiB/);
    assertFits(x.ui.frame(), size);
  } finally {
    await x.teardown();
  }
});

test('a finished run (exit code 0) reads finished without an ETA; exited (1) at 80×24; no Ray: this node, labelled', async () => {
  for (const [size, exitCode, want] of [
    [{ width: 120, height: 40 }, 0, '✓ finished'],
    [{ width: 80, height: 24 }, 1, '✗ exited (1)'],
  ] as const) {
    const x = await setup(size, { exitCode, ray: false });
    try {
      await x.ui.waitForText(want);
      const f = x.ui.frame();
      const head = f.split('\n').slice(0, 6).join('\n');
      assert.doesNotMatch(head, /ETA|following/);
      if (exitCode === 1) assert.match(f, /exited \(1\): the launcher exited with code 1 \(the run registry \(exit file\)\)/);
      if (size.width === 120) assert.match(f, /GPUs — this node \(.+, nvidia-smi\) only/);
      assertFits(f, size);
    } finally {
      await x.teardown();
    }
  }
});
