// One writer per workspace: a lock file holding the owner's pid (and that process's start time). A lock whose owner
// is gone is taken over, so a crashed console never blocks the next one; so is a lock whose pid now belongs to
// another process (pids are reused: after a reboot or a long uptime the number alone says nothing).
import { readFileSync, rmSync } from 'node:fs';
import { readFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConsoleError, ExitCode } from '../errors.js';
import { createFileExclusive, notWritableError } from './atomic.js';
import { processStartTime } from '../util/proc.js';

/** Where a lock's owner is told apart from a reused pid (tests import it from here). */
export { processStartTime };

export interface LockInfo {
  pid: number;
  startedAt: string;
  purpose: string;
  /** The owner's start time in clock ticks since boot (/proc/<pid>/stat field 22), where the system has /proc. */
  pidStart?: string;
}

export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the lock's owner is this same process instance still running. */
export function isLockOwnerAlive(info: LockInfo, procRoot = '/proc'): boolean {
  if (!isProcessAlive(info.pid)) return false;
  if (info.pidStart === undefined) return true;
  const now = processStartTime(info.pid, procRoot);
  return now === undefined || now === info.pidStart;
}

export interface WorkspaceLock {
  release(): Promise<void>;
}

/** Lock files this process holds: removed synchronously when the process ends early (a second Ctrl-C). */
const held = new Set<string>();

/** Removes every lock this process holds, at once (for exit paths that cannot await). */
export function releaseHeldLocksSync(): void {
  for (const file of held) {
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
      if (current.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // gone or unreadable: nothing of ours to remove
    }
  }
  held.clear();
}

async function readLock(file: string): Promise<LockInfo | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

/** Takes the lock or throws a ConsoleError naming the process that holds it. */
export async function acquireLock(file: string, purpose: string): Promise<WorkspaceLock> {
  await mkdir(path.dirname(file), { recursive: true }).catch((err: unknown) => {
    throw notWritableError(file, err);
  });
  const pidStart = processStartTime(process.pid);
  const info: LockInfo = { pid: process.pid, startedAt: new Date().toISOString(), purpose, ...(pidStart ? { pidStart } : {}) };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createFileExclusive(file, JSON.stringify(info))) {
      held.add(file);
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          held.delete(file);
          const current = await readLock(file);
          if (current?.pid === process.pid) await rm(file, { force: true });
        },
      };
    }
    const holder = await readLock(file);
    if (holder && (holder.pid === process.pid ? held.has(file) : isLockOwnerAlive(holder))) {
      throw new ConsoleError({
        what: `the workspace is busy: ${holder.pid === process.pid ? 'this console' : `another swegym-console (pid ${holder.pid})`} is running "${holder.purpose}" since ${holder.startedAt}`,
        cause: 'two consoles writing the same journals and template map would corrupt each other',
        fix: holder.pid === process.pid ? 'wait for it to finish' : `wait for it to finish, or stop it (kill ${holder.pid}); a lock left by a dead process is taken over automatically`,
        exitCode: ExitCode.precondition,
      });
    }
    // Stale (owner gone, pid reused, or unreadable: lock files are written whole, so that is a damaged one).
    await rm(file, { force: true });
  }
  throw new ConsoleError({ what: `could not take the workspace lock ${file}`, fix: 'remove the file by hand if no console is running' });
}

/** Runs `fn` holding the workspace lock; always releases it. */
export async function withLock<T>(file: string, purpose: string, fn: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(file, purpose);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
