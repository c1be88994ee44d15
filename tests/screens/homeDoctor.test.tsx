// The home screen fills in the doctor's answers as they arrive: every check pending first, each answer replacing its
// row while the probe still runs, the usual `Doctor — N ok, …` header once all are in. At 120×40 and at 80×24.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { gatedProbeBin } from '../helpers/doctorProbe.js';

for (const size of [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
]) {
  test(`${size.width}x${size.height}: doctor checks are pending, then each answer replaces its row as it arrives`, { timeout: 60_000 }, async () => {
    const ws = await fakeDressageCheckout();
    const { bin, gate } = await gatedProbeBin();
    const env = { PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`, SWEGYM_DOCTOR_TIMEOUT_MS: '60000' };
    const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), env });
    const ui = renderInk(<App services={services} size={size} />);
    try {
      await ui.waitForText('Pipeline');
      assert.match(ui.frame(), /Doctor — starting…/);
      const refreshed = services.home.controller.refresh();
      // dressage answered; the packages after it wait for the gate, so they are pending on screen.
      await ui.waitForText(/Doctor — \d+ checking: \d+ ok/, 20_000);
      await waitFor(() => services.home.store.getState().checks.some((c) => c.id === 'py-dressage'), { timeoutMs: 20_000 });
      // 80×24 shows the failing checks first and only a few rows; 120×40 has room for the answered and pending ones.
      if (size.height >= 40) await ui.waitForText('✓ dressage: dressage 0.1.0');
      const during = ui.frame();
      if (size.height >= 40) assert.match(during, /… dressage-blackbox-server: checking/);
      assert.ok(services.home.store.getState().pendingChecks.some((c) => c.id === 'py-bbs'));
      assert.doesNotMatch(during, /Doctor — \d+ ok/, 'the final header waits for every answer');
      for (const line of during.split('\n')) assert.ok([...line].length <= size.width, `wider than ${size.width}: ${line}`);
      await writeFile(gate, '');
      await refreshed;
      await ui.waitForText(/Doctor — \d+ ok, \d+ fail, \d+ warn/, 20_000);
      const after = ui.frame();
      assert.doesNotMatch(after, /checking/);
      assert.deepEqual(services.home.store.getState().pendingChecks, []);
      assert.equal(services.home.store.getState().checks.find((c) => c.id === 'py-bbs')?.status, 'ok');
    } finally {
      ui.unmount();
      services.dispose();
      await removeDir(ws);
      await removeDir(bin);
    }
  });
}
