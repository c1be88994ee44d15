// Hang signatures in a run's log (lines.ts classifyHang: torch's ProcessGroupNCCL watchdog timeouts, its heartbeat
// monitor, NCCL errors), summed up per signature with the ranks and nodes that printed them. A stall is otherwise
// only seen as silence (liveness.ts), 3× the run's cadence later; the watchdog says at once which collective hung on
// which rank. Progress logged after a signature (a step or rollout line) means the run got past it.
import type { HangRecord, RunModel } from './runModel.js';
import type { HangSignature } from './lines.js';
import type { Alert } from '../../state/types/monitor.js';

export interface HangSummary {
  signature: HangSignature;
  ranks: number[];
  nodes: string[];
  /** Lines of this signature since the last progress. */
  lines: number;
  /** Log time of the first of them (epoch ms), when the line had one. */
  firstAt: number | undefined;
  detail: string;
  text: string;
}

const ORDER: HangSignature[] = ['nccl-watchdog-timeout', 'nccl-heartbeat-timeout', 'nccl-error'];

/** The hang signatures logged since the run's last progress, one summary per signature. */
export function activeHangs(model: RunModel): HangSummary[] {
  const progress = model.steps.count + model.rollouts.count;
  const recent: HangRecord[] = model.hangs.tail(model.hangs.size).filter((h) => h.progress === progress);
  const out: HangSummary[] = [];
  for (const signature of ORDER) {
    const hs = recent.filter((h) => h.signature === signature);
    const first = hs[0];
    if (!first) continue;
    const ranks = [...new Set(hs.map((h) => h.rank).filter((r): r is number => r !== undefined))].sort((a, b) => a - b);
    const nodes = [...new Set(hs.map((h) => h.node).filter((n): n is string => Boolean(n)))].sort();
    // The collective's detail from a line that has one (the `what():` echo of a watchdog line may lack it).
    const detail = hs.find((h) => /SeqNum|ran \d/.test(h.detail))?.detail ?? first.detail;
    out.push({ signature, ranks, nodes, lines: hs.reduce((n, h) => n + h.repeat, 0), firstAt: hs.find((h) => h.at !== undefined)?.at, detail, text: first.text });
  }
  return out;
}

function list(items: readonly (string | number)[], max: number): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/** `rank 3 on 10.0.0.2`, `ranks 0, 1, 2, 3 on 10.0.0.2, 10.0.0.3`. */
export function whereText(h: Pick<HangSummary, 'ranks' | 'nodes'>): string {
  const ranks = h.ranks.length === 0 ? 'a rank' : h.ranks.length === 1 ? `rank ${h.ranks[0]}` : `ranks ${list(h.ranks, 8)}`;
  const nodes = h.nodes.length === 0 ? '' : ` on ${h.nodes.length === 1 ? 'node ' : 'nodes '}${list(h.nodes, 4)}`;
  return ranks + nodes;
}

export function hangText(h: HangSummary): string {
  // The Python logging time when the line had one, else torch's own (glog: `[E1201 10:15:32.123…`, no year).
  const glog = /\[[EFW](\d\d)(\d\d) (\d\d:\d\d:\d\d)/.exec(h.text);
  const at = h.firstAt !== undefined ? ` at ${new Date(h.firstAt).toISOString().slice(11, 19)}` : glog ? ` at ${glog[3]} (${glog[1]}-${glog[2]})` : '';
  switch (h.signature) {
    case 'nccl-watchdog-timeout':
      return `NCCL watchdog timeout on ${whereText(h)}${at}: ${h.detail} — a collective hung; torch takes the process down (NCCL_TIMEOUT_MS, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC)`;
    case 'nccl-heartbeat-timeout':
      return `NCCL heartbeat monitor timed out on ${whereText(h)}${at}: ${h.detail} (a CUDA or NCCL call hangs); the process is terminated`;
    case 'nccl-error':
      return `NCCL error on ${whereText(h)}${at}: ${h.detail || 'see the log'}`;
  }
}

export function hangAlerts(model: RunModel): Alert[] {
  return activeHangs(model).map((h) => ({ id: `hang-${h.signature}`, level: 'fail' as const, text: hangText(h) }));
}

/** The `hangs` section of `monitor --once --json`. */
export function hangsJson(model: RunModel): Record<string, unknown>[] {
  return activeHangs(model).map((h) => ({ signature: h.signature, ranks: h.ranks, nodes: h.nodes, lines: h.lines, first_at: h.firstAt === undefined ? null : new Date(h.firstAt).toISOString(), detail: h.detail, text: h.text }));
}
