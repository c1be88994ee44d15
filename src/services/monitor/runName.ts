// Which RUN_NAME a run directory's trajectories are filed under. Dressage writes them to
// <LOG_DIR>/traj_payload/<RUN_NAME>/<instance>/<session>/ (config.py trajectory_payload_log_dir, the launcher's
// dressage_env_defaults.sh), with RUN_NAME as given (only instance and session ids are made file-safe). A run folder
// that was copied, rsynced or renamed keeps that inner name, so the folder's own name is the last thing to go by:
// what the run says (its launch record, its log) and what is on disk come first.
import { open, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { SIM_MANIFEST_NAME } from './simulatedRun.js';

export type RunNameSource = 'launch-record' | 'log' | 'simulation' | 'trajectory-dirs' | 'folder';

export interface RunNameGuess {
  name: string;
  /** Where the name was read: the launch record, a log line, the simulator's manifest, the trajectory folders, the folder's name. */
  from: RunNameSource;
  /** The log line (or file) that stated it, for `monitor --once --json` and the dashboard's note. */
  evidence?: string;
}

/** Bytes of the log's head read for the lines that state RUN_NAME (they are start-up lines). */
const HEAD_BYTES = 4 * 1024 * 1024;

const TRAJ_BASES = ['traj_payload', 'traj_err'] as const;

/**
 * Lines that state RUN_NAME, each with the name it holds:
 * - the launcher's `Clearing DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR: <LOG_DIR>/traj_payload/<RUN_NAME>` (and traj_err),
 * - a proxy log path `<LOG_DIR>/proxy/<RUN_NAME>.log` (PROXY_LOG_FILE's default: `Dressage proxy failed; see …`,
 *   the simulator's `Starting Dressage proxy … (log: …)`),
 * - W&B's `Syncing run <name>` (slime names it after --wandb-group, which defaults to RUN_NAME; with the random
 *   suffix it is `<group>_<id>-RANK_<n>`): only trusted when a trajectory folder of that name exists.
 */
const STATED: { re: RegExp; strong: boolean }[] = [
  { re: /Clearing DRESSAGE_TRAJECTORY_(?:PAYLOAD|ERROR)_LOG_DIR: .*\/traj_(?:payload|err)\/([^/]+?)\/?$/, strong: true },
  { re: /\/proxy\/([^/()]+?)\.log(?=\)|\s|$)/, strong: true },
  { re: /wandb: (?:Syncing|Resuming) run (\S+)/, strong: false },
];

/** Names the log's first lines state, in the order they appear (strong ones: launcher paths; weak: W&B's run). */
export function namesStatedIn(text: string): { name: string; strong: boolean; line: string }[] {
  const out: { name: string; strong: boolean; line: string }[] = [];
  const seen = new Set<string>();
  for (const raw of text.split('\n')) {
    if (!raw.includes('traj_') && !raw.includes('/proxy/') && !raw.includes('wandb:')) continue;
    const line = raw.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r$/, '').trimEnd();
    for (const { re, strong } of STATED) {
      const m = re.exec(line);
      const found = m?.[1];
      if (!found) continue;
      // W&B's run name with slime's random suffix: `<group>_<6+ chars>-RANK_<n>`.
      const names = strong ? [found] : [found, found.replace(/_[A-Za-z0-9]{6,}-RANK_\d+$/, '')];
      for (const name of names) {
        if (seen.has(name)) continue;
        seen.add(name);
        out.push({ name, strong, line: line.trim().slice(0, 300) });
      }
    }
  }
  return out;
}

async function readHead(file: string): Promise<string> {
  try {
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
      return buf.toString('utf8', 0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch {
    return '';
  }
}

async function isDir(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isDirectory(), () => false);
}

/**
 * The children of traj_payload/ and traj_err/ laid out as <RUN_NAME>/<instance>/<session>/ (a flat layout, when
 * DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR pointed straight at the folder, has the session files one level up), with
 * the newest modification time of each.
 */
export async function trajectoryRunDirs(runDir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const base of TRAJ_BASES) {
    const root = path.join(runDir, base);
    let names: string[];
    try {
      names = (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = path.join(root, name);
      if (!(await looksLikeRunNameDir(dir))) continue;
      const mtime = await stat(dir).then((s) => s.mtimeMs, () => 0);
      found.set(name, Math.max(found.get(name) ?? 0, mtime));
    }
  }
  return found;
}

/** <dir>/<instance>/<session>/ — a session dir holds session.json or error.json; an instance dir holds none. */
async function looksLikeRunNameDir(dir: string): Promise<boolean> {
  let children: string[];
  try {
    children = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return false;
  }
  if (children.length === 0) return true; // an empty run folder (the launcher makes it before any sample)
  // A flat layout: this is an instance directory, its children sessions.
  for (const c of children.slice(0, 3)) {
    const sub = path.join(dir, c);
    if ((await stat(path.join(sub, 'session.json')).catch(() => undefined)) || (await stat(path.join(sub, 'error.json')).catch(() => undefined))) return false;
  }
  return true;
}

async function simulationRunName(dir: string): Promise<string | undefined> {
  try {
    const m = JSON.parse(await readFile(path.join(dir, SIM_MANIFEST_NAME), 'utf8')) as { simulated?: unknown; config?: { runName?: unknown } } | null;
    const n = m?.config?.runName;
    return m?.simulated === true && typeof n === 'string' && n.length > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The RUN_NAME of a run directory: the name stated by the launch record (given), the log or the simulator's
 * manifest when a trajectory folder of that name exists (or none exists yet), else the folder on disk (the one
 * trajectory folder, or the newest of several), else the directory's own name.
 */
export async function resolveRunName(opts: { runDir: string; logFile: string | undefined; recorded?: string }): Promise<RunNameGuess> {
  const { runDir, logFile, recorded } = opts;
  const onDisk = await trajectoryRunDirs(runDir);
  const folder = path.basename(runDir);
  const stated: (RunNameGuess & { strong: boolean })[] = [];
  if (recorded) stated.push({ name: recorded, from: 'launch-record', strong: true });
  if (logFile) for (const s of namesStatedIn(await readHead(logFile))) stated.push({ name: s.name, from: 'log', evidence: s.line, strong: s.strong });
  const sim = await simulationRunName(runDir);
  if (sim) stated.push({ name: sim, from: 'simulation', evidence: SIM_MANIFEST_NAME, strong: true });
  const drop = ({ strong: _s, ...g }: RunNameGuess & { strong: boolean }): RunNameGuess => g;
  const match = stated.find((s) => onDisk.has(s.name));
  if (match) return drop(match);
  if (onDisk.has(folder)) return { name: folder, from: 'folder' };
  if (onDisk.size > 0) {
    const newest = [...onDisk.entries()].sort((a, b) => b[1] - a[1])[0] as [string, number];
    return { name: newest[0], from: 'trajectory-dirs', evidence: onDisk.size > 1 ? `newest of ${onDisk.size} folders under traj_payload/traj_err` : 'the one folder under traj_payload/traj_err' };
  }
  // Nothing on disk yet: what the run says, else the folder's name (the launcher's LOG_DIR default ends in RUN_NAME).
  const strong = stated.find((s) => s.strong);
  if (strong) return drop(strong);
  return { name: folder, from: 'folder' };
}

/** Whether a directory looks like a Dressage LOG_DIR (it has trajectory folders), for a log named directly. */
export async function hasTrajectoryFolders(dir: string): Promise<boolean> {
  for (const base of TRAJ_BASES) if (await isDir(path.join(dir, base))) return true;
  return false;
}
