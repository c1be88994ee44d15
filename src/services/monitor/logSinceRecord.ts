// Whether the log `monitor --once` read is still the one the run's launch record knows, for --json's
// `log_since_record`. Two signs can be told honestly, and only for a run opened through the registry:
// - replaced: the launch record holds the inode (and device) of the log the launcher got; another inode at the path
//   was put there later (mv over it, deleted and written again). Records written before that field: unknown. (A
//   file's birth time was not used: where the file system has none, libuv reports the change time, which every
//   append moves.)
// - truncated: the console's progress scan has read the log up to `progressScanOffset` (status.json); a log shorter
//   than that got shorter since. A log cut and written again past that length cannot be told apart: unknown.
// A log opened as a file or a run folder has no record to compare with: `checked: false`.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { readRun, runStatus } from '../train/registry.js';
import type { MonitorTarget } from './resolve.js';

export interface LogSinceRecordJson {
  checked: boolean;
  /** The registry entry compared with. */
  record: string | null;
  /** true: replaced since the launch; false: the same file; null: cannot tell (why says so). */
  replaced: boolean | null;
  /** true: shorter than the console once read it; null: cannot tell. Never false: a rewrite to a longer file looks the same. */
  truncated: true | null;
  why: string;
}

export async function logSinceRecord(paths: RecipePaths, target: Pick<MonitorTarget, 'registryName' | 'logFile'>): Promise<LogSinceRecordJson> {
  const none = (why: string): LogSinceRecordJson => ({ checked: false, record: target.registryName ?? null, replaced: null, truncated: null, why });
  if (!target.registryName) return none('opened as a file or run folder: no launch record to compare the log with');
  if (!target.logFile) return none('the run has no log to compare');
  const record = await readRun(paths, target.registryName).catch(() => undefined);
  if (!record) return none(`the launch record ${target.registryName} cannot be read`);
  if (path.resolve(paths.root, record.logFile) !== path.resolve(target.logFile)) return none('the log read is not the one the launch record names');
  const st = await stat(target.logFile).catch(() => undefined);
  if (!st) return none(`${target.logFile} cannot be read`);
  const why: string[] = [];

  let replaced: boolean | null = null;
  if (record.logInode === undefined) why.push('replaced: unknown (the launch record does not hold the log\'s inode: launched by an older console)');
  else {
    replaced = st.ino !== record.logInode || (record.logDevice !== undefined && st.dev !== record.logDevice);
    why.push(replaced ? `replaced: another file is at the path (inode ${st.ino}, the launcher's was ${record.logInode})` : 'replaced: no, the same file (inode) the launcher wrote');
  }

  let truncated: true | null = null;
  const seen = (await runStatus(paths, record).catch(() => record)).progressScanOffset;
  if (seen === undefined) why.push('truncated: unknown (the console has not read this log before)');
  else if (st.size < seen) {
    truncated = true;
    why.push(`truncated: the log holds ${st.size} bytes, the console had read ${seen}`);
  } else why.push(`truncated: unknown (not shorter than the ${seen} bytes the console had read; a rewrite past that looks the same)`);
  return { checked: true, record: record.name, replaced, truncated, why: why.join('; ') };
}
