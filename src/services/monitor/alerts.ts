// Alerts derived from the run model and the live sources: error streaks (prime-rl halts after 10 consecutive
// errored rollouts), groups with no learning signal, no progress for too long, proxy down, sandbox quota near limit,
// fatal lines, failed phase.
import type { RunModel } from './runModel.js';
import { zeroStdGroups } from './runModel.js';
import type { ProxyHealth } from './proxy.js';
import type { SandboxSnapshot } from './sandboxes.js';
import type { GpuSample } from './gpu.js';
import { gpuLevels } from './gpu.js';
import type { Liveness } from './liveness.js';
import { hangAlerts } from './hangs.js';
import type { Alert } from '../../state/types/monitor.js';
export type { Alert } from '../../state/types/monitor.js';

export const ALERT_DEFAULTS = {
  errorStreak: 10,
  /** A rollout takes 30–90 min (recipe §1.7); silence much longer than a sample's turn is suspicious. */
  noProgressMs: 45 * 60_000,
  proxyFailures: 3,
  quotaPct: 90,
};

export interface AlertInputs {
  model: RunModel;
  now: number;
  proxy?: { last?: ProxyHealth; consecutiveFailures: number };
  sandboxes?: SandboxSnapshot;
  gpus?: GpuSample[];
  /** True while following a live log (no-progress alerts make no sense for a finished log read offline). */
  live: boolean;
  /** The run's liveness (liveness.ts): a stall is judged against the run's own cadence. */
  liveness?: Liveness;
}

export function computeAlerts(i: AlertInputs, t = ALERT_DEFAULTS): Alert[] {
  const out: Alert[] = [];
  const m = i.model;
  const phase = m.phase;
  if (phase.kind === 'failed') out.push({ id: 'failed', level: 'fail', text: `run failed: ${phase.detail ?? ''}`.trim() });
  if (m.errorStreak >= t.errorStreak) {
    out.push({ id: 'error-streak', level: 'fail', text: `${m.errorStreak} samples aborted in a row (sandbox or agent outage?)` });
  }
  const rs = m.sortedRollouts();
  const last = rs[rs.length - 1];
  if (last) {
    const zeroGroups = Number(last.metrics['rollout/zero_std/count_0.0'] ?? 0);
    const allZero = (typeof zeroGroups === 'number' && zeroGroups >= m.groupsPerRollout) || (last.samples.total > 0 && last.samples.reward_one === 0);
    if (allZero) out.push({ id: 'all-zero', level: 'warn', text: `rollout ${last.rollout}: every group scored 0 — no learning signal` });
    else if (zeroStdGroups(last.metrics) >= m.groupsPerRollout) out.push({ id: 'zero-std', level: 'warn', text: `rollout ${last.rollout}: every group has zero reward variance` });
    if (last.failures.failed_groups > 0) out.push({ id: 'failed-groups', level: 'warn', text: `rollout ${last.rollout}: ${last.failures.failed_groups} group(s) marked failed (no gradient)` });
  }
  // Beside the silence-based stall: what the log says hung, on which rank and node.
  out.push(...hangAlerts(m));
  const l = i.liveness;
  if (l && i.live && l.state === 'stalled') out.push({ id: 'no-progress', level: 'warn', text: `stalled: ${l.why}` });
  else if (!l && i.live && m.lastProgressClock !== undefined && (phase.kind === 'generating' || phase.kind === 'training')) {
    const idle = i.now - m.lastProgressClock;
    if (idle > t.noProgressMs) out.push({ id: 'no-progress', level: 'warn', text: `no progress in the log for ${Math.round(idle / 60_000)} min` });
  }
  if (l && l.state === 'crashed' && phase.kind !== 'failed') out.push({ id: 'crashed', level: 'fail', text: `run crashed: ${l.why}` });
  if (l && l.state === 'exited' && l.exitCode !== undefined && l.exitCode !== 0) out.push({ id: 'exited', level: 'fail', text: `run exited (${l.exitCode}): ${l.why}` });
  // Once the run has ended its proxy is expected to be gone: "agents cannot reach the model" would contradict the header.
  const ended = l && (l.state === 'finished' || l.state === 'exited' || l.state === 'crashed');
  if (i.proxy && i.proxy.consecutiveFailures >= t.proxyFailures && !ended) {
    out.push({ id: 'proxy-down', level: 'fail', text: `Dressage proxy /health failing (${i.proxy.last?.error ?? 'down'}); agents cannot reach the model` });
  }
  const sb = i.sandboxes;
  if (sb?.ok && sb.limit > 0) {
    const pct = (sb.rows.length / sb.limit) * 100;
    if (pct >= t.quotaPct) out.push({ id: 'quota', level: pct >= 100 ? 'fail' : 'warn', text: `E2B sandboxes ${sb.rows.length}/${sb.limit} (${Math.round(pct)}% of the plan limit)` });
  }
  for (const g of i.gpus ?? []) {
    const l = gpuLevels(g);
    if (l.temp === 'fail') out.push({ id: `gpu-temp-${g.index}`, level: 'fail', text: `GPU ${g.index} at ${g.temp}°C` });
    if (l.mem === 'fail') out.push({ id: `gpu-mem-${g.index}`, level: 'warn', text: `GPU ${g.index} memory nearly full` });
  }
  const fatal = m.fatal.last();
  if (fatal) out.push({ id: 'fatal', level: 'warn', text: `error in log: ${fatal.text.slice(0, 160)}` });
  return out;
}
