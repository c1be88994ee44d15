// Composes the launch (settings from defaults, the environment, the saved form, an env file and --set) and starts
// Dressage's launcher DETACHED: its own session and process group, stdout+stderr appended to a run log, unref'd, so
// quitting the console, SIGHUP from a dropped SSH connection or a console crash never stops it. A tiny wrapper
// writes the exit code to a file when the launcher ends, since the console may be gone by then.
import { spawn } from 'node:child_process';
import { mkdir, open, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { redact, redactEnv } from '../secrets.js';
import { commandLog as globalCommandLog, type CommandLog } from '../process/commandLog.js';
import { SETTINGS, SETTING_BY_KEY, isSecretSetting } from './settings.js';
import { deriveValues, hostnameFailure, resolveSettings, type Derived } from './derive.js';
import { findActiveRuns, newRunName, procStartTime, runDir, writeRun, type RunRecord } from './registry.js';
import { acquireLock } from '../workspace/lock.js';
import type { SettingSource } from '../../state/types/train.js';
export type { SettingSource } from '../../state/types/train.js';

export interface LaunchInputs {
  paths: RecipePaths;
  /** The environment the launcher inherits (normally process.env). */
  env: NodeJS.ProcessEnv;
  saved?: Record<string, string>;
  envFile?: Record<string, string>;
  sets?: Record<string, string>;
  hostIp?: string;
  /** Run a launcher that resolves outside the checkout (a symlink elsewhere): refused unless asked. */
  allowOutsideLauncher?: boolean;
}

export interface LaunchPlan {
  paths: RecipePaths;
  /** Values set explicitly (any layer), by key. */
  values: Record<string, string>;
  sources: Record<string, SettingSource>;
  /** Every setting as the launcher will see it. */
  effective: Record<string, string>;
  derived: Derived;
  command: { file: string; args: string[]; cwd: string };
  /** Variables the console adds to the inherited environment. */
  envDelta: Record<string, string>;
  /** The complete environment of the launcher. */
  env: Record<string, string>;
  runName: string;
  logDir: string;
  checkpointDir: string;
  /**
   * `hostname` calls the launcher makes that fail on this machine, with why. Under `set -euo pipefail` each one
   * ends the launcher with exit 1 and no message of its own. Empty when the host address was given.
   */
  hostnameFailures: { flag: '-I' | '-i'; error: string }[];
  /** From the inputs: the launcher may resolve outside the checkout. */
  allowOutsideLauncher?: boolean;
}

/** Layers the settings: default < environment < saved form < console default < --env-file < --set. */
export function buildLaunchPlan(inputs: LaunchInputs): LaunchPlan {
  const values: Record<string, string> = {};
  const sources: Record<string, SettingSource> = {};
  const put = (src: Record<string, string> | undefined, source: SettingSource) => {
    for (const [k, v] of Object.entries(src ?? {})) {
      values[k] = v;
      sources[k] = source;
    }
  };
  for (const def of SETTINGS) {
    const v = inputs.env[def.key];
    if (v !== undefined && v !== '') {
      values[def.key] = v;
      sources[def.key] = 'environment';
    }
  }
  put(inputs.saved, 'saved');
  if (!values.PROMPT_DATA) {
    values.PROMPT_DATA = inputs.paths.trainJsonl;
    sources.PROMPT_DATA = 'console';
  }
  put(inputs.envFile, 'env-file');
  put(inputs.sets, 'set');

  const effective = resolveSettings(values, { repoRoot: inputs.paths.root, env: inputs.env, hostIp: inputs.hostIp });
  const hostnameFailures: LaunchPlan['hostnameFailures'] = [];
  if (inputs.hostIp === undefined) {
    // MASTER_ADDR / CURRENT_NODE_IP default to `hostname -I`, SGLANG_ROUTER_HOST to `hostname -i`.
    const needs: ['-I' | '-i', boolean][] = [
      ['-I', !values.MASTER_ADDR || !values.CURRENT_NODE_IP],
      ['-i', !values.SGLANG_ROUTER_HOST],
    ];
    for (const [flag, needed] of needs) {
      const error = needed ? hostnameFailure(flag, inputs.env) : undefined;
      if (error) hostnameFailures.push({ flag, error });
    }
  }
  const derived = deriveValues(effective);
  const envDelta: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if (SETTING_BY_KEY.get(k)?.consoleOnly) continue;
    if (sources[k] === 'environment') continue;
    envDelta[k] = v;
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(inputs.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, envDelta);
  return {
    paths: inputs.paths,
    values,
    sources,
    effective,
    derived,
    command: { file: 'bash', args: [inputs.paths.launcherScript], cwd: inputs.paths.root },
    envDelta,
    env,
    runName: effective.RUN_NAME ?? '',
    logDir: effective.LOG_DIR ?? '',
    checkpointDir: effective.SAVE_ROOT ?? '',
    hostnameFailures,
    ...(inputs.allowOutsideLauncher ? { allowOutsideLauncher: true } : {}),
  };
}

function shellQuote(v: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** The exact command and environment as an operator could paste it, secrets masked. */
export function formatDryRun(plan: LaunchPlan): string {
  const masked = redactEnv(plan.envDelta);
  const lines = [
    `# cd ${shellQuote(plan.command.cwd)}`,
    ...Object.keys(masked)
      .sort()
      .map((k) => `export ${k}=${shellQuote(masked[k] as string)}   # ${plan.sources[k]}`),
    ...Object.keys(plan.values)
      .filter((k) => plan.sources[k] === 'environment' && !SETTING_BY_KEY.get(k)?.consoleOnly)
      .sort()
      .map((k) => `# inherited: ${k}=${isSecretSetting(k) ? '****' : shellQuote(plan.values[k] as string)}`),
    [plan.command.file, ...plan.command.args].map(shellQuote).join(' '),
  ];
  return redact(lines.join('\n'), plan.env) + '\n';
}

/** A JSON view of the plan with secrets masked (for --dry-run --json and the registry). */
export function planSummary(plan: LaunchPlan) {
  return {
    command: { argv: [plan.command.file, ...plan.command.args], cwd: plan.command.cwd },
    env: redactEnv(plan.envDelta),
    sources: plan.sources,
    effective: redactEnv(plan.effective),
    effectiveLines: plan.derived.effectiveLines.map((l) => redact(l, plan.env)),
    runName: plan.runName,
    logDir: plan.logDir,
    checkpointDir: plan.checkpointDir,
  };
}

// The wrapper ignores SIGHUP (inherited by the launcher), waits for the launcher even when the group gets TERM,
// then writes the exit code atomically and notes it in the run log.
const WRAPPER = [
  "trap '' HUP",
  "trap ':' TERM INT",
  'exit_file=$1; shift',
  '"$@"',
  'rc=$?',
  'printf \'{"exitCode":%s,"endedAt":"%s"}\\n\' "$rc" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$exit_file.tmp" && mv -f "$exit_file.tmp" "$exit_file"',
  'echo "[swegym-console] launcher exited with code $rc"',
  'exit $rc',
].join('\n');

export interface LaunchOptions {
  log?: CommandLog;
  now?: Date;
  /** The checks that ran for this plan; any 'fail' refuses the launch. */
  checks: { id: string; status: string; detail: string }[];
  resumedFrom?: { root: string; step?: number };
}

/**
 * Starts the launcher detached and registers the run. Resolves once the process is spawned. Holds the workspace
 * lock while it registers and spawns, and refuses while another run is active: two launches at once would
 * otherwise both pass the checks and start into the same run directory and log.
 */
export async function launchDetached(plan: LaunchPlan, opts: LaunchOptions): Promise<RunRecord> {
  const lock = await acquireLock(plan.paths.lockFile, `train launch ${plan.runName}`);
  try {
    const active = await findActiveRuns(plan.paths);
    if (active.length > 0) {
      const a = active[0]!;
      throw new ConsoleError({
        what: `launch refused: run ${a.name} (RUN_NAME ${a.runName}) is already ${a.status} in this workspace`,
        cause: 'two runs at once share the checkpoint and log directories and the GPUs',
        fix: `watch it (swegym-console monitor ${a.name}) or stop it first (swegym-console train stop ${a.name})`,
        exitCode: ExitCode.precondition,
      });
    }
    return await launchLocked(plan, opts);
  } finally {
    await lock.release();
  }
}

async function launchLocked(plan: LaunchPlan, opts: LaunchOptions): Promise<RunRecord> {
  const failing = opts.checks.filter((c) => c.status === 'fail');
  if (failing.length > 0) {
    throw new ConsoleError({
      what: `launch refused: ${failing.length} blocking check(s) failed`,
      cause: failing.map((c) => `${c.id}: ${redact(c.detail, plan.env)}`).join('; '),
      fix: 'fix the settings (train launch --dry-run shows every check), then launch again',
      exitCode: ExitCode.precondition,
    });
  }
  try {
    await stat(plan.paths.launcherScript);
  } catch {
    throw new ConsoleError({
      what: `Dressage's launcher is missing: ${plan.paths.launcherScript}`,
      fix: 'run the console in the Dressage checkout (--workspace DIR)',
      exitCode: ExitCode.precondition,
    });
  }
  const log = opts.log ?? globalCommandLog;
  const now = opts.now ?? new Date();
  const name = await newRunName(plan.paths, plan.runName, now);
  const dir = runDir(plan.paths, name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const logFile = path.join(dir, 'launcher.log');
  const exitFile = path.join(dir, 'exit.json');
  const argv = [plan.command.file, ...plan.command.args];
  const record: RunRecord = {
    version: 1,
    name,
    runName: plan.runName,
    host: hostname(),
    createdAt: now.toISOString(),
    command: { argv, cwd: plan.command.cwd },
    logFile,
    exitFile,
    outputsLogDir: plan.logDir,
    checkpointDir: plan.checkpointDir,
    config: { explicit: redactEnv(plan.values), effective: redactEnv(plan.effective), sources: { ...plan.sources } },
    expectedEffectiveLines: plan.derived.effectiveLines.map((l) => redact(l, plan.env)),
    status: 'starting',
    ...(opts.resumedFrom ? { resumedFrom: opts.resumedFrom } : {}),
  };
  await writeRun(plan.paths, record);

  const handle = await open(logFile, 'a', 0o600);
  const entry = log.start(argv, plan.command.cwd, `training run ${name} (detached)`);
  let pid: number | undefined;
  let logId: { ino: number; dev: number } | undefined;
  try {
    logId = await handle.stat().catch(() => undefined);
    await handle.write(`[swegym-console] ${now.toISOString()} launching ${redact(argv.join(' '), plan.env)} in ${plan.command.cwd}\n`);
    const child = spawn('/bin/sh', ['-c', WRAPPER, 'swegym-launch', exitFile, ...argv], {
      cwd: plan.command.cwd,
      env: plan.env,
      detached: true,
      stdio: ['ignore', handle.fd, handle.fd],
    });
    child.on('error', () => {});
    child.unref();
    pid = child.pid;
  } finally {
    await handle.close();
  }
  if (!pid) {
    log.finish(entry, { status: 'failed' });
    const failed = { ...record, status: 'exited' as const, launchError: 'could not start /bin/sh' };
    await writeRun(plan.paths, failed);
    throw new ConsoleError({ what: 'could not start the launcher', cause: 'spawning /bin/sh failed', exitCode: ExitCode.failed });
  }
  log.finish(entry, { status: 'detached' });
  const started: RunRecord = { ...record, pid, pgid: pid, startedAt: new Date().toISOString(), procStart: await procStartTime(pid), ...(logId ? { logInode: logId.ino, logDevice: logId.dev } : {}) };
  await writeRun(plan.paths, started);
  return started;
}
