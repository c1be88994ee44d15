// `l` checks first: with blocking checks it says so at once and asks nothing; the question comes only when the
// run can start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

for (const size of [{ width: 120, height: 40 }, { width: 80, height: 24 }]) {
  test(`${size.width}x${size.height}: l reports blocking checks before asking to launch`, async () => {
    const ws = await fakeDressageCheckout();
    const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
    const ui = renderInk(<App services={services} size={size} />);
    try {
      await ui.press('6');
      await ui.waitForText('Launch settings', 20_000);
      await waitFor(() => services.train.store.getState().loaded, { timeoutMs: 20_000 });
      const blocking = [
        { id: 'model-root', title: 'MODEL_ROOT', status: 'fail' as const, detail: 'MODEL_ROOT must point to model files', fix: 'set MODEL_ROOT' },
        { id: 'hostfile', title: 'HOSTFILE', status: 'fail' as const, detail: 'missing', fix: 'set HOSTFILE' },
      ];
      services.train.store.getState().set({ staticChecks: blocking, checks: [] });
      await ui.press('l');
      await ui.waitForText('cannot launch: 2 blocking check(s)');
      assert.equal(services.train.store.getState().confirm, undefined, 'no question while something blocks');
      services.train.store.getState().set({ staticChecks: [], checks: [] });
      await ui.press('l');
      await ui.waitForText('Launch the run now (detached)?');
      await ui.press('n');
      await waitFor(() => services.train.store.getState().confirm === undefined);
    } finally {
      ui.unmount();
      services.dispose();
      await removeDir(ws);
    }
  });
}
