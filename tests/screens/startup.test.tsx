// A console started while a training run is going opens straight onto the dashboard of that run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { procStartTime, writeRun, type RunRecord } from '../../src/services/train/registry.js';
import { renderInk } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

test('with a running run in the registry the console opens its dashboard; without one it stays home', async () => {
  const ws = await fakeDressageCheckout();
  const paths = recipePaths(ws);
  // Stands in for a detached launcher: its own process group, alive for the test.
  const launcher = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { detached: true, stdio: 'ignore' });
  try {
    const name = 'swegym-test-run-20261129T000000Z';
    const logFile = path.join(paths.runsDir, name, 'launcher.log');
    await mkdir(path.dirname(logFile), { recursive: true });
    await writeFile(logFile, "(RolloutManager pid=1, ip=10.0.0.1) SWE-Gym reward=1.0 raw=1.0 integrity=False instance=a__b-1 f2p=1/1 p2p=2/2 reason=\n");
    await waitFor(async () => Boolean(await procStartTime(launcher.pid as number)));
    const record: RunRecord = {
      version: 1,
      name,
      runName: 'swegym-test-run',
      host: hostname(),
      createdAt: new Date().toISOString(),
      startedAt: new Date().toISOString(),
      pid: launcher.pid,
      pgid: launcher.pid,
      procStart: await procStartTime(launcher.pid as number),
      command: { argv: ['bash', 'launcher.sh'], cwd: ws },
      logFile,
      exitFile: path.join(paths.runsDir, name, 'exit.json'),
      outputsLogDir: path.join(ws, 'outputs', 'logs', 'swegym-test-run'),
      checkpointDir: path.join(ws, 'outputs', 'checkpoints', 'swegym-test-run'),
      config: { explicit: {}, effective: {}, sources: {} },
      expectedEffectiveLines: [],
      status: 'running',
    };
    await writeRun(paths, record);
    const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
    const ui = renderInk(<App services={services} size={{ width: 120, height: 32 }} />);
    try {
      await ui.waitForText('[7 Dashboard]', 60_000);
      await ui.waitForText('swegym-test-run', 60_000);
    } finally {
      services.dispose();
      ui.unmount();
    }
  } finally {
    // Gone means reaped: until node has waited for it, the killed launcher is a zombie whose pid still answers.
    const reaped = new Promise((resolve) => launcher.once('exit', resolve));
    launcher.kill('SIGKILL');
    await reaped;
  }
  // The same workspace once the run is gone: the console stays on the home screen.
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  const ui = renderInk(<App services={services} size={{ width: 120, height: 32 }} />);
  try {
    await waitFor(() => services.train.store.getState().runs.length > 0, { timeoutMs: 60_000 });
    assert.match(ui.frame(), /\[1 Home\]/);
  } finally {
    services.dispose();
    ui.unmount();
    await removeDir(ws);
  }
});
