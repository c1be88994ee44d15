// A sandbox's own resource use as the sandbox service reports it (E2B's per-sandbox metrics), in words for the
// drill-in and `sandboxes list`: CPU, memory now and at its peak, and whether memory came close to the limit (a task
// killed for memory shows as a sandbox whose memory ran up to its total before it vanished). And how a sandbox
// ended: at its lifetime's end (`endAt`), or before it (killed or evicted).
import type { SandboxUsageSample } from './types.js';

export interface SandboxUsage {
  at: number;
  cpuPct: number;
  cpuCount: number;
  memUsed: number;
  memTotal: number;
  memPeak: number;
  /** Memory used at its peak, in percent of the total. */
  memPeakPct: number;
  /** The peak came within 5% of the total. */
  nearMemLimit: boolean;
  samples: number;
}

export const NEAR_MEM_LIMIT_PCT = 95;

export function summarizeUsage(samples: readonly SandboxUsageSample[]): SandboxUsage | undefined {
  const ok = samples.filter((s) => Number.isFinite(s.at) && s.memTotal > 0);
  const last = ok.reduce<SandboxUsageSample | undefined>((a, s) => (!a || s.at >= a.at ? s : a), undefined);
  if (!last) return undefined;
  const peak = Math.max(...ok.map((s) => s.memUsed));
  const peakPct = (100 * peak) / last.memTotal;
  return { at: last.at, cpuPct: last.cpuUsedPct, cpuCount: last.cpuCount, memUsed: last.memUsed, memTotal: last.memTotal, memPeak: peak, memPeakPct: peakPct, nearMemLimit: peakPct >= NEAR_MEM_LIMIT_PCT, samples: ok.length };
}

const gib = (b: number) => `${(b / 1024 ** 3).toFixed(b < 10 * 1024 ** 3 ? 1 : 0)}G`;

export function usageLine(u: SandboxUsage): string {
  return `cpu ${u.cpuPct.toFixed(0)}% of ${u.cpuCount} · mem ${gib(u.memUsed)}/${gib(u.memTotal)} (peak ${u.memPeakPct.toFixed(0)}%)${u.nearMemLimit ? ' · ran out of memory?' : ''}`;
}

export type SandboxEnding = { kind: 'timeout'; detail: string } | { kind: 'early'; detail: string } | { kind: 'unknown'; detail: string };

/**
 * How a sandbox that left the list ended: `goneAt` is the first listing it was missing from, `seenAt` the last one
 * that had it. Gone after its endAt (within one listing): it reached its timeout. Gone while its endAt was still
 * ahead: something ended it early — killed (by Dressage when its sample finished, or by hand) or evicted by E2B.
 */
export function sandboxEnding(o: { endAt: number | undefined; seenAt: number; goneAt: number }): SandboxEnding {
  if (o.endAt === undefined || !Number.isFinite(o.endAt)) return { kind: 'unknown', detail: 'ended (no endAt known)' };
  if (o.endAt <= o.goneAt && o.endAt >= o.seenAt - 1000) return { kind: 'timeout', detail: `reached its timeout (endAt ${new Date(o.endAt).toISOString()})` };
  if (o.endAt < o.seenAt - 1000) return { kind: 'timeout', detail: `ran past its endAt (${new Date(o.endAt).toISOString()}) and then ended` };
  const early = Math.round((o.endAt - o.goneAt) / 1000);
  return { kind: 'early', detail: `ended ${early >= 120 ? `${Math.round(early / 60)} min` : `${early} s`} before its timeout: killed (sample finished, or by hand) or evicted` };
}
