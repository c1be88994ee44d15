// The composition point of the monitor's live sources: when a run is opened, a run the simulator wrote gets the
// simulator's sources and every other run the real ones. Decided once, here; the monitor (services/monitor) never
// imports the simulator.
import path from 'node:path';
import type { RecipePaths } from '../services/workspace/paths.js';
import type { SandboxProvider } from '../services/sandbox/types.js';
import type { GpuRunner } from '../services/monitor/gpu.js';
import { isSimulatedRun, type MonitorTarget } from '../services/monitor/resolve.js';
import { RealRunSources } from '../services/monitor/sources/real.js';
import type { RunSources, RunSourcesPicker } from '../services/monitor/sources/types.js';
import { rayDashboardUrlFrom } from '../services/monitor/rayCluster.js';
import { MonitorService, type MonitorServiceOptions } from '../services/monitor/session.js';
import { openMonitorProvider, refreshMsFromEnv, sandboxLimitFromEnv } from '../services/monitor/provider.js';
import { createMonitorStore } from '../state/monitor.js';

export interface SourcesDeps {
  paths: RecipePaths;
  env?: NodeJS.ProcessEnv;
  provider?: () => Promise<SandboxProvider | undefined>;
  rayDashboardUrl?: string;
  gpuRunner?: GpuRunner;
  fetchImpl?: typeof fetch;
  clock?: () => number;
  agentProgressBatch?: number;
}

export function runSourcesPicker(deps: SourcesDeps): RunSourcesPicker {
  return async (target: MonitorTarget): Promise<RunSources> => {
    if (await isSimulatedRun(target)) {
      const dir = target.logFile ? path.dirname(target.logFile) : (target.runDir as string);
      const { SimulatedRunSources } = await import('../services/simulator/runSources.js');
      return SimulatedRunSources.open(dir, deps.clock);
    }
    return new RealRunSources({ ...deps, target, rayDashboardUrl: rayDashboardUrlFrom(deps.env ?? {}, deps.rayDashboardUrl) });
  };
}

/** The dashboard's monitor service with the sources picked per run. */
export function createMonitorService(paths: RecipePaths, provider: 'e2b' | 'local', env: NodeJS.ProcessEnv, extra: Partial<MonitorServiceOptions> = {}): MonitorService {
  const openProvider = () => openMonitorProvider(provider, env);
  return new MonitorService({
    paths,
    store: createMonitorStore(),
    env,
    sources: runSourcesPicker({ paths, env, provider: openProvider, rayDashboardUrl: extra.rayDashboardUrl, gpuRunner: extra.gpuRunner, fetchImpl: extra.fetchImpl }),
    sandboxLimit: sandboxLimitFromEnv(env),
    refreshMs: refreshMsFromEnv(env),
    ...extra,
  });
}
