import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

async function setup(size = { width: 120, height: 30 }) {
  const ws = await fakeDressageCheckout();
  const log = new CommandLog();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: log });
  let exited = false;
  const ui = renderInk(<App services={services} size={size} onExit={() => (exited = true)} />);
  return { ws, services, ui, log, exited: () => exited };
}

test('home shows the pipeline from disk; number keys and Esc navigate', async () => {
  const { ws, services, ui } = await setup();
  try {
    await services.home.controller.refresh();
    await ui.waitForText('Download the SWE-Gym split');
    assert.match(ui.frame(), /· 1\. Download the SWE-Gym split/);
    await ui.press('3');
    await ui.waitForText('one E2B template per image');
    await ui.press('6');
    await ui.waitForText('4-node GRPO');
    await ui.press(KEYS.escape);
    await ui.waitForText('one E2B template per image');
  } finally {
    ui.unmount();
    await removeDir(ws);
  }
});

test('? opens help generated from the binding tables; Esc closes it', async () => {
  const { ws, ui } = await setup();
  try {
    await ui.waitForText('Pipeline');
    await ui.press('?');
    await ui.waitForText('Home keys');
    const help = ui.frame();
    assert.match(help, /Everywhere/);
    assert.match(help, /open the step/);
    assert.match(help, /command log/);
    await ui.press(KEYS.escape);
    await ui.waitForText('Pipeline');
    assert.doesNotMatch(ui.frame(), /Home keys/);
  } finally {
    ui.unmount();
    await removeDir(ws);
  }
});

test('q quits at once when no job runs, and asks first while one runs', async () => {
  const a = await setup();
  try {
    await a.ui.waitForText('Pipeline');
    await a.ui.press('q');
    assert.equal(a.exited(), true);
  } finally {
    a.ui.unmount();
    await removeDir(a.ws);
  }
  const b = await setup();
  let cancelled = false;
  try {
    await b.ui.waitForText('Pipeline');
    b.services.jobs.getState().start({ id: 'tpl', title: 'template build', startedAt: Date.now(), cancel: () => (cancelled = true) });
    await b.ui.press('q');
    await b.ui.waitForText('Quit swegym-console?');
    assert.match(b.ui.frame(), /template build/);
    assert.match(b.ui.frame(), /Training runs are detached and keep running/);
    await b.ui.press('n');
    await b.ui.waitForText('Pipeline');
    assert.equal(b.exited(), false);
    await b.ui.press('q');
    await b.ui.waitForText('Quit swegym-console?');
    await b.ui.press('y');
    assert.equal(b.exited(), true);
    assert.equal(cancelled, true);
  } finally {
    b.ui.unmount();
    await removeDir(b.ws);
  }
});

test('the command log overlay lists processes with secrets redacted', async () => {
  const { ws, ui, log } = await setup();
  try {
    const e = log.start(['curl', '-H', 'X-API-Key: e2b_abcdefabcdef', 'https://api.e2b.app'], ws);
    log.finish(e, { exitCode: 0 });
    await ui.press('L');
    await ui.waitForText('Command log (1 processes');
    assert.match(ui.frame(), /exit 0/);
    assert.doesNotMatch(ui.frame(), /e2b_abcdef/);
    assert.match(ui.frame(), /X-API-Key: \*\*\*\*/);
  } finally {
    ui.unmount();
    await removeDir(ws);
  }
});

test('command log: keys that come in the frame that opens it count (L, Up and Enter in one tick; Up after reopening)', async () => {
  const { ws, ui, log } = await setup();
  try {
    for (const cmd of ['first', 'second', 'third']) log.finish(log.start([cmd], ws), { exitCode: 0 });
    await ui.waitForText('Pipeline');
    // Over SSH or under load keys arrive together: none may wait for the frame (or an effect) the one before it draws.
    ui.stdin.write('L');
    ui.stdin.write(KEYS.up);
    await ui.waitForText('2/3 · ');
    assert.match(ui.frame(), /› \d\d:\d\d:\d\d exit 0 +\S+ +second/);
    ui.stdin.write(KEYS.up);
    ui.stdin.write(KEYS.enter);
    await ui.waitForText(/argv \(1, secrets redacted\)/);
    assert.match(ui.frame(), /\[0\] first/);
    // Closed and opened again, the log starts on its newest process, and Up moves from there.
    await ui.press(KEYS.escape);
    await ui.waitForText('Pipeline');
    ui.stdin.write('L');
    ui.stdin.write(KEYS.up);
    ui.stdin.write(KEYS.up);
    await ui.waitForText('1/3 · ');
    await ui.press(KEYS.down);
    await ui.waitForText('2/3 · ');
  } finally {
    ui.unmount();
    await removeDir(ws);
  }
});

test('small terminals get a message instead of a broken layout; compact home fits 60x16', async () => {
  const tiny = await setup({ width: 30, height: 8 });
  try {
    await tiny.ui.waitForText('Terminal too small');
  } finally {
    tiny.ui.unmount();
    await removeDir(tiny.ws);
  }
  const small = await setup({ width: 60, height: 16 });
  try {
    await small.services.home.controller.refresh();
    await small.ui.waitForText('Pipeline');
    const lines = small.ui.frame().split('\n');
    assert.ok(lines.length <= 16, `frame has ${lines.length} lines`);
    for (const l of lines) assert.ok([...l].length <= 60, `line too wide: ${l}`);
  } finally {
    small.ui.unmount();
    await removeDir(small.ws);
  }
});
