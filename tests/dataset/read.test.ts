import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { readSplit, DataValidationError } from '../../src/services/dataset/read.js';
import { ConsoleError, formatError } from '../../src/services/errors.js';
import { formatProblem } from '../../src/services/dataset/types.js';
import { makeInstances, parquetBytes, writeParquetFixture, type FixtureInstance } from '../fixtures/parquetFixtures.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await tempDir('swegym-read-');
  try {
    await fn(dir);
  } finally {
    await removeDir(dir);
  }
}

async function rejection(p: Promise<unknown>): Promise<ConsoleError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ConsoleError, `expected ConsoleError, got ${String((err as Error)?.stack ?? err)}`);
    return err;
  }
  assert.fail('expected readSplit to fail');
}

for (const encoding of ['list', 'json'] as const) {
  test(`reads a valid 23-row split with test lists stored as ${encoding}`, async () => {
    await withDir(async (dir) => {
      const file = path.join(dir, 'validation.parquet');
      const instances = makeInstances(23, { seed: 7 });
      await writeParquetFixture(file, instances, { encoding });
      const data = await readSplit(file, { split: 'validation' });
      assert.equal(data.rows.length, 23);
      assert.deepEqual(data.columns, ['data_source', 'prompt', 'ability', 'instance']);
      assert.deepEqual(data.encoding, { FAIL_TO_PASS: encoding, PASS_TO_PASS: encoding });
      for (const [i, row] of data.rows.entries()) {
        const src = instances[i] as FixtureInstance;
        assert.equal(row.row, i);
        assert.equal(row.instance_id, src.instance_id);
        assert.equal(row.repo, src.repo);
        assert.equal(row.problem_statement, src.problem_statement);
        assert.equal(row.patch, src.patch);
        assert.equal(row.test_patch, src.test_patch);
        assert.equal(row.version, src.version);
        assert.equal(row.base_commit, src.base_commit);
        assert.deepEqual(row.FAIL_TO_PASS, src.FAIL_TO_PASS);
        assert.deepEqual(row.PASS_TO_PASS, src.PASS_TO_PASS);
        assert.ok(Array.isArray(row.PASS_TO_PASS));
        assert.match(row.image, /^xingyaoww\/sweb\.eval\.x86_64\.[a-z0-9_.-]+:latest$/);
      }
      assert.equal(data.rows.find((r) => r.repo === 'Project-MONAI/MONAI')?.image.includes('project-monai_s_monai-'), true);
    });
  });
}

test('zstd, several row groups and a mix of encodings across files read the same', async () => {
  await withDir(async (dir) => {
    const instances = makeInstances(50, { seed: 3 });
    const a = path.join(dir, 'a.parquet');
    const b = path.join(dir, 'b.parquet');
    await writeParquetFixture(a, instances, { compression: 'zstd', rowGroupSize: 7 });
    await writeParquetFixture(b, instances, { compression: 'none', encoding: 'json' });
    const ra = await readSplit(a, { expectRows: 50 });
    const rb = await readSplit(b, { expectRows: 50 });
    assert.deepEqual(ra.rows, rb.rows);
  });
});

test('large_string / large_list columns (other writers) read the same', async () => {
  await withDir(async (dir) => {
    const instances = makeInstances(30, { seed: 12 });
    const a = path.join(dir, 'large.parquet');
    const b = path.join(dir, 'plain.parquet');
    await writeParquetFixture(a, instances, { largeTypes: true });
    await writeParquetFixture(b, instances);
    const ra = await readSplit(a, { expectRows: 30 });
    assert.equal(ra.encoding.PASS_TO_PASS, 'list');
    assert.deepEqual(ra.rows, (await readSplit(b, { expectRows: 30 })).rows);
  });
});

test('the row count must be exact for the split; --expect-rows overrides it', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'train.parquet');
    await writeParquetFixture(file, makeInstances(20));
    const err = await rejection(readSplit(file, { split: 'train' }));
    assert.ok(err instanceof DataValidationError);
    assert.equal(err.problems.length, 1);
    assert.equal(formatProblem(err.problems[0]!), 'file: expected 293 train rows, got 20');
    assert.match(err.fix ?? '', /--expect-rows 20/);
    assert.equal((await readSplit(file, { split: 'train', expectRows: 20 })).rows.length, 20);
    assert.equal((await readSplit(file, { split: 'train', expectRows: false })).rows.length, 20);
  });
});

test('every problem is reported at once with row, instance and field', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'bad.parquet');
    const instances = makeInstances(12, { seed: 11 });
    instances[5]!.instance_id = instances[2]!.instance_id; // duplicate
    await writeParquetFixture(file, instances, {
      encoding: 'json',
      overrides: {
        1: { version: null },
        3: { FAIL_TO_PASS: 'not json', PASS_TO_PASS: '{"a":1}' },
        4: { instance_id: 'no-double-underscore-1' },
        6: { base_commit: null, test_patch: null },
        7: { repo: 'justaname' },
        8: { FAIL_TO_PASS: '[1, 2]' },
        9: { PASS_TO_PASS: 'null' },
      },
    });
    const err = await rejection(readSplit(file, { split: 'validation' }));
    assert.ok(err instanceof DataValidationError);
    const lines = err.problems.map(formatProblem);
    const id = (i: number) => instances[i]!.instance_id;
    assert.deepEqual(lines, [
      'file: expected 23 validation rows, got 12',
      `row 1 (${id(1)}): version: missing (null)`,
      `row 3 (${id(3)}): FAIL_TO_PASS: is a string but not valid JSON (${lines[2]!.match(/JSON \((.*)\)$/)?.[1]})`,
      `row 3 (${id(3)}): PASS_TO_PASS: must be a list; the JSON string holds object`,
      'row 4 (no-double-underscore-1): instance_id: "no-double-underscore-1" has no "__" between owner and repository (expected owner__name-123)',
      `row 5 (${id(2)}): instance_id: duplicate id (first seen in row 2)`,
      `row 6 (${id(6)}): base_commit, test_patch: missing (null) fields`,
      'row 7 (' + id(7) + '): repo: must be "owner/name", got "justaname"',
      `row 8 (${id(8)}): FAIL_TO_PASS: item 0 is number 1, expected a test id string`,
      `row 9 (${id(9)}): PASS_TO_PASS: missing (null)`,
    ]);
    // The message a person sees lists them too.
    const text = formatError(err);
    assert.match(text, /failed validation: 10 problems/);
    assert.match(text, /row 5 .*duplicate id/);
  });
});

test('a row whose instance is null is reported, like Dressage\'s "does not contain an instance object"', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'n.parquet');
    await writeParquetFixture(file, makeInstances(5), { nullInstanceRows: [2] });
    const err = await rejection(readSplit(file, { expectRows: 5 }));
    assert.ok(err instanceof DataValidationError);
    assert.deepEqual(err.problems.map(formatProblem), ['row 2: instance: the row does not contain an instance object (null)']);
  });
});

test('a wrong type in the schema is a typed problem, not a crash', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'v.parquet');
    await writeParquetFixture(file, makeInstances(3), { versionAsNumber: true });
    const err = await rejection(readSplit(file, { expectRows: 3 }));
    assert.ok(err instanceof DataValidationError);
    assert.equal(err.problems.length, 3);
    assert.match(formatProblem(err.problems[0]!), /^row 0 \(.+\): version: must be a string, got number \d/);
  });
});

test('a field missing from the struct is one file-level problem, not one per row', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'm.parquet');
    await writeParquetFixture(file, makeInstances(30), { omitFields: ['test_patch', 'patch'] });
    const err = await rejection(readSplit(file, { expectRows: 30 }));
    assert.ok(err instanceof DataValidationError);
    assert.equal(err.problems.length, 1);
    assert.match(formatProblem(err.problems[0]!), /^file: test_patch: the "instance" struct has no field "test_patch"/);
  });
});

test('flat layout, instance as JSON string, truncated, not parquet, empty and missing files: clear errors', async () => {
  await withDir(async (dir) => {
    const instances = makeInstances(4);
    const flat = path.join(dir, 'flat.parquet');
    await writeParquetFixture(flat, instances, { flat: true });
    const e1 = await rejection(readSplit(flat));
    assert.match(e1.what, /has no "instance" column/);
    assert.match(e1.causeText ?? '', /flat SWE-Gym\/SWE-Gym layout/);

    const js = path.join(dir, 'js.parquet');
    await writeParquetFixture(js, instances, { instanceAsJsonString: true });
    const e2 = await rejection(readSplit(js));
    assert.match(e2.what, /the "instance" column is Utf8, not a struct/);
    assert.match(e2.causeText ?? '', /JSON strings/);

    const bytes = await parquetBytes(instances);
    const trunc = path.join(dir, 'trunc.parquet');
    await writeFile(trunc, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const e3 = await rejection(readSplit(trunc, { split: 'train' }));
    assert.match(e3.what, /is truncated/);
    assert.match(e3.fix ?? '', /data download --split train/);

    const html = path.join(dir, 'html.parquet');
    await writeFile(html, '<!DOCTYPE html><html><body>Rate limited</body></html>');
    const e4 = await rejection(readSplit(html));
    assert.match(e4.what, /is not a parquet file/);

    const lfs = path.join(dir, 'lfs.parquet');
    await writeFile(lfs, 'version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n');
    assert.match((await rejection(readSplit(lfs))).causeText ?? '', /LFS pointer/);

    const empty = path.join(dir, 'empty.parquet');
    await writeFile(empty, '');
    assert.match((await rejection(readSplit(empty))).causeText ?? '', /empty/);

    // Valid magic at both ends, garbage inside.
    const garbage = path.join(dir, 'garbage.parquet');
    await writeFile(garbage, Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(100, 7), Buffer.from('PAR1')]));
    assert.match((await rejection(readSplit(garbage))).what, /could not be decoded as parquet/);

    const missing = await rejection(readSplit(path.join(dir, 'nope', 'train.parquet'), { split: 'train' }));
    assert.equal(missing.exitCode, 3);
    assert.match(missing.what, /parquet not found/);
    assert.match(missing.fix ?? '', /data download --split train/);
    // Callers (the data screen's "missing" state) decide by the kind, never by the wording.
    assert.equal(missing.kind, 'missing_file');
    assert.equal(e4.kind, 'other');

    await mkdir(path.join(dir, 'isdir.parquet'));
    const notAFile = await rejection(readSplit(path.join(dir, 'isdir.parquet')));
    assert.match(notAFile.what, /is not a file/);
    assert.equal(notAFile.kind, 'other', 'a directory in the way is not a missing split');
  });
});

test('warnings: empty FAIL_TO_PASS, no gold patch, empty problem statement (the split still loads)', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'w.parquet');
    await writeParquetFixture(file, makeInstances(3), { overrides: { 0: { FAIL_TO_PASS: [] }, 1: { patch: null }, 2: { problem_statement: '  ' } } });
    const data = await readSplit(file, { expectRows: 3 });
    assert.equal(data.rows.length, 3);
    assert.deepEqual(data.warnings.map((w) => `${w.row} ${w.field}`), ['0 FAIL_TO_PASS', '1 patch', '2 problem_statement']);
  });
});
