// Which tasks to validate: rows from the converted JSONL (the commands Dressage will run), gold patches from the
// parquet (the JSONL never carries them).
import { ConsoleError, ExitCode, usageError } from '../errors.js';
import type { RecipePaths, Split } from '../workspace/paths.js';
import { readRows } from '../convert/jsonlRows.js';
import type { HarnessTask } from './harness.js';

export interface TaskSelection {
  ids: string[];
  all: boolean;
  split?: Split;
  /** JSONL to read (default data/swegym-train-claude-code-e2b.jsonl). */
  jsonl?: string;
  /** Parquet with the gold patches (default data/swegym-source/<split>.parquet). */
  parquet?: string;
}

export async function loadHarnessTasks(paths: RecipePaths, sel: TaskSelection): Promise<HarnessTask[]> {
  if (!sel.all && sel.ids.length === 0) throw usageError('say which tasks: --instance ID (repeatable) or --all');
  if (sel.all && sel.ids.length) throw usageError('--all and --instance exclude each other');
  const jsonl = sel.jsonl ?? paths.trainJsonl;
  const rows = await readRows(jsonl, { ids: sel.all ? undefined : sel.ids });
  const split = sel.split ?? ((rows[0]?.metadata.dataset_split as Split | undefined) ?? 'train');
  const parquet = sel.parquet ?? paths.parquet(split);
  const { readSplit } = await import('../dataset/read.js');
  let patches: Map<string, string>;
  try {
    const data = await readSplit(parquet, { expectRows: false });
    patches = new Map(data.rows.filter((t) => t.patch).map((t) => [t.instance_id, t.patch as string]));
  } catch (err) {
    if (err instanceof ConsoleError) {
      throw new ConsoleError({
        what: `the gold patches could not be read from ${parquet}`,
        cause: err.what,
        fix: err.fix ?? 'download the split (swegym-console data download)',
        exitCode: ExitCode.precondition,
        inner: err,
      });
    }
    throw err;
  }
  return rows.map((row) => ({ row, goldPatch: patches.get(row.metadata.instance_id) }));
}
