// `swegym-console monitor [RUN|RUN_DIR|LOG_FILE] [--once] [--json] [--from-start]`
// --once: ingest what the log holds now and print one summary (--json: the document of issue #8), then exit.
// Without --once in a terminal: the dashboard. Without --once and without a terminal: follow the log and print a
// line whenever the phase or a rollout changes, until the job ends or Ctrl-C.
import type { CommandContext } from '../context.js';
import { optFlag, say, note } from '../context.js';
import { ConsoleError, ExitCode, usageError } from '../../services/errors.js';
import { isSimulatedRun, resolveMonitorTarget, type MonitorTarget } from '../../services/monitor/resolve.js';
import { ingestFile, statLogFile } from '../../services/monitor/ingest.js';
import { ingestOnceFile } from '../../services/monitor/parallel.js';
import { FileFollower, followRayJob } from '../../services/monitor/tail.js';
import { RunModel, phaseLabel } from '../../services/monitor/model.js';
import { summarizeOffline } from '../../services/monitor/offline.js';
import { redact } from '../../services/secrets.js';

/** Live (non --from-start) reads begin this far before the end of the log. */
export const LIVE_TAIL_BYTES = 1024 * 1024 * 1024;

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
  const target = await resolveMonitorTarget(ctx.positionals[0], ctx.paths);

  if (!once) {
    if (ctx.global.json) throw usageError('--json needs --once (one document)', 'swegym-console monitor RUN --once --json');
    const stdout = ctx.stdout as NodeJS.WriteStream;
    if (stdout.isTTY && process.stdin.isTTY) {
      const { startDashboard } = await import('./monitorInteractive.js');
      return startDashboard(ctx.global, ctx.positionals[0], { fromStart });
    }
    return followHeadless(ctx, target, fromStart);
  }

  if (target.rayJob) {
    const model = new RunModel({ name: target.name });
    const r = await followRayJob(target.rayJob, (l) => model.ingestLine(l), { cwd: ctx.paths.root, signal: ctx.signal, follow: false, rayBin: ctx.env.SWEGYM_RAY_BIN });
    if (r.spawnError || r.exitCode !== 0) {
      throw new ConsoleError({
        what: `\`ray job logs ${target.rayJob}\` failed.`,
        cause: r.spawnError ?? (r.stderr.slice(-3).join(' ') || `exit ${r.exitCode ?? r.signal}`),
        fix: 'Run it on the Ray head node (RAY_ADDRESS or the dashboard on :8265 must be reachable), or pass the run log file instead.',
        exitCode: ExitCode.precondition,
      });
    }
    if (ctx.global.json) ctx.stdout.write(JSON.stringify(model.toJson()) + '\n');
    else say(ctx, rolloutLine(model));
    return ExitCode.ok;
  }
  if (!target.logFile) {
    // A run directory without a log: trajectories only.
    const offline = await summarizeOffline(target, new RunModel({ name: target.runName ?? target.name }));
    if (ctx.global.json) {
      note(ctx, `no run log found in ${target.runDir}; the summary is empty (${offline.trajectories} trajectory files, ${offline.errors} error files)`);
      ctx.stdout.write(JSON.stringify(offline.model.toJson()) + '\n');
    } else {
      note(ctx, `no run log found in ${target.runDir}; showing trajectory files only`);
      say(ctx, `trajectories: ${offline.trajectories} (errors: ${offline.errors}) · tasks: ${offline.tasks}`);
    }
    return ExitCode.ok;
  }

  if (!ctx.global.json) note(ctx, `reading ${target.logFile}`);
  const model = await ingestOnce(ctx, target.logFile, target.runName ?? target.name);
  if (ctx.global.json) {
    // Compact: a multi-day run has thousands of steps; one line is also friendlier to `jq`.
    ctx.stdout.write(JSON.stringify(model.toJson()) + '\n');
    return ExitCode.ok;
  }
  say(ctx, `run: ${target.name}${(await isSimulatedRun(target)) ? ' (SIMULATED: written by the console\'s run simulator, not training output)' : ''}`);
  say(ctx, rolloutLine(model));
  const tasks = model.taskSummary();
  say(ctx, `tasks: ${tasks.seen} seen · solved always ${tasks.always} · sometimes ${tasks.sometimes} · never ${tasks.never}`);
  const reasons = Object.entries(model.totals.by_reason).sort((a, b) => b[1] - a[1]);
  if (reasons.length) say(ctx, `reasons: ${reasons.map(([r, n]) => `${r || '(resolved/none)'}=${n}`).join(', ')}`);
  for (const f of model.fatal.tail(3)) say(ctx, `error line: ${redact(f.text)}`);
  return ExitCode.ok;
}

/**
 * Whole-file ingestion for --once: segments scanned by worker threads on large files (SWEGYM_MONITOR_WORKERS=N
 * sets how many; 1 scans on the main thread).
 */
async function ingestOnce(ctx: CommandContext, file: string, name: string): Promise<RunModel> {
  const workers = Number(ctx.env.SWEGYM_MONITOR_WORKERS);
  await statLogFile(file);
  // An explicit count of 2 or more uses the workers on any file (small ones too).
  const r = await ingestOnceFile(file, { name, ...(Number.isInteger(workers) && workers >= 1 ? { workers, ...(workers >= 2 ? { minBytes: 0 } : {}) } : {}) });
  if (ctx.global.debug) note(ctx, `scanned ${r.bytes} bytes in ${r.segments} segments with ${r.workers} thread(s)`);
  return r.model;
}

async function followHeadless(ctx: CommandContext, target: MonitorTarget, fromStart: boolean): Promise<number> {
  if (target.rayJob) {
    const model = new RunModel({ name: target.name });
    let last = '';
    const timer = setInterval(() => {
      const line = rolloutLine(model);
      if (line !== last) say(ctx, `${new Date().toISOString().slice(11, 19)} ${(last = line)}`);
    }, 1000);
    try {
      const r = await followRayJob(target.rayJob, (l) => model.ingestLine(l), { cwd: ctx.paths.root, signal: ctx.signal, rayBin: ctx.env.SWEGYM_RAY_BIN });
      say(ctx, rolloutLine(model));
      if (r.spawnError) throw new ConsoleError({ what: 'Cannot run `ray job logs -f`.', cause: r.spawnError, fix: 'Install Ray on this node or pass the run log file.', exitCode: ExitCode.precondition });
    } finally {
      clearInterval(timer);
    }
    return model.phase.kind === 'failed' ? ExitCode.failed : ExitCode.ok;
  }
  if (!target.logFile) {
    throw usageError(`No run log found for ${target.name}; following needs a log file.`, 'Pass the log file: swegym-console monitor <LOG_FILE>.');
  }
  const ingest = await ingestFile(target.logFile, { name: target.runName ?? target.name, tailBytes: fromStart ? undefined : LIVE_TAIL_BYTES, signal: ctx.signal });
  const { model, scanner } = ingest;
  let last = '';
  const print = () => {
    const line = rolloutLine(model);
    if (line !== last) {
      last = line;
      say(ctx, `${new Date().toISOString().slice(11, 19)} ${line}`);
    }
  };
  print();
  const follower = new FileFollower(target.logFile, scanner, {
    offset: ingest.offset,
    intervalMs: 1000,
    onTruncate: () => note(ctx, 'log truncated; reading from its start'),
    onRotate: () => note(ctx, 'log rotated; following the new file'),
    onError: (err) => note(ctx, `read error: ${(err as Error).message}`),
  });
  follower.start();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      print();
      const phase = model.phase.kind;
      if (phase === 'finished' || phase === 'failed') {
        clearInterval(timer);
        resolve();
      }
    }, 1000);
    ctx.signal.addEventListener('abort', () => {
      clearInterval(timer);
      resolve();
    });
  });
  await follower.stop();
  return model.phase.kind === 'failed' ? ExitCode.failed : ExitCode.ok;
}
