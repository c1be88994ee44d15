// The simulator's implementation of the monitor's run sources (monitor/sources/types.ts): everything comes from the
// live.json the simulator rewrites about once a second (liveSources.ts turns it into the real sources' shapes). A
// live.json that stops changing means the simulator's process is gone, which is what the writer status says.
import { hostname } from 'node:os';
import { readSimLiveState, isLiveStateCurrent, simulatedAgentProgress, simulatedAgentSummary, simulatedGpuCsv, simulatedProxyHealth, simulatedSandboxSnapshot, type SimLiveState } from './liveSources.js';
import { parseGpuCsv, type GpuRunner } from '../monitor/gpu.js';
import type { RunSources } from '../monitor/sources/types.js';
import type { SandboxAgentProgress, SandboxSnapshot } from '../monitor/sandboxes.js';
import type { ProxyHealth } from '../monitor/proxy.js';
import type { RayClusterNode, RayResult } from '../monitor/rayCluster.js';
import type { RayJobStatus, WriterStatus } from '../monitor/liveness.js';

export class SimulatedRunSources implements RunSources {
  readonly localNodeLabel = `simulated node (${hostname()})`;
  readonly localGpus: GpuRunner;
  private state: SimLiveState | undefined;

  constructor(private readonly dir: string, private readonly clock: () => number = Date.now) {
    this.localGpus = () =>
      Promise.resolve(
        this.state ? { ok: true, stdout: simulatedGpuCsv(this.state, this.clock()) } : { ok: false, stdout: '', error: 'simulated run without live.json: GPUs are simulated only while the simulator writes' },
      );
  }

  /** Reads live.json once before the first poll (the speed sets the polling). */
  static async open(dir: string, clock?: () => number): Promise<SimulatedRunSources> {
    const s = new SimulatedRunSources(dir, clock);
    await s.refresh();
    return s;
  }

  get speed(): number {
    return Math.max(1, this.state?.speed ?? 1);
  }

  async refresh(): Promise<void> {
    this.state = await readSimLiveState(this.dir);
  }

  async listSandboxes(limit: number): Promise<SandboxSnapshot | undefined> {
    const state = this.state;
    const snap = simulatedSandboxSnapshot(state, this.clock(), limit);
    // Every row's steps and last tool at once: here that is a local read, not one E2B command per sandbox.
    const byId = new Map((state?.sandboxes ?? []).map((b) => [b.id, b]));
    for (const r of snap.rows) {
      const b = byId.get(r.id);
      if (b?.kind === 'agent') Object.assign(r, simulatedAgentSummary(b));
    }
    return snap;
  }

  async agentProgress(id: string, opts: { tailBytes?: number }): Promise<SandboxAgentProgress> {
    return simulatedAgentProgress(this.state?.sandboxes.find((b) => b.id === id), opts.tailBytes);
  }

  async proxyHealth(): Promise<ProxyHealth> {
    return simulatedProxyHealth(this.state, this.clock());
  }

  /** The simulated cluster: `nodes` nodes of the run's GPUs per node, the first one the head. */
  async clusterGpus(): Promise<RayResult<RayClusterNode[]>> {
    const state = this.state;
    if (!state || !isLiveStateCurrent(state, this.clock())) return { ok: false, error: 'simulated run: no Ray cluster while the simulator is not writing' };
    const nodes = Math.max(1, Math.min(16, state.nodes ?? 1));
    const out: RayClusterNode[] = [];
    for (let n = 0; n < nodes; n++) {
      // Each node's GPUs drawn as the node's own nvidia-smi would show them (a different seed per node).
      const { gpus } = parseGpuCsv(simulatedGpuCsv(state, this.clock(), n));
      out.push({ id: `simnode${n}`, ip: `10.128.0.${11 + n}`, hostname: `sim-node-${n}`, state: 'ALIVE', isHead: n === 0, gpus });
    }
    return { ok: true, value: out };
  }

  async rayJob(): Promise<RayJobStatus | undefined> {
    return undefined;
  }

  async writer(): Promise<WriterStatus | undefined> {
    const state = this.state;
    if (!state) return undefined;
    if (state.phase === 'finished') return { source: 'simulator', alive: false, exitCode: 0 };
    if (state.phase === 'stopped') return { source: 'simulator', alive: false, stopped: true };
    return { source: 'simulator', alive: isLiveStateCurrent(state, this.clock()) };
  }
}
