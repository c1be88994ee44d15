// The training launch and stop jobs, written once for both faces: `train launch|stop` print their events, the Train
// screen's actions flash them and refresh the run list. Resume is derived in one place (resumedFrom).
import type { CommandLog } from '../process/commandLog.js';
import { buildLaunchPlan, launchDetached, type LaunchInputs, type LaunchPlan } from './launch.js';
import { runLaunchChecks, type LaunchCheck } from './checks.js';
import { findLatestCheckpoint, resumeSettings, type CheckpointInfo, type RunRecord } from './registry.js';
import { stopRun, type StopResult } from './stop.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';

export type LaunchJobEvent =
  | { type: 'checking' }
  | { type: 'checked'; checks: LaunchCheck[]; blocking: number }
  /** Nothing started: a blocking check failed, or a dry run. */
  | { type: 'not-launched'; reason: 'blocked' | 'dry-run'; failing: LaunchCheck[] }
  | { type: 'launched'; run: RunRecord };

export interface LaunchJobOptions {
  plan: LaunchPlan;
  log?: CommandLog;
  dryRun?: boolean;
  onEvent?: JobListener<LaunchJobEvent>;
}

export interface LaunchOutcome {
  checks: LaunchCheck[];
  failing: LaunchCheck[];
  run?: RunRecord;
}

/** The checkpoint a plan resumes from, read from the settings the launcher gets (RESUME_*): the one derivation. */
export function resumedFrom(plan: LaunchPlan): { root: string; step?: number } | undefined {
  const e = plan.effective;
  if (e.RESUME_FROM_CKPT !== '1') return undefined;
  return { root: e.RESUME_CKPT_ROOT ?? '', ...(e.RESUME_CKPT_STEP ? { step: Number(e.RESUME_CKPT_STEP) } : {}) };
}

/**
 * The plan resuming from the latest checkpoint under its SAVE_ROOT: RESUME_* set from it, explicit `sets` winning.
 * Throws when there is no checkpoint to resume from.
 */
export async function resumePlan(inputs: LaunchInputs): Promise<{ plan: LaunchPlan; checkpoint: CheckpointInfo }> {
  const fresh = buildLaunchPlan(inputs);
  const checkpoint = await findLatestCheckpoint(fresh.checkpointDir);
  if (!checkpoint) {
    throw new ConsoleError({
      what: `--resume: no checkpoint under ${fresh.checkpointDir}`,
      cause: 'no iter_NNNNNNN/ directory (checkpoints are saved every SAVE_INTERVAL rollouts)',
      fix: 'launch without --resume, or set SAVE_ROOT to the earlier run’s checkpoint directory',
      exitCode: ExitCode.precondition,
    });
  }
  return { plan: buildLaunchPlan({ ...inputs, sets: { ...resumeSettings(checkpoint), ...inputs.sets } }), checkpoint };
}

/** Checks the plan, then (unless a check blocks or it is a dry run) starts the launcher detached. */
export async function runLaunchJob(opts: LaunchJobOptions): Promise<LaunchOutcome> {
  const emit = jobEmitter<LaunchJobEvent>('train launch', opts.onEvent);
  emit({ type: 'checking' });
  const checks = await runLaunchChecks(opts.plan, { log: opts.log });
  const failing = checks.filter((c) => c.status === 'fail');
  emit({ type: 'checked', checks, blocking: failing.length });
  if (failing.length > 0 || opts.dryRun) {
    emit({ type: 'not-launched', reason: failing.length > 0 ? 'blocked' : 'dry-run', failing });
    return { checks, failing };
  }
  const from = resumedFrom(opts.plan);
  const run = await launchDetached(opts.plan, { checks, log: opts.log, ...(from ? { resumedFrom: from } : {}) });
  emit({ type: 'launched', run });
  return { checks, failing, run };
}

export type StopJobEvent = { type: 'progress'; text: string } | { type: 'stopped'; result: StopResult };

export interface StopJobOptions {
  paths: LaunchInputs['paths'];
  name: string;
  rayStop: boolean;
  env?: NodeJS.ProcessEnv;
  log?: CommandLog;
  onEvent?: JobListener<StopJobEvent>;
}

/** TERM, then KILL after the grace period, for the run's process group; `ray stop --force` when asked. */
export async function runStopJob(opts: StopJobOptions): Promise<StopResult> {
  const emit = jobEmitter<StopJobEvent>('train stop', opts.onEvent);
  const result = await stopRun(opts.paths, opts.name, { rayStop: opts.rayStop, log: opts.log, env: opts.env, onProgress: (text) => emit({ type: 'progress', text }) });
  emit({ type: 'stopped', result });
  return result;
}
