// Starts the full-screen console. Without a TTY it explains itself and points to the headless commands.
import React from 'react';
import { render } from 'ink';
import { terminalRenderOptions } from './renderOptions.js';
import type { GlobalOptions } from '../state/types/options.js';
import { App } from '../screens/App.js';
import { startAppServices } from '../app/core.js';
import { loadUserKeymap } from '../app/keymap.js';
import { ExitCode } from '../services/errors.js';
import { sleep } from '../services/util/sleep.js';
import { saveUiCodeCache, scheduleUiCodeCacheSave } from '../vendor/uiVendorLoader.js';
import { supportsOsc52 } from '../ui/clipboard.js';
import { tuneHeapForLongSession } from './longSession.js';

/** The latest the domain services wait for the home screen's doctor after the first frame, ms. */
const DOMAIN_AFTER_MS = 1000;

/**
 * `runDemo`: what Home's `d` outside a Dressage checkout hands over to once the console has quit (the offline demo,
 * which opens the console again on its sample workspace); the caller passes it, so the console imports no command.
 */
export async function startInteractive(global: GlobalOptions, opts: { monitorTarget?: string; startAgent?: string; runDemo?: () => Promise<number> } = {}): Promise<number> {
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    process.stderr.write(
      [
        'swegym-console: the interactive console needs a terminal (stdin and stdout must be a TTY).',
        'Run it in a terminal, or use the headless commands, e.g.:',
        '  swegym-console doctor            check prerequisites',
        '  swegym-console templates status  per-image template state',
        '  swegym-console monitor RUN --once --json',
        'See swegym-console --help for all commands.',
        '',
      ].join('\n'),
    );
    return ExitCode.usage;
  }
  // Only what the first frame needs is loaded before it: the domain services (and run discovery, which may open
  // the dashboard of a running run) and the home screen's probes (the doctor spawns processes) start after it.
  // The demo's Claude Code step (startAgent): the console opens on the Validate screen, which shows it live.
  // The user's keys (a few hundred bytes, or no file) are read before the first frame, which shows them.
  const keymap = await loadUserKeymap(process.env);
  const services = startAppServices(global, { monitorTarget: opts.monitorTarget, ...(opts.startAgent ? { initialScreen: 'validate' } : {}) });
  let finishCodeCache: () => void = saveUiCodeCache;
  const frames = frameSignal();
  const afterFirstFrame = () => {
    finishCodeCache = scheduleUiCodeCacheSave();
    const home = services.home.controller.refresh();
    // The domain services (their modules, and run discovery, which may open a running run's dashboard) load once the
    // home screen's doctor has answered and that frame is drawn, or DOMAIN_AFTER_MS after the first frame at the
    // latest: loaded at once, their modules and discovery held the one main thread between the doctor's spawns and its
    // answers; loaded as the answers came, their ≈ 45 ms of module loading held back the frame that shows them (Ink
    // draws a burst's last update up to a period later). A screen opened sooner asks for them itself (App awaits
    // whenReady with a lazy screen's code).
    const homeDrawn = Promise.race([home.then(() => frames.next()), sleep(DOMAIN_AFTER_MS, undefined, { unref: true })]);
    // V8's heap sizing for a long session loads node:v8 (≈ 2 ms of the main thread): once the home screen is whole.
    void homeDrawn.then(tuneHeapForLongSession);
    void homeDrawn
      .then(() => services.whenReady())
      .then(() => {
        if (opts.startAgent) void services.validate.controller.runAgent(opts.startAgent);
      })
      .catch((err: unknown) => services.app.getState().setFlash(`could not load the console's services: ${(err as Error).message}`, 'error'));
  };
  const instance = render(<App services={services} keymap={keymap} onFirstFrame={afterFirstFrame} clipboard={{ osc52: supportsOsc52(process.env, process.stdout.isTTY) }} />, { ...terminalRenderOptions(), onRender: frames.drawn });
  // kill, a closed terminal or SSH: quit as `q` does (jobs cancelled, sandboxes swept by the caller), exit 128+N.
  // Ctrl-C is a key here (raw mode), so SIGINT only comes from `kill -INT`.
  const SIGNAL_NUMBER = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
  let signalled: keyof typeof SIGNAL_NUMBER | undefined;
  const onSignal = (sig: keyof typeof SIGNAL_NUMBER) => {
    if (signalled) return;
    signalled = sig;
    services.app.getState().requestExit('end');
  };
  const ending = ['SIGTERM', 'SIGHUP', 'SIGINT'] as const;
  for (const sig of ending) process.on(sig, onSignal);
  try {
    await instance.waitUntilExit();
  } finally {
    for (const sig of ending) process.off(sig, onSignal);
  }
  if (signalled) {
    finishCodeCache();
    return 128 + SIGNAL_NUMBER[signalled];
  }
  // A no-op when this start used a valid cache.
  finishCodeCache();
  if (services.app.getState().exitRequest?.then === 'demo' && opts.runDemo) return opts.runDemo();
  process.stdout.write('swegym-console closed. Detached training runs keep running; `swegym-console train list` finds them.\n');
  return ExitCode.ok;
}

/** The frames Ink draws (its onRender): `next()` resolves once the next one is on the terminal. */
function frameSignal(): { drawn: () => void; next: () => Promise<void> } {
  let waiting: (() => void)[] = [];
  return {
    drawn: () => {
      const woken = waiting;
      waiting = [];
      for (const wake of woken) wake();
    },
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}
