// A read-only workspace (issue 16, point 10), through the built binary: a clear message naming the file and the
// fix, not a raw `EROFS … .tmp`. Needs a read-only mount: a private tmpfs, remounted read-only (root only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

const mount = (...args: string[]) => spawnSync('mount', args, { encoding: 'utf8' });
const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;

test('a read-only workspace: the command names the file and says the file system is read-only', { skip: !canMount ? 'needs root and mount(8)' : builtMissing() }, async (t) => {
  const ws = await tempDir('swegym-faults-ro-');
  if (mount('-t', 'tmpfs', '-o', 'size=4m', 'swegym-ro', ws).status !== 0) return t.skip('tmpfs mount refused here');
  try {
    mkdirSync(path.join(ws, 'data'));
    writeFileSync(path.join(ws, 'data', 'swegym-images.txt'), 'img/a:latest\n');
    writeFileSync(path.join(ws, 'data', 'e2b-template-map.json'), '{"img/a:latest":"swegym-a"}');
    assert.equal(mount('-o', 'remount,ro', ws).status, 0);
    const r = await runConsole(['templates', 'smoke', '--all', '-w', ws], { E2B_API_KEY: 'fake-key', E2B_API_URL: 'http://127.0.0.1:9', E2B_SANDBOX_URL: 'http://127.0.0.1:9' });
    assert.notEqual(r.code, 0);
    assert.doesNotMatch(r.err, /EROFS|\.tmp/, r.err);
    assert.match(r.err, /cannot write .*\.swegym-console.*: the file system is read-only/);
    assert.match(r.err, /writable checkout \(--workspace DIR\)/);
  } finally {
    spawnSync('umount', [ws]);
    await removeDir(ws);
  }
});
