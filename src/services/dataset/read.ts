// Reads a SWE-Gym split parquet into an apache-arrow Table (parquet-wasm) and validates it strictly: the struct
// column `instance`, every field Dressage requires present and typed, test lists as lists or JSON strings, unique ids,
// the exact row count. All problems are collected and reported at once.
import { open, stat } from 'node:fs/promises';
import { ConsoleError, ExitCode, preconditionError } from '../errors.js';
import { SPLIT_ROWS, type Split } from '../workspace/paths.js';
import { imageForInstance, instanceIdProblem } from './imageName.js';
import { loadParquetWasm } from './parquetWasm.js';
import { type DataProblem, type SplitData, type SweGymTask, type TestListEncoding } from './types.js';
import { DataValidationError } from './validationError.js';
import { SWEGYM_DATASET } from '../recipe.js';

export const REQUIRED_FIELDS = [
  'instance_id',
  'repo',
  'problem_statement',
  'base_commit',
  'version',
  'test_patch',
  'FAIL_TO_PASS',
  'PASS_TO_PASS',
] as const;
const STRING_FIELDS = ['instance_id', 'repo', 'problem_statement', 'base_commit', 'version', 'test_patch'] as const;
const OPTIONAL_STRING_FIELDS = ['patch', 'hints_text', 'created_at'] as const;
const TEST_FIELDS = ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const;

/** How many problem lines an error message shows; the error object carries all of them. */

export interface ReadSplitOptions {
  /** The split this file is; sets the expected row count (293 train, 23 validation). */
  split?: Split;
  /** Overrides the expected row count; `false` skips the check (other datasets). */
  expectRows?: number | false;
  /**
   * The operator's own file (`--input`), not the split the console downloads to the recipe path: a broken one is
   * never to be deleted on our advice.
   */
  ownFile?: boolean;
}

export { DataValidationError } from './validationError.js';

const PARQUET_MAGIC = 'PAR1';

function downloadFix(file: string, split: Split | undefined, ownFile = false): string {
  const s = split ?? 'train';
  // Advice to delete is for the file the console downloads (and will download again), never for one it was handed.
  if (ownFile) return `Pass --input with a SWE-Gym parquet (${s}.parquet from ${SWEGYM_DATASET}), or leave --input out to read the downloaded split (swegym-console data download --split ${s}).`;
  return `Delete ${file} and download it again (swegym-console data download --split ${s}), or place a good copy of ${s}.parquet from ${SWEGYM_DATASET} there by hand.`;
}

/** Reads the whole file after checking that it exists and looks like parquet (magic at both ends). */
async function readParquetBytes(file: string, split: Split | undefined, ownFile = false): Promise<Uint8Array> {
  let size: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw preconditionError(`${file} is not a file`, undefined, downloadFix(file, split, ownFile));
    size = st.size;
  } catch (err) {
    if (err instanceof ConsoleError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConsoleError({
        what: `parquet not found: ${file}`,
        cause: 'the split has not been downloaded yet (or --input points elsewhere)',
        fix: `Run swegym-console data download --split ${split ?? 'train'}, or pass --input with the path of an existing parquet.`,
        exitCode: ExitCode.precondition,
        kind: 'missing_file',
      });
    }
    throw new ConsoleError({ what: `cannot read ${file}`, cause: (err as Error).message, inner: err });
  }
  const handle = await open(file, 'r');
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(size);
    let off = 0;
    while (off < size) {
      const { bytesRead } = await handle.read(bytes, off, size - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    if (off < size) bytes = bytes.subarray(0, off);
  } finally {
    await handle.close();
  }
  const text = (a: number, b: number) => Buffer.from(bytes.subarray(a, b)).toString('latin1');
  if (bytes.length < 12 || text(0, 4) !== PARQUET_MAGIC) {
    throw new ConsoleError({
      what: `${file} is not a parquet file`,
      cause: bytes.length === 0 ? 'the file is empty' : `it does not start with the parquet magic "PAR1" (${bytes.length} bytes; an HTML error page or a Git LFS pointer?)`,
      fix: downloadFix(file, split, ownFile),
    });
  }
  if (text(bytes.length - 4, bytes.length) !== PARQUET_MAGIC) {
    throw new ConsoleError({
      what: `${file} is truncated`,
      cause: `it starts like parquet but has no footer (${bytes.length} bytes); an interrupted download or copy`,
      fix: downloadFix(file, split, ownFile),
    });
  }
  return bytes;
}

type ArrowVector = import('apache-arrow').Vector;

function isArrowVector(v: unknown): v is ArrowVector {
  return typeof v === 'object' && v !== null && typeof (v as { toArray?: unknown }).toArray === 'function' && 'length' in v && typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'bigint') return `integer ${v}`;
  if (typeof v === 'number') return `number ${v}`;
  if (isArrowVector(v)) return `list of ${v.length}`;
  return typeof v;
}

/** Normalises FAIL_TO_PASS / PASS_TO_PASS: a list, or a JSON string holding a list, of strings. */
function testList(value: unknown): { ok: true; list: string[]; encoding: 'list' | 'json' } | { ok: false; message: string; missing?: boolean } {
  let list: unknown[];
  let encoding: 'list' | 'json';
  if (typeof value === 'string') {
    encoding = 'json';
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      return { ok: false, message: `is a string but not valid JSON (${(err as Error).message})` };
    }
    if (parsed === null) return { ok: false, message: 'missing (the JSON string holds null)', missing: true };
    if (!Array.isArray(parsed)) return { ok: false, message: `must be a list; the JSON string holds ${describe(parsed)}` };
    list = parsed;
  } else if (isArrowVector(value)) {
    encoding = 'list';
    list = [...(value as Iterable<unknown>)];
  } else if (Array.isArray(value)) {
    encoding = 'list';
    list = value;
  } else {
    return { ok: false, message: `must be a list of test ids or a JSON string of one, got ${describe(value)}` };
  }
  const bad = list.findIndex((x) => typeof x !== 'string');
  if (bad >= 0) return { ok: false, message: `item ${bad} is ${describe(list[bad])}, expected a test id string` };
  return { ok: true, list: list as string[], encoding };
}

function combineEncoding(a: TestListEncoding, b: 'list' | 'json'): TestListEncoding {
  return a === 'none' ? b : a === b ? a : 'mixed';
}

/**
 * Reads and validates a split. Throws `DataValidationError` listing every problem, or a `ConsoleError` for a file
 * that is missing, not parquet, truncated or without the `instance` struct.
 */
export async function readSplit(file: string, opts: ReadSplitOptions = {}): Promise<SplitData> {
  const bytes = await readParquetBytes(file, opts.split, opts.ownFile);
  const [arrow, pw] = await Promise.all([import('apache-arrow'), loadParquetWasm()]);
  let table: import('apache-arrow').Table;
  try {
    table = arrow.tableFromIPC(pw.readParquet(bytes).intoIPCStream());
  } catch (err) {
    throw new ConsoleError({
      what: `${file} could not be decoded as parquet`,
      cause: String((err as Error)?.message ?? err),
      fix: downloadFix(file, opts.split, opts.ownFile),
      inner: err,
    });
  }
  const columns = table.schema.fields.map((f) => f.name);
  const instanceField = table.schema.fields.find((f) => f.name === 'instance');
  if (!instanceField) {
    const flat = REQUIRED_FIELDS.every((f) => columns.includes(f));
    throw new ConsoleError({
      what: `${file} has no "instance" column`,
      cause: `columns: ${columns.join(', ') || '(none)'}${flat ? ` — this is the flat SWE-Gym/SWE-Gym layout, not ${SWEGYM_DATASET}` : ''}`,
      fix: 'Use the SkyRL split (task fields inside the struct column "instance"), as Dressage expects: swegym-console data download.',
    });
  }
  if (!arrow.DataType.isStruct(instanceField.type)) {
    throw new ConsoleError({
      what: `${file}: the "instance" column is ${instanceField.type.toString()}, not a struct`,
      cause: arrow.DataType.isUtf8(instanceField.type) || arrow.DataType.isLargeUtf8(instanceField.type) ? 'the tasks are stored as JSON strings (a flattened mirror); Dressage rejects such rows' : undefined,
      fix: `Use the original ${SWEGYM_DATASET} parquet, where "instance" is a struct of the task fields.`,
    });
  }
  const instance = table.getChild('instance') as import('apache-arrow').Vector<import('apache-arrow').Struct>;
  const instanceFields = (instanceField.type as import('apache-arrow').Struct).children.map((f) => f.name);

  const problems: DataProblem[] = [];
  const warnings: DataProblem[] = [];
  const absent = REQUIRED_FIELDS.filter((f) => !instanceFields.includes(f));
  for (const f of absent) {
    problems.push({ field: f, message: `the "instance" struct has no field "${f}" (fields: ${instanceFields.join(', ')})` });
  }
  const child = (name: string) => (instanceFields.includes(name) ? instance.getChild(name) : null);
  const children = Object.fromEntries([...REQUIRED_FIELDS, ...OPTIONAL_STRING_FIELDS].map((f) => [f, child(f)]));

  const rows: SweGymTask[] = [];
  const firstRowOf = new Map<string, number>();
  const encoding: SplitData['encoding'] = { FAIL_TO_PASS: 'none', PASS_TO_PASS: 'none' };
  const n = table.numRows;
  for (let i = 0; i < n; i++) {
    if (!instance.isValid(i)) {
      problems.push({ row: i, field: 'instance', message: 'the row does not contain an instance object (null)' });
      continue;
    }
    const get = (f: string): unknown => {
      const v = children[f];
      if (!v || !v.isValid(i)) return null;
      return v.get(i);
    };
    const rawId = get('instance_id');
    const id = typeof rawId === 'string' && rawId !== '' ? rawId : undefined;
    const rowProblems: DataProblem[] = [];
    const problem = (field: string, message: string) => rowProblems.push({ row: i, instanceId: id, field, message });
    const task: Partial<SweGymTask> = { row: i };
    const missing: string[] = [];
    for (const f of STRING_FIELDS) {
      if (absent.includes(f)) continue;
      const v = get(f);
      if (v === null) missing.push(f);
      else if (typeof v !== 'string') problem(f, `must be a string, got ${describe(v)}`);
      else (task as Record<string, unknown>)[f] = v;
    }
    for (const f of TEST_FIELDS) {
      if (absent.includes(f)) continue;
      const v = get(f);
      if (v === null) {
        missing.push(f);
        continue;
      }
      const r = testList(v);
      if (r.ok) {
        task[f] = r.list;
        encoding[f] = combineEncoding(encoding[f], r.encoding);
      } else if (r.missing) missing.push(f);
      else problem(f, r.message);
    }
    if (missing.length) problem(missing.join(', '), missing.length === 1 ? 'missing (null)' : 'missing (null) fields');
    for (const f of OPTIONAL_STRING_FIELDS) {
      const v = get(f);
      if (v === null) continue;
      if (typeof v !== 'string') problem(f, `must be a string when present, got ${describe(v)}`);
      else (task as Record<string, unknown>)[f] = v;
    }
    if (typeof rawId === 'string') {
      if (rawId === '') problem('instance_id', 'is empty');
      else {
        const bad = instanceIdProblem(rawId);
        if (bad) problem('instance_id', bad);
      }
    }
    if (typeof task.repo === 'string' && !/^[^/\s]+\/[^/\s]+$/.test(task.repo)) problem('repo', `must be "owner/name", got ${JSON.stringify(task.repo)}`);
    if (typeof task.base_commit === 'string' && task.base_commit === '') problem('base_commit', 'is empty');
    if (id) {
      const first = firstRowOf.get(id);
      if (first !== undefined) problem('instance_id', `duplicate id (first seen in row ${first})`);
      else firstRowOf.set(id, i);
    }
    problems.push(...rowProblems);
    if (rowProblems.length === 0) {
      const t = task as SweGymTask;
      t.image = imageForInstance(t.instance_id, t.repo);
      if (t.FAIL_TO_PASS.length === 0) warnings.push({ row: i, instanceId: id, field: 'FAIL_TO_PASS', message: 'is empty: the task cannot tell a fix from no fix' });
      if (t.patch === undefined || t.patch === '') warnings.push({ row: i, instanceId: id, field: 'patch', message: 'no gold patch: grading cannot be validated for this task' });
      if (t.problem_statement.trim() === '') warnings.push({ row: i, instanceId: id, field: 'problem_statement', message: 'is empty: the agent gets no task' });
      rows.push(t);
    }
  }

  const expected = opts.expectRows === false ? undefined : (opts.expectRows ?? (opts.split ? SPLIT_ROWS[opts.split] : undefined));
  if (expected !== undefined && n !== expected) {
    problems.unshift({
      message: `expected ${expected} ${opts.split ?? ''}${opts.split ? ' ' : ''}rows, got ${n}`,
    });
  }
  if (problems.length) {
    const countOnly = problems.length === 1 && problems[0]?.row === undefined && expected !== undefined && n !== expected;
    throw new DataValidationError(
      file,
      problems,
      countOnly
        ? `This is not the ${opts.split ?? 'expected'} split of ${SWEGYM_DATASET}; download it again, or pass --expect-rows ${n} for another dataset.`
        : 'Fix the listed rows in the file, or download the split again (swegym-console data download); Dressage rejects the same rows.',
    );
  }
  return {
    file,
    split: opts.split,
    fileBytes: bytes.byteLength,
    rows,
    columns,
    instanceFields,
    encoding,
    warnings,
  };
}
