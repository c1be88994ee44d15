import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseCommandLine } from '../../src/cli/args.js';
import { findCommand } from '../../src/cli/commandTable.js';
import type { CommandContext } from '../../src/cli/context.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { ConsoleError } from '../../src/services/errors.js';
import { dataDownloadCommand, dataImagesCommand, dataShowCommand } from '../../src/cli/commands/data.js';
import { makeInstances, parquetBytes, writeParquetFixture } from '../fixtures/parquetFixtures.js';
import { startFakeHub } from '../fakes/hfHub.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const r = parseCommandLine(argv, env, '/');
  assert.equal(r.kind, 'command', JSON.stringify(r));
  if (r.kind !== 'command') throw new Error('unreachable');
  let stdout = '';
  let stderr = '';
  const out = { write: (s: string) => ((stdout += s), true) } as unknown as NodeJS.WritableStream;
  const err = { write: (s: string) => ((stderr += s), true) } as unknown as NodeJS.WritableStream;
  const ctx: CommandContext = {
    command: r.spec.words,
    positionals: r.positionals,
    options: r.options,
    global: r.global,
    paths: recipePaths(r.global.workspace),
    stdout: out,
    stderr: err,
    env,
    signal: new AbortController().signal,
  };
  return { ctx, stdout: () => stdout, stderr: () => stderr };
}

async function fails(p: Promise<number>): Promise<ConsoleError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ConsoleError, String(e));
    return e;
  }
  assert.fail('expected a ConsoleError');
}

/** A 293-row train split with two tasks from legacy SWE-bench repos. */
function trainInstances() {
  const instances = makeInstances(293, { seed: 5 });
  instances[10]!.repo = 'pvlib/pvlib-python';
  instances[10]!.instance_id = 'pvlib__pvlib-python-1854';
  instances[11]!.repo = 'sqlfluff/sqlfluff';
  instances[11]!.instance_id = 'sqlfluff__sqlfluff-2419';
  return instances;
}

test('the data commands are wired in the command table', () => {
  for (const words of [['data', 'download'], ['data', 'images'], ['data', 'show']]) {
    assert.ok(findCommand(words)?.spec.load, words.join(' '));
  }
});

test('data images writes the list byte-for-byte like list-images and prints its summary line', async () => {
  const ws = await fakeDressageCheckout();
  try {
    const instances = trainInstances();
    await writeParquetFixture(path.join(ws, 'data/swegym-source/train.parquet'), instances, { encoding: 'json' });
    const r = run(['data', 'images', '-w', ws]);
    assert.equal(await dataImagesCommand(r.ctx), 0);
    assert.equal(r.stderr(), 'wrote 293 unique images from data/swegym-source/train.parquet to data/swegym-images.txt\n');
    assert.equal(r.stdout(), '');
    const text = await readFile(path.join(ws, 'data/swegym-images.txt'), 'utf8');
    const expected = instances.map((i) =>
      i.repo === 'pvlib/pvlib-python' || i.repo === 'sqlfluff/sqlfluff'
        ? `swebench/sweb.eval.x86_64.${i.instance_id.replace('__', '_1776_')}:latest\n`
        : `xingyaoww/sweb.eval.x86_64.${i.instance_id.replace('__', '_s_').toLowerCase()}:latest\n`,
    );
    assert.equal(text, expected.join(''));
    assert.ok(text.includes('xingyaoww/sweb.eval.x86_64.project-monai_s_monai-'));

    // --input/--output as given are echoed the way Python prints Paths; --json adds one document.
    const out2 = path.join(ws, 'out', 'images.txt');
    const r2 = run(['data', 'images', '-w', ws, '--input', path.join(ws, 'data/swegym-source/./train.parquet'), '--output', out2, '--json']);
    assert.equal(await dataImagesCommand(r2.ctx), 0);
    assert.equal(r2.stderr(), `wrote 293 unique images from ${ws}/data/swegym-source/train.parquet to ${out2}\n`);
    const doc = JSON.parse(r2.stdout());
    assert.equal(doc.images, 293);
    assert.equal(doc.legacyImages, 2);
    assert.equal(doc.list.length, 293);
    assert.equal(await readFile(out2, 'utf8'), text);
  } finally {
    await removeDir(ws);
  }
});

test('data images on a bad split lists every problem, exits 1 and leaves the old list alone', async () => {
  const ws = await fakeDressageCheckout();
  try {
    const listFile = path.join(ws, 'data/swegym-images.txt');
    const good = makeInstances(23);
    await writeParquetFixture(path.join(ws, 'data/swegym-source/validation.parquet'), good);
    assert.equal(await dataImagesCommand(run(['data', 'images', '-w', ws, '--split', 'validation']).ctx), 0);
    const before = await readFile(listFile, 'utf8');

    const bad = makeInstances(22);
    bad[3]!.instance_id = bad[1]!.instance_id;
    await writeParquetFixture(path.join(ws, 'data/swegym-source/validation.parquet'), bad, { overrides: { 5: { repo: null } } });
    const r = run(['data', 'images', '-w', ws, '--split', 'validation', '--json']);
    assert.equal(await dataImagesCommand(r.ctx), 1);
    const doc = JSON.parse(r.stdout());
    assert.equal(doc.ok, false);
    assert.deepEqual(
      doc.problems.map((p: { text: string }) => p.text.replace(/\(.*?\)/, '(…)')),
      ['file: expected 23 validation rows, got 22', 'row 3 (…): instance_id: duplicate id (first seen in row 1)', 'row 5 (…): repo: missing (null)'],
    );
    assert.match(r.stderr(), /failed validation: 3 problems/);
    assert.equal(await readFile(listFile, 'utf8'), before);

    // Another dataset: the row-count check can be overridden, the other checks cannot.
    const r2 = run(['data', 'images', '-w', ws, '--split', 'validation', '--expect-rows', '22']);
    assert.equal(await dataImagesCommand(r2.ctx), 1);
    assert.doesNotMatch(r2.stderr(), /expected 23/);
    await assert.rejects(dataImagesCommand(run(['data', 'images', '-w', ws, '--expect-rows', 'x']).ctx), /--expect-rows must be a positive integer/);
    const usage = await fails(dataImagesCommand(run(['data', 'images', '-w', ws, '--split', 'test']).ctx));
    assert.equal(usage.exitCode, 2);
  } finally {
    await removeDir(ws);
  }
});

test('data show: summary for people, one JSON document with every instance', async () => {
  const ws = await fakeDressageCheckout();
  try {
    const instances = trainInstances();
    await writeParquetFixture(path.join(ws, 'data/swegym-source/train.parquet'), instances);
    const r = run(['data', 'show', '-w', ws]);
    assert.equal(await dataShowCommand(r.ctx), 0);
    const text = r.stdout();
    assert.match(text, /^split: {5}train {2}\(data\/swegym-source\/train\.parquet, [\d.]+ KiB\)$/m);
    assert.match(text, /^rows: {6}293 tasks in 13 repos$/m);
    assert.match(text, /images: {4}293 unique, 2 from legacy SWE-bench repos/);
    assert.match(text, /FAIL_TO_PASS stored as list, PASS_TO_PASS as list/);
    assert.match(text, /^ {2}getmoto\/moto +\d+ +█+$/m);

    const j = run(['data', 'show', '-w', ws, '--json']);
    assert.equal(await dataShowCommand(j.ctx), 0);
    const doc = JSON.parse(j.stdout());
    assert.equal(doc.rows, 293);
    assert.equal(doc.split, 'train');
    assert.equal(doc.images, 293);
    assert.equal(doc.legacyImages, 2);
    assert.equal(doc.repos.reduce((a: number, r: { count: number }) => a + r.count, 0), 293);
    assert.deepEqual(Object.keys(doc.failToPass), ['min', 'median', 'max', 'total']);
    assert.equal(doc.instances.length, 293);
    const first = doc.instances[0];
    assert.deepEqual(Object.keys(first), ['instance_id', 'repo', 'image', 'fail_to_pass', 'pass_to_pass', 'version', 'base_commit']);
    assert.deepEqual(first.fail_to_pass, instances[0]!.FAIL_TO_PASS);
    assert.equal(doc.instances[10].image, 'swebench/sweb.eval.x86_64.pvlib_1776_pvlib-python-1854:latest');
    assert.equal(doc.failToPass.total, instances.reduce((a, i) => a + i.FAIL_TO_PASS.length, 0));

    const missing = await fails(dataShowCommand(run(['data', 'show', '-w', ws, '--split', 'validation']).ctx));
    assert.equal(missing.exitCode, 3);
    assert.match(missing.fix ?? '', /data download --split validation/);
    // --json: a failure is still one JSON document on stdout.
    const jm = run(['data', 'show', '-w', ws, '--split', 'validation', '--json']);
    await fails(dataShowCommand(jm.ctx));
    const failDoc = JSON.parse(jm.stdout());
    assert.equal(failDoc.ok, false);
    assert.equal(failDoc.exitCode, 3);
    assert.match(failDoc.error.what, /parquet not found/);
  } finally {
    await removeDir(ws);
  }
});

test('data download fetches through the fake hub into data/swegym-source and checks the split', async () => {
  const ws = await fakeDressageCheckout();
  const bytes = await parquetBytes(makeInstances(23, { seed: 9 }));
  const wrong = await parquetBytes(makeInstances(5));
  const hub = await startFakeHub({
    files: [
      { repo: 'NovaSky-AI/SkyRL-v0-293-data', path: 'validation.parquet', content: bytes },
      { repo: 'NovaSky-AI/SkyRL-v0-293-data', path: 'train.parquet', content: wrong },
    ],
  });
  try {
    const env = { HF_ENDPOINT: hub.endpoint, HOME: ws, HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' };
    const r = run(['data', 'download', '-w', ws, '--split', 'validation'], env);
    assert.equal(await dataDownloadCommand(r.ctx), 0);
    assert.match(r.stdout(), /^downloaded data\/swegym-source\/validation\.parquet \([\d.]+ KiB, 23 rows; verified: size \+ sha256\)$/m);
    assert.match(r.stderr(), /^resolving on 127\.0\.0\.1:\d+…$/m, 'progress lines on stderr (not a TTY)');
    assert.match(r.stderr(), /^done /m);
    assert.deepEqual(await readFile(path.join(ws, 'data/swegym-source/validation.parquet')), Buffer.from(bytes));

    const again = run(['data', 'download', '-w', ws, '--split', 'validation', '--json'], env);
    assert.equal(await dataDownloadCommand(again.ctx), 0);
    const doc = JSON.parse(again.stdout());
    assert.equal(doc.upToDate, true);
    assert.equal(doc.rows, 23);
    assert.equal(doc.sha256, hub.sha256(bytes));

    // A file that is not the split: downloaded (it is what the hub has) but reported, exit 1.
    const t = run(['data', 'download', '-w', ws, '--dir', path.join(ws, 'elsewhere')], env);
    assert.equal(await dataDownloadCommand(t.ctx), 1);
    assert.match(t.stderr(), /expected 293 train rows, got 5/);
    assert.ok((await stat(path.join(ws, 'elsewhere', 'train.parquet'))).isFile());

    // Offline: names the host, explains HF_ENDPOINT and the manual path, nothing left under the final name.
    const dead = run(['data', 'download', '-w', ws, '--split', 'train'], { ...env, HF_ENDPOINT: 'http://127.0.0.1:1' });
    const err = await fails(dataDownloadCommand(dead.ctx));
    assert.match(err.what, /cannot reach 127\.0\.0\.1:1/);
    assert.match(err.fix ?? '', /HF_ENDPOINT/);
    await assert.rejects(stat(path.join(ws, 'data/swegym-source/train.parquet')));
  } finally {
    await hub.close();
    await removeDir(ws);
  }
});
