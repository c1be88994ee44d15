// The console's text fields follow one set of rules (ui/TextField): in Templates' and the Dashboard's filters, a
// Convert field and a Train setting, Esc puts back the value from before editing and Enter keeps the new one; a
// secret setting being typed shows neither its value nor its length. (Data's filter: tests/dataset/dataScreen.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { FIELD_KEYS } from '../../src/services/train/controller.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { generateOffline } from '../../src/services/simulator/writer.js';
import path from 'node:path';

async function setup(width = 80, height = 24) {
  const ws = await fakeDressageCheckout();
  // A finished simulated run for the dashboard (its filter line shows once a run is open).
  const runDir = path.join(ws, 'sim-run');
  await generateOffline({ dir: runDir, config: { numRollouts: 3, noiseLinesPerSecond: 0.2, seed: 7 }, trajLimit: 5 });
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), monitorTarget: runDir });
  const ui = renderInk(<App services={services} size={{ width, height }} />);
  return { ws, services, ui };
}

async function type(ui: ReturnType<typeof renderInk>, text: string) {
  for (const ch of text) await ui.press(ch);
}

interface FieldCase {
  name: string;
  open: string[];
  /** Waits until the screen is ready for `open`. */
  ready: string | RegExp;
  value: (s: Awaited<ReturnType<typeof setup>>['services']) => string | undefined;
}

const CASES: FieldCase[] = [
  { name: 'Templates filter', open: ['3', '/'], ready: 'images:', value: (s) => s.templates.store.getState().filter },
  { name: 'Dashboard filter', open: ['7', '/'], ready: /SIMULATED/, value: (s) => s.monitor.store.getState().filter },
  { name: 'Convert field (split)', open: ['4', KEYS.enter], ready: 'output: data/', value: (s) => s.convert.store.getState().form.split },
  { name: 'Train setting', open: ['6', KEYS.enter], ready: 'Launch settings', value: (s) => s.train.store.getState().editing?.draft ?? s.train.store.getState().values[FIELD_KEYS[0]!] },
];

for (const c of CASES) {
  test(`${c.name}: Esc puts the earlier value back, Enter keeps the typed one (80x24)`, { timeout: 60_000 }, async () => {
    const { ws, services, ui } = await setup();
    try {
      await ui.waitForText('Pipeline');
      await ui.press(c.open[0]!);
      await ui.waitForText(c.ready);
      const before = c.value(services) ?? '';
      for (const k of c.open.slice(1)) await ui.press(k);
      await waitFor(() => services.app.getState().inputCaptured, { message: () => ui.frame() });
      await type(ui, 'zq');
      await ui.waitForText(`${before}zq▏`);
      assert.equal(c.value(services), `${before}zq`, 'each key reaches the store');
      await ui.press(KEYS.escape);
      await waitFor(() => !services.app.getState().inputCaptured, { message: () => ui.frame() });
      assert.equal(c.value(services) ?? '', before, 'Esc cancels');
      assert.ok(!ui.frame().includes('zq'), ui.frame());

      for (const k of c.open.slice(1)) await ui.press(k);
      await waitFor(() => services.app.getState().inputCaptured);
      await type(ui, '7');
      await ui.press(KEYS.enter);
      await waitFor(() => !services.app.getState().inputCaptured, { message: () => ui.frame() });
      if (c.name !== 'Train setting') assert.equal(c.value(services), `${before}7`, 'Enter keeps');
      else await waitFor(() => services.train.store.getState().values[FIELD_KEYS[0]!] === `${before}7`, { message: () => ui.frame() });
      for (const l of ui.frame().split('\n')) assert.ok([...l].length <= 80, l);
    } finally {
      ui.unmount();
      services.dispose();
      await removeDir(ws);
    }
  });
}

test('Train: typing a secret setting shows neither the value nor its length', { timeout: 60_000 }, async () => {
  const { ws, services, ui } = await setup(120, 40);
  try {
    await ui.waitForText('Pipeline');
    await ui.press('6');
    await ui.waitForText('Launch settings');
    // Page by page, then row by row (each key redraws the whole form).
    const row = FIELD_KEYS.indexOf('DRESSAGE_E2B_API_KEY');
    for (let i = 0; i < Math.floor(row / 10); i++) await ui.press(KEYS.pageDown);
    for (let i = 0; i < row % 10; i++) await ui.press(KEYS.down);
    await ui.waitForText('DRESSAGE_E2B_API_KEY: E2B key for training');
    await ui.press(KEYS.enter);
    await waitFor(() => services.train.store.getState().editing?.key === 'DRESSAGE_E2B_API_KEY');
    await type(ui, 'Qz');
    await ui.waitForText('(hidden)▏');
    // The checks' age ticks on while typing; the rest of the frame must not change.
    const steady = (f: string) => f.replace(/checked [^\n]*/g, 'checked …');
    const short = steady(ui.frame());
    await type(ui, 'LongerFake9');
    await waitFor(() => services.train.store.getState().editing?.draft === 'QzLongerFake9');
    assert.equal(steady(ui.frame()), short, 'two and thirteen typed characters look the same');
    // The workspace's temp name is random letters and digits (mkdtemp), which can hold 'Qz' by chance: it is taken out.
    for (const f of ui.frames) assert.ok(!/Qz|Longer|Fake9|\*{2,}/.test(f.split(ws).join('<workspace>')), `no part of the key on screen:\n${f}`);
    await ui.press(KEYS.escape);
    await waitFor(() => services.train.store.getState().editing === undefined);
  } finally {
    ui.unmount();
    services.dispose();
    await removeDir(ws);
  }
});
