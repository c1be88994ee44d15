// One writer per workspace: a lock file holding the owner's pid, that process's start time, its host and boot. A
// lock whose owner is gone is taken over, so a crashed console never blocks the next one; so is a lock whose pid now
// belongs to another process (pids are reused: after a reboot or a long uptime the number alone says nothing). On a
// checkout shared across a cluster's nodes the owner may run elsewhere: it touches the lock while it holds it (a
// heartbeat), and a lock from another host is live until that heartbeat is stale (owner.ts).
import { readFileSync, rmSync } from 'node:fs';
import { readFile, rm, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { ConsoleError, ExitCode } from '../errors.js';
import { createFileExclusive, notWritableError } from './atomic.js';
import { processStartTime } from '../util/proc.js';
import { currentOwner, heartbeatOf, heartbeatTimingFromEnv, isProcessAlive, judgeOwner, startHeartbeat, type HeartbeatTiming, type OwnerStamp, type OwnerVerdict } from './owner.js';

/** Where a lock's owner is told apart from a reused pid (tests import it from here). */
export { processStartTime, isProcessAlive };

export interface LockInfo extends OwnerStamp {
  startedAt: string;
  purpose: string;
}


export interface WorkspaceLock {
  release(): Promise<void>;
}

/** Lock files this process holds (with their heartbeat's stop): removed synchronously when the process ends early. */
const held = new Map<string, () => void>();

function isOurs(info: LockInfo | undefined): boolean {
  return info?.pid === process.pid && (info.host === undefined || info.host === hostname());
}

/** Removes every lock this process holds, at once (for exit paths that cannot await). */
export function releaseHeldLocksSync(): void {
  for (const [file, stopHeartbeat] of held) {
    stopHeartbeat();
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
      if (isOurs(current)) rmSync(file, { force: true });
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

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

function busyError(holder: LockInfo, self: boolean, verdict: OwnerVerdict, timing: HeartbeatTiming): ConsoleError {
  const where = verdict.remoteHost ? ` on host ${verdict.remoteHost}` : '';
  const beat = verdict.heartbeatAgeMs !== undefined ? `; last heartbeat ${Math.round(verdict.heartbeatAgeMs / 1000)} s ago` : '';
  const stop = verdict.remoteHost ? `stop it on ${verdict.remoteHost} (ssh ${verdict.remoteHost} kill ${holder.pid})` : `stop it (kill ${holder.pid})`;
  return new ConsoleError({
    what: `the workspace is busy: ${self ? 'this console' : `another swegym-console (pid ${holder.pid}${where})`} is running "${holder.purpose}" since ${holder.startedAt}${self ? '' : beat}`,
    cause: verdict.remoteHost
      ? 'the checkout is shared with another host, and two consoles writing the same journals and template map would corrupt each other'
      : 'two consoles writing the same journals and template map would corrupt each other',
    fix: self
      ? 'wait for it to finish'
      : `wait for it to finish, or ${stop}; a lock left by a dead process, or whose heartbeat stops for ${minutes(timing.staleMs)}, is taken over automatically`,
    exitCode: ExitCode.precondition,
  });
}

/** Takes the lock or throws a ConsoleError naming the process (and host) that holds it. */
export async function acquireLock(file: string, purpose: string, opts: { timing?: HeartbeatTiming } = {}): Promise<WorkspaceLock> {
  const timing = opts.timing ?? heartbeatTimingFromEnv();
  await mkdir(path.dirname(file), { recursive: true }).catch((err: unknown) => {
    throw notWritableError(file, err);
  });
  const info: LockInfo = { ...currentOwner(), startedAt: new Date().toISOString(), purpose };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createFileExclusive(file, JSON.stringify(info))) {
      held.set(file, startHeartbeat(file, timing.everyMs));
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          held.get(file)?.();
          held.delete(file);
          const current = await readLock(file);
          if (isOurs(current)) await rm(file, { force: true });
        },
      };
    }
    const holder = await readLock(file);
    if (holder) {
      const self = isOurs(holder);
      const verdict: OwnerVerdict = self
        ? { alive: held.has(file), why: 'this process' }
        : judgeOwner(holder, { heartbeatAt: await heartbeatOf(file), staleMs: timing.staleMs });
      if (verdict.alive) throw busyError(holder, self, verdict, timing);
    }
    // Stale (owner gone, pid reused, or unreadable: lock files are written whole, so that is a damaged one).
    await rm(file, { force: true });
  }
  throw new ConsoleError({ what: `could not take the workspace lock ${file}`, fix: 'remove the file by hand if no console is running' });
}

/** Whether some console (here, or on another host by its heartbeat) holds the lock now. */
export async function isLockHeld(file: string, timing: HeartbeatTiming = heartbeatTimingFromEnv()): Promise<boolean> {
  const holder = await readLock(file);
  if (!holder) return false;
  if (isOurs(holder)) return held.has(file);
  return judgeOwner(holder, { heartbeatAt: await heartbeatOf(file), staleMs: timing.staleMs }).alive;
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
