// Build step (dist/warm-ui-cache.mjs, run by scripts/build.mjs): draws the console's home screen into an off-screen
// terminal, presses a few keys, then writes the UI bundle's V8 code cache (src/vendor/uiVendorLoader.ts). The first
// start after `npm install` then finds a cache that already holds what drawing needs, as every later start does.
// It touches nothing outside a temporary directory and never runs the doctor or any process.
import React from 'react';
import { render } from 'ink';
import { CONSOLE_RENDER_OPTIONS } from './renderOptions.js';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from '../screens/App.js';
import { startAppServices } from '../app/core.js';
import { saveUiCodeCache } from '../vendor/uiVendorLoader.js';
import { sleep } from '../services/util/sleep.js';

/** A terminal of 120×40 that keeps nothing. */
class OffscreenStdout extends EventEmitter {
  readonly isTTY = true;
  readonly columns = 120;
  readonly rows = 40;
  frames = 0;
  write(_chunk: string, callback?: () => void): boolean {
    this.frames++;
    callback?.();
    return true;
  }
}

/** A raw-mode keyboard that the warm-up types on. */
class OffscreenStdin extends EventEmitter {
  readonly isTTY = true;
  private pending: string | null = null;
  type(keys: string): void {
    this.pending = keys;
    this.emit('readable');
    this.emit('data', keys);
  }
  read(): string | null {
    const keys = this.pending;
    this.pending = null;
    return keys;
  }
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

const settle = (ms: number) => sleep(ms);

async function warm(): Promise<void> {
  const workspace = await mkdtemp(path.join(tmpdir(), 'swegym-warm-'));
  const stdout = new OffscreenStdout();
  const stdin = new OffscreenStdin();
  try {
    const services = startAppServices({ workspace, provider: 'local', debug: false, color: true, json: false });
    let firstFrame!: () => void;
    const drawn = new Promise<void>((resolve) => (firstFrame = resolve));
    const instance = render(<App services={services} onFirstFrame={() => firstFrame()} />, {
      ...CONSOLE_RENDER_OPTIONS,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    });
    await drawn;
    // The keys a first session uses: move through the pipeline, help, close it.
    for (const keys of ['j', 'k', '?', '\u001b']) {
      stdin.type(keys);
      await settle(80);
    }
    instance.unmount();
    services.dispose();
    if (stdout.frames === 0) throw new Error('nothing was drawn');
    if (!saveUiCodeCache()) throw new Error('no code cache written (the directory is read-only, or the bundle already had a valid cache)');
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

warm().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`warm-ui-cache: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
