// Ray's Jobs REST API on the head's dashboard port (8265; Dressage's launchers submit with
// `ray job submit --address=http://127.0.0.1:${RAY_DASHBOARD_PORT}`): the job's status, its logs (whole, or followed)
// and stop, over plain HTTP, so a console with only an SSH tunnel to the head (`ssh -L 8265:127.0.0.1:8265 head`)
// needs no local `ray`. From Ray's source (python/ray/dashboard/modules/job/):
// - job_head.py routes: GET /api/jobs/ (list of JobDetails), GET /api/jobs/{job_or_submission_id} (JobDetails, or
//   404 "Job {id} does not exist"), GET /api/jobs/{id}/logs → JobLogsResponse, WS /api/jobs/{id}/logs/tail (text
//   messages of log lines; closed when the job's log ends), POST /api/jobs/{id}/stop → JobStopResponse.
// - common.py: JobLogsResponse {logs: str}; JobStopResponse {stopped: bool} (false: the job was not running);
//   JobStatus PENDING RUNNING STOPPED SUCCEEDED FAILED (the last three terminal).
// - pydantic_models.py JobDetails: type SUBMISSION|DRIVER, job_id, submission_id, status, entrypoint, message,
//   error_type, start_time / end_time (ms), driver_exit_code (None until the driver ends).
import { RAY_DASHBOARD_PORT } from '../recipe.js';
import { setting } from '../config/envSettings.js';

export type RayJobState = 'PENDING' | 'RUNNING' | 'STOPPED' | 'SUCCEEDED' | 'FAILED';
const STATES: readonly RayJobState[] = ['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED'];
export const TERMINAL_STATES: ReadonlySet<RayJobState> = new Set(['STOPPED', 'SUCCEEDED', 'FAILED']);

export interface RayJobDetails {
  submissionId: string;
  jobId: string | undefined;
  type: string;
  status: RayJobState;
  message: string | undefined;
  entrypoint: string | undefined;
  startTime: number | undefined;
  endTime: number | undefined;
  driverExitCode: number | undefined;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: string; status?: number };

export interface ApiOptions {
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
  signal?: AbortSignal;
}

/** A Ray job submission id as `ray job submit` makes them. */
export const SUBMISSION_ID = /^raysubmit_[A-Za-z0-9]+$/;

/** The dashboard URL: SWEGYM_RAY_DASHBOARD, else an http(s) RAY_ADDRESS (what `ray job` reads), else :8265 here. */
export function dashboardUrl(env: NodeJS.ProcessEnv): string {
  const own = setting(env, 'SWEGYM_RAY_DASHBOARD');
  if (own) return own.replace(/\/+$/, '');
  const a = (env.RAY_ADDRESS ?? '').trim();
  return /^https?:\/\//.test(a) ? a.replace(/\/+$/, '') : `http://127.0.0.1:${RAY_DASHBOARD_PORT}`;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function parseJobDetails(j: unknown): RayJobDetails | undefined {
  if (!j || typeof j !== 'object') return undefined;
  const o = j as Record<string, unknown>;
  const status = String(o['status'] ?? '').toUpperCase() as RayJobState;
  const submissionId = str(o['submission_id']) ?? str(o['job_id']);
  if (!STATES.includes(status) || !submissionId) return undefined;
  return {
    submissionId,
    jobId: str(o['job_id']),
    type: str(o['type']) ?? 'SUBMISSION',
    status,
    message: str(o['message']),
    entrypoint: str(o['entrypoint']),
    startTime: num(o['start_time']),
    endTime: num(o['end_time']),
    driverExitCode: num(o['driver_exit_code']),
  };
}

async function call(base: string, method: 'GET' | 'POST', route: string, opts: ApiOptions): Promise<ApiResult<unknown>> {
  const url = `${base}${route}`;
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 5000);
  try {
    const res = await (opts.fetchImpl ?? fetch)(url, { method, signal: opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout, headers: { accept: 'application/json' } });
    const text = await res.text();
    if (!res.ok) return { ok: false, status: res.status, error: `Ray's dashboard answered HTTP ${res.status} for ${method} ${route}${text ? `: ${text.slice(0, 200)}` : ''}` };
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, error: `Ray's dashboard at ${base} answered ${method} ${route} with something other than JSON (not a Ray dashboard?)` };
    }
  } catch (err) {
    const e = err as Error;
    const why = e.name === 'TimeoutError' ? `no answer within ${Math.round((opts.timeoutMs ?? 5000) / 1000)} s` : ((e.cause as Error | undefined)?.message ?? e.message);
    return { ok: false, error: `Ray's dashboard is not reachable at ${base} (${why})` };
  }
}

/** GET /api/jobs/{id}: undefined when Ray does not know the job (404). */
export async function getRayJob(base: string, id: string, opts: ApiOptions = {}): Promise<ApiResult<RayJobDetails | undefined>> {
  const r = await call(base, 'GET', `/api/jobs/${encodeURIComponent(id)}`, opts);
  if (!r.ok) return r.status === 404 ? { ok: true, value: undefined } : r;
  const job = parseJobDetails(r.value);
  return job ? { ok: true, value: job } : { ok: false, error: `Ray's answer for job ${id} has no status or id` };
}

export async function listRayJobs(base: string, opts: ApiOptions = {}): Promise<ApiResult<RayJobDetails[]>> {
  const r = await call(base, 'GET', '/api/jobs/', opts);
  if (!r.ok) return r;
  if (!Array.isArray(r.value)) return { ok: false, error: "Ray's job list is not a list" };
  return { ok: true, value: r.value.map(parseJobDetails).filter((j): j is RayJobDetails => j !== undefined) };
}

/** GET /api/jobs/{id}/logs: the job's whole log so far. */
export async function getRayJobLogs(base: string, id: string, opts: ApiOptions = {}): Promise<ApiResult<string>> {
  const r = await call(base, 'GET', `/api/jobs/${encodeURIComponent(id)}/logs`, { timeoutMs: 60_000, ...opts });
  if (!r.ok) return r;
  const logs = (r.value as { logs?: unknown } | null)?.logs;
  return typeof logs === 'string' ? { ok: true, value: logs } : { ok: false, error: "Ray's log answer has no logs text" };
}

/** POST /api/jobs/{id}/stop: true when Ray stopped it, false when it was not running. */
export async function stopRayJob(base: string, id: string, opts: ApiOptions = {}): Promise<ApiResult<boolean>> {
  const r = await call(base, 'POST', `/api/jobs/${encodeURIComponent(id)}/stop`, { timeoutMs: 30_000, ...opts });
  if (!r.ok) return r;
  const stopped = (r.value as { stopped?: unknown } | null)?.stopped;
  return typeof stopped === 'boolean' ? { ok: true, value: stopped } : { ok: false, error: "Ray's stop answer has no `stopped`" };
}

/** Splits text chunks into whole lines; the unfinished remainder waits for the next chunk (or `end`). */
class Lines {
  private rest = '';
  constructor(private readonly sink: (line: string) => void) {}
  push(chunk: string): void {
    const parts = (this.rest + chunk).split('\n');
    this.rest = parts.pop() ?? '';
    for (const p of parts) this.sink(p.endsWith('\r') ? p.slice(0, -1) : p);
  }
  end(): void {
    if (this.rest) this.sink(this.rest);
    this.rest = '';
  }
}

/**
 * The job's log line by line: without `follow`, GET …/logs once; with it, Ray's own tail (the WebSocket
 * …/logs/tail, as `ray job logs -f` reads it), which ends when the job's log ends (or `signal` aborts).
 */
export async function streamRayJobLogs(base: string, id: string, sink: (line: string) => void, opts: ApiOptions & { follow?: boolean } = {}): Promise<ApiResult<{ lines: number }>> {
  let lines = 0;
  const out = new Lines((l) => {
    lines++;
    sink(l);
  });
  if (!opts.follow) {
    const r = await getRayJobLogs(base, id, opts);
    if (!r.ok) return r;
    out.push(r.value);
    out.end();
    return { ok: true, value: { lines } };
  }
  // Ray answers a job it does not know with a 404 before upgrading: ask first, for a clear error.
  const known = await getRayJob(base, id, opts);
  if (!known.ok) return known;
  if (!known.value) return { ok: false, status: 404, error: `Ray's dashboard at ${base} has no job ${id}` };
  const wsUrl = `${base.replace(/^http/, 'ws')}/api/jobs/${encodeURIComponent(id)}/logs/tail`;
  return new Promise((resolve) => {
    const ws = new WebSocket(wsUrl);
    let opened = false;
    let done = false;
    const finish = (r: ApiResult<{ lines: number }>) => {
      if (done) return;
      done = true;
      opts.signal?.removeEventListener('abort', onAbort);
      out.end();
      resolve(r);
    };
    const onAbort = () => ws.close();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    ws.addEventListener('open', () => (opened = true));
    ws.addEventListener('message', (e) => out.push(typeof e.data === 'string' ? e.data : Buffer.from(e.data as ArrayBuffer).toString('utf8')));
    ws.addEventListener('error', () => {
      if (!opened) finish({ ok: false, error: `Ray's log tail at ${wsUrl} did not open` });
    });
    ws.addEventListener('close', () => finish({ ok: true, value: { lines } }));
  });
}
