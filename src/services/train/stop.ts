// Stopping a run: TERM its process group, wait, then KILL; optionally `ray stop --force`. The launcher's own exit
// trap kills its proxy; Ray (daemonised, outside the group) keeps the job alive until Ray is stopped.
import { ConsoleError, ExitCode } from '../errors.js';
import type { RecipePaths } from '../workspace/paths.js';
import { runProcess, type RunResult } from '../process/run.js';
import type { CommandLog } from '../process/commandLog.js';
import { systemClock, type Clock } from '../util/clock.js';
import { SPAWN_GRACE_MS, isGroupAlive, isRunAlive, readRun, runStatus, writeStopMarker, type RunView } from './registry.js';

export interface StopOptions {
  /** How long to wait after TERM before KILL. */
  graceMs?: number;
  rayStop?: boolean;
  log?: CommandLog;
  onProgress?: (text: string) => void;
  /** Environment for `ray stop` (PATH). */
  env?: NodeJS.ProcessEnv;
  /** What the waits (for the pid, for the group to end) run on. */
  clock?: Clock;
}

/** How often a stop looks again at the process group and the registry. */
const STOP_POLL_MS = 100;

export interface StopResult {
  run: RunView;
  /** What it took: nothing (already ended), TERM, or KILL after the grace period. */
  signal: 'none' | 'TERM' | 'KILL';
  rayStop?: { ok: boolean; detail: string };
}

function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw new ConsoleError({
      what: `cannot signal process group ${pgid}`,
      cause: (err as Error).message,
      fix: 'stop it as the user who launched it',
      exitCode: ExitCode.failed,
    });
  }
}

async function waitGone(pgid: number, pid: number, ms: number, clock: Clock): Promise<boolean> {
  const deadline = clock.now() + ms;
  for (;;) {
    if (!isGroupAlive(pgid) && !isGroupAlive(pid)) return true;
    if (clock.now() > deadline) return false;
    await clock.sleep(STOP_POLL_MS);
  }
}

export async function stopRun(paths: RecipePaths, name: string, opts: StopOptions = {}): Promise<StopResult> {
  const clock = opts.clock ?? systemClock;
  let record = await readRun(paths, name);
  if (!record) throw new ConsoleError({ what: `run "${name}" is not in the registry`, exitCode: ExitCode.usage });
  // Registered but not spawned yet (a launch in progress, perhaps in another console): wait for its pid.
  const spawnDeadline = Date.parse(record.createdAt) + SPAWN_GRACE_MS;
  if (!record.pid && !record.launchError && clock.now() < spawnDeadline) opts.onProgress?.('the launch has not recorded its pid yet; waiting for it');
  while (record && !record.pid && !record.launchError && clock.now() < spawnDeadline) {
    await clock.sleep(STOP_POLL_MS);
    record = (await readRun(paths, name)) ?? record;
  }
  const grace = opts.graceMs ?? 30_000;
  let signal: StopResult['signal'] = 'none';
  if (record.pid && record.pgid && (await isRunAlive(record))) {
    const requestedAt = new Date(clock.now()).toISOString();
    await writeStopMarker(paths, name, { requestedAt });
    opts.onProgress?.(`sending TERM to process group ${record.pgid}`);
    signalGroup(record.pgid, 'SIGTERM');
    signal = 'TERM';
    if (!(await waitGone(record.pgid, record.pid, grace, clock))) {
      opts.onProgress?.(`still running after ${Math.round(grace / 1000)} s; sending KILL`);
      signalGroup(record.pgid, 'SIGKILL');
      signal = 'KILL';
      if (!(await waitGone(record.pgid, record.pid, 10_000, clock))) {
        throw new ConsoleError({
          what: `process group ${record.pgid} survived SIGKILL`,
          fix: `check \`ps -g ${record.pgid}\` (processes in uninterruptible sleep, e.g. a hung NFS mount)`,
        });
      }
    }
    await writeStopMarker(paths, name, { requestedAt, stoppedAt: new Date(clock.now()).toISOString(), signal });
  }
  let rayStop: StopResult['rayStop'];
  if (opts.rayStop) {
    opts.onProgress?.('running ray stop --force');
    const r: RunResult = await runProcess('ray', ['stop', '--force'], { cwd: paths.root, env: opts.env, timeoutMs: 120_000, log: opts.log, note: `stop Ray for ${name}` });
    rayStop = r.spawnError
      ? { ok: false, detail: `ray not found on PATH (${r.spawnError})` }
      : r.exitCode === 0
        ? { ok: true, detail: 'ray stop --force done' }
        : { ok: false, detail: `ray stop --force exited with ${r.exitCode ?? r.signal}: ${r.stderr.slice(-3).join(' ')}` };
  }
  const latest = await readRun(paths, name);
  return { run: await runStatus(paths, latest ?? record), signal, ...(rayStop ? { rayStop } : {}) };
}
