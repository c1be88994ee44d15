// The incremental trajectory listing: a refresh stats only what it has not listed yet, and sees what is new.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile, utimes } from 'node:fs/promises';
import path from 'node:path';
import { TrajectoryIndex } from '../../src/services/monitor/trajIndex.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

async function session(root: string, instance: string, id: string, file = 'session.json', ageSec = 60): Promise<void> {
  const dir = path.join(root, instance, id);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, file), '{}');
  const t = new Date(Date.now() - ageSec * 1000);
  await utimes(path.join(dir, file), t, t);
  // Instance directories last changed a while ago (as in a run between two refreshes).
  await utimes(path.join(root, instance), t, t);
}

test('refreshes list new sessions and stat only those (plus one stat per instance directory)', async () => {
  const dir = await tempDir();
  try {
    const payload = path.join(dir, 'traj_payload', 'my-run');
    const errors = path.join(dir, 'traj_err', 'my-run');
    for (let i = 0; i < 20; i++) for (let s = 0; s < 10; s++) await session(payload, `repo__p-${i}`, `bbs-${i}-${s}`, 'session.json', 600 - i * 10 - s);
    await session(errors, 'repo__p-3', 'bbs-err-1', 'error.json', 30);
    const index = new TrajectoryIndex(dir, 'my-run');
    const first = await index.refresh();
    assert.equal(first.length, 201);
    assert.equal(first[0]?.session, 'bbs-err-1', 'newest first');
    assert.equal(first[0]?.kind, 'error');
    assert.ok(index.lastWork.stats >= 201);

    // Nothing changed: no session is stat'ed again.
    const same = await index.refresh();
    assert.equal(same.length, 201);
    assert.ok(index.lastWork.stats <= 21 + 2, `stats ${index.lastWork.stats}`);

    // Two new sessions (one being written: its directory without the file yet) and one removed.
    await session(payload, 'repo__p-5', 'bbs-new-1', 'session.json', 1);
    await mkdir(path.join(payload, 'repo__p-6', 'bbs-half'), { recursive: true });
    await rm(path.join(payload, 'repo__p-7', 'bbs-7-0'), { recursive: true });
    const t = new Date(Date.now() - 30_000);
    for (const i of [6, 7]) await utimes(path.join(payload, `repo__p-${i}`), t, t);
    const next = await index.refresh();
    assert.equal(next.length, 201);
    assert.equal(next[0]?.session, 'bbs-new-1');
    assert.ok(!next.some((e) => e.session === 'bbs-7-0' || e.session === 'bbs-half'));
    assert.ok(index.lastWork.stats <= 21 + 2 + 2, `only new sessions are stat'ed (${index.lastWork.stats})`);
    // The half-written one appears once its file is there.
    await writeFile(path.join(payload, 'repo__p-6', 'bbs-half', 'session.json'), '{}');
    const later = await index.refresh();
    assert.equal(later.length, 202);
    assert.ok(later.some((e) => e.session === 'bbs-half'));
    assert.equal((await index.refresh(5)).length, 5, 'limit');
  } finally {
    await removeDir(dir);
  }
});
