// Nothing unreadable: at 120×40 and 80×24 the tab bar keeps every number, the footer keeps q ? L, help scrolls to
// its last key, Enter on the doctor opens the check whole (not the Data screen), and c copies its fix with OSC 52.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import type { DoctorCheck } from '../../src/services/doctor/types.js';
import { osc52 } from '../../src/ui/clipboard.js';
import { footerText, tabBarText } from '../../src/ui/Overlays.js';
import { SCREENS } from '../../src/screens/registry.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const SIZES = [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
];

const LONG_FIX = "python3 -m pip install 'swegym @ git+https://github.com/SWE-Gym/SWE-Gym.git@0123456789abcdef0123456789abcdef01234567#subdirectory=harness' --no-deps --force-reinstall";

async function setup(size: { width: number; height: number }) {
  const ws = await fakeDressageCheckout();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  const copied: string[] = [];
  const ui = renderInk(<App services={services} size={size} clipboard={{ osc52: true, write: (b) => copied.push(b) }} />);
  return { ws, services, ui, copied };
}

for (const size of SIZES) {
  const tag = `${size.width}x${size.height}`;

  test(`${tag}: every tab number and the footer's q ? L stay visible; no line is wider than the terminal`, async () => {
    const { ws, services, ui } = await setup(size);
    try {
      await ui.waitForText('Pipeline');
      for (const key of ['1', '3', '6', '7']) {
        await ui.press(key);
        const lines = ui.frame().split('\n');
        for (const n of ['1', '2', '3', '4', '5', '6', '7']) assert.match(lines[0]!, new RegExp(`(^|[ \\[])${n} `), `tab ${n} at ${tag}:\n${lines[0]}`);
        assert.match(lines.at(-1)!, /q quit · \? help · L log$/, `footer at ${tag}: ${lines.at(-1)}`);
        for (const l of lines) assert.ok([...l].length <= size.width, `line wider than ${size.width}: ${l}`);
      }
    } finally {
      ui.unmount();
      services.dispose();
      await removeDir(ws);
    }
  });

  test(`${tag}: help lists the overlay keys and scrolls to its end; a digit from help opens that screen`, async () => {
    const { ws, services, ui } = await setup(size);
    try {
      await ui.waitForText('Pipeline');
      await ui.press('?');
      await ui.waitForText('Home keys');
      let seen = ui.frame();
      for (let i = 0; i < 8; i++) {
        await ui.press(KEYS.down);
        await ui.press(KEYS.pageDown);
        seen += ui.frame();
      }
      await ui.waitForText('Quit question');
      const end = ui.frame();
      assert.match(seen, /copy the command \(OSC 52\)/, 'the detail view’s keys are listed');
      assert.match(seen, /close the command log/);
      assert.match(seen, /7 +Dashboard/, 'help goes past "7 Dashboard"');
      assert.match(end, /lines \d+–(\d+) of \1/, 'scrolled to the last line');
      await ui.press('g');
      await ui.waitForText('Home keys');
      // Esc and a digit sent as one chunk (what a fast typist's terminal delivers) are both honoured.
      await ui.press(`${KEYS.escape}3`);
      await ui.waitForText('[3 Templates]');
      assert.doesNotMatch(ui.frame(), /Home keys/);
    } finally {
      ui.unmount();
      services.dispose();
      await removeDir(ws);
    }
  });

  test(`${tag}: Enter on the doctor opens the check whole and wrapped; c copies the fix with OSC 52`, async () => {
    const { ws, services, ui, copied } = await setup(size);
    try {
      const check: DoctorCheck = { id: 'harness', title: 'SWE-Gym harness', status: 'fail', detail: 'the swegym package is not importable by python3 (ModuleNotFoundError: No module named swegym)', fix: LONG_FIX } as DoctorCheck;
      services.home.store.getState().set({ checks: [check], loading: false });
      await ui.waitForText('Pipeline');
      await ui.press(KEYS.tab);
      await ui.press(KEYS.enter);
      await ui.waitForText('Doctor — SWE-Gym harness');
      assert.equal(services.app.getState().screen, 'home', 'Enter on the doctor must not open another screen');
      const flat = ui.frame().replace(/[│╭╮╰╯─]/g, '').split('\n').map((l) => l.trim()).join('');
      assert.ok(flat.includes(LONG_FIX.replace(/ /g, '')) || flat.replace(/ /g, '').includes(LONG_FIX.replace(/ /g, '')), `the whole fix is on screen:\n${ui.frame()}`);
      await ui.press('c');
      assert.deepEqual(copied, [osc52(LONG_FIX)]);
      assert.equal(copied[0], `\u001B]52;c;${Buffer.from(LONG_FIX).toString('base64')}\u0007`);
      await ui.waitForText('copied to the clipboard (OSC 52)');
      await ui.press(KEYS.escape);
      await ui.waitForText(/Doctor — \d+ ok/);
    } finally {
      ui.unmount();
      services.dispose();
      await removeDir(ws);
    }
  });

  test(`${tag}: v on a pipeline step shows its manual command whole, to copy`, async () => {
    const { ws, services, ui, copied } = await setup(size);
    try {
      await ui.waitForText('Pipeline');
      await services.home.controller.refresh();
      await ui.waitForText('Download the SWE-Gym split');
      await ui.press('v');
      await ui.waitForText('manual:');
      const step = services.home.store.getState().steps[0]!;
      await ui.press('c');
      assert.deepEqual(copied, [osc52(step.manual)]);
    } finally {
      ui.unmount();
      services.dispose();
      await removeDir(ws);
    }
  });
}

test('a terminal without OSC 52 gets a message, not bytes', async () => {
  const ws = await fakeDressageCheckout();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  const copied: string[] = [];
  const ui = renderInk(<App services={services} size={{ width: 80, height: 24 }} clipboard={{ osc52: false, write: (b) => copied.push(b) }} />);
  try {
    services.app.getState().openDetail({ title: 'x', lines: [{ text: 'y' }], copy: { label: 'fix', text: 'echo hi' } });
    await ui.waitForText('c copies the command');
    await ui.press('c');
    await ui.waitForText('cannot take OSC 52');
    assert.deepEqual(copied, []);
  } finally {
    ui.unmount();
    services.dispose();
    await removeDir(ws);
  }
});

test('tab bar and footer text adapt to the width', () => {
  const full = tabBarText(SCREENS, 'Home', 120);
  assert.equal(full, 'swegym-console [1 Home] 2 Data  3 Templates  4 Convert  5 Validate  6 Train  7 Dashboard ');
  const narrow = tabBarText(SCREENS, 'Templates', 80);
  assert.ok([...narrow].length <= 80);
  assert.match(narrow, /\[3 Templates\]/);
  assert.match(narrow, /7 Dash/);
  assert.ok([...tabBarText(SCREENS, 'Dashboard', 40)].length <= 40);
  assert.match(footerText([], 80), /q quit · \? help · L log$/);
  assert.equal([...footerText([{ keys: ['x'], intent: 'stop', description: 'a very long description '.repeat(10), run: () => {} }], 80)].length, 80);
});

test('End pins an overlay to its last row: rows added while it is open keep it at the bottom; a step up unpins it', async () => {
  const { ws, services, ui } = await setup({ width: 80, height: 24 });
  const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `row ${i + 1} of the detail` }));
  try {
    await ui.waitForText('Pipeline');
    services.app.getState().openDetail({ title: 'growing', lines: lines(50) });
    await ui.waitForText('row 1 of the detail');
    await ui.press('G');
    await ui.waitForText('row 50 of the detail');
    // More rows arrive while the view is open (same overlay): the bottom follows them.
    services.app.getState().openDetail({ title: 'growing', lines: lines(60) });
    await ui.waitForText('row 60 of the detail');
    // Scrolling up leaves the end; later rows no longer move the view.
    await ui.press(KEYS.up);
    await ui.waitForText('row 59 of the detail');
    services.app.getState().openDetail({ title: 'growing', lines: lines(70) });
    // The frame that knows of 70 rows has been drawn: the view stayed where the operator left it.
    await ui.waitForText(/lines \d+–\d+ of 70/);
    assert.doesNotMatch(ui.frame(), /row 70 of the detail/);
  } finally {
    ui.unmount();
    services.dispose();
    await removeDir(ws);
  }
});

test('the quit question keeps every sentence whole at 80 and 60 columns (the last one says training continues)', async () => {
  const { QuitConfirm } = await import('../../src/ui/Overlays.js');
  const { renderInk } = await import('../helpers/ink.js');
  const React = (await import('react')).default;
  for (const width of [80, 60]) {
    const ui = renderInk(React.createElement(QuitConfirm, { jobs: ['templates build 3/293', 'validate 1/23'], width }));
    try {
      const text = ui.frame().replace(/[│║╔╗╚╝═]/g, ' ').replace(/\s+/g, ' ');
      assert.match(text, /Training runs are detached and keep running; the console finds them again later\./, `${width}: ${ui.frame()}`);
      assert.match(text, /2 jobs still running: templates build 3\/293, validate 1\/23/);
      assert.doesNotMatch(ui.frame(), /\S…/);
    } finally {
      ui.unmount();
    }
  }
});
