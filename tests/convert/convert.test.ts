// The convert step against a fake of Dressage's converter (tests/fakes/converter.py): preflight blockers, the
// bootstrap-URL trap, streaming, error mapping, and verification of what it wrote.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, writeFile, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';
import { makeInstances, parquetBytes, type FixtureInstance } from '../fixtures/parquetFixtures.js';
import { recipePaths, type RecipePaths } from '../../src/services/workspace/paths.js';
import { imageForInstance } from '../../src/services/dataset/imageName.js';
import { runConvert, preflightConvert } from '../../src/services/convert/convert.js';
import { defaultConvertOptions, manualCommand, type ConvertOptions } from '../../src/services/convert/options.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { ConsoleError } from '../../src/services/errors.js';
import { readRows, previewRow, previewLines } from '../../src/services/convert/jsonlRows.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FAKE = path.join(here, '..', 'fakes', 'converter.py');

let ws: string;
let paths: RecipePaths;
let instances: FixtureInstance[];
let pkgRoot: string;
let instancesJson: string;
const dirs: string[] = [];

async function writeMap(map: Record<string, string>) {
  await mkdir(path.dirname(paths.templateMap), { recursive: true });
  await writeFile(paths.templateMap, JSON.stringify(map));
}

function fullMap(): Record<string, string> {
  return Object.fromEntries(instances.map((i) => [imageForInstance(i.instance_id, i.repo), `tpl-${i.instance_id.toLowerCase().replace(/_/g, '-')}`]));
}

before(async () => {
  ws = await fakeDressageCheckout();
  dirs.push(ws);
  paths = recipePaths(ws);
  await copyFile(FAKE, paths.prepareDataScript);
  instances = makeInstances(293, { seed: 7 });
  await mkdir(paths.sourceDir, { recursive: true });
  await writeFile(paths.parquet('train'), await parquetBytes(instances));
  instancesJson = path.join(ws, 'instances.json');
  await writeFile(instancesJson, JSON.stringify(instances));
  pkgRoot = await tempDir('swegym-pkg-');
  dirs.push(pkgRoot);
  await mkdir(path.join(pkgRoot, 'swegym', 'harness'), { recursive: true });
  for (const f of ['__init__.py', 'harness/__init__.py', 'harness/test_spec.py', 'harness/log_parsers.py']) await writeFile(path.join(pkgRoot, 'swegym', f), '');
});

after(async () => {
  for (const d of dirs) await removeDir(d);
});

function opts(over: Partial<ConvertOptions> = {}): ConvertOptions {
  return defaultConvertOptions(paths, { swegymPackageRoot: pkgRoot, ...over });
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, FAKE_SWEGYM_INSTANCES: instancesJson, ...extra };
}

test('happy path: removes bootstrap URLs, streams output, verifies 293 rows with no gold patch', async () => {
  await writeMap(fullMap());
  const lines: string[] = [];
  const notices: string[] = [];
  const phases: string[] = [];
  const log = new CommandLog();
  const r = await runConvert({
    paths,
    options: opts(),
    env: env({ CLAUDE_CODE_BBS_WHEEL_URL: 'https://example.invalid/bbs.whl', CLAUDE_CODE_BINARY_URL: 'https://example.invalid/claude' }),
    log,
    onLine: (_s, l) => lines.push(l),
    onNotice: (n) => notices.push(n.text),
    onPhase: (p) => phases.push(p),
  });
  assert.deepEqual(r.removedEnv, ['CLAUDE_CODE_BBS_WHEEL_URL', 'CLAUDE_CODE_BINARY_URL']);
  assert.ok(notices.some((n) => n.includes('removed CLAUDE_CODE_BBS_WHEEL_URL, CLAUDE_CODE_BINARY_URL')));
  assert.ok(lines.some((l) => l.startsWith('wrote 293 train rows from')), lines.join('\n'));
  assert.equal(r.wrote?.rows, 293);
  assert.ok(r.verify, 'verified');
  assert.deepEqual(r.verify.problems, []);
  assert.equal(r.verify.rows, 293);
  assert.equal(r.ok, true);
  assert.deepEqual(phases, ['preflight', 'converting', 'verifying', 'done']);
  // The command log shows the converter with its flags; the probe ran first.
  const argv = log.entries().map((e) => e.argv.join(' '));
  assert.ok(argv.some((a) => a.includes('prepare_swegym_data.py') && a.includes('--max-turns 80') && a.includes('--permission-mode acceptEdits')));
  assert.match(r.command, /^unset CLAUDE_CODE_BBS_WHEEL_URL .*python3 examples\/data\/swegym\/prepare_swegym_data.py data\/swegym-train-claude-code-e2b.jsonl --input data\/swegym-source\/train.parquet/);
  // The preview reads the row readably.
  const [row] = await readRows(paths.trainJsonl, { limit: 1 });
  assert.ok(row);
  const text = previewLines(previewRow(row)).join('\n');
  assert.match(text, new RegExp(instances[0]!.instance_id));
  assert.match(text, /integrity rules appended: yes/);
  assert.match(text, /before_agent: swegym_git_sanitize \(timeout 120s, required\)/);
  assert.match(text, /after_agent: {2}swegym_harness \(timeout 1260s\): .*\/tmp\/dressage_swegym_eval_getmoto__moto-\d+\.sh <\d+ chars base64>/);
});

test('--limit and requested options reach the rows and are verified', async () => {
  await writeMap(fullMap());
  const out = path.join(ws, 'data', 'limited.jsonl');
  const r = await runConvert({ paths, options: opts({ output: out, limit: 5, maxTurns: 40, permissionMode: 'plan', testTimeout: 600, commandTimeout: 700 }), env: env() });
  assert.equal(r.ok, true, JSON.stringify(r.verify?.problems));
  assert.equal(r.verify?.rows, 5);
  const rows = await readRows(out);
  assert.equal(rows[0]?.metadata.backend_options?.max_turns, 40);
  assert.equal(rows[0]?.metadata.blackbox_execute_cmds.after_agent[0]?.timeout, 700);
});

test('an incomplete map is caught before the converter runs, naming image and instance', async () => {
  const map = fullMap();
  const victim = instances[10]!;
  delete map[imageForInstance(victim.instance_id, victim.repo)];
  await writeMap(map);
  const log = new CommandLog();
  await assert.rejects(runConvert({ paths, options: opts(), env: env(), log }), (err: unknown) => {
    assert.ok(err instanceof ConsoleError);
    assert.match(err.what, new RegExp(`no entry for '${imageForInstance(victim.instance_id, victim.repo).replace(/[.]/g, '\\.')}' \\(instance ${victim.instance_id}\\)`));
    assert.equal(err.exitCode, 3);
    assert.match(err.fix ?? '', /templates build/);
    return true;
  });
  assert.equal(log.entries().length, 0, 'nothing was started');
  // With --limit the map needs only the converted rows' images.
  const r = await runConvert({ paths, options: opts({ output: path.join(ws, 'data', 'ten.jsonl'), limit: 10 }), env: env() });
  assert.equal(r.ok, true);
});

test('swegym not importable → precondition with the pip fix; the converter never runs', async () => {
  await writeMap(fullMap());
  const log = new CommandLog();
  await assert.rejects(runConvert({ paths, options: opts({ swegymPackageRoot: undefined }), env: env({ PYTHONPATH: '' }), log }), (err: unknown) => {
    assert.ok(err instanceof ConsoleError);
    assert.match(err.what, /pinned swegym harness is not importable/);
    assert.match(err.fix ?? '', /SWE-Bench-Package@16dd480cce9b27bf111a362d280881c6def5d2a7/);
    return true;
  });
  assert.equal(log.entries().filter((e) => e.argv.some((a) => a.endsWith('prepare_swegym_data.py'))).length, 0);
});

test('invalid options are usage errors with the converter wording', async () => {
  const bad: Partial<ConvertOptions>[] = [{ maxTurns: 0 }, { permissionMode: 'yolo' }, { provider: 'e2b', sandboxImageMap: undefined }, { bbsWheelUrl: 'https://x' }, { commandTimeout: 100, testTimeout: 200 }, { permissionMode: 'bypassPermissions' }];
  for (const b of bad) {
    await assert.rejects(preflightConvert({ paths, options: opts(b), env: env() }), (err: unknown) => err instanceof ConsoleError && err.exitCode === 2, JSON.stringify(b));
  }
});

test('converter errors are explained: wrong row count; a crash keeps the previous JSONL', async () => {
  await writeMap(fullMap());
  const short = path.join(ws, 'short.json');
  await writeFile(short, JSON.stringify(instances.slice(0, 290)));
  await assert.rejects(runConvert({ paths, options: opts(), env: env({ FAKE_SWEGYM_INSTANCES: short }) }), (err: unknown) => {
    assert.ok(err instanceof ConsoleError);
    assert.match(err.what, /290 rows, the converter expects 293 train rows/);
    return true;
  });
  const beforeText = await readFile(paths.trainJsonl, 'utf8');
  await assert.rejects(runConvert({ paths, options: opts(), env: env({ FAKE_CONVERTER_CRASH: '1' }) }), (err: unknown) => {
    assert.ok(err instanceof ConsoleError);
    assert.match(err.what, /the converter failed \(exit 1\): RuntimeError: simulated converter crash/);
    return true;
  });
  assert.equal(await readFile(paths.trainJsonl, 'utf8'), beforeText, 'previous output untouched');
  const leftovers = (await readdir(path.dirname(paths.trainJsonl))).filter((f) => f.includes('.tmp.'));
  assert.ok(leftovers.length >= 1, 'the fake left its temp file, as a crashed converter would');
});

test('manual command quotes and unsets for e2b', () => {
  const cmd = manualCommand(paths, opts({ swegymPackageRoot: undefined, limit: 1 }));
  assert.match(cmd, /^unset CLAUDE_CODE_BBS_WHEEL_URL CLAUDE_CODE_BINARY_URL CLAUDE_CODE_RUNTIME_URL; python3 /);
  assert.match(cmd, /--limit 1$/);
});
