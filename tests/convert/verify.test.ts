// JSONL verification against good and deliberately broken files (rows built from reference §2.3 by hand).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { verifyJsonl, readSmokeResults, type VerifyExpectations } from '../../src/services/convert/verify.js';
import { CONVERT_DEFAULTS } from '../../src/services/convert/options.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { dressageRow, rowImage, rowTemplate } from '../fixtures/dressageRow.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

const N = 4;
const map = Object.fromEntries(Array.from({ length: N }, (_, i) => [rowImage(i), rowTemplate(i)]));
const GOLD = 'diff --git a/moto/s3/models.py b/moto/s3/models.py\n--- a/moto/s3/models.py\n+++ b/moto/s3/models.py\n@@ -1 +1 @@\n-        self.tags = None\n+        self.tags = dict(tags or {})  # keep the tags\n';
const exp = (over: Partial<VerifyExpectations> = {}): VerifyExpectations => ({
  expectedRows: N,
  options: { ...CONVERT_DEFAULTS, split: 'train', provider: 'e2b' },
  templateMap: map,
  goldPatches: new Map([['getmoto__moto-1001', GOLD]]),
  ...over,
});

async function file(rows: (object | string)[]): Promise<string> {
  const d = await tempDir('swegym-verify-');
  dirs.push(d);
  const f = path.join(d, 'rows.jsonl');
  await writeFile(f, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return f;
}

async function verifyMutated(mutate: (rows: any[]) => (object | string)[], e = exp()) {
  const rows = Array.from({ length: N }, (_, i) => dressageRow(i));
  return verifyJsonl(await file(mutate(rows)), e);
}

test('a good file passes', async () => {
  const r = await verifyMutated((rows) => rows);
  assert.deepEqual(r.problems, []);
  assert.equal(r.ok, true);
  assert.equal(r.rows, N);
  assert.deepEqual(r.instanceIds, ['getmoto__moto-1000', 'getmoto__moto-1001', 'getmoto__moto-1002', 'getmoto__moto-1003']);
});

const cases: [string, (rows: any[]) => (object | string)[], string, RegExp][] = [
  ['row count', (rows) => rows.slice(0, 3), 'row_count', /3 rows, expected 4/],
  ['invalid JSON line', (rows) => [rows[0], rows[1], '{"prompt": [', rows[3]], 'parse', /not valid JSON/],
  ['gold patch field', (rows) => { rows[2].metadata.patch = GOLD; return rows; }, 'gold_patch', /patch field present in the row: metadata\.patch/],
  ['gold patch text leaked', (rows) => { rows[1].metadata.hints = GOLD; return rows; }, 'gold_patch', /gold patch text appears/],
  ['missing metadata key', (rows) => { delete rows[0].metadata.reward_fn; return rows; }, 'metadata', /keys missing: reward_fn/],
  ['wrong split', (rows) => { rows[0].metadata.dataset_split = 'validation'; return rows; }, 'metadata', /dataset_split is "validation", expected "train"/],
  ['template not in the map', (rows) => { rows[3].metadata.docker_image = 'xingyaoww/other:latest'; return rows; }, 'template_map', /xingyaoww\/other:latest is not in the template map/],
  ['template differs from the map', (rows) => { rows[3].metadata.sandbox_image = 'tpl-wrong'; return rows; }, 'template_map', /sandbox_image tpl-wrong differs/],
  ['after_agent stage missing', (rows) => { rows[1].metadata.blackbox_execute_cmds.after_agent = []; return rows; }, 'commands', /after_agent stage missing or empty/],
  ['multi-line command', (rows) => { rows[1].metadata.blackbox_execute_cmds.before_agent[0].cmd += '\necho hi'; return rows; }, 'commands', /one non-empty line/],
  ['unknown command key', (rows) => { rows[1].metadata.blackbox_execute_cmds.before_agent[0].env = {}; return rows; }, 'commands', /keys Dressage rejects: env/],
  ['sanitizer timeout not as requested', (rows) => { rows[1].metadata.blackbox_execute_cmds.before_agent[0].timeout = 60; return rows; }, 'commands', /timeout is 60, requested 120/],
  ['test timeout not as requested', (rows) => { rows[1].metadata.blackbox_execute_cmds.after_agent[0].cmd = rows[1].metadata.blackbox_execute_cmds.after_agent[0].cmd.replace('timeout 1200', 'timeout 99'); return rows; }, 'commands', /timeout 1200/],
  ['max_turns not as requested', (rows) => { rows[0].metadata.backend_options.max_turns = 40; return rows; }, 'backend_options', /max_turns is 40, requested 80/],
  ['backend options missing', (rows) => { delete rows[0].metadata.backend_options; return rows; }, 'backend_options', /missing for claude_code/],
  ['integrity rules missing', (rows) => { rows[0].prompt[0].content = 'Fix it.'; return rows; }, 'prompt', /integrity rules/],
  ['duplicate instance', (rows) => { rows[3] = rows[0]; return rows; }, 'duplicate', /already on line 1/],
  ['bootstrap commands in an e2b row', (rows) => { rows[0].metadata.sandbox_cmd = ['curl …']; return rows; }, 'metadata', /sandbox_cmd present/],
];

for (const [name, mutate, check, message] of cases) {
  test(`a bad file is caught: ${name}`, async () => {
    const r = await verifyMutated(mutate);
    assert.equal(r.ok, false);
    const hit = r.problems.find((p) => p.check === check && message.test(p.message));
    assert.ok(hit, `expected ${check} ${message} in ${JSON.stringify(r.problems, null, 1)}`);
  });
}

test('smoke results from the templates journal: failed is a problem, unknown is a warning', async () => {
  const ws = await tempDir('swegym-verify-ws-');
  dirs.push(ws);
  const paths = recipePaths(ws);
  await mkdir(paths.journalsDir, { recursive: true });
  const item = (i: number, smoke?: string) => ({ image: `xingyaoww/sweb.eval.x86_64.getmoto_s_moto-${1000 + i}:latest`, state: 'built', template: `tpl-moto-${1000 + i}`, ...(smoke ? { smoke } : {}), updatedAt: '2026-01-01T00:00:00Z' });
  await writeFile(path.join(paths.journalsDir, 'templates.json'), JSON.stringify({ version: 1, updatedAt: '', items: { a: item(0, 'passed'), b: item(1, 'failed'), c: item(2, 'passed') } }));
  const smoke = await readSmokeResults(paths);
  assert.equal(smoke?.get('tpl-moto-1001'), 'failed');
  const r = await verifyMutated((rows) => rows, exp({ smoke }));
  assert.ok(r.problems.some((p) => p.check === 'smoke' && p.instanceId === 'getmoto__moto-1001'));
  assert.equal(r.notSmokeTested, 1);
  assert.ok(r.warnings.some((w) => w.includes('1 row(s) use a template without a smoke result')));
});

test('a missing file is one clear problem', async () => {
  const r = await verifyJsonl('/nonexistent/rows.jsonl', exp());
  assert.equal(r.ok, false);
  assert.match(r.problems[0]?.message ?? '', /does not exist/);
});
