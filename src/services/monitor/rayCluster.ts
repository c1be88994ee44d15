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

export interface RayClusterNode {
  id: string;
  ip: string;
  hostname: string;
  state: string;
  isHead: boolean;
  gpus: GpuSample[];
}

export type RayResult<T> = { ok: true; value: T } | { ok: false; error: string };

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

export async function fetchClusterGpus(dashboardUrl: string, opts: { timeoutMs?: number; fetchImpl?: typeof fetch } = {}): Promise<RayResult<RayClusterNode[]>> {
  const r = await getJson(dashboardUrl, '/nodes?view=summary', opts);
  if (!r.ok) return r;
  try {
    return { ok: true, value: parseNodeSummary(r.value) };
  } catch (err) {
    return { ok: false, error: `Ray dashboard at ${dashboardUrl}: ${(err as Error).message}` };
  }
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
