// Every job is written once (continued from jobs.test.ts): convert, validate harness and data download, each run
// through its headless command and through the controller the screen uses, on identical workspaces and fakes. The
// job must emit the same event sequence to both faces, and each face must turn those events into its own output.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { eventsOf, headless } from './jobFaces.js';
import { convertCommand } from '../../src/cli/commands/convert.js';
import { ConvertController } from '../../src/services/convert/controller.js';
import { createConvertStore } from '../../src/state/convert.js';
import { validateHarnessCommand } from '../../src/cli/commands/validate.js';
import { ValidateController } from '../../src/services/validate/controller.js';
import { createValidateStore } from '../../src/state/validate.js';
import { openSandboxProvider } from '../../src/services/templates/provider.js';
import { dataDownloadCommand } from '../../src/cli/commands/data.js';
import { DataController } from '../../src/services/dataset/controller.js';
import { createDataStore } from '../../src/state/data.js';
import { createJobsStore } from '../../src/state/jobs.js';
import { imageForInstance } from '../../src/services/dataset/imageName.js';
import { recipePaths, type RecipePaths } from '../../src/services/workspace/paths.js';
import { makeInstances, parquetBytes } from '../fixtures/parquetFixtures.js';
import { startFakeHub } from '../fakes/hfHub.js';
import { writeHarnessTasks } from '../validate/harnessWorkspace.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

async function workspace(): Promise<RecipePaths> {
  const ws = await fakeDressageCheckout();
  dirs.push(ws);
  return recipePaths(ws);
}

/** A checkout with the fake converter (follows the upstream script's arguments and lines), a split and a full map. */
async function convertWorkspace() {
  const paths = await workspace();
  await copyFile(path.join(here, '..', 'fakes', 'converter.py'), paths.prepareDataScript);
  const instances = makeInstances(293, { seed: 11 });
  await mkdir(paths.sourceDir, { recursive: true });
  await writeFile(paths.parquet('train'), await parquetBytes(instances));
  await writeFile(path.join(paths.root, 'instances.json'), JSON.stringify(instances));
  await writeFile(paths.templateMap, JSON.stringify(Object.fromEntries(instances.map((i) => [imageForInstance(i.instance_id, i.repo), `tpl-${i.instance_id.toLowerCase().replace(/_/g, '-')}`]))));
  const pkg = path.join(paths.root, 'pypkg');
  await mkdir(path.join(pkg, 'swegym', 'harness'), { recursive: true });
  for (const f of ['__init__.py', 'harness/__init__.py', 'harness/test_spec.py', 'harness/log_parsers.py']) await writeFile(path.join(pkg, 'swegym', f), '');
  // A bootstrap URL in the shell: the job removes it from the converter's environment and says so (a warning).
  const env = { ...process.env, FAKE_SWEGYM_INSTANCES: path.join(paths.root, 'instances.json'), PYTHONPATH: pkg, CLAUDE_CODE_BINARY_URL: 'https://example.invalid/claude' };
  return { paths, env };
}

function convertShape(e: any): string {
  if (e.type === 'phase') return `phase ${e.phase} ${e.done}/${e.total}`;
  if (e.type === 'notice') return `notice ${e.notice.level} ${e.notice.text.split(':')[0]}`;
  if (e.type === 'finished') return `finished ok=${e.ok} rows=${e.verify.rows} problems=${e.verify.problems.length} wrote=${e.result?.wrote?.rows}`;
  if (e.type === 'failed') return `failed ${e.error?.what}`;
  return e.type;
}

test('convert: the CLI and the Convert screen get the same events from one convert job', { timeout: 120_000 }, async () => {
  const cli = await convertWorkspace();
  const h = headless(cli.paths, ['convert'], { limit: '3' }, cli.env);
  const fromCli = await eventsOf('convert', () => convertCommand(h.ctx));

  const screen = await convertWorkspace();
  const store = createConvertStore();
  const jobs = createJobsStore();
  store.getState().set({ form: { ...store.getState().form, limit: '3' } });
  const controller = new ConvertController({ paths: screen.paths, store, jobs, provider: 'e2b', env: screen.env });
  const fromScreen = await eventsOf('convert', () => controller.run());

  // Converter lines carry the workspace path; their count and the rest of the sequence must agree.
  const shapes = fromCli.events.map(convertShape);
  assert.deepEqual(fromScreen.events.map(convertShape), shapes);
  assert.equal(shapes[0], 'started');
  assert.deepEqual(shapes.filter((s) => s.startsWith('phase')), ['phase preflight 0/3', 'phase converting 1/3', 'phase verifying 2/3', 'phase done 3/3']);
  assert.ok(shapes.includes('notice warn removed CLAUDE_CODE_BINARY_URL from the converter\'s environment'), shapes.join('\n'));
  assert.ok(shapes.filter((s) => s === 'line').length >= 1);
  assert.equal(shapes.at(-1), 'finished ok=true rows=3 problems=0 wrote=3');

  // Each face: stderr lines and a report on stdout; phase, notices, output, report and preview in the store.
  assert.equal(fromCli.value, 0, h.err());
  assert.match(h.err(), /^== converting$/m);
  assert.match(h.err(), /^warn: removed CLAUDE_CODE_BINARY_URL/m);
  assert.match(h.err(), /^ {2}\| wrote 3 train rows from /m);
  assert.match(h.out(), /^ok {3}3 rows \(expected 3\) in /m);
  const st = store.getState();
  assert.equal(st.phase, 'done');
  assert.equal(st.message?.text, 'verified: 3 rows, no problems');
  assert.equal(st.notices[0]?.level, 'warn');
  assert.ok(st.lines.some((l) => /^wrote 3 train rows from /.test(l)), st.lines.join('\n'));
  assert.equal(st.previews.length, 3, 'the screen previews up to 20 rows, the CLI one (--preview 1)');
  assert.deepEqual(Object.keys(jobs.getState().jobs), []);
});

async function validateWorkspace() {
  const paths = await workspace();
  await writeHarnessTasks(paths, `jobs-${dirs.length}`);
  return paths;
}

/** Validation events, arm by arm (the two arms and the two tasks run in parallel; each arm's own order is fixed). */
function validateShapes(events: any[]): string[] {
  const out: string[] = [];
  const arms = new Map<string, string[]>();
  for (const e of events) {
    if (e.type === 'phase') arms.set(`${e.instanceId} ${e.arm}`, [...(arms.get(`${e.instanceId} ${e.arm}`) ?? []), e.phase]);
    else if (e.type === 'started') out.push(`started ${e.ids.join(',')} on ${e.provider} ×${e.concurrency} ${e.progress.done}/${e.progress.total}`);
    else if (e.type === 'result') out.push(`result ${e.result.instance_id} ok=${e.result.ok} ${e.progress.done}/${e.progress.total}`.replace(/ \d\/2$/, ' n/2'));
    else out.push(`finished passed=${e.passed} failed=${e.failed} notRun=${e.notRun} interrupted=${e.interrupted}`);
  }
  return [...out.sort(), ...[...arms.entries()].sort().map(([k, v]) => `${k}: ${v.join(' → ')}`)];
}

test('validate harness: the CLI and the Validate screen get the same events from one validation job', { timeout: 180_000 }, async () => {
  const cli = await validateWorkspace();
  const h = headless(cli, ['validate', 'harness'], { all: true, concurrency: '2' }, {}, false, 'local');
  const fromCli = await eventsOf('validate harness', () => validateHarnessCommand(h.ctx));

  const screen = await validateWorkspace();
  const store = createValidateStore();
  const jobs = createJobsStore();
  const controller = new ValidateController({ paths: screen, store, jobs, env: {}, concurrency: 2, openProvider: () => openSandboxProvider('local', {}, screen) });
  await controller.refresh();
  const fromScreen = await eventsOf('validate harness', () => controller.run());

  const shapes = validateShapes(fromCli.events);
  assert.deepEqual(validateShapes(fromScreen.events), shapes);
  assert.deepEqual(shapes.slice(0, 4), [
    'finished passed=1 failed=1 notRun=0 interrupted=false',
    'result sample__calc-1 ok=true n/2',
    'result sample__calc-2 ok=false n/2',
    'started sample__calc-1,sample__calc-2 on local ×2 0/2',
  ]);
  assert.ok(shapes.includes('sample__calc-1 gold: queued → creating → sanitizing → applying → evaluating → done'), shapes.join('\n'));
  assert.ok(shapes.includes('sample__calc-1 control: queued → creating → sanitizing → evaluating → done'), shapes.join('\n'));
  // Progress counts up by one per result, whichever task finishes first.
  assert.deepEqual(fromCli.events.filter((e) => e.type === 'result').map((e) => e.progress.done), [1, 2]);

  assert.equal(fromCli.value, 1);
  assert.match(h.err(), /^validating 2 task\(s\) on local with concurrency 2: /m);
  assert.match(h.err(), /^\[2\/2\] (ok {2}|FAIL)/m);
  assert.match(h.out(), /^1\/2 task\(s\) validated; journal: /m);
  const st = store.getState();
  assert.deepEqual(st.rows.map((r) => [r.instance_id, r.status]), [['sample__calc-1', 'ok'], ['sample__calc-2', 'failed']]);
  assert.equal(st.message?.text, 'done: 2 task(s) validated, 1 failing overall');
  assert.equal(st.running, false);
  assert.equal(st.progress, undefined, 'no progress (and no ETA) once the run ended');
  assert.deepEqual(Object.keys(jobs.getState().jobs), []);
});

function downloadShapes(events: any[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const s = e.type === 'progress' ? `progress ${e.progress.phase}` : e.type === 'finished' ? `finished ${e.outcome} rows=${e.rows}` : e.type === 'started' ? `started ${e.split}` : `failed`;
    if (out.at(-1) !== s) out.push(s); // how many progress events arrive depends on the chunking
  }
  return out;
}

test('data download: the CLI and the Data screen get the same events from one download job', { timeout: 60_000 }, async () => {
  const bytes = await parquetBytes(makeInstances(293, { seed: 4 }));
  const hub = await startFakeHub({ files: [{ repo: 'NovaSky-AI/SkyRL-v0-293-data', path: 'train.parquet', content: bytes }] });
  try {
    const cli = await workspace();
    const env = { HF_ENDPOINT: hub.endpoint, HOME: cli.root, HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' };
    const h = headless(cli, ['data', 'download'], {}, env);
    const fromCli = await eventsOf('data download', () => dataDownloadCommand(h.ctx));

    const screen = await workspace();
    const store = createDataStore();
    const jobs = createJobsStore();
    const flashes: string[] = [];
    const controller = new DataController({ paths: screen, store, jobs, env: { ...env, HOME: screen.root }, flash: (text) => flashes.push(text) });
    const fromScreen = await eventsOf('data download', () => controller.download());

    const shapes = downloadShapes(fromCli.events);
    assert.deepEqual(downloadShapes(fromScreen.events), shapes);
    assert.equal(shapes[0], 'started train');
    assert.ok(shapes.some((s) => s.startsWith('progress')), shapes.join('\n'));
    assert.equal(shapes.at(-1), 'finished downloaded rows=293');
    const last = fromCli.events.filter((e) => e.type === 'progress').at(-1);
    assert.equal(last.done, bytes.length);
    assert.equal(last.total, bytes.length);

    assert.equal(fromCli.value, 0, h.err());
    assert.match(h.out(), /^downloaded data\/swegym-source\/train\.parquet \([\d.]+ KiB, 293 rows; verified: size \+ sha256\)$/m);
    assert.match(flashes[0] ?? '', /^downloaded train\.parquet \([\d.]+ KiB, sha256 verified\)$/);
    assert.equal(store.getState().status, 'loaded');
    assert.equal(store.getState().rows.length, 293);
    assert.equal(store.getState().download?.running, false);
    assert.deepEqual(Object.keys(jobs.getState().jobs), []);
  } finally {
    await hub.close();
  }
});
