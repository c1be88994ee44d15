import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeJsonAtomic, readJsonFile, writeFileAtomic, createFileExclusive } from '../../src/services/workspace/atomic.js';
import { Journal, readJournalItems } from '../../src/services/workspace/journal.js';
import { acquireLock, withLock } from '../../src/services/workspace/lock.js';
import { ConsoleError } from '../../src/services/errors.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { spawn } from 'node:child_process';

test('atomic writes leave no temp files and honour the mode', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'sub', 'secret.json');
    await writeJsonAtomic(file, { a: 1 }, { mode: 0o600 });
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { a: 1 });
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(path.dirname(file)), ['secret.json']);
  } finally {
    await removeDir(dir);
  }
});

test('concurrent journal updates are all kept and the journal reads whole at every read', async () => {
  const dir = await tempDir();
  try {
    const j = await new Journal<{ state: string; n?: number }>(dir, 'jobs').load();
    let reads = 0;
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        if (await readJournalItems(j.file)) reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    await Promise.all(Array.from({ length: 50 }, (_, i) => j.update(`item-${i}`, { state: 'built', n: i })));
    stop = true;
    await reader;
    const again = await new Journal<{ state: string; n?: number }>(dir, 'jobs').load();
    assert.equal(again.entries().length, 50);
    assert.equal(again.get('item-49')?.n, 49);
    assert.ok(reads > 0);
  } finally {
    await removeDir(dir);
  }
});

test('a damaged state file gives a clear error, not a crash', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'x.json');
    await writeFile(file, '{"half":');
    await assert.rejects(readJsonFile(file), (err: unknown) => err instanceof ConsoleError && /not valid JSON/.test(err.what) && Boolean(err.fix));
    assert.equal(await readJsonFile(path.join(dir, 'none.json')), undefined);
    await writeFileAtomic(file, 'ok');
    assert.equal(await readFile(file, 'utf8'), 'ok');
  } finally {
    await removeDir(dir);
  }
});

test('the workspace lock excludes a live holder and takes over a dead one', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'lock');
  try {
    // A live holder: another process.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 60000)'], { stdio: 'ignore' });
    await writeFile(file, JSON.stringify({ pid: holder.pid, startedAt: 'then', purpose: 'templates build' }));
    await assert.rejects(acquireLock(file, 'convert'), (err: unknown) => err instanceof ConsoleError && err.what.includes(`pid ${holder.pid}`) && err.exitCode === 3);
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    // Now dead: taken over.
    const result = await withLock(file, 'convert', async () => JSON.parse(await readFile(file, 'utf8')).pid);
    assert.equal(result, process.pid);
    await assert.rejects(readFile(file), { code: 'ENOENT' });
  } finally {
    await removeDir(dir);
  }
});

test('createFileExclusive: of many concurrent creators exactly one wins, and the file is never seen incomplete', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'x.lock');
    const content = (i: number) => JSON.stringify({ pid: 1000 + i, pad: 'p'.repeat(64 * 1024) });
    const seen: string[] = [];
    let reading = true;
    // A reader polling the whole time: any content it sees must be one creator's full text.
    const reader = (async () => {
      while (reading) {
        try {
          seen.push(await readFile(file, 'utf8'));
        } catch {}
        await new Promise((r) => setImmediate(r));
      }
    })();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => createFileExclusive(file, content(i))));
    reading = false;
    await reader;
    assert.equal(results.filter(Boolean).length, 1);
    const winner = results.indexOf(true);
    assert.equal(await readFile(file, 'utf8'), content(winner));
    for (const text of seen) assert.equal(text, content(winner), 'a reader saw an incomplete lock file');
    assert.deepEqual(await readdir(dir), ['x.lock'], 'no temp files left');
    assert.equal(await createFileExclusive(file, 'again'), false);
  } finally {
    await removeDir(dir);
  }
});

