// The dashboard on shapes real runs take (issue 27): a log replaced or truncated under it, rows that move between
// refreshes, a finished run's header and panels, a compared run without colour. Rendered by Ink.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { renderInk } from '../helpers/ink.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { loopbackFetch, runLogText } from './runFixtures.js';

type Size = { width: number; height: number };

async function open(size: Size, logText: string) {
  const ws = await tempDir();
  const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'dashboard' });
  services.monitor.dispose();
  const log = path.join(ws, 'launch.log');
  await writeFile(log, logText);
  services.monitor = new MonitorService({
    paths: services.paths,
    store: createMonitorStore(),
    fetchImpl: loopbackFetch,
    rayDashboardUrl: 'http://127.0.0.1:1',
    gpuRunner: async () => ({ ok: false, stdout: '', error: 'nvidia-smi not found on this node' }),
    hz: 10,
    refreshMs: 50,
    pollMs: { log: 50, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 60_000, cluster: 60_000, writer: 100 },
  });
  services.monitorTarget = log;
  const ui = renderInk(<App services={services} size={size} />);
  const waitForText = ui.waitForText;
  ui.waitForText = (text: string | RegExp, timeoutMs = 30_000) => waitForText(text, timeoutMs);
  return {
    ui,
    ws,
    log,
    services,
    async teardown() {
      ui.unmount();
      await services.monitor.close();
      await removeDir(ws);
    },
  };
}

test('a log replaced by mv, then truncated and rewritten: the totals are the file\'s, never added up, and an alert says it was read again', { timeout: 60_000 }, async () => {
  const d = await open({ width: 160, height: 44 }, runLogText(2));
  try {
    await d.ui.waitForText('256 total');
    await writeFile(d.log + '.tmp', runLogText(3));
    await rename(d.log + '.tmp', d.log);
    await d.ui.waitForText('384 total');
    await d.ui.waitForText(/launch\.log was replaced by another file/);
    assert.doesNotMatch(d.ui.frame(), /640 total/);
    await writeFile(d.log, runLogText(1));
    await d.ui.waitForText('128 total');
    await d.ui.waitForText(/launch\.log got shorter/);
  } finally {
    await d.teardown();
  }
});
