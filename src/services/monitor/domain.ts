// The monitor domain: following a run (`monitor RUN` prints the follow job's events; the dashboard's MonitorService
// builds the same job and adds GPUs, the cluster, the proxy, sandboxes and trajectories). Its store is the
// service's. The run's live sources are picked by the registry (the real ones, or the simulator's for a run it
// wrote), so the monitor never imports the simulator.
import { defineDomain } from '../domain/definition.js';
import { createMonitorStore } from '../../state/monitor.js';
import { MonitorService, type MonitorServiceOptions } from './session.js';
import { RunFollowJob, type RunFollowOptions } from './followJob.js';
import type { RunSourcesPicker } from './sources/types.js';
import type { MonitorTarget } from './resolve.js';
import { refreshMsFromEnv, sandboxLimitFromEnv } from './provider.js';

export const monitorDomain = defineDomain({
  name: 'monitor',
  jobs: (deps) => ({
    /** `monitor RUN` and the dashboard's log (the sources as the registry picks them). */
    follow: (target: MonitorTarget, o: Omit<RunFollowOptions, 'paths' | 'clock'>) => new RunFollowJob(target, { paths: deps.paths, clock: deps.clock, ...o }),
  }),
  create: (deps, wiring: { sources: RunSourcesPicker; options?: Partial<MonitorServiceOptions> }) => {
    const controller = new MonitorService({
      paths: deps.paths,
      store: createMonitorStore(),
      env: deps.env,
      sources: wiring.sources,
      provider: () => deps.providers.monitor(),
      sandboxLimit: sandboxLimitFromEnv(deps.env),
      refreshMs: refreshMsFromEnv(deps.env),
      ...wiring.options,
    });
    return { store: controller.store, controller, dispose: () => controller.dispose() };
  },
  projections: {},
});
