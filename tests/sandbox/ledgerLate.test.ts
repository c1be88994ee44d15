// The final sweep and creates E2B has not answered (sandbox/ledger.ts), in-process against an in-memory account: a
// lost create that lands within its settle time is found by the second listing and killed; one that never lands is
// reported (the session's record stays on disk for the next console); the wait is bounded by `lateWaitMs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { SandboxLedger, describeSweep, REQUEST_TAG_KEY, SESSION_TAG_KEY } from '../../src/services/sandbox/ledger.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

function account() {
  const boxes: { id: string; metadata: Record<string, string>; alive: boolean }[] = [];
  const provider = {
    list: async (f: { metadata?: Record<string, string> }) => boxes.filter((b) => b.alive && Object.entries(f.metadata ?? {}).every(([k, v]) => b.metadata[k] === v)),
    killById: async (id: string) => {
      const b = boxes.find((x) => x.id === id);
      if (b) b.alive = false;
      return Boolean(b);
    },
  };
  return { boxes, provider, alive: () => boxes.filter((b) => b.alive).map((b) => b.id) };
}

test('a lost create that lands during the wait is killed; the clean end removes the record', async () => {
  const dir = await tempDir('swegym-ledger-');
  try {
    const ledger = new SandboxLedger();
    ledger.attach(dir);
    const a = account();
    await ledger.willCreate(a.provider, 'req-1', 300);
    assert.deepEqual(await readdir(dir), [`${ledger.session}.json`], 'the record is on disk before the create is sent');
    ledger.unanswered('req-1');
    let waited = 0;
    // The lost create lands once the wait has begun (after the first listing found nothing).
    const r = await ledger.sweep({
      final: true,
      lateWaitMs: 5_000,
      onWait: (n) => {
        waited = n;
        setImmediate(() => a.boxes.push({ id: 'late', metadata: { ...ledger.tag(), [REQUEST_TAG_KEY]: 'req-1' }, alive: true }));
      },
    });
    assert.equal(waited, 1);
    assert.deepEqual(r.killed, ['late']);
    assert.equal(r.unanswered, undefined);
    assert.deepEqual(a.alive(), []);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await removeDir(dir);
  }
});

test('a lost create that never lands: bounded wait, reported with the kill command, record kept with its request', { timeout: 10_000 }, async () => {
  const dir = await tempDir('swegym-ledger-');
  try {
    const ledger = new SandboxLedger();
    ledger.attach(dir);
    ledger.purpose = 'templates smoke';
    const a = account();
    await ledger.willCreate(a.provider, 'req-9', 60_000);
    ledger.unanswered('req-9');
    // lateWaitMs bounds the wait, not the 60 s settle time (the test's timeout would end an unbounded one).
    const r = await ledger.sweep({ final: true, lateWaitMs: 200 });
    assert.equal(r.unanswered, 1);
    const lines = describeSweep(r).join('\n');
    assert.match(lines, new RegExp(`a sandbox may still appear .*${SESSION_TAG_KEY}=${ledger.session}`));
    assert.match(lines, new RegExp(`swegym-console sandboxes kill --session ${ledger.session} --yes`));
    const rec = JSON.parse(await readFile(path.join(dir, `${ledger.session}.json`), 'utf8')) as { pid: number; unanswered: number; pendingRequests: string[]; purpose: string };
    assert.equal(rec.pid, process.pid);
    assert.deepEqual(rec.pendingRequests, ['req-9']);
    assert.equal(rec.purpose, 'templates smoke');
  } finally {
    await removeDir(dir);
  }
});

test('a create still in flight when the sweep starts: its answer ends the wait early and its sandbox is killed on arrival', { timeout: 10_000 }, async () => {
  const ledger = new SandboxLedger();
  const a = account();
  await ledger.willCreate(a.provider, 'req-2', 60_000);
  // The answer arrives while the sweep waits, and ends the wait: the test's timeout is below the 60 s settle time.
  const r = await ledger.sweep({
    final: true,
    lateWaitMs: 60_000,
    onWait: () =>
      setImmediate(() => {
        a.boxes.push({ id: 'arrived', metadata: ledger.tag(), alive: true });
        ledger.register('arrived', a.provider);
        ledger.answered('req-2');
      }),
  });
  assert.deepEqual(r.killed, ['arrived']);
  assert.equal(r.unanswered, undefined);
});
