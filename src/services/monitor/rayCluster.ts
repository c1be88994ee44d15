// The run's Ray cluster as Ray's dashboard (on the head node, :8265 by default; Dressage's launchers start it with
// `ray start --head --dashboard-port=8265`) reports it: every node's GPUs, and the job's status and exit code.
//
// What this relies on, from Ray's source (ray-project/ray):
// - GET /nodes?view=summary — dashboard/modules/node/node_head.py `get_all_nodes`: rest_response(success, message,
//   summary=[…]) → {"result": true, "msg": "Node summary fetched.", "data": {"summary": [NodeDetail…]}}; the data
//   keys are camelCased (dashboard/utils.py to_google_style). One NodeDetail per node (dashboard/client/src/type/
//   node.d.ts): hostname, ip, raylet {nodeId, state "ALIVE"|"DEAD", isHeadNode}, gpus [GPUStats]. GPUStats comes
//   from the node's reporter agent (dashboard/modules/reporter/reporter_agent.py `_get_gpu_usage`, gpustat's entry
//   with "." turned into "_", then camelCased): index, uuid, name, utilizationGpu (%, may be null), memoryUsed and
//   memoryTotal (MiB, as gpustat reports them), temperatureGpu (°C), powerDraw and enforcedPowerLimit (W).
// - GET /api/jobs/ — dashboard/modules/job/job_head.py list_jobs → a JSON list of JobDetails
//   (dashboard/modules/job/pydantic_models.py): type "SUBMISSION"|"DRIVER", submission_id, job_id, status
//   (common.py JobStatus: PENDING RUNNING STOPPED SUCCEEDED FAILED), message, start_time / end_time (ms),
//   driver_exit_code (None until the driver ends). GET /api/jobs/{submission_id} → one JobDetails.
// The Prometheus gauges of the same agent (ray_node_gpus_utilization, ray_node_gram_used, labels ip/GpuIndex/
// GpuDeviceName) carry the same numbers per GPU; the summary is used because it also names the head and node state.
import type { GpuSample } from './gpu.js';
import type { RayJobState, RayJobStatus } from './liveness.js';
import { RAY_DASHBOARD_PORT } from '../recipe.js';
import { GPU_METRICS, gpusFromMetrics, metricsUrl, parsePrometheusText, targetsFromEnv, targetsFromServiceDiscovery } from '../ray/prometheus.js';

export interface RayClusterNode {
  id: string;
  ip: string;
  hostname: string;
  state: string;
  isHead: boolean;
  gpus: GpuSample[];
}

/** `via`: where a good answer came from, in words (the GPU panel says it). */
export type RayResult<T> = { ok: true; value: T; via?: string } | { ok: false; error: string };

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

function gpuOf(g: Record<string, unknown>, fallbackIndex: number): GpuSample {
  const memUsed = num(g['memoryUsed']);
  const memTotal = num(g['memoryTotal']);
  return {
    index: num(g['index']) ?? fallbackIndex,
    uuid: text(g['uuid']),
    name: text(g['name']),
    util: num(g['utilizationGpu']),
    memUtil: undefined,
    memTotal,
    memUsed,
    memFree: memTotal !== undefined && memUsed !== undefined ? memTotal - memUsed : undefined,
    temp: num(g['temperatureGpu']),
    power: num(g['powerDraw']),
    powerLimit: num(g['enforcedPowerLimit']),
    smClock: undefined,
    memClock: undefined,
    fan: num(g['fanSpeed']),
    pstate: undefined,
  };
}

/** The `/nodes?view=summary` document → nodes with their GPUs (head first, then by ip). */
export function parseNodeSummary(json: unknown): RayClusterNode[] {
  const list = (json as { data?: { summary?: unknown } } | null)?.data?.summary;
  if (!Array.isArray(list)) throw new Error('no data.summary list in the answer (not a Ray dashboard?)');
  const nodes = list.slice(0, 1024).map((n: Record<string, any>) => {
    const raylet = (n?.['raylet'] ?? {}) as Record<string, unknown>;
    const gpus = Array.isArray(n?.['gpus']) ? (n['gpus'] as Record<string, unknown>[]).slice(0, 64).map((g, i) => gpuOf(g ?? {}, i)) : [];
    return {
      id: text(raylet['nodeId']),
      ip: text(n?.['ip'] ?? raylet['nodeManagerAddress']),
      hostname: text(n?.['hostname'] ?? raylet['nodeManagerHostname']),
      state: text(raylet['state'] ?? n?.['state']) || 'UNKNOWN',
      isHead: raylet['isHeadNode'] === true,
      gpus: gpus.sort((a, b) => a.index - b.index),
    };
  });
  return nodes.sort((a, b) => Number(b.isHead) - Number(a.isHead) || a.ip.localeCompare(b.ip, undefined, { numeric: true }));
}

const JOB_STATES: readonly RayJobState[] = ['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED'];

function jobOf(j: Record<string, unknown>): (RayJobStatus & { type: string; startTime: number }) | undefined {
  const status = text(j['status']).toUpperCase() as RayJobState;
  if (!JOB_STATES.includes(status)) return undefined;
  const id = text(j['submission_id']) || text(j['job_id']);
  if (!id) return undefined;
  return { id, status, exitCode: num(j['driver_exit_code']), message: text(j['message']) || undefined, type: text(j['type']), startTime: num(j['start_time']) ?? 0 };
}

/** The `/api/jobs/` list → the run's job: the one named, else the newest submission job. */
export function pickRayJob(json: unknown, id?: string): RayJobStatus | undefined {
  const list = Array.isArray(json) ? json : [];
  const jobs = list.map((j) => jobOf((j ?? {}) as Record<string, unknown>)).filter((j): j is NonNullable<typeof j> => j !== undefined);
  const chosen = id ? jobs.find((j) => j.id === id) : jobs.filter((j) => j.type === 'SUBMISSION').sort((a, b) => b.startTime - a.startTime)[0];
  if (!chosen) return undefined;
  return { id: chosen.id, status: chosen.status, exitCode: chosen.exitCode, message: chosen.message };
}

async function getJson(base: string, pathAndQuery: string, opts: { timeoutMs?: number; fetchImpl?: typeof fetch }): Promise<RayResult<unknown>> {
  const url = `${base.replace(/\/+$/, '')}${pathAndQuery}`;
  try {
    const res = await (opts.fetchImpl ?? fetch)(url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 3000), headers: { accept: 'application/json' } });
    if (!res.ok) return { ok: false, error: `Ray dashboard answered HTTP ${res.status} for ${pathAndQuery}` };
    return { ok: true, value: await res.json() };
  } catch (err) {
    const e = err as Error;
    return { ok: false, error: `Ray dashboard not reachable at ${base} (${e.name === 'TimeoutError' ? 'no answer within 3 s' : e.message})` };
  }
}

/** The panel's words for its source (short: the panel's title is half a terminal wide). */
export const VIA_SUMMARY = 'node summary';
export const VIA_METRICS = 'Prometheus';

/**
 * The cluster's GPUs: the dashboard's node summary (a private API, but it names the head and each node's state),
 * else Ray's Prometheus metrics (ray/prometheus.ts) from the endpoints in SWEGYM_RAY_METRICS or, without it, those
 * the dashboard lists for Prometheus's service discovery.
 */
export async function fetchClusterGpus(dashboardUrl: string, opts: { timeoutMs?: number; fetchImpl?: typeof fetch; env?: NodeJS.ProcessEnv } = {}): Promise<RayResult<RayClusterNode[]>> {
  const r = await getJson(dashboardUrl, '/nodes?view=summary', opts);
  let summaryError: string;
  if (r.ok) {
    try {
      return { ok: true, value: parseNodeSummary(r.value), via: VIA_SUMMARY };
    } catch (err) {
      summaryError = `Ray dashboard at ${dashboardUrl}: ${(err as Error).message}`;
    }
  } else summaryError = r.error;
  const m = await fetchGpusFromMetrics(dashboardUrl, opts);
  return m.ok ? m : { ok: false, error: `${summaryError}; ${m.error}` };
}

async function fetchGpusFromMetrics(dashboardUrl: string, opts: { timeoutMs?: number; fetchImpl?: typeof fetch; env?: NodeJS.ProcessEnv }): Promise<RayResult<RayClusterNode[]>> {
  let targets = targetsFromEnv(opts.env ?? process.env);
  if (!targets.length) {
    const sd = await getJson(dashboardUrl, '/api/prometheus/sd', opts);
    if (!sd.ok) return { ok: false, error: `no Prometheus metrics either (${sd.error}; SWEGYM_RAY_METRICS names the endpoints)` };
    try {
      targets = targetsFromServiceDiscovery(sd.value);
    } catch (err) {
      return { ok: false, error: `no Prometheus metrics either (${(err as Error).message})` };
    }
  }
  if (!targets.length) return { ok: false, error: 'no Prometheus metrics either (no endpoint listed)' };
  const texts = await Promise.all(
    targets.slice(0, 256).map(async (t) => {
      try {
        const res = await (opts.fetchImpl ?? fetch)(metricsUrl(t), { signal: AbortSignal.timeout(opts.timeoutMs ?? 3000) });
        return res.ok ? { ok: true as const, text: await res.text() } : { ok: false as const, error: `${t}: HTTP ${res.status}` };
      } catch (err) {
        return { ok: false as const, error: `${t}: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}` };
      }
    }),
  );
  const good = texts.filter((x) => x.ok);
  if (!good.length) return { ok: false, error: `no Prometheus metrics either (${texts.map((x) => (x.ok ? '' : x.error)).join('; ')})` };
  const nodes = gpusFromMetrics(good.flatMap((x) => parsePrometheusText(x.text, GPU_METRICS)));
  const failed = texts.length - good.length;
  return {
    ok: true,
    // Metrics name no head and no node state: nodes are listed by ip, each as alive.
    via: `${VIA_METRICS} ${good.length}/${texts.length}${failed ? ` (${failed} not reachable)` : ''}`,
    value: nodes
      .map((n) => ({ id: n.ip, ip: n.ip, hostname: n.ip, state: 'ALIVE', isHead: false, gpus: n.gpus }))
      .sort((a, b) => a.ip.localeCompare(b.ip, undefined, { numeric: true })),
  };
}

export async function fetchRayJobStatus(dashboardUrl: string, id: string | undefined, opts: { timeoutMs?: number; fetchImpl?: typeof fetch } = {}): Promise<RayResult<RayJobStatus | undefined>> {
  const r = await getJson(dashboardUrl, '/api/jobs/', opts);
  if (!r.ok) return r;
  return { ok: true, value: pickRayJob(r.value, id) };
}

/** The dashboard URL: an http RAY_ADDRESS (what `ray job` uses), else the head's default :8265. */
export function rayDashboardUrlFrom(env: NodeJS.ProcessEnv, explicit?: string): string {
  if (explicit) return explicit;
  const a = (env.RAY_ADDRESS ?? '').trim();
  return /^https?:\/\//.test(a) ? a : `http://127.0.0.1:${RAY_DASHBOARD_PORT}`;
}
