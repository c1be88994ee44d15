// The console polls the command log only while its overlay is open: closed, a process that starts or ends (the
// doctor's, a GPU poll's every 2 s) redrew the whole console for nothing (≈ 5–10 ms of the main thread a frame at
// start-up, bench/README.md). Open, the overlay follows the log at 5 Hz.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk } from '../helpers/ink.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

test('a closed log overlay draws no frame for the log’s changes; an open one shows them', async () => {
  const ws = await fakeDressageCheckout();
  const log = new CommandLog();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: log });
  mock.timers.enable({ apis: ['setInterval'] });
  const ui = renderInk(<App services={services} size={{ width: 120, height: 30 }} />);
  try {
    await ui.waitForText('Pipeline');
    await turns(20);
    const before = ui.frames.length;
    log.finish(log.start(['hostname', '-I'], ws, 'doctor'), { exitCode: 0 });
    mock.timers.tick(1_000);
    await turns(20);
    assert.equal(ui.frames.length, before, 'no frame while the overlay is closed');
    await ui.press('L');
    await ui.waitForText('hostname -I');
    log.start(['bwrap', '--version'], ws, 'doctor');
    mock.timers.tick(200);
    await ui.waitForText('bwrap --version');
  } finally {
    ui.unmount();
    mock.timers.reset();
    await removeDir(ws);
  }
});
