// The dashboard's curves at 120×40 and 80×24 (ink-testing-library): the raw spike with its value in the y label,
// the rollout x-axis, the large view with its whole title, the metric picker, a compared run, the group histogram.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { EFFECTIVE_LINES, metricLine, perfMetrics, rolloutLines, stepMetrics } from './builders.js';

const SIZES = [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
];
const SPIKE_AT = 7;

/** 12 rollouts (0..11): trajectory mean rising 0.2 → 0.31, grad norm 0.31 with one spike of 7.77 at rollout 7. */
function runLog(mean: (r: number) => number): string {
  const lines = [...EFFECTIVE_LINES];
  for (let r = 0; r < 12; r++) {
    const rl = rolloutLines(r, 128, { mean: mean(r) });
    // The last line is the train step: give rollout SPIKE_AT its spike.
    if (r === SPIKE_AT) rl[rl.length - 1] = metricLine('step', r, { ...stepMetrics(r), 'train/grad_norm': 7.77 }, r * 3600 + 200);
    lines.push(...rl);
  }
  return lines.join('\n') + '\n';
}

async function setup(size: { width: number; height: number }) {
  const ws = await tempDir();
  const runDir = path.join(ws, 'outputs', 'logs', 'curves-run');
  await mkdir(runDir, { recursive: true });
  await writeFile(path.join(runDir, 'train.log'), runLog((r) => 0.2 + r * 0.01));
  // A previous run to compare with: trajectory mean 0.9 all along.
  const other = path.join(ws, 'previous.log');
  const prev = [...EFFECTIVE_LINES];
  for (let r = 0; r < 12; r++) prev.push(metricLine('perf', r, perfMetrics(r, 0.9)));
  await writeFile(other, prev.join('\n') + '\n');
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'dashboard' });
  services.monitor.dispose();
  services.monitor = new MonitorService({
    paths: services.paths,
    store: createMonitorStore(),
    gpuRunner: async () => ({ ok: false, stdout: '', error: 'no GPUs in this test' }),
    provider: async () => undefined,
    fetchImpl: (async () => new Response('{}', { status: 503 })) as typeof fetch,
    hz: 10,
    pollMs: { log: 50, gpu: 10_000, proxy: 10_000, sandboxes: 10_000, ray: 10_000 },
  });
  const ui = renderInk(<App services={services} size={size} />);
  const waitForText = ui.waitForText;
  ui.waitForText = (text: string | RegExp, timeoutMs = 30_000) => waitForText(text, timeoutMs);
  return { ws, other, services, ui };
}

async function teardown(x: Awaited<ReturnType<typeof setup>>) {
  x.ui.unmount();
  await x.services.monitor.close();
  await removeDir(x.ws);
}

function assertFits(frame: string, size: { width: number; height: number }) {
  const rows = frame.split('\n');
  assert.ok(rows.length <= size.height, `frame has ${rows.length} rows for a ${size.height}-row terminal`);
  for (const r of rows) assert.ok([...r].length <= size.width, `row wider than ${size.width}: ${r}`);
}

const braille = (s: string) => [...s].filter((c) => c >= '⠁' && c <= '⣿').length;
/** Without colour (these tests run with NO_COLOR's setting) the compared run is drawn in its own glyph. */
const compareCells = (s: string) => [...s].filter((c) => c === '•').length;

for (const size of SIZES) {
  const at = `${size.width}×${size.height}`;

  test(`overview at ${at}: the raw spike sets the top label, titles are whole or sensibly short, x-axis in rollouts`, async () => {
    const x = await setup(size);
    try {
      await x.ui.waitForText(/grad norm 0\.31/);
      const f = x.ui.frame();
      const rows = f.split('\n');
      const title = rows.findIndex((r) => r.includes('grad norm 0.31'));
      const col = rows[title]!.indexOf('grad norm');
      // The chart's first plot row carries the raw maximum: the spike, not the EMA.
      assert.match(rows[title + 1]!.slice(col, col + 8), /^7\.77 /, `top label of grad norm:\n${rows.slice(title, title + 4).join('\n')}`);
      assert.match(rows[title]!, /grad norm 0\.31 · ema \S+/, 'raw last value and the EMA in the title');
      // No title is cut with an ellipsis: names are shortened to fit instead.
      for (const r of rows.slice(0, title + 1)) assert.doesNotMatch(r, /reward \(trajectory mean\) 0\.\d…/);
      assert.match(f, /reward (\(trajectory mean\)|traj mean) 0\.31/);
      assert.match(f, /rollout 0 +(\d+ +)*11/, 'x-axis from the first to the last rollout');
      // At 120×40 every overview chart is at least 6 rows: title, 4 plot rows, x-axis.
      const axis = rows.findIndex((r, i) => i > title && /rollout 0 /.test(r));
      if (size.width === 120) assert.ok(axis - title >= 5, `chart is ${axis - title + 1} rows`);
      assertFits(f, size);
    } finally {
      await teardown(x);
    }
  });

  test(`large view at ${at}: whole title, cursor by rollout, group histogram, smoothing keys`, async () => {
    const x = await setup(size);
    try {
      await x.ui.waitForText(/grad norm 0\.31/);
      await x.ui.press(KEYS.enter);
      await x.ui.waitForText('reward (trajectory mean) · rollout/raw_reward_trajectory_mean');
      await x.ui.waitForText(/rollout 11 · raw 0\.31 · ema \S+ · min 0\.2 · max 0\.31/);
      let f = x.ui.frame();
      // Rollout 11's 8 groups of 16: five with 5 solved, three with 6 (rolloutLines solves every third sample).
      assert.match(f, /Reward per group · rollout 11/);
      assert.match(f, /8 groups × 16 samples/);
      if (size.height >= 40) {
        assert.match(f, / 5\/16 █+ +5/);
        assert.match(f, / 6\/16 █+ +3/);
        assert.match(f, / 0\/16 +0/);
      } else {
        assert.match(f, /^\s*0\s+0\s+0\s+0\s+0\s+5\s+3\s+0\s+0/m, `counts row:\n${f}`);
        assert.match(f, /^\s*0\s+1\s+2\s+3\s+4\s+5\s+6\s+7\s+8\s+9\s+10 .*solved/m);
      }
      assert.match(f, /zero-std groups \(all solved or none\) 0\/8/);
      await x.ui.press(KEYS.left);
      await x.ui.waitForText(/rollout 10 · raw 0\.3 /);
      // ↓ / ↑ step through every logged metric, in the picker's order.
      await x.ui.press(KEYS.down);
      await x.ui.waitForText('rollout/response_len/mean · logged per rollout');
      await x.ui.press(KEYS.up);
      await x.ui.waitForText('reward (trajectory mean) · rollout/raw_reward_trajectory_mean');
      // Smoothing: ] raises it, [ down to 0 removes the EMA.
      await x.ui.press(']');
      await x.ui.waitForText('smoothing 0.8');
      for (let i = 0; i < 4; i++) await x.ui.press('[');
      await x.ui.waitForText('smoothing 0');
      f = x.ui.frame();
      assert.doesNotMatch(f, /rollout 10 · raw 0\.3 · ema/);
      // ↓ goes to the next logged metric; the grad norm spike is in its large view's labels.
      await x.ui.press('m');
      for (const c of 'grad_norm') await x.ui.press(c);
      await x.ui.waitForText(/train\/grad_norm +0\.31 +12 pts {2}train step/);
      await x.ui.press(KEYS.enter);
      await x.ui.waitForText('train/grad_norm · logged per train step');
      f = x.ui.frame();
      assert.match(f, /max 7\.77/);
      assert.match(f, /^7\.77 /m, 'the top y label is the spike');
      assertFits(f, size);
      await x.ui.press(KEYS.escape);
      await x.ui.waitForText(/grad norm 0\.31/);
    } finally {
      await teardown(x);
    }
  });

  test(`metric picker at ${at} lists every logged metric; a second run is drawn over the large view`, async () => {
    const x = await setup(size);
    try {
      await x.ui.waitForText(/grad norm 0\.31/);
      await x.ui.press('m');
      await x.ui.waitForText(/metric: ▏/);
      let f = x.ui.frame();
      for (const k of ['perf/rollout_time', 'rollout/advantages']) assert.match(f, new RegExp(k), `${k} listed:\n${f}`);
      assert.match(f, /of 21 logged/);
      for (const c of 'perf/') await x.ui.press(c);
      await x.ui.waitForText(/1 of 21 logged/);
      await x.ui.press(KEYS.enter);
      await x.ui.waitForText('perf/rollout_time · logged per rollout');
      // Back to the trajectory mean, then compare with the previous run's log.
      await x.ui.press('m');
      for (const c of 'trajectory_mean') await x.ui.press(c);
      await x.ui.press(KEYS.enter);
      await x.ui.waitForText('reward (trajectory mean) · rollout/raw_reward_trajectory_mean');
      const before = x.ui.frame().split('\n');
      const topBefore = before.findIndex((r) => /^0\.31 /.test(r));
      assert.ok(topBefore > 0, 'top label is the run\'s own max before comparing');
      await x.ui.press('O');
      await x.ui.waitForText('compare with: ▏');
      for (const c of x.other) await x.ui.press(c);
      await x.ui.waitForText(`log file or run directory: ${x.other}`.slice(0, size.width - 1));
      await x.ui.press(KEYS.enter);
      await x.ui.waitForText('legend: • compare previous.log · ⣿ this run');
      assert.match(x.ui.frame(), /rollout 11 · raw 0\.31 · ema \S+ · compare previous\.log: 0\.9 \(12 pts\)/);
      f = x.ui.frame();
      const rows = f.split('\n');
      const top = rows.findIndex((r) => /^0\.9 /.test(r));
      assert.ok(top > 0, `the y range takes in the compared run:\n${f}`);
      // The compared run (flat at 0.9) runs along the whole top row; the open run never gets there.
      const plotW = size.width >= 100 ? size.width - Math.min(52, Math.floor(size.width * 0.36)) - 1 - 8 : size.width - 8;
      assert.ok(compareCells(rows[top]!.slice(8, 8 + plotW)) >= plotW * 0.9, `top row: ${rows[top]}`);
      assert.ok(braille(before[topBefore]!.slice(8, 8 + plotW)) < plotW * 0.5);
      assertFits(f, size);
    } finally {
      await teardown(x);
    }
  });
}

test('the rollout drill-in shows its reward histogram per group; help lists the curve keys', async () => {
  const size = SIZES[0]!;
  const x = await setup(size);
  try {
    await x.ui.waitForText(/grad norm 0\.31/);
    await x.ui.press('?');
    await x.ui.waitForText('Dashboard keys');
    let f = x.ui.frame();
    for (const d of ['large view of the selected chart', 'pick a metric (every logged metric)', 'overlay another run (registry or log file)', 'more smoothing (curves)']) assert.match(f, new RegExp(d.replace(/[()]/g, '\\$&')), d);
    await x.ui.press(KEYS.escape);
    await x.ui.waitForText(/grad norm 0\.31/);
    await x.ui.press(KEYS.tab);
    await x.ui.waitForText('▸ Rollouts');
    await x.ui.press(KEYS.enter);
    await x.ui.waitForText('reward per group: groups by solved samples (of 16)');
    f = x.ui.frame();
    assert.match(f, /^\s+5\/16 █+ +5$/m);
    assert.match(f, /^\s+6\/16 █+ +3$/m);
    assert.match(f, /^\s+0\/16 +0$/m);
    assertFits(f, size);
  } finally {
    await teardown(x);
  }
});

test('compare with a previous run of the registry: O lists the registry\'s other runs, Enter draws the chosen one', async () => {
  const size = SIZES[1]!;
  const x = await setup(size);
  try {
    // An older run in the registry (src/services/train/registry.ts RunRecord), written after the run directory opened.
    const runs = path.join(x.ws, '.swegym-console', 'runs');
    const entry = (name: string, logFile: string, createdAt: string) => ({ version: 1, name, runName: name, createdAt, logFile, outputsLogDir: path.dirname(logFile), checkpointDir: path.join(x.ws, 'ckpt', name), config: { explicit: {}, effective: {}, sources: {} } });
    await mkdir(path.join(runs, 'older-run'), { recursive: true });
    await writeFile(path.join(runs, 'older-run', 'run.json'), JSON.stringify(entry('older-run', x.other, '2026-07-01T00:00:00Z')));
    await x.ui.waitForText(/grad norm 0\.31/);
    await x.ui.press(KEYS.enter);
    await x.ui.waitForText('reward (trajectory mean) · rollout/raw_reward_trajectory_mean');
    await x.ui.press('O');
    await x.ui.waitForText('run older-run');
    // Pasted (or typed fast) with its Enter: one input holding the text and the Enter.
    await x.ui.press('older\r');
    await x.ui.waitForText('legend: • compare older-run');
    assert.match(x.ui.frame(), /compare older-run: 0\.9 \(12 pts\)/);
    // o again offers to stop comparing first.
    await x.ui.press('O');
    await x.ui.waitForText('stop comparing with older-run');
    await x.ui.press(KEYS.enter);
    await x.ui.waitForText(/rollout 11 · raw 0\.31 · ema \S+ · min/);
    assert.doesNotMatch(x.ui.frame(), /legend: • compare/);
  } finally {
    await teardown(x);
  }
});

for (const size of SIZES) {
  test(`a run compared from the start (monitor --compare) is drawn over the overview's charts too (${size.width}×${size.height})`, async () => {
    const x = await setup(size);
    try {
      await x.ui.waitForText(/rollout 0 +.*11/);
      assert.doesNotMatch(x.ui.frame(), /^0\.9 /m, 'no chart reaches 0.9 before comparing');
      // What `monitor RUN --compare LOG` does before the first frame (src/cli/commands/monitorInteractive.tsx).
      await x.services.monitor.curves.compare(x.other);
      // The reward chart's y range takes in the compared run's 0.9, and its top row is the compared run's line.
      await x.ui.waitForText(/^0\.9 /m);
      const rows = x.ui.frame().split('\n');
      const top = rows.findIndex((r) => /^0\.9 /.test(r));
      assert.ok(compareCells(rows[top]!.slice(8, 28)) >= 15, `top row: ${rows[top]}`);
      // Under the charts, the legend: which glyph is which run.
      assert.match(x.ui.frame(), /legend: • compare previous\.log · ⣿ this run/);
      assertFits(x.ui.frame(), size);
    } finally {
      await teardown(x);
    }
  });
}
