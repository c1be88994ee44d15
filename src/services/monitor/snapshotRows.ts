// The parts of the dashboard's snapshot that are pure functions of the run model (rollout rows, the sample feed,
// the task table) and of a drilled-into sandbox: bounded to what the panels can show, log text redacted.
import type { RolloutRow, FeedRow, TaskRow, SandboxStreamView } from '../../state/monitor.js';
import type { Sandbox } from '../sandbox/types.js';
import { countsText, type StreamJsonProgress } from '../agent/streamJson.js';
import type { StreamEventView } from './sandboxes.js';
import type { TrajectoryView } from './offline.js';
import { zeroStdGroups, type RunModel } from './runModel.js';
import { metricNumber } from './lines.js';
import { redact } from '../secrets.js';

type RolloutRecord = ReturnType<RunModel['sortedRollouts']>[number];
type TaskSummary = ReturnType<RunModel['taskSummary']>;

/** The newest 500 rollouts with their top failure reasons. */
export function rolloutRows(rs: RolloutRecord[]): RolloutRow[] {
  return rs.slice(-500).map((r) => {
      const reasons = Object.entries(r.samples.by_reason)
        .filter(([k]) => k !== '')
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([k, n]) => `${k}:${n}`)
        .join(' ');
      return {
        rollout: r.rollout,
        samples: r.samples.total,
        resolved: r.samples.total ? r.samples.reward_one / r.samples.total : NaN,
        rawTrajMean: metricNumber(r.metrics['rollout/raw_reward_trajectory_mean']),
        topReasons: reasons,
        zeroStd: zeroStdGroups(r.metrics),
        failedGroups: r.failures.failed_groups,
        aborted: r.failures.aborted_samples,
        earlyStops: Object.values(r.failures.early_stops).reduce((a, b) => a + b, 0),
        groups: r.groups,
      };
  });
}

/** The sample feed: the newest 300 samples. */
export function feedRows(m: RunModel): FeedRow[] {
  return m.feed.tail(300).map((f) => ({
      rollout: f.rollout,
      at: f.at,
      reward: f.sample.reward,
      raw: f.sample.raw,
      integrity: f.sample.integrity,
      instance: f.sample.instance,
      f2p: f.sample.f2p ? `${f.sample.f2p[0]}/${f.sample.f2p[1]}` : '?',
      p2p: f.sample.p2p ? `${f.sample.p2p[0]}/${f.sample.p2p[1]}` : '?',
      reason: f.sample.reason,
  }));
}

/** Task rows a snapshot carries. */
const TASK_ROWS = 1000;

/** Tasks by solve rate (best first), 1000 at most, with their recent attempts as a strip. */
export function taskRowsOf(ts: TaskSummary): TaskRow[] {
  // The order of `b.rate - a.rate || a.instance.localeCompare(b.instance)`, on the tasks that can be in the first
  // TASK_ROWS: those whose rate is at least the TASK_ROWS-th best rate (sorting all 20,000 tasks with the collator
  // took ≈ 150 ms, most of a dashboard snapshot on a large run).
  let rows = ts.tasks.map((t) => ({ t, rate: t.solved / Math.max(1, t.attempts) }));
  if (rows.length > TASK_ROWS) {
    const rates = Float64Array.from(rows, (r) => r.rate).sort();
    const cutoff = rates[rates.length - TASK_ROWS] as number;
    rows = rows.filter((r) => r.rate >= cutoff);
  }
  return rows
      .sort((a, b) => b.rate - a.rate || a.t.instance.localeCompare(b.t.instance))
      .slice(0, TASK_ROWS)
      .map(({ t }) => ({
        instance: t.instance,
        attempts: t.attempts,
        solved: t.solved,
        recent: t.recent.text(),
      }));
}

/** The drilled-into sandbox: its log while it runs, its trajectory files once the sample finished. */
export interface DrillStream {
  id: string;
  trajectoryId: string | undefined;
  sandbox?: Sandbox;
  events: StreamEventView[];
  steps: number | undefined;
  error: string | undefined;
  agent?: StreamJsonProgress;
  transcript?: TrajectoryView;
  relistedAt?: number;
  /** The sandbox service's CPU/memory of it (E2B metrics), in words; and how it ended once it left the list. */
  usage?: string;
  ending?: string;
}

/** The agent-log summary's counts line, for the drill-in (the same words, from the same reader). */
export const agentCounts = (a: StreamJsonProgress): string => countsText(a);

export function streamSnapshot(s: DrillStream): SandboxStreamView {
  const a = s.agent;
  const lastRetry = a?.apiRetries.at(-1);
  return {
    id: s.id,
    trajectoryId: s.trajectoryId,
    events: s.events.slice(-300).map((e) => ({ ...e, text: redact(e.text) })),
    steps: s.steps,
    error: s.error,
    agent: a
      ? {
          status: a.status,
          cause: a.cause ? redact(a.cause) : undefined,
          apiRetries: a.apiRetries.length,
          lastRetryStatus: lastRetry ? lastRetry.error_status : undefined,
          apiErrorStatus: a.apiErrorStatus,
          permissionDenials: a.permissionDenials.length,
          counts: agentCounts(a),
          results: a.results,
          openTasks: a.openTasks,
        }
      : undefined,
    transcript: s.transcript,
    ...(s.usage ? { usage: s.usage } : {}),
    ...(s.ending ? { ending: s.ending } : {}),
  };
}
