// The smoke-test job, written once for both faces: `templates smoke` prints its events, the Templates screen's
// controller counts them into the templates store. Holds the workspace lock; records results in the journal.
import type { RecipePaths } from '../workspace/paths.js';
import type { SandboxProvider } from '../sandbox/types.js';
import { smokeMany, type SmokeResult } from './smoke.js';
import { retryTimingFromEnv } from '../util/retry.js';
import { templatesJournal } from './records.js';
import { templatesStatus } from './status.js';
import { readTemplateMapOrRefuse } from './map.js';
import { acquireLock } from '../workspace/lock.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import type { JobProgress } from '../../state/types/jobs.js';

export interface SmokeTarget {
  image?: string;
  template: string;
}

export type SmokeJobResult = SmokeResult & { image?: string };

export type SmokeJobEvent =
  | { type: 'started'; targets: number; progress: JobProgress }
  | { type: 'result'; result: SmokeJobResult; progress: JobProgress }
  | { type: 'finished'; passed: number; failed: number; notRun: number; notKilled: string[] };

export interface SmokeJobOptions {
  paths: RecipePaths;
  openProvider: () => Promise<SandboxProvider>;
  targets: SmokeTarget[];
  concurrency?: number;
  signal?: AbortSignal;
  onEvent?: JobListener<SmokeJobEvent>;
  /** The operator's settings: BBS's health is asked again after 1, 2, 3, 4 steps of SWEGYM_RETRY_BASE_MS (1 s unset). */
  env?: NodeJS.ProcessEnv;
}

export interface SmokeOutcome {
  results: SmokeJobResult[];
  failed: number;
  notRun: number;
  /** Sandboxes whose kill failed: still running (and billed), never a silent success. */
  notKilled: string[];
}

/** Which templates to smoke by name (or all mapped and built ones), with their images from the map and journal. */
export async function smokeTargetsByName(paths: RecipePaths, names: string[], all: boolean): Promise<SmokeTarget[]> {
  const status = await templatesStatus(paths);
  const check = await readTemplateMapOrRefuse(paths.templateMap);
  const byTemplate = new Map<string, string>();
  for (const [image, t] of Object.entries(check.map)) byTemplate.set(t, image);
  for (const r of status.templates) if (r.state === 'built' && !byTemplate.has(r.template)) byTemplate.set(r.template, r.image);
  const targets = all ? [...byTemplate.entries()].map(([template, image]) => ({ template, image })) : names.map((template) => ({ template, image: byTemplate.get(template) }));
  if (targets.length === 0) throw new ConsoleError({ what: 'no templates to smoke', cause: 'the template map is empty', fix: 'build templates first: swegym-console templates build', exitCode: ExitCode.precondition });
  return targets;
}

export async function runSmokeJob(opts: SmokeJobOptions): Promise<SmokeOutcome> {
  const emit = jobEmitter<SmokeJobEvent>('templates smoke', opts.onEvent);
  const lock = await acquireLock(opts.paths.lockFile, 'templates smoke');
  let results: SmokeJobResult[];
  try {
    const provider = await opts.openProvider();
    const journal = await templatesJournal(opts.paths).load();
    const progress: JobProgress = { done: 0, total: opts.targets.length, startedAt: Date.now() };
    emit({ type: 'started', targets: opts.targets.length, progress: { ...progress } });
    const onResult = (result: SmokeJobResult) => {
      progress.done++;
      emit({ type: 'result', result, progress: { ...progress } });
    };
    results = await smokeMany({ provider, journal, targets: opts.targets, concurrency: opts.concurrency, signal: opts.signal, onResult, smoke: { healthRetryMs: retryTimingFromEnv(opts.env ?? {}).baseMs } });
    await journal.flush();
  } finally {
    await lock.release();
  }
  const failed = results.filter((r) => !r.ok).length;
  const notKilled = results.filter((r) => r.sandboxId && !r.killed).map((r) => r.sandboxId as string);
  const outcome = { results, failed, notRun: opts.targets.length - results.length, notKilled };
  emit({ type: 'finished', passed: results.length - failed, failed, notRun: outcome.notRun, notKilled });
  return outcome;
}
