// bin/swegym-console, run as a program, starts the console with glibc's MALLOC_ARENA_MAX=1 and MALLOC_MMAP_THRESHOLD_
// (its RSS grew following a live run without them; bench/README.md) unless the user set them, and takes them out again,
// so that what the console starts (here the doctor's `hostname -I`; in a real run the training launcher) gets the
// user's environment. A fake `hostname` first on PATH writes its own environment and its parent's (the console).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN } from '../helpers/shipped.js';
import { builtMissing } from '../helpers/builtCli.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';

const NODE24_BIN = path.dirname(process.execPath);

/** The doctor run as a program; the environments its `hostname -I` saw: its own and its parent's. */
async function environments(extra: NodeJS.ProcessEnv): Promise<{ child: Map<string, string>; console: Map<string, string> }> {
  const ws = await fakeDressageCheckout();
  const bin = await tempDir('swegym-malloc-bin-');
  try {
    await writeFile(
      path.join(bin, 'hostname'),
      '#!/bin/sh\ntr \'\\0\' \'\\n\' < /proc/$PPID/environ > "$ENV_OUT/console.env"\nenv > "$ENV_OUT/child.env"\necho 192.0.2.9\n',
    );
    await chmod(path.join(bin, 'hostname'), 0o755);
    const { MALLOC_ARENA_MAX: _arenas, MALLOC_MMAP_THRESHOLD_: _threshold, SWEGYM_CONSOLE_SET_ENV: _set, ...base } = process.env;
    const env = { ...base, PATH: `${bin}:${NODE24_BIN}:/usr/bin:/bin`, ENV_OUT: bin, NO_COLOR: '1', ...extra };
    const child = spawn(BIN, ['doctor', '--json', '--workspace', ws], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.notEqual(code, null, err);
    const read = async (f: string) => new Map((await readFile(path.join(bin, f), 'utf8')).split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]));
    return { child: await read('child.env'), console: await read('console.env') };
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
}

test('the console runs with one malloc arena and a fixed mmap threshold; what it starts gets the environment without them', { skip: builtMissing() }, async () => {
  const { child, console } = await environments({});
  assert.equal(console.get('MALLOC_ARENA_MAX'), '1', 'the console process started with it');
  assert.equal(console.get('MALLOC_MMAP_THRESHOLD_'), '131072');
  for (const name of ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'SWEGYM_CONSOLE_SET_ENV']) assert.equal(child.has(name), false, `the doctor's child inherited ${name}`);
  assert.equal(child.get('ENV_OUT') !== undefined, true, 'the rest of the environment is passed on');
});

test('what the user set is kept, for the console and for what it starts; the one not set is still the console\'s only', { skip: builtMissing() }, async () => {
  const { child, console } = await environments({ MALLOC_ARENA_MAX: '4' });
  assert.equal(console.get('MALLOC_ARENA_MAX'), '4');
  assert.equal(child.get('MALLOC_ARENA_MAX'), '4');
  assert.equal(console.get('MALLOC_MMAP_THRESHOLD_'), '131072');
  assert.equal(child.has('MALLOC_MMAP_THRESHOLD_'), false);
  assert.equal(child.has('SWEGYM_CONSOLE_SET_ENV'), false);
  const both = await environments({ MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '65536' });
  assert.equal(both.child.get('MALLOC_ARENA_MAX'), '8');
  assert.equal(both.child.get('MALLOC_MMAP_THRESHOLD_'), '65536');
  assert.equal(both.console.has('SWEGYM_CONSOLE_SET_ENV'), false, 'nothing set here: no record of it');
});
