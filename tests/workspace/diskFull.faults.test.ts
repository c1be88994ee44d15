// A full disk (issue 25, point 7), through the built binary on a small private tmpfs: ENOSPC names the file, the free
// space (statfs) and the fix; it is never "cannot reach … Check the network", never a bare "ENOSPC: no space left on
// device, write", and never retried as a network fault (download, builds, journals). Needs root and mount(8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeHub } from '../fakes/hfHub.js';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { makeInstances, parquetBytes } from '../fixtures/parquetFixtures.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { Journal } from '../../src/services/workspace/journal.js';
import { ConsoleError } from '../../src/services/errors.js';
import { templateWorkspace, imageNames } from '../templates/helpers.js';

const mount = (...args: string[]) => spawnSync('mount', args, { encoding: 'utf8' });
const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;
const skip = !canMount ? 'needs root and mount(8) for a small tmpfs' : builtMissing();

/** A fresh tmpfs of `size` at a temp dir; undefined when the mount is refused. */
async function smallDisk(size: string): Promise<string | undefined> {
  const dir = await tempDir('swegym-faults-full-');
  if (mount('-t', 'tmpfs', '-o', `size=${size}`, 'swegym-full', dir).status !== 0) {
    await removeDir(dir);
    return undefined;
  }
  return dir;
}

async function unmount(dir: string): Promise<void> {
  spawnSync('umount', [dir]);
  await removeDir(dir);
}

/** Fills the file system holding `dir` to the last byte. */
function fill(dir: string): void {
  try {
    writeFileSync(path.join(dir, 'filler'), Buffer.alloc(64 * 1024 * 1024));
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
  }
}

const DISK_WORDS = (file: RegExp) => [new RegExp(`cannot write ${file.source}: no space left on the device \\(ENOSPC\\)`), /\d+(\.\d+)? ?\w?i?B free of .* on the file system holding /, /fix: +free space on that file system, or use a workspace on another one \(--workspace DIR\)/];

test('data download onto a full disk: the .part file, the free space, the fix; no retries, no "check the network"', { skip, timeout: 60_000 }, async (t) => {
  const ws = await smallDisk('96k');
  if (!ws) return t.skip('tmpfs mount refused here');
  const bytes = await parquetBytes(makeInstances(293, { seed: 3, size: 'realistic' }));
  const hub = await startFakeHub({ files: [{ repo: 'NovaSky-AI/SkyRL-v0-293-data', path: 'train.parquet', content: bytes }] });
  try {
    assert.ok(bytes.byteLength > 200_000, `the file (${bytes.byteLength} bytes) is larger than the disk`);
    const r = await runConsole(['data', 'download', '-w', ws], { HF_ENDPOINT: hub.endpoint, HOME: ws, HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' });
    assert.equal(r.code, 1, r.out + r.err);
    for (const re of DISK_WORDS(/.*train\.parquet\.part/)) assert.match(r.err, re);
    assert.doesNotMatch(r.err, /cannot reach|Check the network|retrying/i);
    const gets = hub.requests.filter((q) => q.server === 'cdn' && q.method === 'GET');
    assert.equal(gets.length, 1, 'a full disk is not retried as a network fault');
  } finally {
    await hub.close();
    await unmount(ws);
  }
});

test('templates build on a full disk: the file it could not write, the free space, the fix; not a bare ENOSPC', { skip, timeout: 60_000 }, async (t) => {
  const ws = await smallDisk('256k');
  if (!ws) return t.skip('tmpfs mount refused here');
  const fake = await startFakeE2b();
  try {
    mkdirSync(path.join(ws, 'data', 'claude-code-artifacts'), { recursive: true });
    writeFileSync(path.join(ws, 'data', 'swegym-images.txt'), 'xingyaoww/sweb.eval.x86_64.proj0_s_repo0-100:latest\n');
    fill(ws);
    const r = await runConsole(['templates', 'build', '-w', ws], { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url });
    assert.notEqual(r.code, 0, r.out + r.err);
    for (const re of DISK_WORDS(/.*\.swegym-console\S*/)) assert.match(r.err, re);
    assert.doesNotMatch(r.err, /^.*ENOSPC: no space left on device, write$/m);
    assert.doesNotMatch(r.err, /\.tmp\b/, 'named by the file the user cares about, not our temp file');
  } finally {
    await fake.close();
    await unmount(ws);
  }
});

test('a journal on a full disk: the append fails with the log file, the free space and the fix', { skip: !canMount ? 'needs root and mount(8)' : false, timeout: 30_000 }, async (t) => {
  const dir = await smallDisk('64k');
  if (!dir) return t.skip('tmpfs mount refused here');
  try {
    const journal = await new Journal<{ state: string; note: string }>(path.join(dir, '.swegym-console', 'journals'), 'templates').load();
    await journal.set('a', { state: 'built', note: 'first' });
    fill(dir);
    const err = await journal.set('b', { state: 'built', note: 'x'.repeat(8192) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConsoleError, `a ConsoleError, not ${String(err)}`);
    assert.match(err.what, /cannot write .*templates\.json\.log: no space left on the device \(ENOSPC\)/);
    assert.match(err.causeText ?? '', /free of .* on the file system holding /);
    assert.match(err.fix ?? '', /free space on that file system/);
  } finally {
    await unmount(dir);
  }
});

test('a template build whose upload spool (TMPDIR) is full: named with the file and free space, not retried', { skip, timeout: 60_000 }, async (t) => {
  const tmp = await smallDisk('64k');
  if (!tmp) return t.skip('tmpfs mount refused here');
  const fake = await startFakeE2b();
  const { ws } = await templateWorkspace(imageNames(1));
  try {
    fill(tmp);
    const r = await runConsole(['templates', 'build', '--json', '-w', ws], { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url, TMPDIR: tmp });
    assert.equal(r.code, 1, r.out + r.err);
    const doc = JSON.parse(r.out) as { templates: { error: string }[] };
    const error = doc.templates[0]!.error;
    assert.match(error, /no space left on the device \(ENOSPC\)/);
    assert.match(error, /free of .* on the file system holding /);
    assert.match(error, /fix: free space on that file system/);
    assert.doesNotMatch(r.err, /retry /, 'a full disk is not retried');
  } finally {
    await fake.close();
    await removeDir(ws);
    await unmount(tmp);
  }
});
