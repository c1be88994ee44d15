// The template build job, written once for both faces: `templates build` prints its events, the Templates screen's
// controller samples its snapshot into the templates store. Resumable: the factory keeps the journal and the map.
import type { RecipePaths } from '../workspace/paths.js';
import type { SandboxProvider } from '../sandbox/types.js';
import { TemplateFactory, defaultConcurrency, E2B_BUILD_LIMIT, type FactoryEvent, type FactoryResult, type FactorySnapshot } from './factory.js';
import { inspectTemplateMap } from './map.js';
import { resolveArtifactConfig } from '../artifacts/versions.js';
import { localBaseResolver } from './localBases.js';
import { SAMPLE_TEMPLATES_NOTE, workspaceProfile, type WorkspaceProfile } from '../workspace/sample.js';
import { usageError } from '../errors.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import type { JobProgress } from '../../state/types/jobs.js';
import { retryTimingFromEnv } from '../util/retry.js';

export type TemplateBuildEvent =
  /** The sample workspace: its templates carry local stand-ins, the recipe's build is not run. */
  | { type: 'sample'; note: string }
  | { type: 'started'; total: number; concurrency: number; maxConcurrency: number }
  | FactoryEvent
  /** After each finished image (built, already there, failed): the count in event order, the factory's ETA. */
  | { type: 'progress'; progress: JobProgress; failed: number; active: number }
  | { type: 'finished'; result: FactoryResult; mapComplete: boolean; missing: number };

export interface TemplateBuildJobOptions {
  paths: RecipePaths;
  env: NodeJS.ProcessEnv;
  openProvider: () => Promise<SandboxProvider>;
  /** The workspace's profile as the registry read it (read from the marker when not given). */
  profile?: WorkspaceProfile;
  only?: string[];
  prefix?: string;
  /** Requested builds at a time; above the provider's cap is a usage error. Default: the provider's default. */
  concurrency?: number;
  rebuild?: boolean;
  buildTimeoutMs?: number;
  skipCache?: boolean;
  /** Aborting it = stop(): no new builds, running ones finish. */
  signal?: AbortSignal;
  onEvent?: JobListener<TemplateBuildEvent>;
}

export interface TemplateBuildOutcome {
  /** Undefined for the sample workspace (nothing was built). */
  result?: FactoryResult;
  mapComplete: boolean;
  missing: number;
}

/** The most concurrent builds a provider takes (E2B's plan limit; local Docker builds are bounded by the host). */
export function maxBuildConcurrency(provider: SandboxProvider): number {
  return provider.name === 'e2b' ? E2B_BUILD_LIMIT : 64;
}

export class TemplateBuildJob {
  private factory?: TemplateFactory;
  private readonly emit: (e: TemplateBuildEvent) => void;
  constructor(private readonly opts: TemplateBuildJobOptions) {
    this.emit = jobEmitter('templates build', opts.onEvent);
  }

  /** The factory's live state (undefined before the provider is open). */
  snapshot(): FactorySnapshot | undefined {
    return this.factory?.snapshot();
  }

  get version(): number {
    return this.factory?.version ?? -1;
  }

  logFor(image: string): string[] {
    return this.factory?.logFor(image) ?? [];
  }

  stop(): void {
    this.factory?.stop();
  }

  abandon(): void {
    this.factory?.abandon();
  }

  async run(): Promise<TemplateBuildOutcome> {
    const { paths, env } = this.opts;
    if ((this.opts.profile ?? workspaceProfile(paths)).kind === 'sample') {
      // The recipe's build needs the real artifacts; the sample's templates carry local stand-ins instead.
      this.emit({ type: 'sample', note: SAMPLE_TEMPLATES_NOTE });
      return { mapComplete: true, missing: 0 };
    }
    const provider = await this.opts.openProvider();
    const max = maxBuildConcurrency(provider);
    const concurrency = this.opts.concurrency ?? Math.min(max, defaultConcurrency(provider));
    if (concurrency > max) {
      throw usageError(`--concurrency ${concurrency} is above ${max}`, `E2B caps concurrent template builds at ${E2B_BUILD_LIMIT} on Hobby and Pro; use --concurrency ${max} or less`);
    }
    const artifacts = await resolveArtifactConfig(paths, env);
    // The total is known once the factory has read the image list and the journal: at its first event.
    let started = false;
    let finished = 0;
    let failed = 0;
    const factory = (this.factory = new TemplateFactory({
      provider,
      paths,
      artifacts: { artifactDir: artifacts.artifactDir, versions: artifacts },
      only: this.opts.only,
      prefix: this.opts.prefix,
      concurrency,
      maxConcurrency: max,
      rebuild: this.opts.rebuild,
      buildTimeoutMs: this.opts.buildTimeoutMs,
      retry: retryTimingFromEnv(env),
      skipCache: this.opts.skipCache,
      signal: this.opts.signal,
      baseFor: provider.name === 'local' ? localBaseResolver(paths) : undefined,
      onEvent: (e) => {
        const progress = () => {
          const snap = factory.snapshot();
          this.emit({ type: 'progress', progress: { done: finished, total: snap.records.length, startedAt: snap.startedAt ?? Date.now(), etaMs: snap.etaMs, ownEstimate: true }, failed, active: snap.active });
        };
        if (!started) {
          started = true;
          this.emit({ type: 'started', total: factory.snapshot().records.length, concurrency, maxConcurrency: max });
          progress();
        }
        this.emit(e);
        if (e.type === 'state' && (e.record.state === 'built' || e.record.state === 'failed')) {
          finished++;
          if (e.record.state === 'failed') failed++;
          progress();
        }
      },
    }));
    const result = await factory.run();
    if (!started) this.emit({ type: 'started', total: result.total, concurrency, maxConcurrency: max });
    const check = await inspectTemplateMap(paths.templateMap, result.records.map((r) => r.image));
    const outcome = { result, mapComplete: check.problems.length === 0, missing: check.missing.length };
    this.emit({ type: 'finished', ...outcome });
    return outcome;
  }
}

/** The one-line count of a finished build, the same on the screen and in the headless summary. */
export function buildSummary(result: FactoryResult): string {
  const stopped = result.notStarted + result.abandoned;
  return `${result.built} built, ${result.skipped} already there, ${result.failed} failed${stopped ? `, ${stopped} not built (stopped)` : ''}`;
}

