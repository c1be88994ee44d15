// The shape every domain of src/services exports, and the one set of dependencies the registry (src/app/registry.ts)
// builds every domain from. A domain is its jobs (what both faces run: the headless command prints their events, the
// controller puts them in the store), its console half (the store and the controller, created once) and its
// projections (state → rows, the same for both faces). Nothing here imports a domain: every domain imports this.
import type { GlobalOptions } from '../../state/types/options.js';
import type { AppStore } from '../../state/app.js';
import type { JobsStore } from '../../state/jobs.js';
import type { RecipePaths } from '../workspace/paths.js';
import type { CommandLog } from '../process/commandLog.js';
import type { ProviderName, SandboxProvider } from '../sandbox/types.js';
import type { WorkspaceProfile } from '../workspace/sample.js';

export type { WorkspaceProfile } from '../workspace/sample.js';

/** The sandbox providers, opened the one way (settings, the retry policy's listener, the workspace's ledger). */
export interface SandboxProviders {
  /**
   * The provider a job builds, smokes or validates with (`--provider` unless `name` says): a missing E2B key is a
   * precondition error that says what the key was for (`purpose`) and, in the sample workspace, to use local.
   */
  open(opts?: { name?: 'e2b' | 'local'; purpose?: string }): Promise<SandboxProvider>;
  /** The provider as configured, unchecked: listing and killing the console's sandboxes, reading a sandbox's log. */
  plain(name?: ProviderName): Promise<SandboxProvider>;
  /** The dashboard's sandbox list (DRESSAGE_E2B_API_KEY first); none for local sandboxes or without a key. */
  monitor(): Promise<SandboxProvider | undefined>;
}

/** What every domain is built from; both faces get the same (the CLI without the console's stores). */
export interface DomainDeps {
  global: GlobalOptions;
  paths: RecipePaths;
  /** The environment the jobs read (keys, limits); stores never hold it whole. */
  env: NodeJS.ProcessEnv;
  profile: WorkspaceProfile;
  providers: SandboxProviders;
  commandLog: CommandLog;
  clock: () => number;
}

/** The console's half adds the stores every screen shares. */
export interface ConsoleDeps extends DomainDeps {
  jobs: JobsStore;
  app: AppStore;
  /** The app's one-line message. */
  flash(text: string, tone?: 'info' | 'warn' | 'error'): void;
}

/** A domain in the console: its store and its controller (the actions a screen calls); `dispose` stops its timers. */
export interface DomainInstance<S = unknown, C = unknown> {
  store: S;
  controller: C;
  dispose?(): void;
}

export interface DomainDefinition<Name extends string = string, Jobs = unknown, Projections = unknown, Instance extends DomainInstance = DomainInstance, Wiring = never> {
  readonly name: Name;
  /** The domain's jobs bound to the dependencies: a CLI command takes its job from here, and so does the controller. */
  jobs(deps: DomainDeps): Jobs;
  /**
   * The console's half, created once by the registry; absent for a domain of jobs only. `wiring` is what it needs
   * from another domain, handed over by the registry so that domains do not import each other in circles.
   */
  create?(deps: ConsoleDeps, wiring: Wiring): Instance;
  /** Pure functions from the domain's state to what both faces print (rows, lines, merged views). */
  projections: Projections;
}

/** Any domain's definition (what the registry lists). */
export type AnyDomain = DomainDefinition<string, unknown, unknown, DomainInstance, any>;

/** Declares a domain, its own type kept: `export const templatesDomain = defineDomain({ name: 'templates', … })`. */
export function defineDomain<const D extends AnyDomain>(definition: D): D {
  return Object.freeze(definition);
}

/** `sample` when the marker file `demo` writes is there; decided once, by the registry. */
export function isSample(profile: WorkspaceProfile): profile is { kind: 'sample'; label: string } {
  return profile.kind === 'sample';
}
