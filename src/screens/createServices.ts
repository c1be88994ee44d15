// Builds the services bag for the interactive app.
import type { GlobalOptions } from '../cli/context.js';
import type { AppServices } from './services.js';
import { recipePaths } from '../services/workspace/paths.js';
import { createAppStore } from '../state/app.js';
import { createJobsStore } from '../state/jobs.js';
import { createHomeStore } from '../state/home.js';
import { createMonitorService } from '../services/monitor/provider.js';
import { createDataStore } from '../state/data.js';
import { createTemplatesStore } from '../state/templates.js';
import { createTemplatesService } from '../services/templates/controller.js';
import { openSandboxProvider } from '../services/templates/provider.js';
import { createTrainStore } from '../state/train.js';
import { createValidateStore } from '../state/validate.js';
import { ValidateController } from '../services/validate/controller.js';
import { createConvertStore } from '../state/convert.js';
import { ConvertController } from '../services/convert/controller.js';
import { discoverRuns } from './trainActions.js';
import { commandLog as globalCommandLog, CommandLog } from '../services/process/commandLog.js';

export function createAppServices(global: GlobalOptions, opts: { commandLog?: CommandLog; initialScreen?: string } = {}): AppServices {
  const disposers: (() => void)[] = [];
  const services: AppServices = {
    global,
    paths: recipePaths(global.workspace),
    app: createAppStore(opts.initialScreen),
    jobs: createJobsStore(),
    commandLog: opts.commandLog ?? globalCommandLog,
    home: createHomeStore(),
    monitor: createMonitorService(recipePaths(global.workspace), global.provider, process.env),
    data: createDataStore(),
    templates: undefined as unknown as AppServices['templates'],
    validate: undefined as unknown as AppServices['validate'],
    convert: undefined as unknown as AppServices['convert'],
    train: createTrainStore(process.env),
    dispose() {
      for (const d of disposers.splice(0)) d();
    },
  };
  disposers.push(() => services.monitor.dispose());
  const jobs = services.jobs;
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
  return services;
}
