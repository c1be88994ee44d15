// What a run has besides its log (recipe reference §7, live sources): the E2B sandbox list, the Claude Code log
// inside each agent sandbox, the Dressage proxy's /health, the GPUs (nvidia-smi on this node; every node through
// the Ray dashboard), Ray's job status, and the writer's own word (the registry's launch wrapper). One interface,
// two implementations: the real one (sources/real.ts) and the simulator's (simulator/runSources.ts). The
// composition root (src/app/monitorSources.ts) picks one when a run is opened; the monitor never asks which.
import type { Sandbox, SandboxUsageSample } from '../../sandbox/types.js';
import type { SandboxAgentProgress, SandboxSnapshot } from '../sandboxes.js';
import type { ProxyHealth } from '../proxy.js';
import type { GpuRunner } from '../gpu.js';
import type { RayClusterNode, RayResult } from '../rayCluster.js';
import type { RayJobStatus, WriterStatus } from '../liveness.js';
import type { MonitorTarget } from '../resolve.js';

export interface RunSources {
  /** Simulated seconds per wall-clock second (1 for a real run): the monitor polls the stand-ins faster by it. */
  readonly speed: number;
  /** Re-reads what the sources are made of (the simulator's live.json); called about once a second. */
  refresh?(): Promise<void>;
  /** The run's sandboxes (rows with the agent progress known so far); undefined = no provider, no panel. */
  listSandboxes(limit: number): Promise<SandboxSnapshot | undefined>;
  /** Reads steps and the last tool call of a few agent sandboxes; absent when listSandboxes rows come complete. */
  refreshAgentProgress?(): Promise<void>;
  /** One agent sandbox's Claude Code log (the drill-in). */
  agentProgress(id: string, opts: { tailBytes?: number; maxBytes?: number; sandbox?: Sandbox }): Promise<SandboxAgentProgress & { sandbox?: Sandbox }>;
  /** The sandbox service's own CPU/memory samples of one sandbox (E2B's metrics); absent where the service has none. */
  sandboxMetrics?(id: string): Promise<SandboxUsageSample[]>;
  /** GET /health of the Dressage proxy at `url` (undefined: not known yet); undefined = nothing to ask. */
  proxyHealth(url: string | undefined): Promise<ProxyHealth | undefined>;
  /** This node's GPUs (nvidia-smi CSV). */
  readonly localGpus: GpuRunner;
  /** Every node of the run's Ray cluster with its GPUs. */
  clusterGpus(): Promise<RayResult<RayClusterNode[]>>;
  /** The run's Ray job (`id` when known). */
  rayJob(id: string | undefined): Promise<RayJobStatus | undefined>;
  /** The log's writer, when something can tell (a registry run, the simulator); undefined = nobody to ask. */
  writer(): Promise<WriterStatus | undefined>;
  /** The label of the GPUs' node when they come from this node. */
  readonly localNodeLabel: string;
}

/** Picks the sources of an opened run (the composition root decides; monitor only calls it). */
export type RunSourcesPicker = (target: MonitorTarget) => Promise<RunSources>;
