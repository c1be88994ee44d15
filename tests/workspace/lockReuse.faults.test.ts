// A lock whose pid was reused by another live process (issue 16, point 8): the lock records its owner's start time
// (/proc/<pid>/stat), so a live process with the same pid but another start time does not hold it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireLock, processStartTime } from '../../src/services/workspace/lock.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

test('a lock whose pid was reused by another live process is taken over; the real owner still blocks', { skip: !processStartTime(process.pid) ? 'no /proc' : false }, async () => {
  const ws = await tempDir('swegym-faults-lock-');
  const other = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const file = path.join(ws, '.swegym-console', 'lock');
    await mkdir(path.dirname(file), { recursive: true });
    const realStart = processStartTime(other.pid!);
    assert.ok(realStart);
    // The owner that wrote the lock started at another time: the live `sleep` only carries its old pid.
    await writeFile(file, JSON.stringify({ pid: other.pid, startedAt: '2026-01-01T00:00:00Z', purpose: 'templates build', pidStart: String(Number(realStart) - 1000) }));
    const lock = await acquireLock(file, 'test');
    await lock.release();
    // Same pid and start time: that process really holds it.
    await writeFile(file, JSON.stringify({ pid: other.pid, startedAt: '2026-01-01T00:00:00Z', purpose: 'templates build', pidStart: realStart }));
    await assert.rejects(acquireLock(file, 'test'), /workspace is busy/);
  } finally {
    other.kill('SIGKILL');
    await removeDir(ws);
  }
});

