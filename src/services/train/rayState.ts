// Where a run's state comes from. A run whose log names its Ray job (`ray job submit` prints the submission id) is
// asked of Ray's Jobs API on the dashboard port: the training lives in that job, whatever became of the launcher's
// local processes, and the API answers through an SSH tunnel too. Otherwise the state is the registry's own: the
// launcher's process group and the exit file the launch wrapper writes (registry.ts), readable on its host only.
import type { RunView, RunStatus } from './registry.js';
import { rayJobIdInLog } from '../ray/jobId.js';
import { dashboardUrl, getRayJob, stopRayJob, type ApiOptions, type RayJobDetails } from '../ray/jobsApi.js';

export interface RunStateSource {
  /** ray-api: Ray's Jobs API; local: this host's processes and exit file; remote: launched elsewhere, not checkable. */
  kind: 'ray-api' | 'local' | 'remote';
  /** One line: where from, and why not Ray's when it is not. */
  detail: string;
  rayJobId?: string;
  rayJob?: RayJobDetails;
}

export interface RunWithSource {
  run: RunView;
  source: RunStateSource;
}

function fromRay(job: RayJobDetails): { status: RunStatus; exitCode?: number } {
  switch (job.status) {
    case 'PENDING':
      return { status: 'starting' };
    case 'RUNNING':
      return { status: 'running' };
    case 'SUCCEEDED':
      return { status: 'exited', exitCode: job.driverExitCode ?? 0 };
    case 'FAILED':
      return { status: 'exited', exitCode: job.driverExitCode ?? 1 };
    case 'STOPPED':
      return { status: 'stopped' };
  }
}

function registrySource(run: RunView, why: string): RunStateSource {
  if (run.remote) return { kind: 'remote', detail: `registry only: launched on ${run.host}, its processes cannot be checked from here${why ? `; ${why}` : ''}` };
  return { kind: 'local', detail: `this host's launcher processes and exit file${why ? `; ${why}` : ''}` };
}

/**
 * Each run with its state and where it came from. The dashboard is asked at most once per run, and not again after
 * it proved unreachable (a list of many runs stays fast with no tunnel open).
 */
export async function runsWithSources(runs: RunView[], env: NodeJS.ProcessEnv, opts: ApiOptions = {}): Promise<RunWithSource[]> {
  const base = dashboardUrl(env);
  let unreachable: string | undefined;
  const out: RunWithSource[] = [];
  for (const run of runs) {
    const id = await rayJobIdInLog(run.logFile);
    if (!id) {
      out.push({ run, source: registrySource(run, '') });
      continue;
    }
    if (unreachable) {
      out.push({ run, source: { ...registrySource(run, unreachable), rayJobId: id } });
      continue;
    }
    const r = await getRayJob(base, id, { timeoutMs: 3000, ...opts });
    if (!r.ok) {
      unreachable = `Ray job ${id}: ${r.error}`;
      out.push({ run, source: { ...registrySource(run, unreachable), rayJobId: id } });
      continue;
    }
    if (!r.value) {
      out.push({ run, source: { ...registrySource(run, `Ray's dashboard at ${base} does not know job ${id} (another cluster, or Ray restarted)`), rayJobId: id } });
      continue;
    }
    const s = fromRay(r.value);
    out.push({
      run: { ...run, status: s.status, ...(s.exitCode !== undefined ? { exitCode: s.exitCode } : {}), alive: run.alive || s.status === 'running' || s.status === 'starting' },
      source: { kind: 'ray-api', detail: `Ray's Jobs API at ${base}: job ${id} ${r.value.status}${r.value.message ? ` (${r.value.message})` : ''}`, rayJobId: id, rayJob: r.value },
    });
  }
  return out;
}

export interface RayStopResult {
  ok: boolean;
  /** Ray stopped it (true), or it was not running (false). */
  stopped?: boolean;
  detail: string;
}

/** POST /api/jobs/{id}/stop (what `ray job stop ID` does). */
export async function stopRunRayJob(id: string, env: NodeJS.ProcessEnv, opts: ApiOptions = {}): Promise<RayStopResult> {
  const base = dashboardUrl(env);
  const r = await stopRayJob(base, id, opts);
  if (!r.ok) return { ok: false, detail: r.status === 404 ? `Ray's dashboard at ${base} does not know job ${id}` : r.error };
  return { ok: true, stopped: r.value, detail: r.value ? `Ray stopped job ${id} (POST ${base}/api/jobs/${id}/stop)` : `Ray job ${id} was not running` };
}
