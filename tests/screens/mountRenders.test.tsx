// The console renders once as it mounts: Ink's useWindowSize set a new size object in its mount effect, and the whole
// console rendered a second time right after its first frame (≈ 5 ms of the main thread at start-up, while the home
// screen's doctor was answering). A resize still re-renders it at the new size.
import { test } from 'node:test';
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

test('one frame as the console mounts, none after it without a change; a resize draws at the new width', async () => {
  const ws = await fakeDressageCheckout();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  const ui = renderInk(<App services={services} />);
  try {
    await ui.waitForText('Pipeline');
    await turns(30);
    assert.equal(ui.frames.length, 1, `frames as it mounted: ${ui.frames.length}`);
    const stdout = ui.stdout as unknown as { emit(e: string): void };
    Object.defineProperty(stdout, 'columns', { value: 110, configurable: true });
    stdout.emit('resize');
    await turns(30);
    assert.equal(ui.frames.length, 2);
    assert.ok(ui.frame().split('\n').every((line) => [...line].length <= 110));
  } finally {
    ui.unmount();
    await removeDir(ws);
  }
});
