// Who owns a file that marks a running console (the workspace lock, a sandbox session): its pid, the pid's start
// time, the host and the boot. A checkout is often shared over NFS by every node of a cluster, so a pid alone says
// nothing on another node: there the owner proves it lives by a heartbeat (the file's mtime, touched while it runs).
// A record we cannot check on this host (another host, or no start time to tell a reused pid) is live while its
// heartbeat is fresh, and taken over once it is stale: never blocked forever, never taken from a live owner.
import { readFileSync } from 'node:fs';
import { stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { processStartTime } from '../util/proc.js';
import { setting } from '../config/envSettings.js';
import { formatAgeWords } from '../util/format.js';

export interface OwnerStamp {
  pid: number;
  /** The owner's start time in clock ticks since boot (/proc/<pid>/stat field 22), where the system has /proc. */
  pidStart?: string;
  host?: string;
  /** /proc/sys/kernel/random/boot_id: a pid and its start time mean nothing across a reboot. */
  bootId?: string;
}

/** How often an owner touches its file, and after how long without a touch it counts as gone. */
export interface HeartbeatTiming {
  everyMs: number;
  staleMs: number;
}

// NFS caches attributes for up to a minute (acregmax), so the stale bound stays well above that.
export const DEFAULT_HEARTBEAT: HeartbeatTiming = { everyMs: 30_000, staleMs: 180_000 };

/** SWEGYM_HEARTBEAT_MS and SWEGYM_HEARTBEAT_STALE_MS (tests and slow file systems); the stale bound is at least 3 beats. */
export function heartbeatTimingFromEnv(env: NodeJS.ProcessEnv = process.env): HeartbeatTiming {
  const everyMs = setting(env, 'SWEGYM_HEARTBEAT_MS') ?? DEFAULT_HEARTBEAT.everyMs;
  const staleMs = setting(env, 'SWEGYM_HEARTBEAT_STALE_MS') ?? Math.max(DEFAULT_HEARTBEAT.staleMs, everyMs * 3);
  return { everyMs, staleMs: Math.max(staleMs, everyMs * 3) };
}

let cachedBootId: string | null | undefined;
export function currentBootId(file = '/proc/sys/kernel/random/boot_id'): string | undefined {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync(file, 'utf8').trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId ?? undefined;
}

/** This process, as a file it owns records it. */
export function currentOwner(): OwnerStamp {
  const pidStart = processStartTime(process.pid);
  const bootId = currentBootId();
  return { pid: process.pid, ...(pidStart ? { pidStart } : {}), host: hostname(), ...(bootId ? { bootId } : {}) };
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

export interface OwnerVerdict {
  alive: boolean;
  /** Why, in words for a message ("pid 42 has exited", "its heartbeat stopped 4 min ago"). */
  why: string;
  /** Set when the owner runs on another host. */
  remoteHost?: string;
  /** How old the last heartbeat is, when it decided. */
  heartbeatAgeMs?: number;
}

export interface JudgeOptions {
  /** The file's last heartbeat (mtime) in ms since the epoch; undefined when unknown. */
  heartbeatAt?: number;
  now?: number;
  staleMs?: number;
  /** This process (default: currentOwner()). */
  self?: OwnerStamp;
  procRoot?: string;
}

/**
 * Whether the owner recorded in `stamp` still runs. On this host and boot the pid and its start time decide; what
 * cannot be told that way (another host, no start time) is decided by the heartbeat's age.
 */
export function judgeOwner(stamp: OwnerStamp, opts: JudgeOptions = {}): OwnerVerdict {
  const self = opts.self ?? currentOwner();
  const now = opts.now ?? Date.now();
  const staleMs = opts.staleMs ?? DEFAULT_HEARTBEAT.staleMs;
  const heartbeatAgeMs = opts.heartbeatAt === undefined ? undefined : Math.max(0, now - opts.heartbeatAt);
  const byHeartbeat = (what: string, extra: Partial<OwnerVerdict> = {}): OwnerVerdict => {
    if (heartbeatAgeMs === undefined) return { alive: false, why: `${what}, and it has no heartbeat`, ...extra };
    return heartbeatAgeMs < staleMs
      ? { alive: true, why: `${what}; its last heartbeat was ${formatAgeWords(heartbeatAgeMs)} ago`, heartbeatAgeMs, ...extra }
      : { alive: false, why: `${what}, and its heartbeat stopped ${formatAgeWords(heartbeatAgeMs)} ago (stale after ${formatAgeWords(staleMs)})`, heartbeatAgeMs, ...extra };
  };
  if (stamp.host && self.host && stamp.host !== self.host) return byHeartbeat(`it runs on host ${stamp.host}`, { remoteHost: stamp.host });
  if (stamp.bootId && self.bootId && stamp.bootId !== self.bootId) return { alive: false, why: 'this host has rebooted since it started' };
  if (!isProcessAlive(stamp.pid)) return { alive: false, why: `pid ${stamp.pid} has exited` };
  if (stamp.pidStart === undefined) return byHeartbeat(`pid ${stamp.pid} is alive but the record has no start time to tell it is the same process`);
  const startNow = processStartTime(stamp.pid, opts.procRoot);
  if (startNow === undefined || startNow === stamp.pidStart) return { alive: true, why: `pid ${stamp.pid} is running` };
  return { alive: false, why: `pid ${stamp.pid} now belongs to another process` };
}

/** The file's mtime in ms, or undefined when it is gone. */
export async function heartbeatOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Touches `file` every `everyMs` until stopped: its mtime is the owner's heartbeat. Touching (not rewriting) never
 * replaces a file someone else wrote meanwhile. The timer never keeps the process alive.
 */
export function startHeartbeat(file: string, everyMs: number): () => void {
  const timer = setInterval(() => {
    const t = new Date();
    utimes(file, t, t).catch(() => {});
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
