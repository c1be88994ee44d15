// The on-disk sandbox ledger's reaper (sandbox/sessions.ts) against an in-memory account: it kills only sandboxes
// that carry both the console's tag and a dead session's tag, never a live session's or a foreign one, removes the
// record once nothing is left, and keeps it (for the next start) while a create that session never saw answered
// may still land.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { currentOwner, DEFAULT_HEARTBEAT } from '../../src/services/workspace/owner.js';
import { reapDeadSessions, writeSessionRecord, REQUEST_TAG_KEY, SESSION_TAG_KEY, type SessionRecord } from '../../src/services/sandbox/sessions.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

interface Box {
  id: string;
  metadata: Record<string, string>;
}

function account(boxes: Box[]) {
  const killed: string[] = [];
  return {
    killed,
    boxes,
    provider: {
      list: async (f: { metadata?: Record<string, string> }) => boxes.filter((b) => !killed.includes(b.id) && Object.entries(f.metadata ?? {}).every(([k, v]) => b.metadata[k] === v)),
      killById: async (id: string) => {
        killed.push(id);
        return true;
      },
    },
  };
}

const deadPid = 2 ** 22 + 4242;
const record = (session: string, extra: Partial<SessionRecord> = {}): SessionRecord => ({ ...currentOwner(), pid: deadPid, session, startedAt: '2026-12-01T20:00:00.000Z', provider: 'e2b', purpose: 'templates smoke', sandboxes: [], unanswered: 0, ...extra });
const tagged = (id: string, session: string, extra: Record<string, string> = {}): Box => ({ id, metadata: { swegym_console: '1', [SESSION_TAG_KEY]: session, ...extra } });

test('only a dead session\'s own sandboxes are killed; its record goes once nothing is left', async () => {
  const dir = await tempDir('swegym-sessions-');
  try {
    await writeSessionRecord(dir, record('aaaaaa'));
    await writeSessionRecord(dir, { ...currentOwner(), session: 'bbbbbb', startedAt: 'x', provider: 'e2b', sandboxes: [], unanswered: 0 }); // this process: alive
    const a = account([tagged('s1', 'aaaaaa'), tagged('s2', 'aaaaaa'), tagged('s3', 'bbbbbb'), { id: 'train-1', metadata: { [SESSION_TAG_KEY]: 'aaaaaa' } }, { id: 'train-2', metadata: { owner: 'dressage' } }]);
    const r = await reapDeadSessions({ dir, provider: a.provider, ownSession: 'cccccc', timing: DEFAULT_HEARTBEAT });
    assert.deepEqual(a.killed.sort(), ['s1', 's2'], 'not the live session\'s, not one without the console tag');
    assert.deepEqual(r.killed.sort(), ['s1', 's2']);
    assert.match(r.lines.join('\n'), /killed 2 sandbox\(es\) left by a console that is gone `templates smoke` \(session aaaaaa, pid 4198546/);
    assert.deepEqual((await readdir(dir)).sort(), ['bbbbbb.json']);
  } finally {
    await removeDir(dir);
  }
});

test('a dead session with a create never answered: kept until that create landed and was killed', async () => {
  const dir = await tempDir('swegym-sessions-');
  try {
    await writeSessionRecord(dir, record('dddddd', { unanswered: 1, pendingRequests: ['req1'] }));
    const a = account([]);
    await reapDeadSessions({ dir, provider: a.provider, ownSession: 'cccccc', timing: DEFAULT_HEARTBEAT });
    assert.deepEqual(await readdir(dir), ['dddddd.json'], 'nothing landed yet: looked at again next time');
    a.boxes.push(tagged('late', 'dddddd', { [REQUEST_TAG_KEY]: 'req1' }));
    const r = await reapDeadSessions({ dir, provider: a.provider, ownSession: 'cccccc', timing: DEFAULT_HEARTBEAT });
    assert.deepEqual(r.killed, ['late']);
    assert.deepEqual(await readdir(dir), []);
    // And one whose window passed is let go even if nothing landed.
    await writeSessionRecord(dir, record('eeeeee', { unanswered: 1, pendingRequests: ['req2'] }));
    await reapDeadSessions({ dir, provider: a.provider, ownSession: 'cccccc', timing: DEFAULT_HEARTBEAT, now: Date.now() + 11 * 60_000 });
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await removeDir(dir);
  }
});

test('a session that cannot be listed keeps its record and says so', async () => {
  const dir = await tempDir('swegym-sessions-');
  try {
    await writeSessionRecord(dir, record('ffffff'));
    const r = await reapDeadSessions({ dir, provider: { list: async () => Promise.reject(new Error('connect ECONNREFUSED')), killById: async () => true }, ownSession: 'cccccc', timing: DEFAULT_HEARTBEAT });
    assert.match(r.lines.join('\n'), /could not check for sandboxes left by a console that is gone .*ECONNREFUSED/);
    assert.deepEqual(await readdir(dir), ['ffffff.json']);
  } finally {
    await removeDir(dir);
  }
});
