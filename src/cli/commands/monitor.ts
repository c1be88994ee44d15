// `swegym-console monitor [RUN|RUN_DIR|LOG_FILE] [--once] [--json] [--from-start]`
// --once: ingest what the log holds now and print one summary (--json: the document of issue #8), then exit.
// Without --once in a terminal: the dashboard. Without --once and without a terminal: follow the log and print a
// line whenever the phase or a rollout changes, until the job ends or Ctrl-C.
import { stat } from 'node:fs/promises';
import type { CommandContext } from '../context.js';
import { optFlag, optString, registryOf, say, note, writeJsonText } from '../context.js';
import { ConsoleError, ExitCode, usageError } from '../../services/errors.js';
import { isSimulatedRun, resolveMonitorTarget, type MonitorTarget } from '../../services/monitor/resolve.js';
import { statLogFile } from '../../services/monitor/ingest.js';
import { ingestOnceFile } from '../../services/monitor/parallel.js';
import { followRayJob } from '../../services/monitor/tail.js';
import type { RunFollowJob } from '../../services/monitor/followJob.js';
import { RunModel, phaseLabel } from '../../services/monitor/runModel.js';
import { summarizeOffline } from '../../services/monitor/offline.js';
import { redact } from '../../services/secrets.js';
import { assertRunLog } from '../../services/monitor/runLogCheck.js';
import { deriveLiveness, lastLineLabel, livenessJson, livenessLabel, progressTimesOf, type Liveness } from '../../services/monitor/liveness.js';
import { runSourcesPicker } from '../../app/monitorSources.js';
import { RAY_DASHBOARD_PORT } from '../../services/recipe.js';
import { onceSections } from '../../services/monitor/onceSections.js';
import { logSinceRecord } from '../../services/monitor/logSinceRecord.js';
import { sandboxLimitFromEnv } from '../../services/monitor/provider.js';
import type { RunSources } from '../../services/monitor/sources/types.js';
import { logResetText } from '../../services/monitor/logReset.js';
import { activeHangs, hangText, hangsJson } from '../../services/monitor/hangs.js';
import { setting } from '../../services/config/envSettings.js';

function rolloutLine(model: RunModel): string {
  const rs = model.sortedRollouts();
  const last = rs[rs.length - 1];
  const s = model.totals;
  const parts = [`phase: ${phaseLabel(model.phase)}`, `rollouts: ${model.rollouts.count}`, `steps: ${model.steps.count}`, `samples: ${s.total} (reward=1: ${s.reward_one})`];
  if (last) {
    const v = last.metrics['rollout/raw_reward_trajectory_mean'];
    if (typeof v === 'number') parts.push(`last raw_reward_trajectory_mean: ${v.toFixed(3)}`);
  }
  return parts.join(' · ');
}

export async function monitorCommand(ctx: CommandContext): Promise<number> {
  if (ctx.positionals.length > 1) throw usageError('monitor takes at most one RUN, RUN_DIR or LOG_FILE', 'swegym-console monitor [RUN|RUN_DIR|LOG_FILE] [--once] [--json]');
  const once = optFlag(ctx, 'once');
  const fromStart = optFlag(ctx, 'from-start');
  const compare = optString(ctx, 'compare');
  if (compare !== undefined && (once || !compare.trim())) throw usageError(once ? '--compare draws on the dashboard; --once prints no curves' : '--compare needs a run, run directory or log file', 'swegym-console monitor RUN --compare OTHER_RUN_OR_LOG');
  const target = await resolveMonitorTarget(ctx.positionals[0], ctx.paths);
  // A file named directly must be a run log (a dataset or a trajectory read as a run would show `starting`).
  if (target.source === 'log-file' && target.logFile) await assertRunLog(target.logFile);

  if (!once) {
    if (ctx.global.json) throw usageError('--json needs --once (one document)', 'swegym-console monitor RUN --once --json');
    const stdout = ctx.stdout as NodeJS.WriteStream;
    if (stdout.isTTY && process.stdin.isTTY) {
      const { startDashboard } = await import('./monitorInteractive.js');
      return startDashboard(ctx.global, ctx.positionals[0], { fromStart, compare });
    }
    if (compare) throw usageError('--compare draws on the dashboard, which needs a terminal', 'swegym-console monitor RUN --compare OTHER_RUN_OR_LOG (in a terminal)');
    return followHeadless(ctx, target, fromStart);
  }

  if (target.rayJob) {
    const model = new RunModel({ name: target.name });
    const r = await followRayJob(target.rayJob, (l) => model.ingestLine(l), { cwd: ctx.paths.root, signal: ctx.signal, follow: false, rayBin: setting(ctx.env, 'SWEGYM_RAY_BIN') });
    if (r.spawnError || r.exitCode !== 0) {
      throw new ConsoleError({
        what: `\`ray job logs ${target.rayJob}\` failed.`,
        cause: r.spawnError ?? (r.stderr.slice(-3).join(' ') || `exit ${r.exitCode ?? r.signal}`),
        fix: `Run it on the Ray head node (RAY_ADDRESS or the dashboard on :${RAY_DASHBOARD_PORT} must be reachable), or pass the run log file instead.`,
        exitCode: ExitCode.precondition,
      });
    }
    const sources = await onceSources(ctx, target);
    const liveness = await onceLiveness(ctx, target, model, sources);
    if (ctx.global.json) writeJsonText(ctx, withLiveness(model, liveness, await sectionsFor(ctx, target, sources, model)));
    else say(ctx, `${rolloutLine(model)} · ${livenessLine(liveness)}`);
    return ExitCode.ok;
  }
  if (!target.logFile) {
    // A run directory without a log: trajectories only.
    const offline = await summarizeOffline(target, new RunModel({ name: target.runName ?? target.name }));
    if (ctx.global.json) {
      note(ctx, `no run log found in ${target.runDir}; the summary is empty (${offline.trajectories} trajectory files, ${offline.errors} error files)`);
      const sources = await onceSources(ctx, target);
      writeJsonText(ctx, withLiveness(offline.model, await onceLiveness(ctx, target, offline.model, sources), await sectionsFor(ctx, target, sources, offline.model)));
    } else {
      note(ctx, `no run log found in ${target.runDir}; showing trajectory files only`);
      say(ctx, `trajectories: ${offline.trajectories} (errors: ${offline.errors}) · tasks: ${offline.tasks}`);
    }
    return ExitCode.ok;
  }

  if (!ctx.global.json) note(ctx, `reading ${target.logFile}`);
  const model = await ingestOnce(ctx, target.logFile, target.runName ?? target.name);
  const sources = await onceSources(ctx, target);
  const liveness = await onceLiveness(ctx, target, model, sources);
  if (ctx.global.json) {
    // Built compact (a multi-day run has thousands of steps); indented only for a person on a terminal.
    writeJsonText(ctx, withLiveness(model, liveness, await sectionsFor(ctx, target, sources, model)));
    return ExitCode.ok;
  }
  say(ctx, `run: ${target.name}${(await isSimulatedRun(target)) ? ' (SIMULATED: written by the console\'s run simulator, not training output)' : ''}`);
  say(ctx, livenessLine(liveness));
  say(ctx, rolloutLine(model));
  const tasks = model.taskSummary();
  say(ctx, `tasks: ${tasks.seen} seen · solved always ${tasks.always} · sometimes ${tasks.sometimes} · never ${tasks.never}`);
  const reasons = Object.entries(model.totals.by_reason).sort((a, b) => b[1] - a[1]);
  if (reasons.length) say(ctx, `reasons: ${reasons.map(([r, n]) => `${r || '(resolved/none)'}=${n}`).join(', ')}`);
  for (const f of model.fatal.tail(3)) say(ctx, `error line: ${redact(f.text)}`);
  for (const h of activeHangs(model)) say(ctx, `hang: ${redact(hangText(h))}`);
  return ExitCode.ok;
}

/**
 * Whether the run is alive now, for --once: the log's mtime, the writer (registry or simulator) and Ray's job,
 * through the same sources the dashboard uses.
 */
async function onceLiveness(ctx: CommandContext, target: MonitorTarget, model: RunModel, sources: RunSources): Promise<Liveness> {
  let mtime: number | undefined;
  if (mtime === undefined && target.logFile) {
    try {
      mtime = (await stat(target.logFile)).mtimeMs;
    } catch {}
  }
  const [writer, rayJob] = await Promise.all([sources.writer().catch(() => undefined), sources.rayJob(target.rayJob ?? model.jobEnd?.job).catch(() => undefined)]);
  const phase = model.phase;
  return deriveLiveness({ now: Date.now(), phase: phase.kind, phaseDetail: phase.detail, logExitCode: model.launcherExit, lastLineAt: mtime, progressTimes: progressTimesOf(model), writer, rayJob });
}

/** The run's sources, as the dashboard picks them (the sandbox provider only for --json, which lists them). */
function onceSources(ctx: CommandContext, target: MonitorTarget): Promise<RunSources> {
  const { providers } = registryOf(ctx).deps;
  const provider = ctx.global.json ? () => providers.monitor() : undefined;
  return runSourcesPicker({ paths: ctx.paths, env: ctx.env, ...(provider ? { provider } : {}) })(target);
}

/** What the dashboard shows besides the log: trajectory files, sandboxes, the Ray cluster (onceSections.ts). */
async function sectionsFor(ctx: CommandContext, target: MonitorTarget, sources: RunSources, model: RunModel): Promise<Record<string, unknown>> {
  return { ...(await onceSections(target, sources, { sandboxLimit: sandboxLimitFromEnv(ctx.env) })), hangs: hangsJson(model), log_since_record: await logSinceRecord(ctx.paths, target) };
}

/** The document with its liveness block (and the sections beside the log's), as JSON text. */
function withLiveness(model: RunModel, liveness: Liveness, sections: Record<string, unknown> = {}): string {
  return model.toJsonText({ liveness: livenessJson(liveness), ...sections });
}

function livenessLine(l: Liveness): string {
  return `state: ${livenessLabel(l)} · ${lastLineLabel(l.lastLineAgoMs)} · ${l.why}`;
}

/**
 * Whole-file ingestion for --once: segments scanned by worker threads on large files (SWEGYM_MONITOR_WORKERS=N
 * sets how many, the main thread included; 1 scans on the main thread alone; SWEGYM_MONITOR_MAIN_SCANS=0 leaves
 * the scanning to N worker threads). SWEGYM_MONITOR_MARKER_SEARCH=js searches the markers with findMarkedLines
 * instead of WebAssembly (the same lines: for comparisons).
 */
async function ingestOnce(ctx: CommandContext, file: string, name: string): Promise<RunModel> {
  const workers = setting(ctx.env, 'SWEGYM_MONITOR_WORKERS');
  await statLogFile(file);
  // An explicit count of 2 or more uses the workers on any file (small ones too).
  // --json prints only the document: the scanners may drop what it never shows.
  const markerSearch = setting(ctx.env, 'SWEGYM_MONITOR_MARKER_SEARCH');
  const mainScans = setting(ctx.env, 'SWEGYM_MONITOR_MAIN_SCANS');
  const r = await ingestOnceFile(file, { name, documentOnly: ctx.global.json === true, markerSearch, mainScans, ...(workers !== undefined ? { workers, ...(workers >= 2 ? { minBytes: 0 } : {}) } : {}) });
  if (ctx.global.debug) note(ctx, `scanned ${r.bytes} bytes in ${r.segments} segments with ${r.workers} thread(s) (${r.segmentsByWorkers} by worker threads${r.adoptedPrestarted ? ', one started by the entry' : ''}), marker search: ${r.markerSearch}`);
  return r.model;
}

/**
 * `monitor RUN` without a terminal: the follow job the dashboard runs too (services/monitor/followJob.ts); this face
 * prints its events: the rollout line when it changes, the run's state when it changes, the log's rotation or
 * truncation. It ends with the run (a Ray job: with `ray job logs -f`) or Ctrl-C.
 */
async function followHeadless(ctx: CommandContext, target: MonitorTarget, fromStart: boolean): Promise<number> {
  if (!target.rayJob && !target.logFile) {
    throw usageError(`No run log found for ${target.name}; following needs a log file.`, 'Pass the log file: swegym-console monitor <LOG_FILE>.');
  }
  const stamp = () => new Date().toISOString().slice(11, 19);
  let last = '';
  const printRollouts = () => {
    const line = rolloutLine(job.model);
    if (line !== last) say(ctx, `${stamp()} ${(last = line)}`);
  };
  let spawnError: string | undefined;
  let ended: (failed: boolean) => void = () => {};
  const done = new Promise<boolean>((resolve) => (ended = resolve));
  const follow = (await registryOf(ctx).jobs('monitor')).follow;
  const job: RunFollowJob = follow(target, {
    sources: runSourcesPicker({ paths: ctx.paths, env: ctx.env }),
    fromStart,
    rayBin: setting(ctx.env, 'SWEGYM_RAY_BIN'),
    // The state is printed when it changes: Ray's job is asked as often as the writer.
    pollMs: { ray: 5000 },
    keepAlive: true,
    onEvent: (e) => {
      if (e.type === 'read' || e.type === 'progress') printRollouts();
      // A Ray job's state is its stream's: `ray job logs -f` ends with the job (the state lines are a log's).
      else if (e.type === 'state' && !target.rayJob) say(ctx, `${stamp()} ${livenessLine(e.liveness)}`);
      else if (e.type === 'log-truncated' || e.type === 'log-rotated') note(ctx, logResetText(e.reset, target.logFile));
      else if (e.type === 'read-error') note(ctx, `read error: ${e.message}`);
      else if (e.type === 'stream-ended') spawnError = e.spawnError;
      else if (e.type === 'ended') ended(e.failed);
    },
  });
  const onAbort = () => {
    ended(false);
    void job.close();
  };
  ctx.signal.addEventListener('abort', onAbort);
  // A stop asked before the follow began (a SIGTERM in the console's first moments) ends it too.
  if (ctx.signal.aborted) onAbort();
  try {
    await job.open();
    const failed = await done;
    if (target.rayJob) say(ctx, rolloutLine(job.model));
    if (spawnError) throw new ConsoleError({ what: 'Cannot run `ray job logs -f`.', cause: spawnError, fix: 'Install Ray on this node or pass the run log file.', exitCode: ExitCode.precondition });
    return failed ? ExitCode.failed : ExitCode.ok;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    await job.close();
  }
}
