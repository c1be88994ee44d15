// The entry turns on Node's compile cache for the bundle's ES modules (bin/swegym-console): a start writes the
// compiled code of the modules it loaded to the cache directory, and NODE_DISABLE_COMPILE_CACHE turns that off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { runShipped } from '../helpers/shipped.js';
import { builtMissing } from '../helpers/builtCli.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(path.join(dir, f)).isFile());
  } catch {
    return [];
  }
}

test('a start of the built console fills the compile cache (NODE_COMPILE_CACHE), and NODE_DISABLE_COMPILE_CACHE=1 leaves it empty', { skip: builtMissing() }, async () => {
  const ws = await fakeDressageCheckout();
  const on = await tempDir('swegym-compile-cache-');
  const off = await tempDir('swegym-compile-cache-off-');
  try {
    const r = await runShipped(['doctor', '--workspace', ws, '--json'], { env: { NODE_COMPILE_CACHE: on } });
    assert.ok(r.out.includes('"checks"'), r.err);
    const cached = filesUnder(on);
    // One entry per compiled module: the entry, its chunks and the doctor's.
    assert.ok(cached.length >= 10, `compile cache entries: ${cached.length}`);
    await runShipped(['doctor', '--workspace', ws, '--json'], { env: { NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' } });
    assert.deepEqual(filesUnder(off), []);
  } finally {
    await removeDir(ws);
    await removeDir(on);
    await removeDir(off);
  }
});
