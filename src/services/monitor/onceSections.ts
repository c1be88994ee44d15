// The parts of `monitor --once --json` beyond the log's document: the run's trajectory files (and the RUN_NAME
// they were looked up under), its sandboxes and its Ray cluster, read through the same sources the dashboard
// polls, so that a script or an alert reads what the dashboard shows.
import type { MonitorTarget } from './resolve.js';
import type { RunSources } from './sources/types.js';
import { listTrajectories } from './offline.js';
import { redact } from '../secrets.js';

export interface TrajectoriesSection {
  run_dir: string | null;
  /** The RUN_NAME the files were looked up under (traj_payload/<RUN_NAME>/…), and where it was read. */
  run_name: string | null;
  run_name_from: string | null;
  run_name_evidence?: string;
  files: number;
  errors: number;
  tasks: number;
  newest: { instance: string; session: string; kind: 'payload' | 'error'; mtime: string } | null;
}

export async function trajectoriesSection(target: MonitorTarget): Promise<TrajectoriesSection> {
  const entries = target.runDir ? await listTrajectories(target.runDir, target.runName, Number.MAX_SAFE_INTEGER) : [];
  const first = entries[0];
  return {
    run_dir: target.runDir ?? null,
    run_name: target.runName ?? null,
    run_name_from: target.runNameFrom ?? null,
    ...(target.runNameEvidence ? { run_name_evidence: redact(target.runNameEvidence) } : {}),
    files: entries.filter((e) => e.kind === 'payload').length,
    errors: entries.filter((e) => e.kind === 'error').length,
    tasks: new Set(entries.map((e) => e.instance)).size,
    newest: first ? { instance: first.instance, session: first.session, kind: first.kind, mtime: new Date(first.mtimeMs).toISOString() } : null,
  };
}

export async function sandboxesSection(sources: RunSources, limit: number): Promise<Record<string, unknown>> {
  await sources.refresh?.().catch(() => {});
  let snap;
  try {
    snap = await sources.listSandboxes(limit);
  } catch (err) {
    return { available: true, ok: false, error: redact((err as Error).message) };
  }
  if (!snap) return { available: false, why: 'no sandbox provider: set DRESSAGE_E2B_API_KEY or E2B_API_KEY (e2b provider) to list the run\'s sandboxes' };
  return {
    available: true,
    ok: snap.ok,
    ...(snap.error ? { error: redact(snap.error) } : {}),
    at: new Date(snap.at).toISOString(),
    limit: snap.limit,
    agents: snap.agents,
    evals: snap.evals,
    rows: snap.rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      trajectory_id: r.trajectoryId,
      template: r.template,
      age_s: r.ageMs === undefined ? null : Math.round(r.ageMs / 1000),
      steps: r.steps ?? null,
      last_tool: r.lastTool === undefined ? null : redact(r.lastTool),
      ending: r.ending ?? null,
    })),
  };
}

export async function clusterSection(sources: RunSources): Promise<Record<string, unknown>> {
  const r = await sources.clusterGpus().catch((err: Error) => ({ ok: false as const, error: err.message }));
  if (!r.ok) return { source: 'ray', ok: false, error: redact(r.error) };
  return {
    source: 'ray',
    ok: true,
    nodes: r.value.map((n) => ({
      id: n.id,
      ip: n.ip,
      hostname: n.hostname,
      state: n.state,
      head: n.isHead,
      gpus: n.gpus.map((g) => ({ index: g.index, name: g.name, util: g.util ?? null, mem_used_mib: g.memUsed ?? null, mem_total_mib: g.memTotal ?? null, temp_c: g.temp ?? null })),
    })),
  };
}

/** The three sections at once (the network ones in parallel). */
export async function onceSections(target: MonitorTarget, sources: RunSources, opts: { sandboxLimit: number }): Promise<Record<string, unknown>> {
  const [trajectories, sandboxes, cluster] = await Promise.all([trajectoriesSection(target), sandboxesSection(sources, opts.sandboxLimit), clusterSection(sources)]);
  return { trajectories, sandboxes, cluster };
}
