// The append-only journal: a change costs one appended line, compaction keeps the total linear, and every reader
// sees snapshot + log (also after a crash between compaction's two steps, and with a torn last line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { Journal, journalLogFile, readJournalItems } from '../../src/services/workspace/journal.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

interface Rec {
  state: string;
  template: string;
  logTail?: string[];
}

test('2,344 records through three states each: writes grow with the changes, not with changes × journal size', async () => {
  const dir = await tempDir();
  try {
    const j = await new Journal<Rec>(dir, 'templates').load();
    const images = Array.from({ length: 2344 }, (_, i) => `docker.io/xingyaoww/sweb.eval.x86_64.repo_s_${i}:latest`);
    for (const state of ['queued', 'building', 'built']) {
      for (const image of images) await j.set(image, { state, template: `swegym-${image.length}-${state}`, logTail: ['step 1/9', 'step 9/9'] });
    }
    await j.delete(images[0] as string);
    const snapshotBytes = Buffer.byteLength(JSON.stringify({ items: Object.fromEntries(j.entries()) }, null, 2));
    // Rewriting the journal on every change would write ≈ 7,000 × half a snapshot; appends and compaction write a
    // few snapshots' worth.
    assert.ok(j.bytesWritten < 6 * snapshotBytes, `wrote ${j.bytesWritten} bytes for a ${snapshotBytes}-byte journal`);
    const again = await new Journal<Rec>(dir, 'templates').load();
    assert.equal(again.entries().length, 2343);
    assert.equal(again.get(images[1] as string)?.state, 'built');
    assert.equal(again.get(images[0] as string), undefined);
    assert.deepEqual(await readJournalItems(j.file), Object.fromEntries(again.entries()));
    // flush compacts: one snapshot, no log.
    await again.flush();
    assert.equal(existsSync(journalLogFile(j.file)), false);
    assert.equal(Object.keys(JSON.parse(await readFile(j.file, 'utf8')).items).length, 2343);
  } finally {
    await removeDir(dir);
  }
});

test('a torn last line is skipped; a crash between snapshot and log removal loses and repeats nothing', async () => {
  const dir = await tempDir();
  try {
    const j = await new Journal<Rec>(dir, 'jobs').load();
    await j.set('a', { state: 'built', template: 't-a' });
    await j.set('b', { state: 'queued', template: 't-b' });
    await j.update('b', { state: 'built' });
    await appendFile(j.logFile, '{"k":"c","v":{"sta'); // killed mid-append
    assert.deepEqual(Object.keys((await readJournalItems<Rec>(j.file)) ?? {}), ['a', 'b']);
    const log = await readFile(j.logFile, 'utf8');
    // Compaction wrote the snapshot, then the process died before removing the log.
    const k = await new Journal<Rec>(dir, 'jobs').load();
    await k.flush();
    await writeFile(k.logFile, log);
    const after = await new Journal<Rec>(dir, 'jobs').load();
    assert.deepEqual(after.entries(), [
      ['a', { state: 'built', template: 't-a' }],
      ['b', { state: 'built', template: 't-b' }],
    ]);
    assert.equal(await readJournalItems(`${dir}/none.json`), undefined);
  } finally {
    await removeDir(dir);
  }
});
