// The real sources of a run: E2B's list and the Claude Code log inside each agent sandbox (through the sandbox
// provider), the Dressage proxy's /health, nvidia-smi on this node, the Ray dashboard on the head (every node's
// GPUs, the job's status) and the run registry (the launch wrapper's pid and exit file).
import { hostname } from 'node:os';
import path from 'node:path';
import type { RecipePaths } from '../../workspace/paths.js';
import type { SandboxProvider, Sandbox, SandboxUsageSample } from '../../sandbox/types.js';
import { endingOf, listDressageSandboxes, readAgentLogIncrement, type AgentLogReadState, type SandboxAgentProgress, type SandboxSnapshot } from '../sandboxes.js';
import { fetchProxyHealth, type ProxyHealth } from '../proxy.js';
import { nvidiaSmiRunner, type GpuRunner } from '../gpu.js';
import { fetchClusterGpus, fetchRayJobStatus, type RayClusterNode, type RayResult } from '../rayCluster.js';
import type { RayJobStatus, WriterStatus } from '../liveness.js';
import type { MonitorTarget } from '../resolve.js';
import { readRun, runStatus, listRuns, type RunView } from '../../train/registry.js';
import type { RunSources } from './types.js';

export interface RealSourcesOptions {
  paths: RecipePaths;
  target: MonitorTarget;
  /** The sandbox provider (created lazily, once); undefined = no sandboxes panel. */
  provider?: () => Promise<SandboxProvider | undefined>;
  rayDashboardUrl: string;
  gpuRunner?: GpuRunner;
  fetchImpl?: typeof fetch;
  clock?: () => number;
  /** Agent sandboxes whose Claude Code log is read per refresh (least recently read first). */
  agentProgressBatch?: number;
}

/** The registry's word on a run: alive, exit code, stopped; undefined for a run on another host (cannot tell). */
export function writerFromRunView(v: RunView): WriterStatus | undefined {
  if (v.remote) return undefined;
  if (v.status === 'starting' || v.status === 'running') return { source: 'registry', alive: true, pid: v.pid };
  return { source: 'registry', alive: v.alive, exitCode: v.exitCode, stopped: v.status === 'stopped', pid: v.pid };
}

/** New log bytes read per sandbox per rows refresh, and per drill-in poll: a 2 MB log is whole after one poll. */
const ROW_READ_BYTES = 4 << 20;
const DRILL_READ_BYTES = 16 << 20;

export class RealRunSources implements RunSources {
  readonly speed = 1;
  readonly localGpus: GpuRunner;
  readonly localNodeLabel = `this node (${hostname()}, nvidia-smi)`;
  private providerPromise: Promise<SandboxProvider | undefined> | undefined;
  private sandboxes: SandboxSnapshot | undefined;
  private readonly progress = new Map<string, { steps: number | undefined; lastTool: string | undefined; ending?: string; status?: string; toolCalls?: number; at: number }>();
  /** Per agent sandbox: where its Claude Code log was read to (rows and drill-in share it), and the read in flight. */
  private readonly logs = new Map<string, { state?: AgentLogReadState; busy?: Promise<unknown> }>();
  /** The registry entry that launched this log, once looked up ('' = none). */
  private registryName: string | undefined;

  constructor(private readonly o: RealSourcesOptions) {
    this.localGpus = o.gpuRunner ?? nvidiaSmiRunner(o.paths.root);
    this.registryName = o.target.registryName;
  }

  private get clock(): () => number {
    return this.o.clock ?? Date.now;
  }

  private provider(): Promise<SandboxProvider | undefined> {
    if (!this.o.provider) return Promise.resolve(undefined);
    this.providerPromise ??= this.o.provider().catch(() => undefined);
    return this.providerPromise;
  }

  async listSandboxes(limit: number): Promise<SandboxSnapshot | undefined> {
    const provider = await this.provider();
    if (!provider) return undefined;
    const snap = await listDressageSandboxes(provider, { limit, clock: this.clock });
    this.sandboxes = snap;
    this.applyProgress(snap);
    return snap;
  }

  async refreshAgentProgress(): Promise<void> {
    const provider = await this.provider();
    const rows = this.sandboxes?.rows.filter((r) => r.kind === 'agent') ?? [];
    if (!provider || rows.length === 0) return;
    const live = new Set(rows.map((r) => r.id));
    for (const id of this.progress.keys()) if (!live.has(id)) this.progress.delete(id);
    for (const id of this.logs.keys()) if (!live.has(id) && id !== this.drilled) this.logs.delete(id);
    const batch = rows
      .slice()
      .sort((a, b) => (this.progress.get(a.id)?.at ?? 0) - (this.progress.get(b.id)?.at ?? 0))
      .slice(0, this.o.agentProgressBatch ?? 6);
    await Promise.all(
      batch.map(async (r) => {
        try {
          const p = await this.agentProgress(r.id, { maxBytes: ROW_READ_BYTES });
          this.progress.set(r.id, { steps: p.steps, lastTool: p.lastTool, ending: endingOf(p.agent), status: p.agent?.status, toolCalls: p.agent?.toolCalls.length, at: this.clock() });
        } catch {
          this.progress.set(r.id, { steps: undefined, lastTool: undefined, at: this.clock() });
        }
      }),
    );
    if (this.sandboxes) this.applyProgress(this.sandboxes);
  }

  private applyProgress(snap: SandboxSnapshot): void {
    for (const r of snap.rows) {
      const p = this.progress.get(r.id);
      if (p) {
        r.steps = p.steps;
        r.lastTool = p.lastTool;
        r.ending = p.ending;
        r.agentStatus = p.status;
        r.toolCalls = p.toolCalls;
      }
    }
  }

  async sandboxMetrics(id: string): Promise<SandboxUsageSample[]> {
    const provider = await this.provider();
    if (!provider?.metrics) return [];
    return provider.metrics(id);
  }

  /** The sandbox drilled into last (its log's cursor is kept while the drill-in may show it). */
  private drilled: string | undefined;

  async agentProgress(id: string, opts: { tailBytes?: number; maxBytes?: number; sandbox?: Sandbox }): Promise<SandboxAgentProgress & { sandbox?: Sandbox }> {
    const provider = await this.provider();
    if (!provider) throw new Error('no sandbox provider configured');
    const sandbox = opts.sandbox ?? (await provider.connect(id));
    if (opts.maxBytes === undefined) this.drilled = id;
    const log = this.logs.get(id) ?? {};
    this.logs.set(id, log);
    // One read at a time per log: the rows' refresh and the drill-in's poll advance the same cursor.
    while (log.busy) await log.busy.catch(() => undefined);
    const read = readAgentLogIncrement(sandbox, { state: log.state, maxBytes: opts.maxBytes ?? DRILL_READ_BYTES });
    log.busy = read;
    try {
      const r = await read;
      log.state = r.state;
      return { ...r.progress, sandbox };
    } finally {
      log.busy = undefined;
    }
  }

  async proxyHealth(url: string | undefined): Promise<ProxyHealth | undefined> {
    if (!url) return undefined;
    return fetchProxyHealth(url, { fetchImpl: this.o.fetchImpl, clock: this.clock });
  }

  clusterGpus(): Promise<RayResult<RayClusterNode[]>> {
    return fetchClusterGpus(this.o.rayDashboardUrl, { fetchImpl: this.o.fetchImpl });
  }

  async rayJob(id: string | undefined): Promise<RayJobStatus | undefined> {
    const r = await fetchRayJobStatus(this.o.rayDashboardUrl, id ?? this.o.target.rayJob, { fetchImpl: this.o.fetchImpl });
    return r.ok ? r.value : undefined;
  }

  async writer(): Promise<WriterStatus | undefined> {
    if (this.registryName === undefined) this.registryName = await this.findRegistryEntry();
    if (!this.registryName) return undefined;
    try {
      const rec = await readRun(this.o.paths, this.registryName);
      return rec ? writerFromRunView(await runStatus(this.o.paths, rec)) : undefined;
    } catch {
      return undefined;
    }
  }

  /** A log or run directory opened by path may still be a registry run's: the entry whose log or LOG_DIR it is. */
  private async findRegistryEntry(): Promise<string> {
    const t = this.o.target;
    if (!t.logFile && !t.runDir) return '';
    try {
      const runs = await listRuns(this.o.paths);
      const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && path.resolve(this.o.paths.root, a) === path.resolve(b);
      return runs.find((r) => same(r.logFile, t.logFile) || (t.source === 'run-dir' && same(r.outputsLogDir, t.runDir)))?.name ?? '';
    } catch {
      return '';
    }
  }
}
