// One writer per workspace: a lock file holding the owner's pid. A lock whose owner is gone is taken over,
// so a crashed console never blocks the next one.
import { readFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConsoleError, ExitCode } from '../errors.js';
import { createFileExclusive } from './atomic.js';

export interface LockInfo {
  pid: number;
  startedAt: string;
  purpose: string;
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

export interface WorkspaceLock {
  release(): Promise<void>;
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
  await mkdir(path.dirname(file), { recursive: true });
  const info: LockInfo = { pid: process.pid, startedAt: new Date().toISOString(), purpose };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createFileExclusive(file, JSON.stringify(info))) {
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          const current = await readLock(file);
          if (current?.pid === process.pid) await rm(file, { force: true });
        },
      };
    }
    const holder = await readLock(file);
    if (holder && holder.pid !== process.pid && isProcessAlive(holder.pid)) {
      throw new ConsoleError({
        what: `the workspace is busy: another swegym-console (pid ${holder.pid}) is running "${holder.purpose}" since ${holder.startedAt}`,
        cause: 'two consoles writing the same journals and template map would corrupt each other',
        fix: `wait for it to finish, or stop it (kill ${holder.pid}); a lock left by a dead process is taken over automatically`,
        exitCode: ExitCode.precondition,
      });
    }
    // Stale (owner gone, or unreadable: lock files are written whole, so that is a damaged one): remove and retry.
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
