// `monitor RUN` in a terminal: the full-screen console opened on the dashboard, following that run.
import React from 'react';
import { render } from 'ink';
import { terminalRenderOptions } from '../renderOptions.js';
import type { GlobalOptions } from '../../state/types/options.js';
import { App } from '../../screens/App.js';
import { createAppServices } from '../../app/domain.js';
import { loadUserKeymap } from '../../app/keymap.js';
import { ExitCode } from '../../services/errors.js';
import { scheduleUiCodeCacheSave } from '../../vendor/uiVendorLoader.js';
import { supportsOsc52 } from '../../ui/clipboard.js';
import { tuneHeapForLongSession } from '../longSession.js';

export async function startDashboard(global: GlobalOptions, arg: string | undefined, opts: { fromStart: boolean; compare?: string }): Promise<number> {
  const services = createAppServices(global, { initialScreen: 'dashboard' });
  // Open before the first frame so the screen does not open the newest run instead.
  const opening = services.monitor.open(arg, { fromStart: opts.fromStart });
  // `--compare`: the second run is read once and drawn over the curves (as `O` on the charts does).
  if (opts.compare) void services.monitor.curves.compare(opts.compare);
  const keymap = await loadUserKeymap(process.env);
  const instance = render(<App services={services} keymap={keymap} clipboard={{ osc52: supportsOsc52(process.env, process.stdout.isTTY) }} />, terminalRenderOptions());
  tuneHeapForLongSession();
  const finishCodeCache = scheduleUiCodeCacheSave();
  await opening;
  await instance.waitUntilExit();
  finishCodeCache();
  process.stdout.write('swegym-console closed. The training run keeps running; `swegym-console monitor` reattaches.\n');
  return ExitCode.ok;
}
