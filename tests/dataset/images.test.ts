import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { imageForInstance, instanceIdProblem, isLegacyRepo, parseInstanceId, LEGACY_SWEBENCH_IMAGE_REPOS } from '../../src/services/dataset/imageName.js';
import { imageListText, pythonPathString, summaryLine, uniqueImages, writeImageList } from '../../src/services/dataset/images.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

test('reference examples (§2.2) and the SWE-Gym namespace', () => {
  assert.equal(imageForInstance('getmoto__moto-6920', 'getmoto/moto'), 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-6920:latest');
  assert.equal(imageForInstance('pvlib__pvlib-python-1234', 'pvlib/pvlib-python'), 'swebench/sweb.eval.x86_64.pvlib_1776_pvlib-python-1234:latest');
  assert.equal(imageForInstance('Project-MONAI__MONAI-2238', 'Project-MONAI/MONAI'), 'xingyaoww/sweb.eval.x86_64.project-monai_s_monai-2238:latest');
  assert.equal(imageForInstance('getmoto__moto-7365', 'getmoto/moto'), 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-7365:latest');
});

test('all six legacy repos, case preserved; anything else lower-cased', () => {
  assert.deepEqual([...LEGACY_SWEBENCH_IMAGE_REPOS].sort(), [
    'marshmallow-code/marshmallow',
    'pvlib/pvlib-python',
    'pydicom/pydicom',
    'pylint-dev/astroid',
    'pyvista/pyvista',
    'sqlfluff/sqlfluff',
  ]);
  const cases: [string, string, string][] = [
    ['marshmallow-code__marshmallow-1359', 'marshmallow-code/marshmallow', 'swebench/sweb.eval.x86_64.marshmallow-code_1776_marshmallow-1359:latest'],
    ['pydicom__pydicom-1694', 'pydicom/pydicom', 'swebench/sweb.eval.x86_64.pydicom_1776_pydicom-1694:latest'],
    ['pylint-dev__astroid-1866', 'pylint-dev/astroid', 'swebench/sweb.eval.x86_64.pylint-dev_1776_astroid-1866:latest'],
    ['pyvista__pyvista-4315', 'pyvista/pyvista', 'swebench/sweb.eval.x86_64.pyvista_1776_pyvista-4315:latest'],
    ['sqlfluff__sqlfluff-2419', 'sqlfluff/sqlfluff', 'swebench/sweb.eval.x86_64.sqlfluff_1776_sqlfluff-2419:latest'],
    // Legacy keeps the case of the id exactly.
    ['PyDicom__PyDicom-12', 'pydicom/pydicom', 'swebench/sweb.eval.x86_64.PyDicom_1776_PyDicom-12:latest'],
    // The legacy test is on `repo`, exact and case-sensitive: a differently cased repo is not legacy.
    ['pydicom__pydicom-1694', 'PyDicom/pydicom', 'xingyaoww/sweb.eval.x86_64.pydicom_s_pydicom-1694:latest'],
    // A legacy-looking id under a non-legacy repo goes to xingyaoww.
    ['sqlfluff__sqlfluff-2419', 'someone/sqlfluff', 'xingyaoww/sweb.eval.x86_64.sqlfluff_s_sqlfluff-2419:latest'],
    // Split at the FIRST "__" and the LAST "-": every "__" becomes "_s_" in the xingyaoww name.
    ['a__b__c-d-17', 'a/b', 'xingyaoww/sweb.eval.x86_64.a_s_b_s_c-d-17:latest'],
    ['a__b__c-d-17', 'pvlib/pvlib-python', 'swebench/sweb.eval.x86_64.a_1776_b__c-d-17:latest'],
    ['Foo__Bar.Baz-X1', 'foo/bar', 'xingyaoww/sweb.eval.x86_64.foo_s_bar.baz-x1:latest'],
    // Triple underscore: the first "__" splits, the third "_" stays with the repo part.
    ['own___repo-1', 'pyvista/pyvista', 'swebench/sweb.eval.x86_64.own_1776__repo-1:latest'],
    ['own___repo-1', 'x/y', 'xingyaoww/sweb.eval.x86_64.own_s__repo-1:latest'],
  ];
  for (const [id, repo, image] of cases) assert.equal(imageForInstance(id, repo), image, `${id} (${repo})`);
  assert.equal(isLegacyRepo('pvlib/pvlib-python'), true);
  assert.equal(isLegacyRepo('pvlib/pvlib-python '), false);
});

test('ids Dressage cannot split are rejected with a reason', () => {
  assert.deepEqual(parseInstanceId('owner__name-12'), { owner: 'owner', imageRepo: 'name', issueId: '12' });
  assert.deepEqual(parseInstanceId('owner__name-'), { owner: 'owner', imageRepo: 'name', issueId: '' });
  for (const bad of ['owner_name-12', 'ownername', 'owner__name12', 'a-b__cd']) {
    assert.ok(instanceIdProblem(bad), bad);
    assert.throws(() => imageForInstance(bad, 'x/y'), /expected owner__name-123/);
  }
  assert.equal(instanceIdProblem('a-b__c-d'), undefined);
});

test('the list is first-seen order, de-duplicated, every line ending in a newline', () => {
  const rows = ['b', 'a', 'b', 'c', 'a'].map((image) => ({ image }));
  assert.deepEqual(uniqueImages(rows), ['b', 'a', 'c']);
  assert.equal(imageListText(uniqueImages(rows)), 'b\na\nc\n');
  assert.equal(imageListText([]), '');
});

test('the summary line prints paths as Python pathlib does', () => {
  assert.equal(
    summaryLine(293, 'data/swegym-source/train.parquet', 'data/swegym-images.txt'),
    'wrote 293 unique images from data/swegym-source/train.parquet to data/swegym-images.txt',
  );
  assert.equal(pythonPathString('./data//x/./y.txt'), 'data/x/y.txt');
  assert.equal(pythonPathString('data/'), 'data');
  assert.equal(pythonPathString('../a/../b'), '../a/../b');
  assert.equal(pythonPathString('/abs//p/'), '/abs/p');
  assert.equal(pythonPathString('//net/p'), '//net/p');
  assert.equal(pythonPathString('///x'), '/x');
  assert.equal(pythonPathString('.'), '.');
  assert.equal(pythonPathString(''), '.');
});

test('writeImageList writes atomically and returns the summary', async () => {
  const dir = await tempDir();
  try {
    const out = path.join(dir, 'data', 'swegym-images.txt');
    const rows = [
      { image: imageForInstance('getmoto__moto-1', 'getmoto/moto') },
      { image: imageForInstance('pvlib__pvlib-python-2', 'pvlib/pvlib-python') },
      { image: imageForInstance('getmoto__moto-1', 'getmoto/moto') },
    ];
    const r = await writeImageList({ rows, output: out, inputLabel: 'data/swegym-source/train.parquet', outputLabel: 'data/swegym-images.txt' });
    assert.equal(
      await readFile(out, 'utf8'),
      'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-1:latest\nswebench/sweb.eval.x86_64.pvlib_1776_pvlib-python-2:latest\n',
    );
    assert.equal(r.summary, 'wrote 2 unique images from data/swegym-source/train.parquet to data/swegym-images.txt');
    assert.deepEqual(await readdir(path.dirname(out)), ['swegym-images.txt']);
  } finally {
    await removeDir(dir);
  }
});
