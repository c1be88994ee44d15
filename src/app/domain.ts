// The composition root, domain half: creates the monitor, templates, validate and convert services once, with their
// stores, and the run discovery. startAppServices imports this module after the first frame; createAppServices
// (the headless dashboard, tests) creates everything at once.
import type { GlobalOptions } from '../state/types/options.js';
import type { AppServices } from '../screens/services.js';
import { createMonitorService } from './monitorSources.js';
import { createTemplatesStore } from '../state/templates.js';
import { createTemplatesService } from '../services/templates/controller.js';
import { openSandboxProvider } from '../services/templates/provider.js';
import { createValidateStore } from '../state/validate.js';
import { ValidateController } from '../services/validate/controller.js';
import { createConvertStore } from '../state/convert.js';
import { ConvertController } from '../services/convert/controller.js';
import { discoverRuns } from '../services/train/discovery.js';
import { createCoreServices, type CoreServices, type ServicesOptions } from './core.js';

/** All services at once (headless dashboard, tests). The interactive console uses startAppServices instead. */
export function createAppServices(global: GlobalOptions, opts: ServicesOptions = {}): AppServices {
  const core = createCoreServices(global, opts, () => Promise.resolve());
  attachDomainServices(core);
  return core.services;
}

export { createMonitorService } from './monitorSources.js';

/** Creates the domain services into the core's slots and registers their disposers. */
export function attachDomainServices({ services, domain, disposers }: CoreServices): void {
  const { global, jobs, paths, env } = services;
  const openProvider = () => openSandboxProvider(global.provider, env, paths);
  const monitor = createMonitorService(paths, global.provider, env);
  domain.monitor = monitor;
  disposers.push(() => monitor.dispose());
  const templates = createTemplatesService({ paths, store: createTemplatesStore(), jobs, openProvider });
  domain.templates = templates;
  disposers.push(() => templates.controller.dispose());
  const validateStore = createValidateStore();
  const validate = { store: validateStore, controller: new ValidateController({ paths, store: validateStore, jobs, openProvider, env, runAgentJob: async (o) => (await import('../services/demo/agentJob.js')).runValidateAgentJob(o) }) };
  domain.validate = validate;
  disposers.push(() => validate.controller.dispose());
  const convertStore = createConvertStore();
  const convert = { store: convertStore, controller: new ConvertController({ paths, store: convertStore, jobs, provider: global.provider, env }) };
  domain.convert = convert;
  disposers.push(() => convert.controller.dispose());
  // Runs launched by an earlier console are found again from the registry (they are detached).
  void discoverRuns({ paths, env: services.env, train: services.train, app: services.app, monitor });
}
