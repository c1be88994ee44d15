// Writes a split in the layout of NovaSky-AI/SkyRL-v0-293-data (swegym-data reference): top-level `prompt`
// (a list of {content, role} messages), `data_source`, `ability` and the task as the struct column `instance`, with
// FAIL_TO_PASS/PASS_TO_PASS as lists of strings. The sample workspace uses it for its own tasks, so that the split
// it leaves is read by the same reader, checks and screens as the real one.
import { writeFileAtomic } from '../workspace/atomic.js';
import { loadParquetWasm } from './parquetWasm.js';
import type { SweGymTask } from './types.js';

/** The task fields the writer stores, in this order inside `instance`. */
const STRING_FIELDS = ['instance_id', 'repo', 'base_commit', 'patch', 'test_patch', 'problem_statement', 'version', 'hints_text', 'created_at'] as const;

export type SplitTaskInput = Omit<SweGymTask, 'row' | 'image'>;

/** The parquet bytes of a split (snappy, one row group). */
export async function splitParquetBytes(tasks: readonly SplitTaskInput[]): Promise<Uint8Array> {
  const [arrow, pw] = await Promise.all([import('apache-arrow'), loadParquetWasm()]);
  const testList = () => new arrow.List(new arrow.Field('item', new arrow.Utf8(), true));
  const fields = [...STRING_FIELDS.map((n) => new arrow.Field(n, new arrow.Utf8(), true)), new arrow.Field('FAIL_TO_PASS', testList(), true), new arrow.Field('PASS_TO_PASS', testList(), true)];
  const message = new arrow.Struct([new arrow.Field('content', new arrow.Utf8(), true), new arrow.Field('role', new arrow.Utf8(), true)]);
  const table = new arrow.Table({
    data_source: arrow.vectorFromArray(tasks.map(() => 'swe-gym'), new arrow.Utf8()),
    prompt: arrow.vectorFromArray(
      tasks.map((t) => [{ content: t.problem_statement, role: 'user' }]),
      new arrow.List(new arrow.Field('item', message, true)),
    ),
    ability: arrow.vectorFromArray(tasks.map(() => 'coding'), new arrow.Utf8()),
    instance: arrow.vectorFromArray(
      tasks.map((t) => {
        const o: Record<string, unknown> = {};
        for (const f of STRING_FIELDS) o[f] = t[f] ?? null;
        o.FAIL_TO_PASS = [...t.FAIL_TO_PASS];
        o.PASS_TO_PASS = [...t.PASS_TO_PASS];
        return o;
      }),
      new arrow.Struct(fields),
    ),
  });
  const wasmTable = pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream'));
  return pw.writeParquet(wasmTable, new pw.WriterPropertiesBuilder().setCompression(pw.Compression.SNAPPY).build());
}

/** Writes the split to `file` atomically (a reader never sees half a parquet). */
export async function writeSplitParquet(file: string, tasks: readonly SplitTaskInput[]): Promise<number> {
  const bytes = await splitParquetBytes(tasks);
  await writeFileAtomic(file, bytes);
  return bytes.byteLength;
}
