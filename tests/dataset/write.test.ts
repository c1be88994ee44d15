// The split writer (used by the sample workspace): SkyRL's layout, read back by the same reader as the real split;
// only a sample workspace lifts the 293-row expectation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeSplitParquet } from '../../src/services/dataset/write.js';
import { readSplit, DataValidationError } from '../../src/services/dataset/read.js';
import { loadSplit } from '../../src/services/dataset/split.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { SAMPLE_LABEL, sampleMarkerFile, sampleWorkspaceLabel } from '../../src/services/workspace/sample.js';
import { makeInstances } from '../fixtures/parquetFixtures.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

/** A validation error whose only problem is the row count (`expected` rows). */
const rowCount = (expected: number) => (err: unknown) =>
  err instanceof DataValidationError && err.problems.length === 1 && new RegExp(`\\b${expected}\\b`).test(err.problems[0]!.message);

test('a written split reads back field for field, in the SkyRL layout, with test lists as lists', async () => {
  const dir = await tempDir('swegym-write-');
  try {
    const tasks = makeInstances(5, { seed: 7 });
    const file = path.join(dir, 'train.parquet');
    const bytes = await writeSplitParquet(file, tasks);
    assert.equal((await readFile(file)).byteLength, bytes);
    const data = await readSplit(file, { expectRows: 5 });
    assert.deepEqual(data.columns, ['data_source', 'prompt', 'ability', 'instance']);
    assert.deepEqual(data.encoding, { FAIL_TO_PASS: 'list', PASS_TO_PASS: 'list' });
    assert.equal(data.rows.length, 5);
    for (const [i, t] of tasks.entries()) {
      const r = data.rows[i]!;
      for (const f of ['instance_id', 'repo', 'base_commit', 'patch', 'test_patch', 'problem_statement', 'version'] as const) assert.equal(r[f], t[f], f);
      assert.deepEqual(r.FAIL_TO_PASS, t.FAIL_TO_PASS);
      assert.deepEqual(r.PASS_TO_PASS, t.PASS_TO_PASS);
    }
    // As a train split it is 288 rows short, and the reader says so.
    await assert.rejects(readSplit(file, { split: 'train' }), rowCount(293));
  } finally {
    await removeDir(dir);
  }
});

test('loadSplit lifts the row count only in a sample workspace, and only for the recipe path', async () => {
  const dir = await tempDir('swegym-write-');
  try {
    const paths = recipePaths(dir);
    await writeSplitParquet(paths.parquet('train'), makeInstances(3, { seed: 3 }));
    assert.equal(sampleWorkspaceLabel(paths), undefined);
    await assert.rejects(loadSplit(paths, { split: 'train' }), rowCount(293));
    await mkdir(paths.consoleDir, { recursive: true });
    await writeFile(sampleMarkerFile(paths), `${SAMPLE_LABEL}\n`);
    assert.equal(sampleWorkspaceLabel(paths), SAMPLE_LABEL);
    assert.equal((await loadSplit(paths, { split: 'train' })).rows.length, 3);
    // An explicit expectation, or another file, is checked as asked.
    await assert.rejects(loadSplit(paths, { split: 'train', expectRows: 4 }), rowCount(4));
    await assert.rejects(loadSplit(paths, { split: 'train', input: paths.parquet('train') }), rowCount(293));
  } finally {
    await removeDir(dir);
  }
});
