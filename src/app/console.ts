// The registry's first-frame half: the dependencies (registry.ts's createDomainDeps, once), the stores every screen
// shares, and the domains the home screen needs (home, data: their heavy code loads when they run). The other
// domains (monitor, templates, validate, convert, train; domain.ts imports their code) are created by
// `whenReady()`: at once by createAppServices, after the first frame by startAppServices. Until then reading one
// throws ServicesNotReadyError instead of handing out undefined.
import type { GlobalOptions } from '../state/types/options.js';
import type { AppServices, DomainServices } from '../services/registry/appServices.js';
import type { ConsoleDeps } from '../services/domain/definition.js';
import { createAppStore } from '../state/app.js';
import { createJobsStore } from '../state/jobs.js';
import { homeDomain } from '../services/pipeline/domain.js';
import { dataDomain } from '../services/dataset/domain.js';
import { createDomainDeps, type DepsOptions } from './registry.js';

export interface ServicesOptions extends DepsOptions {
  initialScreen?: string;
  /** The run the dashboard opens first (the demo's simulated run); the newest run when unset. */
  monitorTarget?: string;
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

const DOMAIN_FIELDS = ['monitor', 'templates', 'validate', 'convert', 'train'] as const satisfies readonly (keyof DomainServices)[];

export function createCoreServices(global: GlobalOptions, opts: ServicesOptions = {}, loadDomain: (core: CoreServices) => Promise<void>): CoreServices {
  const disposers: (() => void)[] = [];
  const domain: Partial<DomainServices> = {};
  const app = createAppStore(opts.initialScreen);
  const jobs = createJobsStore();
  const deps: ConsoleDeps = { ...createDomainDeps(global, opts), jobs, app, flash: (text, tone = 'info') => app.getState().setFlash(text, tone) };
  const home = homeDomain.create(deps);
  const data = dataDomain.create(deps);
  let disposed = false;
  let ready: Promise<void> | undefined;
  const services = {
    deps,
    global,
    env: deps.env,
    paths: deps.paths,
    sampleLabel: deps.profile.kind === 'sample' ? deps.profile.label : undefined,
    app,
    jobs,
    commandLog: deps.commandLog,
    home,
    monitorTarget: opts.monitorTarget,
    data: data.store,
    dataset: data.controller,
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
  } as Omit<AppServices, keyof DomainServices> as AppServices;
  // The domain fields: read before they exist, they throw; a test may put its double in place of one.
  for (const field of DOMAIN_FIELDS) {
    Object.defineProperty(services, field, {
      enumerable: true,
      get() {
        const value = domain[field];
        if (value === undefined) throw new ServicesNotReadyError(field);
        return value;
      },
      set(value: DomainServices[typeof field]) {
        (domain as Record<string, unknown>)[field] = value;
      },
    });
  }
  const core: CoreServices = { services, domain, disposers, isDisposed: () => disposed };
  return core;
}
