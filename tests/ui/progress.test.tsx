// Progress on screen (issue 18): a bar, the count and an ETA from the observed rate, only while the job runs; the
// Validate screen's bar and its detail pane (live phases only, never the previous result next to "applying"),
// the Templates screen's build and smoke bars — at 120×40 and 80×24.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { render } from 'ink-testing-library';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { ProgressBar, progressText } from '../../src/ui/ProgressBar.js';
import { jobProgressLine, progressEta } from '../../src/ui/progress.js';
import { createValidateStore, type ValidateRow } from '../../src/state/validate.js';
import { createTemplatesStore } from '../../src/state/templates.js';
import type { ValidateController } from '../../src/services/validate/controller.js';
import type { TemplatesController } from '../../src/services/templates/controller.js';
import { renderInk } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const SIZES = [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
];

test('the ETA comes from the observed rate, and only while something remains', () => {
  const now = 100_000;
  const p = { done: 2, total: 10, startedAt: now - 60_000 };
  assert.equal(progressEta(p, now), 240_000, '2 in 60 s → 8 more in 240 s');
  assert.equal(jobProgressLine(p, now, 10), '[██░░░░░░░░] 2/10 · ETA 4m');
  assert.equal(progressEta({ ...p, done: 0 }, now), undefined, 'no rate yet');
  assert.equal(jobProgressLine({ ...p, done: 10 }, now, 10), '[██████████] 10/10', 'no ETA once done');
  assert.equal(progressEta({ ...p, baseline: 2 }, now), undefined, 'items skipped at the start are not a rate');
  assert.equal(progressEta({ ...p, ownEstimate: true }, now), undefined, 'a job that estimates itself and cannot yet says nothing');
  assert.equal(progressEta({ ...p, ownEstimate: true, etaMs: 5000 }, now), 5000);
});

test('<ProgressBar> fits its width: bar, count, ETA', () => {
  const p = { done: 3, total: 12, startedAt: Date.now() - 30_000 };
  for (const width of [120, 80, 40]) {
    const ui = render(<ProgressBar progress={p} width={width} label="build " />);
    const line = ui.lastFrame() ?? '';
    assert.match(line, /^build \[█+░+\] 3\/12 · ETA 1m(30s)?$/, line);
    assert.ok(line.length <= width, `${line.length} > ${width}`);
    ui.unmount();
  }
  const none = render(<ProgressBar progress={undefined} width={80} />);
  assert.equal(none.lastFrame(), '');
  none.unmount();
  assert.equal(progressText({ done: 1, total: 1, startedAt: 0 }, 80), '[████████████████████] 1/1');
});

async function withServices(body: (services: ReturnType<typeof createAppServices>) => Promise<void>): Promise<void> {
  const ws = await fakeDressageCheckout();
  const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  try {
    await body(services);
  } finally {
    services.dispose();
    await removeDir(ws);
  }
}

/** A validation in flight: calc-1 done this run, calc-2 applying its gold patch with an older failing result. */
function runningValidation(): ValidateRow[] {
  const old = { instance_id: 'sample__calc-2', template: 'tpl-2', ok: false, gold: null, control: null, error: 'OLD FAILURE from last week', durationMs: 1000, validatedAt: '2026-01-01T00:00:00.000Z' };
  const fresh = { ...old, instance_id: 'sample__calc-1', ok: true, error: undefined, validatedAt: new Date().toISOString() };
  return [
    { instance_id: 'sample__calc-2', template: 'tpl-2', status: 'running', gold: 'applying', control: 'evaluating', result: old },
    { instance_id: 'sample__calc-1', template: 'tpl-1', status: 'ok', gold: 'done', control: 'done', result: fresh },
    { instance_id: 'sample__calc-3', template: 'tpl-3', status: 'queued', gold: 'queued', control: 'queued' },
  ];
}

for (const size of SIZES) {
  test(`Validate at ${size.width}×${size.height}: bar, count and ETA while running; the detail pane shows only the live phase`, async () => {
    await withServices(async (services) => {
      const store = createValidateStore();
      const controller = { running: true, refresh: async () => {}, run: async () => {}, stop: () => {}, dispose: () => {} } as unknown as ValidateController;
      services.validate = { store, controller };
      store.getState().set({ loading: false, running: true, rows: runningValidation(), progress: { done: 1, total: 3, startedAt: Date.now() - 60_000 } });
      const ui = renderInk(<App services={services} size={size} />);
      try {
        await ui.press('5');
        await ui.waitForText(/1 running, 1 queued/);
        await ui.waitForText(/^validating \[█+░+\] 1\/3 · ETA 2m$/m);
        const frame = ui.frame();
        assert.match(frame, /sample__calc-2: running — gold applying, control evaluating/);
        assert.doesNotMatch(frame, /OLD FAILURE/, 'the previous result is not shown while the task runs');
        assert.match(frame, /▶ sample__calc-2 +applying +evaluating +tpl-2/, 'nor its time in the row');
        for (const line of frame.split('\n')) assert.ok(line.length <= size.width, `line wider than ${size.width}: ${line}`);
        // When the run ends the bar (and its ETA) goes; the result shows.
        store.getState().set({ running: false, progress: undefined, rows: runningValidation().map((r) => ({ ...r, status: r.result?.ok === false ? 'failed' : r.status === 'queued' ? 'untested' : r.status, gold: undefined, control: undefined })) });
        await ui.waitForText('✗ OLD FAILURE from last week');
        const after = ui.frame();
        assert.doesNotMatch(after, /ETA|█/);
      } finally {
        ui.unmount();
      }
    });
  });

  test(`Templates at ${size.width}×${size.height}: a build bar with the factory's ETA, then a smoke bar`, async () => {
    await withServices(async (services) => {
      const store = createTemplatesStore();
      const controller = { refresh: async () => {}, dispose: () => {} } as unknown as TemplatesController;
      services.templates = { store, controller };
      store.getState().set({ loading: false, running: true, active: 2, buildProgress: { done: 5, total: 20, startedAt: Date.now() - 10_000, etaMs: 125_000, ownEstimate: true } });
      const ui = renderInk(<App services={services} size={size} />);
      try {
        await ui.press('3');
        await ui.waitForText(/^build \[█+░+\] 5\/20 · ETA 2m$/m);
        store.getState().set({ running: false, active: 0, buildProgress: undefined, smoking: 3, smokeProgress: { done: 1, total: 4, startedAt: Date.now() - 20_000 } });
        await ui.waitForText(/^smoke \[█+░+\] 1\/4 · ETA 1m$/m);
        store.getState().set({ smoking: 0, smokeProgress: undefined });
        await waitFor(() => !/^(build|smoke) \[/m.test(ui.frame()), { message: () => `a bar left after the jobs ended:\n${ui.frame()}` });
      } finally {
        ui.unmount();
      }
    });
  });
}
