// Start-up keeps only the home screen and the cheap services before the first frame: the other screens load on
// first use (with a loading line meanwhile), the domain services on the first whenReady().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { SCREENS, lazyScreen, loadScreen } from '../../src/screens/registry.js';
import { startAppServices } from '../../src/app/core.js';
import { isLazyScreen, type ScreenModule } from '../../src/screens/types.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const GLOBAL = { provider: 'e2b' as const, debug: false, color: false, json: false };

test('every lazy screen loads a module whose id, title, hotkey and panels match the registry', async () => {
  assert.equal(isLazyScreen(SCREENS[0]!), false, 'home is part of the first frame');
  assert.deepEqual(
    SCREENS.map((s) => s.hotkey),
    ['1', '2', '3', '4', '5', '6', '7'],
  );
  for (const entry of SCREENS.slice(1)) {
    assert.ok(isLazyScreen(entry), `${entry.id} loads on first use`);
    const module = await loadScreen(entry);
    assert.deepEqual(
      { id: module.id, title: module.title, hotkey: module.hotkey, panels: module.panels },
      { id: entry.id, title: entry.title, hotkey: entry.hotkey, panels: entry.panels },
    );
    assert.equal(typeof module.Component, 'function');
    assert.equal(typeof module.bindings, 'function');
  }
});

test('a lazy screen whose module disagrees with the registry fails with both descriptions; a later load retries', async () => {
  let calls = 0;
  const real = (await loadScreen(SCREENS[1]!)) as ScreenModule;
  const entry = lazyScreen({ id: real.id, title: real.title, hotkey: '9', panels: real.panels }, async () => {
    calls++;
    return real;
  });
  await assert.rejects(entry.load(), (err: Error) => /lists .*"hotkey":"9".* but its module declares .*"hotkey":"2"/.test(err.message));
  await assert.rejects(entry.load());
  assert.equal(calls, 2, 'a failed load is not cached');
});

test('the deferred services bag: domain services only after whenReady, the app shows a loading line until then', async () => {
  const ws = await fakeDressageCheckout();
  const services = startAppServices({ workspace: ws, ...GLOBAL }, { commandLog: new CommandLog() });
  let firstFrames = 0;
  const ui = renderInk(<App services={services} size={{ width: 100, height: 24 }} onFirstFrame={() => firstFrames++} />);
  try {
    await ui.waitForText('[1 Home]');
    await waitFor(() => firstFrames === 1);
    assert.equal(services.isReady(), false, 'no domain service before whenReady');
    assert.throws(() => services.validate, /services\.validate is not ready yet: await services\.whenReady\(\) first/);
    // Opening a lazy screen loads it and the domain services; a loading line stands in meanwhile.
    ui.stdin.write('5');
    await ui.waitForText('[5 Validate]');
    await ui.waitForText('e validate', 30_000);
    assert.ok(services.isReady() && services.validate.store !== undefined, 'the screen waited for the domain services');
    assert.ok(
      ui.frames.some((f) => f.includes('loading Validate…')),
      'a loading line stood in for the screen',
    );
    assert.doesNotMatch(ui.frame(), /loading Validate…/);
    assert.equal(firstFrames, 1, 'onFirstFrame runs once');
  } finally {
    services.dispose();
    ui.unmount();
    await removeDir(ws);
  }
});

test('services disposed before the domain code arrives start nothing', async () => {
  const ws = await fakeDressageCheckout();
  try {
    const services = startAppServices({ workspace: ws, ...GLOBAL }, { commandLog: new CommandLog() });
    const ready = services.whenReady();
    services.dispose();
    await ready;
    assert.equal(services.isReady(), false);
    assert.throws(() => services.monitor, /not ready/);
    assert.throws(() => services.templates, /not ready/);
  } finally {
    await removeDir(ws);
  }
});
