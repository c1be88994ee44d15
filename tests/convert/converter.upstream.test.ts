// `convert` end to end through the BUILT bin/swegym-console with the REAL converter
// (../shared/upstream/dressage/examples/data/swegym/prepare_swegym_data.py) and the pinned harness
// (../shared/upstream/swegym-harness) passed as --swegym-package-root. pyarrow is not installable here: a stand-in on
// PYTHONPATH hands the converter the rows our test also wrote into the parquet, from a JSON sidecar; every row is
// still built by the converter's own code from the harness's make_test_spec and log parsers.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';
import { makeInstances, parquetBytes } from '../fixtures/parquetFixtures.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { imageForInstance } from '../../src/services/dataset/imageName.js';
import { REPO, SYSTEM_PATH, UPSTREAM_DRESSAGE, UPSTREAM_HARNESS, run, upstreamSkip } from '../helpers/upstreamHarness.js';

const CONVERTER = path.join(UPSTREAM_DRESSAGE, 'examples', 'data', 'swegym', 'prepare_swegym_data.py');
const BIN = path.join(REPO, 'bin', 'swegym-console');
const skip = upstreamSkip('dressage', 'swegym-harness') || (existsSync(path.join(REPO, 'dist', 'swegym-console.mjs')) ? false : 'dist/ is not built (npm run build): skipped');
if (skip) console.log(`# ${skip}`);

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

// Modules the converter and the harness import that are not installable here. pyarrow reads `<file>.rows.json`.
const STANDINS: Record<string, string> = {
  'pyarrow/__init__.py': '',
  'pyarrow/parquet.py': [
    '"""Test stand-in: the rows of <path> come from <path>.rows.json, written next to it by the test."""',
    'import json',
    'class _Table:',
    '    def __init__(self, rows): self._rows = rows',
    '    def to_pylist(self): return list(self._rows)',
    'def read_table(path):',
    '    with open(str(path) + ".rows.json", encoding="utf-8") as f: return _Table(json.load(f))',
    '',
  ].join('\n'),
  // swegym.harness.utils imports these at top level; the converter never calls into them.
  'requests/__init__.py': '',
  'datasets/__init__.py': 'class Dataset: pass\ndef load_dataset(*a, **k): raise RuntimeError("datasets stand-in")\n',
  'dotenv/__init__.py': 'def load_dotenv(*a, **k): return False\n',
};

/** The harness's MAP_REPO_VERSION_TO_SPECS keys, imported the converter's way (no swegym/__init__.py). */
async function harnessVersions(standins: string): Promise<Record<string, string[]>> {
  const code = [
    'import json, sys, types',
    'm = types.ModuleType("swegym"); m.__path__ = [sys.argv[1] + "/swegym"]; sys.modules["swegym"] = m',
    'from swegym.harness.constants import MAP_REPO_VERSION_TO_SPECS as M',
    'print(json.dumps({k: list(v) for k, v in M.items()}))',
  ].join('\n');
  const r = await run('python3', ['-c', code, UPSTREAM_HARNESS], { cwd: standins, env: { PATH: SYSTEM_PATH, PYTHONPATH: standins, PYTHONDONTWRITEBYTECODE: '1' } });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, string[]>;
}

/** A checkout with the real converter, a 293-row split (parquet + the stand-in's JSON sidecar) and a full map. */
async function convertWorkspace(opts: { harnessVersions: boolean }) {
  const root = await fakeDressageCheckout();
  dirs.push(root);
  const paths = recipePaths(root);
  await mkdir(path.dirname(paths.prepareDataScript), { recursive: true });
  await copyFile(CONVERTER, paths.prepareDataScript);
  const standins = await tempDir('swegym-pystandins-');
  dirs.push(standins);
  for (const [rel, body] of Object.entries(STANDINS)) {
    await mkdir(path.dirname(path.join(standins, rel)), { recursive: true });
    await writeFile(path.join(standins, rel), body);
  }
  // Our fixture versions are made up; the real make_test_spec knows only the harness's (repo, version) pairs.
  const known = await harnessVersions(standins);
  const instances = makeInstances(293, { seed: 14 }).map((i) => {
    const versions = known[i.repo] ?? [];
    return !opts.harnessVersions || versions.includes(i.version) || versions.length === 0 ? i : { ...i, version: versions[0]! };
  });
  await mkdir(paths.sourceDir, { recursive: true });
  const parquet = paths.parquet('train');
  await writeFile(parquet, await parquetBytes(instances));
  await writeFile(`${parquet}.rows.json`, JSON.stringify(instances.map((instance) => ({ instance }))));
  const map = Object.fromEntries(instances.map((i) => [imageForInstance(i.instance_id, i.repo), `tpl-${i.instance_id.toLowerCase().replace(/_/g, '-')}`]));
  await mkdir(path.dirname(paths.templateMap), { recursive: true });
  await writeFile(paths.templateMap, JSON.stringify(map));
  const env = {
    HOME: process.env.HOME ?? '/tmp',
    PATH: SYSTEM_PATH,
    PYTHONPATH: standins,
    PYTHONDONTWRITEBYTECODE: '1',
    NO_COLOR: '1',
    // Left over from the quickstart's step 2: the console keeps it from the converter, which would refuse it.
    CLAUDE_CODE_BBS_WHEEL_URL: 'https://example.com/bbs.whl',
  };
  return { root, paths, instances, map, known, env, parquet };
}

test('convert runs the real converter with the pinned harness (--swegym-package-root) through the built binary', { skip, timeout: 180_000 }, async () => {
  const { root, paths, instances, map, known, env } = await convertWorkspace({ harnessVersions: true });
  assert.ok(instances.slice(0, 5).every((i) => known[i.repo]?.includes(i.version)), 'the first rows use repos the harness knows');
  const node = path.join(REPO, 'node_modules', '.bin', 'node');
  const r = await run(node, [BIN, '--workspace', root, '--json', 'convert', '--swegym-package-root', UPSTREAM_HARNESS, '--limit', '5'], { cwd: root, env, timeoutMs: 170_000 });
  assert.equal(r.code, 0, `convert failed (exit ${r.code}):\n${r.stderr.slice(-1500)}`);
  const doc = JSON.parse(r.stdout) as { ok: boolean; removedEnv: string[]; wrote?: { rows: number }; verify: { ok: boolean; rows: number } };
  assert.equal(doc.ok, true);
  assert.deepEqual(doc.removedEnv, ['CLAUDE_CODE_BBS_WHEEL_URL']);
  assert.equal(doc.verify.rows, 5);
  assert.match(r.stderr, /wrote 5 train rows from .*train\.parquet to /, 'the real converter’s success line');

  const rows = (await readFile(paths.trainJsonl, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((x) => x.metadata.instance_id), instances.slice(0, 5).map((i) => i.instance_id));
  const first = rows[0];
  assert.equal(first.metadata.sandbox_image, map[imageForInstance(instances[0]!.instance_id, instances[0]!.repo)]);
  // The evaluation command embeds the harness's own log parsers (made standalone by the converter).
  const cmd: string = first.metadata.blackbox_execute_cmds.after_agent[0].cmd;
  const blobs = [...cmd.matchAll(/[A-Za-z0-9+/]{200,}={0,2}/g)].map((m) => {
    try {
      return inflateSync(Buffer.from(m[0], 'base64')).toString('utf8');
    } catch {
      return '';
    }
  });
  const harnessParsers = await readFile(path.join(UPSTREAM_HARNESS, 'swegym', 'harness', 'log_parsers.py'), 'utf8');
  const parserName = /^def (parse_log_\w+)\(/m.exec(harnessParsers)?.[1] ?? 'parse_log_pytest';
  assert.ok(blobs.some((b) => b.includes(`def ${parserName}(`)), `no embedded ${parserName} from the harness in the eval command`);
  assert.ok(blobs.some((b) => b.includes(instances[0]!.base_commit)), 'the eval script (make_test_spec) checks out the base commit');
});

test('a task the pinned harness has no spec for: the console refuses before converting, as the real converter fails', { skip, timeout: 180_000 }, async () => {
  const { root, paths, instances, known, env, parquet } = await convertWorkspace({ harnessVersions: false });
  const bad = instances.slice(0, 5).find((i) => !known[i.repo]?.includes(i.version));
  assert.ok(bad, 'the made-up fixture versions include one the harness does not know');
  // The real converter, run by hand the same way, stops with the KeyError.
  const real = await run('python3', [paths.prepareDataScript, path.join(root, 'out.jsonl'), '--input', parquet, '--sandbox-image-map', paths.templateMap, '--swegym-package-root', UPSTREAM_HARNESS, '--limit', '5'], {
    cwd: root,
    env: { PATH: env.PATH, PYTHONPATH: env.PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
  });
  assert.equal(real.code, 1);
  const keyError = /^KeyError: .*$/m.exec(real.stderr)?.[0];
  assert.ok(keyError, real.stderr.slice(-500));
  const node = path.join(REPO, 'node_modules', '.bin', 'node');
  const r = await run(node, [BIN, '--workspace', root, '--json', 'convert', '--swegym-package-root', UPSTREAM_HARNESS, '--limit', '5'], { cwd: root, env, timeoutMs: 170_000 });
  assert.equal(r.code, 3, r.stderr.slice(-800));
  assert.ok(r.stderr.includes(keyError), `the console does not predict "${keyError}":\n${r.stderr.slice(-800)}`);
  assert.ok(r.stderr.includes(bad!.instance_id));
  assert.ok(!r.stderr.includes('== converting'), 'refused before the converter ran');
});
