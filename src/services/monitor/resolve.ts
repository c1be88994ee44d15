// What `monitor [RUN|RUN_DIR|LOG_FILE]` points at: a registry run (.swegym-console/runs/<run>/run.json), a Dressage
// run directory (outputs/logs/<RUN_NAME>), or any log file (launcher output, `ray job logs` capture, job-driver log).
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { DEFAULT_RUN_NAME } from '../workspace/paths.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { hasSimulationManifest } from './simulatedRun.js';
import { listDir } from '../util/fs.js';
import { hasTrajectoryFolders, resolveRunName, type RunNameSource } from './runName.js';

export interface MonitorTarget {
  /** Display name (registry name, RUN_NAME or file name). */
  name: string;
  source: 'registry' | 'run-dir' | 'log-file' | 'ray-job';
  /** Ray job submission id (`raysubmit_…`) when the source is `ray job logs`. */
  rayJob?: string;
  /** The log to parse; undefined when a run directory holds no log (trajectory files only). */
  logFile: string | undefined;
  /** Dressage's LOG_DIR for this run (traj_payload/, traj_err/, proxy/), when known. */
  runDir: string | undefined;
  /** Dressage's RUN_NAME, when known (trajectory dirs are nested under it). */
  runName: string | undefined;
  /** Where RUN_NAME was read (runName.ts): a renamed or copied run folder is not named after it. */
  runNameFrom?: RunNameSource;
  /** The line or file that stated it. */
  runNameEvidence?: string;
  checkpointDir: string | undefined;
  /** Proxy URL from the registry config, when known. */
  proxyUrl: string | undefined;
  /** The run registry entry (.swegym-console/runs/<name>), when opened through it. */
  registryName?: string;
}

interface RegistryLike {
  name?: unknown;
  runName?: unknown;
  logFile?: unknown;
  logPath?: unknown;
  outputsLogDir?: unknown;
  checkpointDir?: unknown;
  createdAt?: unknown;
  config?: { effective?: Record<string, unknown>; explicit?: Record<string, unknown> };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

async function statOrUndefined(p: string) {
  try {
    return await stat(p);
  } catch {
    return undefined;
  }
}

async function readRegistry(file: string): Promise<RegistryLike | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as RegistryLike) : undefined;
  } catch (err) {
    throw new ConsoleError({
      what: `The run registry entry ${file} is not valid JSON.`,
      cause: (err as Error).message,
      fix: 'Restore the file, or point monitor at the run log directly: swegym-console monitor <LOG_FILE>.',
      exitCode: ExitCode.precondition,
    });
  }
}

function fromRegistry(rec: RegistryLike, fallbackName: string, paths: RecipePaths): MonitorTarget {
  const runName = str(rec.runName);
  const cfg = { ...(rec.config?.effective ?? {}), ...(rec.config?.explicit ?? {}) };
  const logFile = str(rec.logFile) ?? str(rec.logPath);
  return {
    name: str(rec.name) ?? fallbackName,
    source: 'registry',
    logFile: logFile ? path.resolve(paths.root, logFile) : undefined,
    runDir: str(rec.outputsLogDir) ?? (runName ? paths.runLogDir(runName) : undefined),
    runName,
    ...(runName ? { runNameFrom: 'launch-record' as const } : {}),
    checkpointDir: str(rec.checkpointDir) ?? (runName ? paths.checkpointDir(runName) : undefined),
    proxyUrl: str(cfg['DRESSAGE_PROXY_URL']),
    registryName: fallbackName,
  };
}

/** Registry runs, newest first. */
export async function listRegistryRuns(paths: RecipePaths): Promise<{ name: string; createdAt: string }[]> {
  const names = await listDir(paths.runsDir);
  const out: { name: string; createdAt: string }[] = [];
  for (const n of names) {
    const file = path.join(paths.runsDir, n, 'run.json');
    const st = await statOrUndefined(file);
    if (!st) continue;
    let created = st.mtime.toISOString();
    try {
      const rec = JSON.parse(await readFile(file, 'utf8')) as RegistryLike;
      created = str(rec.createdAt) ?? created;
    } catch {}
    out.push({ name: n, createdAt: created });
  }
  return out.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

const LOG_EXT = /\.(log|txt|out|err)$/i;

/** The most likely run log inside a Dressage run directory (or a Ray job-driver log for it). */
export async function findLogInRunDir(dir: string): Promise<string | undefined> {
  const candidates: { file: string; size: number; mtime: number }[] = [];
  const consider = async (file: string) => {
    const st = await statOrUndefined(file);
    if (st?.isFile() && st.size > 0) candidates.push({ file, size: st.size, mtime: st.mtimeMs });
  };
  let entries: string[] = [];
  try {
    entries = await readdir(dir);
  } catch {
    return undefined;
  }
  for (const e of entries) if (LOG_EXT.test(e)) await consider(path.join(dir, e));
  // Ray job driver logs (RAY_TEMP_DIR/session_latest/logs/job-driver-*.log), when RAY_TEMP_DIR sits in this dir
  // or beside it (the launcher's default is outputs/logs/ray).
  for (const rayDir of [path.join(dir, 'ray', 'session_latest', 'logs'), path.join(dir, '..', 'ray', 'session_latest', 'logs')]) {
    for (const n of await listDir(rayDir)) if (n.startsWith('job-driver-') && n.endsWith('.log')) await consider(path.join(rayDir, n));
  }
  if (candidates.length === 0) return undefined;
  // Prefer the most recently written, then the largest.
  candidates.sort((a, b) => b.mtime - a.mtime || b.size - a.size);
  return candidates[0]?.file;
}

async function newestRunDir(logsDir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(logsDir);
  } catch {
    return undefined;
  }
  let best: { dir: string; mtime: number } | undefined;
  for (const n of names) {
    if (n === 'ray' || n.startsWith('.')) continue;
    const dir = path.join(logsDir, n);
    const st = await statOrUndefined(dir);
    if (st?.isDirectory() && (!best || st.mtimeMs > best.mtime)) best = { dir, mtime: st.mtimeMs };
  }
  return best?.dir;
}

export async function resolveMonitorTarget(arg: string | undefined, paths: RecipePaths): Promise<MonitorTarget> {
  if (!arg) {
    const runs = await listRegistryRuns(paths);
    const newest = runs[0];
    if (newest) return resolveMonitorTarget(newest.name, paths);
    const dir = paths.runLogDir(DEFAULT_RUN_NAME);
    if (await statOrUndefined(dir)) return resolveMonitorTarget(dir, paths);
    // A run started by hand with another RUN_NAME: the newest directory under outputs/logs (not Ray's temp dir).
    const newestDir = await newestRunDir(paths.outputsLogs);
    if (newestDir) return resolveMonitorTarget(newestDir, paths);
    throw new ConsoleError({
      what: 'No run to monitor: the run registry is empty and there is no run directory under outputs/logs.',
      cause: `Looked in ${paths.runsDir} and ${paths.outputsLogs}.`,
      fix: 'Launch one (swegym-console train launch), or name a run, a run directory or a log file: swegym-console monitor <RUN|RUN_DIR|LOG_FILE>.',
      exitCode: ExitCode.usage,
    });
  }
  if (/^raysubmit_[A-Za-z0-9]+$/.test(arg)) {
    // A Ray job id: its logs come from `ray job logs [-f] <id>` (the Ray job's stdout, recipe §7 source 5).
    return { name: arg, source: 'ray-job', rayJob: arg, logFile: undefined, runDir: undefined, runName: undefined, checkpointDir: undefined, proxyUrl: undefined };
  }
  const abs = path.resolve(paths.root, arg);
  const st = await statOrUndefined(abs);
  if (st?.isFile()) {
    if (path.basename(abs) === 'run.json') {
      const rec = await readRegistry(abs);
      if (rec) return fromRegistry(rec, path.basename(path.dirname(abs)), paths);
    }
    // A log inside a Dressage LOG_DIR (beside traj_payload/, traj_err/): that run's trajectories are its.
    const dir = path.dirname(abs);
    if (await hasTrajectoryFolders(dir)) {
      const guess = await resolveRunName({ runDir: dir, logFile: abs });
      return { name: path.basename(abs), source: 'log-file', logFile: abs, runDir: dir, runName: guess.name, runNameFrom: guess.from, ...(guess.evidence ? { runNameEvidence: guess.evidence } : {}), checkpointDir: undefined, proxyUrl: undefined };
    }
    return { name: path.basename(abs), source: 'log-file', logFile: abs, runDir: undefined, runName: undefined, checkpointDir: undefined, proxyUrl: undefined };
  }
  if (st?.isDirectory()) {
    const reg = await readRegistry(path.join(abs, 'run.json'));
    if (reg) return fromRegistry(reg, path.basename(abs), paths);
    // The folder may have been renamed or copied: RUN_NAME is what the run and its trajectory folders say.
    const logFile = await findLogInRunDir(abs);
    const guess = await resolveRunName({ runDir: abs, logFile });
    return {
      name: path.basename(abs),
      source: 'run-dir',
      logFile,
      runDir: abs,
      runName: guess.name,
      runNameFrom: guess.from,
      ...(guess.evidence ? { runNameEvidence: guess.evidence } : {}),
      checkpointDir: paths.checkpointDir(guess.name),
      proxyUrl: undefined,
    };
  }
  // A registry name, or a RUN_NAME under outputs/logs.
  if (!arg.includes('/')) {
    const reg = await readRegistry(path.join(paths.runsDir, arg, 'run.json'));
    if (reg) return fromRegistry(reg, arg, paths);
    const dir = paths.runLogDir(arg);
    if (await statOrUndefined(dir)) return resolveMonitorTarget(dir, paths);
  }
  throw new ConsoleError({
    what: `Nothing to monitor at "${arg}".`,
    cause: `It is not a file, not a directory, not a run in ${paths.runsDir} and not a run directory under ${paths.outputsLogs}.`,
    fix: 'Give a run name from `swegym-console train list`, a run directory (outputs/logs/<RUN_NAME>) or a log file.',
    exitCode: ExitCode.usage,
  });
}

/**
 * Whether the target is a run written by the console's simulator (`simulation.json` with `simulated: true` beside
 * the log or in the run directory): the dashboard and `monitor` label it, so that nobody takes it for training.
 */
export async function isSimulatedRun(target: MonitorTarget): Promise<boolean> {
  const dirs = new Set([target.logFile ? path.dirname(target.logFile) : undefined, target.runDir].filter((d): d is string => Boolean(d)));
  for (const dir of dirs) if (await hasSimulationManifest(dir)) return true;
  return false;
}
