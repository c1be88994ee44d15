// The cluster's GPUs from Ray's Prometheus metrics, for when the dashboard's private `/nodes?view=summary` is gone or
// changed. From Ray's source (python/ray/dashboard/modules/reporter/reporter_agent.py and metrics_head.py):
// - every node's reporter agent exports gauges on its metrics export port (`ray start --metrics-export-port`), named
//   with Ray's `ray_` prefix: ray_node_gpus_utilization (percent), ray_node_gram_used and ray_node_gram_available
//   (the GPU's memory as gpustat reports it, MiB — Ray's Grafana panels scale them by 1024²), labelled ip,
//   SessionName, GpuIndex, GpuDeviceName;
// - the dashboard lists those endpoints for Prometheus's HTTP service discovery: GET /api/prometheus/sd →
//   [{"labels": {"job": "ray"}, "targets": ["<ip>:<port>", …]}].
// SWEGYM_RAY_METRICS (comma-separated host:port or URLs) names the endpoints instead (a laptop tunnels them).
import type { GpuSample } from '../../state/types/monitor.js';
import { setting } from '../config/envSettings.js';

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/g;

/** The Prometheus text exposition format (0.0.4): one sample per line; comments and malformed lines skipped. */
export function parsePrometheusText(text: string, only?: ReadonlySet<string>): PromSample[] {
  const out: PromSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const name = m[1] as string;
    if (only && !only.has(name)) continue;
    const labels: Record<string, string> = {};
    if (m[3]) {
      for (const l of m[3].matchAll(LABEL)) labels[l[1] as string] = (l[2] as string).replace(/\\(["\\n])/g, (_x, c: string) => (c === 'n' ? '\n' : c));
    }
    const v = m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]);
    if (Number.isNaN(v) && m[4] !== 'NaN') continue;
    out.push({ name, labels, value: v });
  }
  return out;
}

export const GPU_METRICS = new Set(['ray_node_gpus_utilization', 'ray_node_gram_used', 'ray_node_gram_available']);

export interface MetricsNode {
  ip: string;
  gpus: GpuSample[];
}

/** Per node (ip label) and GPU (GpuIndex label): utilization and memory. */
export function gpusFromMetrics(samples: PromSample[]): MetricsNode[] {
  const nodes = new Map<string, Map<number, { name: string; util?: number; used?: number; avail?: number }>>();
  for (const s of samples) {
    if (!GPU_METRICS.has(s.name)) continue;
    const ip = s.labels['ip'] ?? '';
    const index = Number(s.labels['GpuIndex']);
    if (!Number.isInteger(index) || index < 0) continue;
    let gpus = nodes.get(ip);
    if (!gpus) nodes.set(ip, (gpus = new Map()));
    const g = gpus.get(index) ?? { name: s.labels['GpuDeviceName'] ?? '' };
    gpus.set(index, g);
    if (s.name === 'ray_node_gpus_utilization') g.util = s.value;
    else if (s.name === 'ray_node_gram_used') g.used = s.value;
    else g.avail = s.value;
  }
  return [...nodes].map(([ip, gpus]) => ({
    ip,
    gpus: [...gpus]
      .sort((a, b) => a[0] - b[0])
      .map(([index, g]) => {
        const total = g.used !== undefined && g.avail !== undefined ? g.used + g.avail : undefined;
        return { index, uuid: '', name: g.name, util: g.util, memUtil: undefined, memTotal: total, memUsed: g.used, memFree: g.avail, temp: undefined, power: undefined, powerLimit: undefined, smClock: undefined, memClock: undefined, fan: undefined, pstate: undefined };
      }),
  }));
}

/** host:port or a URL → the endpoint's /metrics URL. */
export function metricsUrl(target: string): string {
  const t = target.trim();
  if (/^https?:\/\//.test(t)) return /\/metrics$/.test(t) ? t : `${t.replace(/\/+$/, '')}/metrics`;
  return `http://${t}/metrics`;
}

export function targetsFromEnv(env: NodeJS.ProcessEnv): string[] {
  return setting(env, 'SWEGYM_RAY_METRICS');
}

/** GET /api/prometheus/sd's target list (every group's targets). */
export function targetsFromServiceDiscovery(json: unknown): string[] {
  if (!Array.isArray(json)) throw new Error('the service discovery answer is not a list');
  const out: string[] = [];
  for (const g of json) for (const t of (g as { targets?: unknown })?.targets instanceof Array ? ((g as { targets: unknown[] }).targets) : []) if (typeof t === 'string') out.push(t);
  return out;
}
