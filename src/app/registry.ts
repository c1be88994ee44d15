// The one registry: the dependencies every domain is built from (paths, env, the workspace profile, the sandbox
// providers with the one retry listener, the command log, the clock), made once per process, and the domains
// themselves. The console builds their stores and controllers from it (core.ts: the first frame's; domain.ts: the
// rest); a headless command takes its job from it (`await registryOf(ctx).jobs('templates')`). Each domain's
// module is imported when it is first asked for, so a command loads only its own.
import type { GlobalOptions } from '../state/types/options.js';
import type { DomainDeps, SandboxProviders } from '../services/domain/definition.js';
import type { RecipePaths } from '../services/workspace/paths.js';
import type { RetryEvent } from '../services/sandbox/withRetry.js';
import { recipePaths } from '../services/workspace/paths.js';
import { workspaceProfile } from '../services/workspace/sample.js';
import { commandLog as globalCommandLog, type CommandLog } from '../services/process/commandLog.js';

/** Every domain with a definition (services/<domain>/domain.ts), by name: the registry loads each on first use. */
export const DOMAINS = {
  doctor: async () => (await import('../services/doctor/domain.js')).doctorDomain,
  home: async () => (await import('../services/pipeline/domain.js')).homeDomain,
  data: async () => (await import('../services/dataset/domain.js')).dataDomain,
  templates: async () => (await import('../services/templates/domain.js')).templatesDomain,
  artifacts: async () => (await import('../services/artifacts/domain.js')).artifactsDomain,
  convert: async () => (await import('../services/convert/domain.js')).convertDomain,
  validate: async () => (await import('../services/validate/domain.js')).validateDomain,
  demo: async () => (await import('../services/demo/domain.js')).demoDomain,
  train: async () => (await import('../services/train/domain.js')).trainDomain,
  monitor: async () => (await import('../services/monitor/domain.js')).monitorDomain,
} as const;

export type DomainName = keyof typeof DOMAINS;
export type DomainOf<K extends DomainName> = Awaited<ReturnType<(typeof DOMAINS)[K]>>;
export type JobsOf<K extends DomainName> = ReturnType<DomainOf<K>['jobs']>;

export interface DepsOptions {
  /** The workspace's recipe paths; from the global options' workspace unless given. */
  paths?: RecipePaths;
  /** The environment the jobs read; process.env unless a test injects one. */
  env?: NodeJS.ProcessEnv;
  commandLog?: CommandLog;
  clock?: () => number;
  /** Every retry of the provider's one retry layer (a headless command prints them). */
  onProviderRetry?: (e: RetryEvent) => void;
  /** A test's providers in place of the real ones (a scripted provider, a fake E2B). */
  providers?: Partial<SandboxProviders>;
}

export { workspaceProfile } from '../services/workspace/sample.js';

/** The providers opened the one way; their code is imported on first use (the e2b SDK later still). */
function realProviders(global: GlobalOptions, paths: RecipePaths, env: NodeJS.ProcessEnv, onRetry?: (e: RetryEvent) => void): SandboxProviders {
  return {
    async open(opts = {}) {
      const { openSandboxProvider } = await import('../services/templates/provider.js');
      return openSandboxProvider(opts.name ?? global.provider, env, paths, { ...(onRetry ? { onRetry } : {}), ...(opts.purpose ? { purpose: opts.purpose } : {}) });
    },
    async plain(name = global.provider) {
      const { createProvider } = await import('../services/sandbox/index.js');
      return createProvider(name, { workspace: paths.root, env });
    },
    async monitor() {
      const { openMonitorProvider } = await import('../services/monitor/provider.js');
      return openMonitorProvider(global.provider, env);
    },
  };
}

/** The one set of dependencies for a workspace. */
export function createDomainDeps(global: GlobalOptions, opts: DepsOptions = {}): DomainDeps {
  const env = opts.env ?? process.env;
  const paths = opts.paths ?? recipePaths(global.workspace);
  return {
    global,
    paths,
    env,
    profile: workspaceProfile(paths),
    providers: { ...realProviders(global, paths, env, opts.onProviderRetry), ...opts.providers },
    commandLog: opts.commandLog ?? globalCommandLog,
    clock: opts.clock ?? Date.now,
  };
}

/** What a headless command reaches through: the dependencies, and each domain's jobs bound to them. */
export interface CommandRegistry {
  deps: DomainDeps;
  jobs<K extends DomainName>(name: K): Promise<JobsOf<K>>;
}

export function createCommandRegistry(deps: DomainDeps): CommandRegistry {
  return {
    deps,
    async jobs(name) {
      const domain = await DOMAINS[name]();
      return domain.jobs(deps) as JobsOf<typeof name>;
    },
  };
}
