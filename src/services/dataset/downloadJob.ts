// The data download job, written once for both faces: `data download` prints its events, the Data screen's
// controller puts them in the data store. Downloads the split (resumable, verified against the hub), then checks
// that the file is the split: a download is only useful if the converter will take it.
import { statSync } from 'node:fs';
import type { RecipePaths, Split } from '../workspace/paths.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import { DataValidationError } from './read.js';
import { downloadSplit, loadSplit, type DownloadSplitResult } from './split.js';
import type { DownloadProgress } from './hub.js';

export const DATA_DOWNLOAD_JOB = 'data download';

export type DownloadJobEvent =
  | { type: 'started'; split: Split }
  /** Bytes so far (done) of the file's size (total, once the hub said it), with rate and ETA. */
  | { type: 'progress'; progress: DownloadProgress; done: number; total?: number }
  /** The file is there: downloaded (or already up to date) and either the split (rows) or not (invalid). */
  | { type: 'finished'; outcome: 'downloaded' | 'up-to-date' | 'invalid'; result: DownloadSplitResult; rows?: number; invalid?: DataValidationError }
  | { type: 'failed'; error: unknown };

export interface DownloadJobOptions {
  paths: RecipePaths;
  split: Split;
  dir?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onEvent?: JobListener<DownloadJobEvent>;
}

export interface DownloadJobOutcome {
  result: DownloadSplitResult;
  outcome: 'downloaded' | 'up-to-date' | 'invalid';
  rows?: number;
  /** Why the downloaded file is not the split, when it is not. */
  invalid?: DataValidationError;
}

/** Downloads write under the workspace: a mistyped --workspace must not silently grow a new directory tree. */
export function requireWorkspaceDir(paths: RecipePaths): void {
  let isDir = false;
  try {
    isDir = statSync(paths.root).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new ConsoleError({
      what: `the workspace ${paths.root} does not exist`,
      cause: '--workspace (or SWEGYM_CONSOLE_WORKSPACE) should name your Dressage checkout',
      fix: 'pass the checkout directory with --workspace DIR (or create it first); nothing was written',
      exitCode: ExitCode.precondition,
    });
  }
}

export async function runDownloadJob(o: DownloadJobOptions): Promise<DownloadJobOutcome> {
  const emit = jobEmitter<DownloadJobEvent>(DATA_DOWNLOAD_JOB, o.onEvent);
  try {
    requireWorkspaceDir(o.paths);
    emit({ type: 'started', split: o.split });
    const result = await downloadSplit({
      paths: o.paths,
      split: o.split,
      dir: o.dir,
      env: o.env,
      signal: o.signal,
      onProgress: (progress) => emit({ type: 'progress', progress, done: progress.received, total: progress.total }),
    });
    let outcome: DownloadJobOutcome;
    try {
      const rows = (await loadSplit(o.paths, { split: o.split, input: result.file })).rows.length;
      outcome = { result, outcome: result.upToDate ? 'up-to-date' : 'downloaded', rows };
    } catch (err) {
      if (!(err instanceof DataValidationError)) throw err;
      outcome = { result, outcome: 'invalid', invalid: err };
    }
    emit({ type: 'finished', ...outcome });
    return outcome;
  } catch (err) {
    emit({ type: 'failed', error: err });
    throw err;
  }
}
