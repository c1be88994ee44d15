// The harness-validation job, written once for both faces: `validate harness` prints its events, the Validate
// screen's controller puts them in the validate store. Holds the workspace lock from the first read to the last
// journal write (one validation per workspace); every finished task is journaled at once.
import type { RecipePaths } from '../workspace/paths.js';
import type { SandboxProvider } from '../sandbox/types.js';
import { sandboxConsoleError } from '../sandbox/index.js';
import { withLock } from '../workspace/lock.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import type { JobProgress } from '../../state/types/jobs.js';
import { validateHarness, validateHarnessJournal, type Arm, type ArmPhase, type HarnessValidationResult } from './harness.js';
import { loadHarnessTasks } from './tasks.js';

export const VALIDATE_HARNESS_JOB = 'validate harness';

export type ValidateHarnessEvent =
  | { type: 'started'; ids: string[]; provider: string; concurrency: number; progress: JobProgress }
  | { type: 'phase'; instanceId: string; arm: Arm; phase: ArmPhase }
  | { type: 'result'; result: HarnessValidationResult; progress: JobProgress }
  | { type: 'finished'; results: HarnessValidationResult[]; passed: number; failed: number; notRun: number; interrupted: boolean };

export interface ValidateHarnessJobOptions {
  paths: RecipePaths;
  /** The instances to validate; every row of the JSONL with `all`. */
  ids: string[];
  all: boolean;
  openProvider: () => Promise<SandboxProvider>;
  /** Tasks at once (default: 2 on the local provider, 8 on E2B). */
  concurrency?: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onEvent?: JobListener<ValidateHarnessEvent>;
}

export interface ValidateHarnessOutcome {
  results: HarnessValidationResult[];
  total: number;
  passed: number;
  /** Every task ran and every one validated. */
  ok: boolean;
}

export function runValidateHarnessJob(o: ValidateHarnessJobOptions): Promise<ValidateHarnessOutcome> {
  return withLock(o.paths.lockFile, 'validate harness', () => runLocked(o));
}

async function runLocked(o: ValidateHarnessJobOptions): Promise<ValidateHarnessOutcome> {
  const emit = jobEmitter<ValidateHarnessEvent>(VALIDATE_HARNESS_JOB, o.onEvent);
  const tasks = await loadHarnessTasks(o.paths, { ids: o.ids, all: o.all });
  const provider = await o.openProvider();
  const journal = await validateHarnessJournal(o.paths).load();
  const concurrency = o.concurrency ?? (provider.name === 'local' ? 2 : 8);
  const progress: JobProgress = { done: 0, total: tasks.length, startedAt: Date.now() };
  emit({ type: 'started', ids: tasks.map((t) => t.row.metadata.instance_id), provider: provider.name, concurrency: Math.min(concurrency, tasks.length), progress: { ...progress } });
  const results = await validateHarness({
    provider,
    tasks,
    concurrency,
    journal,
    env: o.env,
    signal: o.signal,
    onPhase: (instanceId, arm, phase) => emit({ type: 'phase', instanceId, arm, phase }),
    onResult: (result) => {
      progress.done++;
      emit({ type: 'result', result, progress: { ...progress } });
    },
  }).catch((err: unknown) => {
    throw sandboxConsoleError(err, 'harness validation stopped');
  });
  // One snapshot with every result (the journal appended one line per task while they ran).
  await journal.flush();
  const passed = results.filter((r) => r.ok).length;
  emit({ type: 'finished', results, passed, failed: results.length - passed, notRun: tasks.length - results.length, interrupted: Boolean(o.signal?.aborted) });
  return { results, total: tasks.length, passed, ok: passed === tasks.length && results.length === tasks.length };
}
