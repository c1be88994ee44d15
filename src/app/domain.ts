// The registry's domain half: creates the monitor, templates, validate, convert and train domains once, from the one
// set of dependencies, with the wiring one domain needs from another (the monitor's run sources, validate's agent
// job), and finds the runs an earlier console launched. startAppServices imports this module after the first
// frame; createAppServices (the headless dashboard, tests) creates everything at once.
import type { GlobalOptions } from '../state/types/options.js';
import type { AppServices } from '../services/registry/appServices.js';
import type { DomainInstance } from '../services/domain/definition.js';
import { runSourcesPicker } from './monitorSources.js';
import { monitorDomain } from '../services/monitor/domain.js';
import { templatesDomain } from '../services/templates/domain.js';
import { validateDomain } from '../services/validate/domain.js';
import { convertDomain } from '../services/convert/domain.js';
import { trainDomain } from '../services/train/domain.js';
import { demoDomain } from '../services/demo/domain.js';
import { discoverRuns } from '../services/train/discovery.js';
import { createCoreServices, type CoreServices, type ServicesOptions } from './console.js';

/** All services at once (headless dashboard, tests). The interactive console uses startAppServices instead. */
export function createAppServices(global: GlobalOptions, opts: ServicesOptions = {}): AppServices {
  const core = createCoreServices(global, opts, () => Promise.resolve());
  attachDomainServices(core);
  return core.services;
}

export { createMonitorService } from './monitorSources.js';

/** Creates the domains into the core's slots and registers their disposers. */
export function attachDomainServices({ services, domain, disposers }: CoreServices): void {
  const { deps } = services;
  const own = <T extends DomainInstance>(instance: T): T => {
    if (instance.dispose) disposers.push(() => instance.dispose?.());
    return instance;
  };
  const sources = runSourcesPicker({ paths: deps.paths, env: deps.env, provider: () => deps.providers.monitor() });
  const monitor = own(monitorDomain.create(deps, { sources })).controller;
  domain.monitor = monitor;
  domain.templates = own(templatesDomain.create(deps));
  const agent = demoDomain.jobs(deps);
  domain.validate = own(validateDomain.create(deps, { runAgentJob: (o) => agent.validateAgent(o) }));
  domain.convert = own(convertDomain.create(deps));
  const train = (domain.train = own(trainDomain.create(deps)));
  // Runs launched by an earlier console are found again from the registry (they are detached).
  void discoverRuns({ paths: deps.paths, env: deps.env, train: train.store, app: services.app, monitor });
}
