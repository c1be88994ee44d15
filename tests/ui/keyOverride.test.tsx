// A user's keys.json takes effect in the console: the overridden intent answers its new key (and only that), help
// lists the new key, and what the file got wrong is shown once, as a warning, when the console opens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { loadUserKeymap } from '../../src/app/keymap.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';

test('keys.json moves help to h: ? no longer opens it, h does, help and the tab bar show the new keys', async () => {
  const ws = await fakeDressageCheckout();
  const config = await tempDir();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  let ui: ReturnType<typeof renderInk> | undefined;
  try {
    await mkdir(path.join(config, 'swegym-console'));
    await writeFile(path.join(config, 'swegym-console', 'keys.json'), JSON.stringify({ 'overlay.help': 'h', 'go.train': '0', nosuch: 'z' }));
    const keymap = await loadUserKeymap({ XDG_CONFIG_HOME: config });
    const view = renderInk(<App services={services} size={{ width: 120, height: 40 }} keymap={keymap} />);
    ui = view;
    const overlay = () => services.app.getState().overlay;
    await view.waitForText('Pipeline');
    await view.waitForText('"nosuch" is not an intent');
    assert.match(view.frame(), / 0 Train /, 'the tab bar shows the overridden number key');
    // `?` is nobody's key now; L (still the command log's) proves the `?` before it was read and did nothing:
    // had `?` opened help, L would not open the log over it.
    await view.press('?');
    await view.press('L');
    await waitFor(() => overlay() === 'log', { message: () => `overlay ${overlay()}\n${view.frame()}` });
    await view.press(KEYS.escape);
    await waitFor(() => overlay() === 'none');
    await view.press('h');
    await waitFor(() => overlay() === 'help', { message: () => `overlay ${overlay()}\n${view.frame()}` });
    assert.match(view.frame(), /│\s+h\s+help\s/);
    assert.match(view.frame(), /Esc or h closes this help/);
    await view.press('h');
    await waitFor(() => overlay() === 'none');
    await view.press('0');
    await waitFor(() => services.app.getState().screen === 'train');
    assert.match(view.frame(), /h help · L log$/m, 'the footer pins the moved help key');
  } finally {
    ui?.unmount();
    services.dispose();
    await removeDir(ws);
    await removeDir(config);
  }
});
