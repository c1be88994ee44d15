// The run registry: .swegym-console/runs/<run>/run.json (written atomically) per launched run, with its config
// (secrets redacted), launcher pid/pgid, start time, log path, Dressage's output and checkpoint paths and status.
// Status is derived from what outlives the console: process-group liveness and the exit file the launch wrapper
// writes when the launcher ends (recipe reference §6.3, §7). Each file has one writer, so concurrent consoles (a
// TUI polling, a CLI stopping) never lose each other's updates: run.json (the launch), exit.json (the wrapper),
// stop.json (stop), status.json (derived status cache, idempotent).
import { open, readFile, readdir } from 'node:fs/promises';
import { exists } from '../util/fs.js';
import { processStartTime } from '../util/proc.js';
import { hostname } from 'node:os';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { readJsonFile, writeJsonAtomic } from '../workspace/atomic.js';
import { isProcessAlive } from '../workspace/lock.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { redact } from '../secrets.js';
import type { RunView, CheckpointInfo, RunRecord, RunStatus } from '../../state/types/train.js';
import { listDir } from '../util/fs.js';
export type { RunView, CheckpointInfo, RunRecord, RunStatus } from '../../state/types/train.js';

/** stop.json: written only by stopRun. */
export interface StopMarker {
  requestedAt: string;
  stoppedAt?: string;
  signal?: 'TERM' | 'KILL' | 'none';
}

/** status.json: derived state worth keeping (terminal status, progress scan position). */
interface StatusCache {
  status?: RunStatus;
  exitCode?: number;
  endedAt?: string;
  progressAt?: string;
  progressScanOffset?: number;
}

export const RUN_FILE = 'run.json';

export function runDir(paths: RecipePaths, name: string): string {
  return path.join(paths.runsDir, name);
}

export function runFile(paths: RecipePaths, name: string): string {
  return path.join(runDir(paths, name), RUN_FILE);
}

/** `<RUN_NAME>-YYYYMMDD-HHMMSS` (UTC), unique among existing entries. */
export async function newRunName(paths: RecipePaths, runName: string, now = new Date()): Promise<string> {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const safe = runName.replace(/[^A-Za-z0-9._-]/g, '_');
  const base = `${safe}-${stamp}`;
  let name = base;
  for (let i = 2; await exists(runDir(paths, name)); i++) name = `${base}-${i}`;
  return name;
}


export async function writeRun(paths: RecipePaths, record: RunRecord): Promise<void> {
  await writeJsonAtomic(runFile(paths, record.name), record, { mode: 0o600 });
}

export async function readRun(paths: RecipePaths, name: string): Promise<RunRecord | undefined> {
  return readJsonFile<RunRecord>(runFile(paths, name));
}

export async function readStopMarker(paths: RecipePaths, name: string): Promise<StopMarker | undefined> {
  try {
    return await readJsonFile<StopMarker>(path.join(runDir(paths, name), 'stop.json'));
  } catch {
    return undefined;
  }
}

export async function writeStopMarker(paths: RecipePaths, name: string, marker: StopMarker): Promise<void> {
  await writeJsonAtomic(path.join(runDir(paths, name), 'stop.json'), marker);
}

async function readStatusCache(paths: RecipePaths, name: string): Promise<StatusCache> {
  try {
    return (await readJsonFile<StatusCache>(path.join(runDir(paths, name), 'status.json'))) ?? {};
  } catch {
    return {};
  }
}

/** Start time of a process from /proc (Linux); undefined elsewhere or when gone. */
/** The process's start time (/proc/<pid>/stat field 22): with the pid, it names the process (util/proc.ts). */
export async function procStartTime(pid: number): Promise<string | undefined> {
  return processStartTime(pid);
}

export function isGroupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the launcher (or anything left in its process group) still runs, guarding against pid reuse. */
export async function isRunAlive(record: RunRecord): Promise<boolean> {
  if (!record.pid) return false;
  const pidAlive = isProcessAlive(record.pid);
  const now = pidAlive && record.procStart !== undefined ? await procStartTime(record.pid) : undefined;
  const reused = now !== undefined && now !== record.procStart;
  if (pidAlive && !reused) return true;
  if (reused) return false;
  return record.pgid !== undefined && isGroupAlive(record.pgid);
}

export async function readExitFile(file: string): Promise<{ exitCode: number; endedAt?: string } | undefined> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as { exitCode?: unknown; endedAt?: unknown };
    if (typeof data.exitCode !== 'number') return undefined;
    return { exitCode: data.exitCode, endedAt: typeof data.endedAt === 'string' ? data.endedAt : undefined };
  } catch {
    return undefined;
  }
}

const PROGRESS = /(?:^|\s|\))(?:step|rollout|perf) \d+: \{|SWE-Gym reward=/;
const SCAN_CHUNK = 4 * 1024 * 1024;

/** Scans the run log from the last offset for the first training/rollout progress line. */
async function scanProgress(record: RunRecord): Promise<{ found: boolean; offset: number }> {
  const from = record.progressScanOffset ?? 0;
  let handle;
  try {
    handle = await open(record.logFile, 'r');
  } catch {
    return { found: false, offset: from };
  }
  try {
    const size = (await handle.stat()).size;
    if (size <= from) return { found: false, offset: from };
    // Start a little earlier so that a line split across scans is still seen whole.
    const start = Math.max(0, from - 512);
    const len = Math.min(SCAN_CHUNK, size - start);
    const buf = Buffer.alloc(len);
    await handle.read(buf, 0, len, start);
    const text = buf.toString('utf8');
    const found = text.split('\n').some((l) => PROGRESS.test(l));
    return { found, offset: start + len };
  } finally {
    await handle.close();
  }
}

/** A registered run without a pid yet is being spawned; after this long it is taken as lost. */
export const SPAWN_GRACE_MS = 60_000;

/**
 * The live status of a run: exit file → exited (or stopped, when a stop was asked); a recorded stop → stopped;
 * alive → starting until the log shows progress, then running; otherwise lost (it vanished without an exit file:
 * killed with SIGKILL, the machine rebooted…). Terminal statuses and progress are cached in status.json.
 */
export async function runStatus(paths: RecipePaths, record: RunRecord): Promise<RunView> {
  const [exit, stop, cache] = await Promise.all([readExitFile(record.exitFile), readStopMarker(paths, record.name), readStatusCache(paths, record.name)]);
  const base: RunRecord = {
    ...record,
    ...(cache.progressAt ? { progressAt: cache.progressAt } : {}),
    ...(cache.progressScanOffset !== undefined ? { progressScanOffset: cache.progressScanOffset } : {}),
    ...(stop ? { stopRequestedAt: stop.requestedAt, ...(stop.stoppedAt ? { stoppedAt: stop.stoppedAt } : {}) } : {}),
  };
  let next: StatusCache;
  let alive = false;
  let remote = false;
  if (exit && stop && !stop.stoppedAt && (await isRunAlive(record))) {
    // The launcher has ended but the stop is still under way (the rest of its process group is dying): it is not
    // "stopped" until stopRun has seen the whole group gone and written stoppedAt.
    next = { status: cache.status === 'starting' ? 'starting' : 'running' };
    alive = true;
  } else if (exit) {
    next = { status: stop ? 'stopped' : 'exited', exitCode: exit.exitCode, endedAt: exit.endedAt ?? cache.endedAt };
    alive = await isRunAlive(record);
  } else if (stop?.stoppedAt) {
    next = { status: 'stopped', endedAt: stop.stoppedAt };
    alive = await isRunAlive(record);
  } else if (record.launchError) {
    next = { status: 'exited' };
  } else if (record.host !== hostname()) {
    remote = true;
    next = { status: cache.status ?? record.status };
  } else if (!record.pid) {
    next = Date.now() - Date.parse(record.createdAt) < SPAWN_GRACE_MS ? { status: 'starting' } : { status: 'lost', endedAt: cache.endedAt ?? new Date().toISOString() };
  } else if (await isRunAlive(record)) {
    alive = true;
    if (!base.progressAt) {
      const scan = await scanProgress(base);
      next = scan.found ? { status: 'running', progressAt: new Date().toISOString(), progressScanOffset: scan.offset } : { status: 'starting', progressScanOffset: scan.offset };
    } else next = { status: 'running' };
  } else {
    // The wrapper writes the exit file as the launcher ends, which may be after the read above: look again before
    // calling the run lost (a poller must not see a stopped run pass through "lost").
    const lateExit = await readExitFile(record.exitFile);
    const lateStop = lateExit && !stop ? await readStopMarker(paths, record.name) : stop;
    next = lateExit
      ? { status: lateStop ? 'stopped' : 'exited', exitCode: lateExit.exitCode, endedAt: lateExit.endedAt ?? cache.endedAt }
      : { status: 'lost', endedAt: cache.endedAt ?? new Date().toISOString() };
  }
  const merged: StatusCache = { ...cache, ...next };
  const changed =
    merged.status !== cache.status ||
    merged.exitCode !== cache.exitCode ||
    merged.progressAt !== cache.progressAt ||
    (merged.progressScanOffset ?? 0) - (cache.progressScanOffset ?? 0) > 1024 * 1024;
  if (changed && !remote && record.pid) {
    try {
      await writeJsonAtomic(path.join(runDir(paths, record.name), 'status.json'), merged);
    } catch {}
  }
  return {
    ...base,
    status: merged.status ?? record.status,
    ...(merged.exitCode !== undefined ? { exitCode: merged.exitCode } : {}),
    ...(merged.endedAt ? { endedAt: merged.endedAt } : {}),
    ...(merged.progressAt ? { progressAt: merged.progressAt } : {}),
    alive,
    ...(remote ? { remote } : {}),
  };
}

/** Every run in the registry with its live status, newest first. Unreadable entries are skipped. */
export async function listRuns(paths: RecipePaths): Promise<RunView[]> {
  const names = await listDir(paths.runsDir);
  const out: RunView[] = [];
  for (const name of names) {
    let record: RunRecord | undefined;
    try {
      record = await readRun(paths, name);
    } catch {
      continue;
    }
    if (record) out.push(await runStatus(paths, record));
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Runs still starting or running — for the app start-up and the dashboard to reattach to. */
export async function findActiveRuns(paths: RecipePaths): Promise<RunView[]> {
  return (await listRuns(paths)).filter((r) => r.status === 'starting' || r.status === 'running');
}

/** Finds a run by registry name, Dressage RUN_NAME (newest) or unique name prefix; the newest run when no query. */
export async function findRun(paths: RecipePaths, query?: string): Promise<RunView> {
  const runs = await listRuns(paths);
  if (runs.length === 0) {
    throw new ConsoleError({
      what: 'no runs in the registry',
      cause: `${paths.runsDir} is empty or missing`,
      fix: 'launch one with `swegym-console train launch`',
      exitCode: ExitCode.precondition,
    });
  }
  if (!query) return runs[0] as RunView;
  const exact = runs.find((r) => r.name === query) ?? runs.find((r) => r.runName === query);
  if (exact) return exact;
  const prefixed = runs.filter((r) => r.name.startsWith(query));
  if (prefixed.length === 1) return prefixed[0] as RunView;
  throw new ConsoleError({
    what: prefixed.length > 1 ? `"${query}" matches ${prefixed.length} runs` : `no run named "${query}"`,
    fix: `use one of: ${runs.slice(0, 8).map((r) => r.name).join(', ')}`,
    exitCode: ExitCode.usage,
  });
}

/** Up to `maxBytes` of a file, from its start or its end; undefined when it cannot be opened. */
async function readSlice(file: string, from: 'head' | 'tail', maxBytes: number): Promise<{ text: string; cut: boolean } | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = (await handle.stat()).size;
    const len = Math.min(size, maxBytes);
    const buf = Buffer.alloc(len);
    const { bytesRead } = await handle.read(buf, 0, len, from === 'head' ? 0 : size - len);
    return { text: buf.subarray(0, bytesRead).toString('utf8'), cut: len < size };
  } finally {
    await handle.close();
  }
}

/** Last lines of the run log, redacted. */
export async function tailLog(file: string, lines = 20, maxBytes = 64 * 1024): Promise<string[]> {
  const slice = await readSlice(file, 'tail', maxBytes);
  if (!slice) return [];
  const all = slice.text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  // The cut leaves a partial first line.
  if (slice.cut) all.shift();
  return all.slice(-lines).map((l) => redact(l));
}

/** The `effective_*` lines the launcher printed at start-up (from the head of the run log), redacted. */
export async function effectiveLinesInLog(file: string, maxBytes = 256 * 1024): Promise<string[]> {
  const slice = await readSlice(file, 'head', maxBytes);
  if (!slice) return [];
  return slice.text
    .split('\n')
    .filter((l) => /^effective_[a-z_]+: /.test(l))
    .slice(0, 5)
    .map((l) => redact(l));
}

// ---------------------------------------------------------------------------------------------------------------
// Checkpoints (Megatron layout, §6.3)

export async function findLatestCheckpoint(root: string): Promise<CheckpointInfo | undefined> {
  let entries: string[] = [];
  try {
    entries = await readdir(root);
  } catch {
    return undefined;
  }
  const iters = entries
    .map((e) => /^iter_(\d{7})$/.exec(e))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  let tracked: number | undefined;
  try {
    const t = (await readFile(path.join(root, 'latest_checkpointed_iteration.txt'), 'utf8')).trim();
    if (/^\d+$/.test(t)) tracked = Number(t);
  } catch {}
  const dirFor = (n: number) => path.join(root, `iter_${String(n).padStart(7, '0')}`);
  if (tracked !== undefined && iters.includes(tracked)) return { root, step: tracked, dir: dirFor(tracked), source: 'tracker', count: iters.length };
  const last = iters[iters.length - 1];
  if (last === undefined) return undefined;
  return { root, step: last, dir: dirFor(last), source: 'directory', count: iters.length };
}

/** The launcher settings that resume from a checkpoint (§6.1: RESUME_FROM_CKPT, RESUME_CKPT_ROOT, RESUME_CKPT_STEP). */
export function resumeSettings(ckpt: CheckpointInfo): Record<string, string> {
  return { RESUME_FROM_CKPT: '1', RESUME_CKPT_ROOT: ckpt.root, RESUME_CKPT_STEP: String(ckpt.step) };
}

export { hostname as currentHost };
