// Builds the services bag for the interactive app: the cheap core (servicesCore.ts) plus the domain services.
import type { GlobalOptions } from '../cli/context.js';
import type { AppServices } from './services.js';
import { createMonitorService } from '../app/monitorSources.js';
import { createTemplatesStore } from '../state/templates.js';
import { createTemplatesService } from '../services/templates/controller.js';
import { openSandboxProvider } from '../services/templates/provider.js';
import { createValidateStore } from '../state/validate.js';
import { ValidateController } from '../services/validate/controller.js';
import { createConvertStore } from '../state/convert.js';
import { ConvertController } from '../services/convert/controller.js';
import { discoverRuns } from './trainActions.js';
import { createCoreServices, type ServicesOptions } from './servicesCore.js';

/** All services at once (headless dashboard, tests). The interactive console uses startAppServices instead. */
export function createAppServices(global: GlobalOptions, opts: ServicesOptions = {}): AppServices {
  const { services, disposers } = createCoreServices(global, opts);
  attachDomainServices(services, disposers);
  services.whenReady = () => Promise.resolve();
  return services;
}

/** Creates the domain services into a core bag and registers their disposers. */
export function attachDomainServices(services: AppServices, disposers: (() => void)[]): void {
  const { global, jobs } = services;
  services.monitor = createMonitorService(services.paths, global.provider, process.env);
  disposers.push(() => services.monitor.dispose());
  services.templates = createTemplatesService({
    paths: services.paths,
    store: createTemplatesStore(),
    jobs,
    openProvider: () => openSandboxProvider(global.provider, process.env, services.paths),
  });
  disposers.push(() => services.templates.controller.dispose());
  const validateStore = createValidateStore();
  services.validate = {
    store: validateStore,
    controller: new ValidateController({ paths: services.paths, store: validateStore, jobs, openProvider: () => openSandboxProvider(global.provider, process.env, services.paths) }),
  };
  disposers.push(() => services.validate.controller.dispose());
  const convertStore = createConvertStore();
  services.convert = { store: convertStore, controller: new ConvertController({ paths: services.paths, store: convertStore, jobs, provider: global.provider }) };
  disposers.push(() => services.convert.controller.dispose());
  // Runs launched by an earlier console are found again from the registry (they are detached).
  void discoverRuns(services);
}
