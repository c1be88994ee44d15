// The GPUs panel's data: every node of the Ray cluster with its GPUs and their histories when the Ray dashboard
// answers; this node's nvidia-smi otherwise (labelled as one node's). History columns cover the same time either
// way (10 s), so a sparkline reads the same whichever source fills it.
import { gpuLevels, type GpuSample, type GpuHistory } from './gpu.js';
import type { Alert } from './alerts.js';
import type { RayClusterNode, RayResult } from './rayCluster.js';
import { NumberRing } from './ring.js';
import type { GpuNodeView, GpuPanelView } from '../../state/types/monitor.js';
export type { GpuNodeView, GpuPanelView, GpuRowView } from '../../state/types/monitor.js';

/** Seconds of run time per sparkline column. */
export const GPU_COLUMN_SECONDS = 10;

/** Failed polls in a row after which the cluster's last reading is no longer shown (this node's is). */
export const STALE_POLLS = 3;

/** Capped per-GPU histories of the cluster (keyed node id + GPU index), fed by each poll of the Ray dashboard. */
export class ClusterGpuHistory {
  nodes: RayClusterNode[] = [];
  error: string | undefined;
  /** Where the last good reading came from (fetchClusterGpus's `via`). */
  via: string | undefined;
  private lastAt: number | undefined;
  private readonly rows = new Map<string, { util: NumberRing; mem: NumberRing }>();
  private pollMs = 5000;

  constructor(private readonly cap = 600) {}

  /** Consecutive failed polls: the last reading is kept through a blip, dropped after `STALE_POLLS`. */
  private failures = 0;

  ingest(r: RayResult<RayClusterNode[]>, now: number): void {
    if (!r.ok) {
      this.error = r.error;
      if (++this.failures >= STALE_POLLS) {
        this.nodes = [];
        this.rows.clear();
      }
      return;
    }
    this.failures = 0;
    this.error = undefined;
    this.via = r.via;
    if (this.lastAt !== undefined && now > this.lastAt) this.pollMs = 0.8 * this.pollMs + 0.2 * (now - this.lastAt);
    this.lastAt = now;
    this.nodes = r.value;
    const seen = new Set<string>();
    for (const n of r.value) {
      for (const g of n.gpus) {
        const key = `${n.id || n.ip}#${g.index}`;
        seen.add(key);
        let h = this.rows.get(key);
        if (!h) {
          if (this.rows.size >= 1024) continue;
          h = { util: new NumberRing(this.cap), mem: new NumberRing(this.cap) };
          this.rows.set(key, h);
        }
        h.util.push(g.util ?? NaN);
        h.mem.push(g.memTotal && g.memUsed !== undefined ? (g.memUsed / g.memTotal) * 100 : NaN);
      }
    }
    for (const k of this.rows.keys()) if (!seen.has(k)) this.rows.delete(k);
  }

  get gpuCount(): number {
    return this.nodes.reduce((a, n) => a + n.gpus.length, 0);
  }

  /** Polls per 10 s column at the observed poll rate. */
  private bucket(): number {
    return Math.max(1, Math.round((GPU_COLUMN_SECONDS * 1000) / Math.max(250, this.pollMs)));
  }

  view(columns: number): GpuNodeView[] {
    const b = this.bucket();
    return this.nodes.map((n) => ({
      label: n.hostname || n.ip || n.id.slice(0, 12),
      ip: n.ip || undefined,
      isHead: n.isHead,
      state: n.state,
      gpus: n.gpus.map((g) => {
        const h = this.rows.get(`${n.id || n.ip}#${g.index}`);
        return { sample: g, util: h ? h.util.bucketMeans(b).slice(-columns) : [], mem: h ? h.mem.bucketMeans(b).slice(-columns) : [] };
      }),
    }));
  }
}

/** The panel's view: the cluster when Ray gave GPUs, else this node's nvidia-smi. */
export function gpuPanelView(cluster: ClusterGpuHistory, local: { latest: GpuSample[]; history: Map<number, GpuHistory>; error: string | undefined; bucket: number }, localLabel: string, columns = 120): GpuPanelView {
  if (cluster.gpuCount > 0) {
    const nodes = cluster.view(columns);
    // Through a failed poll or two the last reading stays, said to be such.
    return { source: 'ray', label: `Ray cluster · ${nodes.length} node${nodes.length === 1 ? '' : 's'} · ${cluster.gpuCount} GPUs${cluster.via ? ` · via ${cluster.via}` : ''}`, nodes, note: cluster.error ? `last reading; now ${cluster.error}` : undefined, columnSeconds: GPU_COLUMN_SECONDS };
  }
  const gpus = local.latest.map((g) => {
    const h = local.history.get(g.index);
    return { sample: g, util: h ? h.util.bucketMeans(local.bucket).slice(-columns) : [], mem: h ? h.mem.bucketMeans(local.bucket).slice(-columns) : [] };
  });
  const nodes: GpuNodeView[] = gpus.length ? [{ label: localLabel, ip: undefined, isHead: false, state: 'local', gpus }] : [];
  const note = [cluster.error ? `Ray: ${cluster.error}` : cluster.nodes.length ? 'Ray reports no GPUs' : undefined, local.error && !gpus.length ? local.error : undefined].filter(Boolean).join(' · ') || undefined;
  return { source: 'nvidia-smi', label: `${localLabel} only`, nodes, note, columnSeconds: GPU_COLUMN_SECONDS };
}

/** The GPU alerts of the whole cluster (as computeAlerts gives them for one node), named by node. */
export function clusterGpuAlerts(v: GpuPanelView): Alert[] {
  const out: Alert[] = [];
  for (const n of v.nodes) {
    if (n.state !== 'ALIVE' && n.state !== 'local') out.push({ id: `node-${n.label}`, level: 'fail', text: `Ray node ${n.label} is ${n.state}` });
    for (const { sample: g } of n.gpus) {
      const l = gpuLevels(g);
      if (l.temp === 'fail') out.push({ id: `gpu-temp-${n.label}-${g.index}`, level: 'fail', text: `GPU ${g.index} of ${n.label} at ${g.temp}°C` });
      if (l.mem === 'fail') out.push({ id: `gpu-mem-${n.label}-${g.index}`, level: 'warn', text: `GPU ${g.index} of ${n.label} memory nearly full` });
    }
  }
  return out;
}
