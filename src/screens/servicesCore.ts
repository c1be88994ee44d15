// The cheap part of the services bag (options, paths, stores, command log): everything the shell and the home
// screen need for the first frame. `startAppServices` creates the domain services (createServices.ts, which imports
// the monitor, templates, validate and convert code) on the first `whenReady()` instead of before the first frame.
import type { GlobalOptions } from '../cli/context.js';
import type { AppServices } from './services.js';
import { recipePaths } from '../services/workspace/paths.js';
import { sampleWorkspaceLabel } from '../services/workspace/sample.js';
import { createAppStore } from '../state/app.js';
import { createJobsStore } from '../state/jobs.js';
import { createHomeStore } from '../state/home.js';
import { createDataStore } from '../state/data.js';
import { createTrainStore } from '../state/train.js';
import { commandLog as globalCommandLog, type CommandLog } from '../services/process/commandLog.js';

export interface ServicesOptions {
  commandLog?: CommandLog;
  initialScreen?: string;
  /** The run the dashboard opens first (the demo's simulated run); the newest run when unset. */
  monitorTarget?: string;
}

export interface CoreServices {
  /** Domain fields (monitor, templates, validate, convert) are unset until attachDomainServices fills them. */
  services: AppServices;
  /** Run by `services.dispose()`, in order; domain services add theirs. */
  disposers: (() => void)[];
}

export function createCoreServices(global: GlobalOptions, opts: ServicesOptions = {}): CoreServices {
  const disposers: (() => void)[] = [];
  const paths = recipePaths(global.workspace);
  const services: AppServices = {
    global,
    paths,
    sampleLabel: sampleWorkspaceLabel(paths),
    app: createAppStore(opts.initialScreen),
    jobs: createJobsStore(),
    commandLog: opts.commandLog ?? globalCommandLog,
    home: createHomeStore(),
    monitor: undefined as unknown as AppServices['monitor'],
    monitorTarget: opts.monitorTarget,
    data: createDataStore(),
    templates: undefined as unknown as AppServices['templates'],
    validate: undefined as unknown as AppServices['validate'],
    convert: undefined as unknown as AppServices['convert'],
    train: createTrainStore(process.env),
    dispose() {
      for (const d of disposers.splice(0)) d();
    },
  };
  return { services, disposers };
}

/**
 * The services bag for the interactive console: the cheap part now, the domain services on the first
 * `whenReady()` (the console calls it after its first frame; a lazy screen opened earlier calls it too).
 */
export function startAppServices(global: GlobalOptions, opts: ServicesOptions = {}): AppServices {
  const { services, disposers } = createCoreServices(global, opts);
  let disposed = false;
  let ready: Promise<void> | undefined;
  const disposeAll = services.dispose;
  services.dispose = () => {
    disposed = true;
    disposeAll();
  };
  services.whenReady = () =>
    (ready ??= import('./createServices.js').then(
      (domain) => {
        // Quit before the domain code arrived: start nothing that would outlive the console.
        if (!disposed) domain.attachDomainServices(services, disposers);
      },
      (err: unknown) => {
        ready = undefined; // the next call tries again
        throw err;
      },
    ));
  return services;
}
