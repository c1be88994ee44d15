// The composition root, cheap half: options, paths, the stores and the command log — everything the shell and the
// home screen need for the first frame. The domain services (monitor, templates, validate, convert; domain.ts, which
// imports their code) are created by `whenReady()`: at once by createAppServices, after the first frame by
// startAppServices. Until then reading one throws ServicesNotReadyError instead of handing out undefined.
import type { GlobalOptions } from '../state/types/options.js';
import type { AppServices, DomainServices } from '../screens/services.js';
import { recipePaths } from '../services/workspace/paths.js';
import { sampleWorkspaceLabel } from '../services/workspace/sample.js';
import { createAppStore } from '../state/app.js';
import { createJobsStore } from '../state/jobs.js';
import { createHomeStore } from '../state/home.js';
import { createDataStore } from '../state/data.js';
import { DataController } from '../services/dataset/controller.js';
import { createTrainStore } from '../state/train.js';
import { commandLog as globalCommandLog, type CommandLog } from '../services/process/commandLog.js';

export interface ServicesOptions {
  commandLog?: CommandLog;
  initialScreen?: string;
  /** The run the dashboard opens first (the demo's simulated run); the newest run when unset. */
  monitorTarget?: string;
  /** The environment the services read (keys, limits, refresh); process.env unless a test injects one. */
  env?: NodeJS.ProcessEnv;
}

/** A domain service read before `whenReady()` resolved (or after a quit that came first). */
export class ServicesNotReadyError extends Error {
  constructor(field: string) {
    super(`services.${field} is not ready yet: await services.whenReady() first`);
    this.name = 'ServicesNotReadyError';
  }
}

export interface CoreServices {
  services: AppServices;
  /** Where domain.ts puts the domain services; the bag's getters read it. */
  domain: Partial<DomainServices>;
  /** Run by `services.dispose()`, in order; domain services add theirs. */
  disposers: (() => void)[];
  /** Whether `dispose()` ran: domain code that arrives after a quit must start nothing that outlives the console. */
  isDisposed(): boolean;
}

export function createCoreServices(global: GlobalOptions, opts: ServicesOptions = {}, loadDomain: (core: CoreServices) => Promise<void>): CoreServices {
  const disposers: (() => void)[] = [];
  const domain: Partial<DomainServices> = {};
  const env = opts.env ?? process.env;
  const paths = recipePaths(global.workspace);
  const need = <K extends keyof DomainServices>(field: K): DomainServices[K] => {
    const value = domain[field];
    if (value === undefined) throw new ServicesNotReadyError(field);
    return value as DomainServices[K];
  };
  let disposed = false;
  let ready: Promise<void> | undefined;
  const app = createAppStore(opts.initialScreen);
  const jobs = createJobsStore();
  const data = createDataStore();
  const services: AppServices = {
    global,
    env,
    paths,
    sampleLabel: sampleWorkspaceLabel(paths),
    app,
    jobs,
    commandLog: opts.commandLog ?? globalCommandLog,
    home: createHomeStore(),
    monitorTarget: opts.monitorTarget,
    data,
    dataset: new DataController({ paths, store: data, jobs, env, flash: (text, tone) => app.getState().setFlash(text, tone) }),
    train: createTrainStore(),
    get monitor() {
      return need('monitor');
    },
    set monitor(value) {
      domain.monitor = value; // a test's double in place of the real one
    },
    get templates() {
      return need('templates');
    },
    set templates(value) {
      domain.templates = value; // a test's double in place of the real one
    },
    get validate() {
      return need('validate');
    },
    set validate(value) {
      domain.validate = value; // a test's double in place of the real one
    },
    get convert() {
      return need('convert');
    },
    set convert(value) {
      domain.convert = value; // a test's double in place of the real one
    },
    isReady: () => domain.monitor !== undefined,
    whenReady: () =>
      (ready ??= disposed
        ? Promise.resolve() // quit before the domain code was asked for: start nothing
        : loadDomain(core).catch((err: unknown) => {
            ready = undefined; // the next call tries again
            throw err;
          })),
    dispose() {
      disposed = true;
      for (const d of disposers.splice(0)) d();
    },
  };
  const core: CoreServices = { services, domain, disposers, isDisposed: () => disposed };
  return core;
}

/**
 * The services bag for the interactive console: the cheap part now, the domain services on the first
 * `whenReady()` (the console calls it after its first frame; a lazy screen opened earlier calls it too).
 */
export function startAppServices(global: GlobalOptions, opts: ServicesOptions = {}): AppServices {
  return createCoreServices(global, opts, (core) =>
    import('./domain.js').then((domain) => {
      if (!core.isDisposed()) domain.attachDomainServices(core);
    }),
  ).services;
}
