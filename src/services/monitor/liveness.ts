// Is the run alive? One answer for the dashboard's header and `monitor --once --json`, derived from what outlives the
// console: the log (its last line, its own end lines), the writer (the registry's launch wrapper: pid liveness and
// the exit file; or the simulator's live.json) and Ray's job status. A log alone cannot tell a killed writer from a
// slow one, so the writer's word comes first and the log's silence is judged against the run's own cadence.
import type { PhaseKind, RunModel } from './runModel.js';
import type { Liveness } from '../../state/types/monitor.js';
import type { RayJobState } from '../ray/jobsApi.js';
import { formatAgeWords } from '../util/format.js';
export type { Liveness, RunState } from '../../state/types/monitor.js';


/** What the process that writes the log says about itself. */
export interface WriterStatus {
  /** 'registry': the launch wrapper of .swegym-console/runs/<run>; 'simulator': the simulator's live.json. */
  source: 'registry' | 'simulator';
  alive: boolean;
  /** The launcher's exit code (the wrapper's exit file), when it ended. */
  exitCode?: number;
  /** Ended by `train stop` (or the simulator stopped on purpose). */
  stopped?: boolean;
  /** The wrapper's pid, for the explanation. */
  pid?: number;
}

// Ray's job status (JobStatus of ray/dashboard/modules/job/common.py): the Jobs API client's type.
export type { RayJobState } from '../ray/jobsApi.js';

export interface RayJobStatus {
  id: string;
  status: RayJobState;
  /** driver_exit_code: None until the driver ends. */
  exitCode?: number;
  message?: string;
}

export interface LivenessInput {
  now: number;
  phase: PhaseKind;
  phaseDetail?: string;
  /** The `launcher exit code N` line of the log, when written. */
  logExitCode?: number;
  /** Epoch ms the log last grew: its mtime, or the clock when the last line arrived (a `ray job logs` stream). */
  lastLineAt?: number;
  /** Log times (epoch ms) of recent progress lines (samples, rollout summaries, train steps), any order. */
  progressTimes: number[];
  writer?: WriterStatus;
  rayJob?: RayJobStatus;
}

export const LIVENESS_DEFAULTS = {
  /** Stalled when silent for this many times the longest recent gap between progress lines… */
  cadenceFactor: 3,
  /** …but never sooner than this (a rollout's training step takes minutes) … */
  minStallMs: 3 * 60_000,
  /** …and never later than this. */
  maxStallMs: 30 * 60_000,
  /** Without enough history (the first rollout, or a log without timestamps). */
  defaultStallMs: 15 * 60_000,
  /** Gaps looked at: the newest progress lines only (the run's cadence now, not its first hour's). */
  window: 200,
  /** Gaps needed before the cadence is trusted. */
  minGaps: 8,
  /** Before the first progress line (model loading, Ray workers joining) silence is normal for longer. */
  startingStallMs: 20 * 60_000,
};

/** The longest gap between consecutive progress lines among the newest `window`, or undefined with too few. */
export function cadenceOf(times: number[], t = LIVENESS_DEFAULTS): number | undefined {
  const sorted = times.filter((x) => Number.isFinite(x)).sort((a, b) => a - b).slice(-t.window - 1);
  if (sorted.length < t.minGaps + 1) return undefined;
  let longest = 0;
  for (let i = 1; i < sorted.length; i++) longest = Math.max(longest, (sorted[i] as number) - (sorted[i - 1] as number));
  return longest > 0 ? longest : undefined;
}

export function stallThreshold(cadenceMs: number | undefined, phase: PhaseKind, t = LIVENESS_DEFAULTS): number {
  if (phase === 'starting' || phase === 'waiting_workers') return Math.max(t.startingStallMs, cadenceMs === undefined ? 0 : cadenceMs * t.cadenceFactor);
  if (cadenceMs === undefined) return t.defaultStallMs;
  return Math.min(t.maxStallMs, Math.max(t.minStallMs, cadenceMs * t.cadenceFactor));
}

export function deriveLiveness(i: LivenessInput, t = LIVENESS_DEFAULTS): Liveness {
  const cadenceMs = cadenceOf(i.progressTimes, t);
  const stallAfterMs = stallThreshold(cadenceMs, i.phase, t);
  const lastLineAgoMs = i.lastLineAt === undefined ? undefined : Math.max(0, i.now - i.lastLineAt);
  const base = { stallAfterMs, cadenceMs, lastLineAgoMs };
  const w = i.writer;
  const job = i.rayJob;
  const jobEnded = job && (job.status === 'SUCCEEDED' || job.status === 'FAILED' || job.status === 'STOPPED');
  // 1. An exit code is the plainest answer: the wrapper's exit file, the log's own exit line, Ray's driver exit code.
  const code = w?.exitCode ?? i.logExitCode ?? (jobEnded ? job.exitCode : undefined);
  if (code !== undefined) {
    const from = w?.exitCode !== undefined ? (w.source === 'registry' ? 'the run registry (exit file)' : 'the simulator') : i.logExitCode !== undefined ? 'the log' : `Ray job ${job?.id}`;
    if (code === 0 && i.phase !== 'failed') return { ...base, state: 'finished', exitCode: 0, why: `the launcher exited with code 0 (${from})` };
    return { ...base, state: 'exited', exitCode: code, why: `the launcher exited with code ${code} (${from})${w?.stopped ? ', stopped by the operator' : ''}` };
  }
  if (w?.stopped) return { ...base, state: 'exited', why: `stopped by the operator (${w.source === 'registry' ? 'train stop' : 'the simulator was stopped'})` };
  // 2. Ray's word on its job.
  if (jobEnded) {
    if (job.status === 'SUCCEEDED') return { ...base, state: 'finished', why: `Ray job ${job.id} SUCCEEDED` };
    if (job.status === 'STOPPED') return { ...base, state: 'exited', why: `Ray job ${job.id} STOPPED${job.message ? `: ${job.message}` : ''}` };
    return { ...base, state: 'crashed', why: `Ray job ${job.id} FAILED${job.message ? `: ${job.message}` : ''}` };
  }
  // 3. The log's own end.
  if (i.phase === 'finished') return { ...base, state: 'finished', why: 'the log reached its last rollout (or the job succeeded)' };
  if (i.phase === 'failed') return { ...base, state: 'crashed', why: `the log shows the run failed${i.phaseDetail ? `: ${i.phaseDetail}` : ''}` };
  // 4. The writer is gone without an exit code: killed (SIGKILL, OOM, node lost).
  if (w && !w.alive) {
    return { ...base, state: 'crashed', why: w.source === 'registry' ? `the launcher${w.pid ? ` (pid ${w.pid})` : ''} is gone and left no exit code (killed?)` : 'the simulator stopped writing live.json without finishing (its process ended?)' };
  }
  // 5. Alive (or nobody to ask): judged by the log's silence against the run's cadence.
  if (lastLineAgoMs !== undefined && lastLineAgoMs > stallAfterMs) {
    const who = w ? `the ${w.source === 'registry' ? 'launcher' : 'simulator'} is still running` : 'no writer known (not a registry run)';
    return { ...base, state: 'stalled', why: `no new line for ${formatAgeWords(lastLineAgoMs)} (stall after ${formatAgeWords(stallAfterMs)}${cadenceMs !== undefined ? `, 3× the longest recent gap ${formatAgeWords(cadenceMs)}` : ''}); ${who}` };
  }
  return { ...base, state: 'running', why: w ? `the ${w.source === 'registry' ? 'launcher' : 'simulator'} is running${lastLineAgoMs !== undefined ? `; last line ${formatAgeWords(lastLineAgoMs)} ago` : ''}` : `last line ${lastLineAgoMs === undefined ? '?' : formatAgeWords(lastLineAgoMs)} ago` };
}

/** `running`, `stalled`, `finished`, `crashed`, `exited (1)`. */
export function livenessLabel(l: Pick<Liveness, 'state' | 'exitCode'>): string {
  return l.state === 'exited' ? `exited${l.exitCode !== undefined ? ` (${l.exitCode})` : ' (stopped)'}` : l.state;
}

/**
 * `last line 42 s ago`; under 5 s `last line <5 s ago`, so that a healthy run's header does not change (and get
 * repainted over SSH) on every refresh.
 */
export function lastLineLabel(ms: number | undefined): string {
  if (ms === undefined) return 'no line yet';
  return ms < 5000 ? 'last line <5 s ago' : `last line ${formatAgeWords(ms)} ago`;
}

/** The `liveness` field of `monitor --once --json` (snake_case like the rest of the document). */
export function livenessJson(l: Liveness): Record<string, unknown> {
  return {
    state: l.state,
    label: livenessLabel(l),
    exit_code: l.exitCode ?? null,
    last_line_ago_s: l.lastLineAgoMs === undefined ? null : Math.round(l.lastLineAgoMs / 1000),
    stall_after_s: Math.round(l.stallAfterMs / 1000),
    cadence_s: l.cadenceMs === undefined ? null : Math.round(l.cadenceMs / 1000),
    why: l.why,
  };
}

/** Log times of the model's newest progress lines (samples, rollout summaries, train steps). */
export function progressTimesOf(m: Pick<RunModel, 'feed' | 'steps' | 'rollouts'>): number[] {
  const out: number[] = [];
  for (const f of m.feed.tail(300)) if (f.at !== undefined) out.push(f.at);
  const steps = [...m.steps.values()].slice(-50);
  for (const s of steps) if (s.at !== undefined) out.push(s.at);
  const rollouts = [...m.rollouts.values()].slice(-50);
  for (const r of rollouts) if (r.at !== undefined) out.push(r.at);
  return out;
}
