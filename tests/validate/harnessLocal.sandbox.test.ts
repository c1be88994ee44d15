// Harness validation for real on the local (bubblewrap) provider: gold → resolved, control → unresolved, broken
// tasks → clear failures, sandboxes always killed, results journaled; plus the background/polling harness mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { validateHarness, validateHarnessJournal, harnessResultsJson, type HarnessTask } from '../../src/services/validate/harness.js';
import { runBeforeAgent, runHarness, applyPatch } from '../../src/services/validate/evaluator.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { makeTaskRepo, type TaskRepo } from './taskRepo.js';

let root: string;
let provider: LocalProvider;
let good: TaskRepo;
let fixedAlready: TaskRepo;

async function build(repo: TaskRepo) {
  await provider.buildTemplate({ name: repo.spec.template, baseImage: repo.dir, cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
}

before(async () => {
  root = await tempDir('swegym-validate-');
  provider = new LocalProvider({ storeDir: path.join(root, 'store'), log: new CommandLog() });
  good = await makeTaskRepo(path.join(root, 'repos'), 'sample__calc-1', 'tpl-calc-1');
  fixedAlready = await makeTaskRepo(path.join(root, 'repos'), 'sample__calc-2', 'tpl-calc-2', 'already-fixed');
  await build(good);
  await build(fixedAlready);
});

after(async () => {
  await removeDir(root);
});

test('gold → resolved, control → unresolved; broken tasks fail clearly; every sandbox killed; journaled', async () => {
  const paths = recipePaths(path.join(root, 'ws'));
  const journal = await validateHarnessJournal(paths).load();
  const badCommit = { ...good.spec, instance_id: 'sample__calc-3', base_commit: 'f'.repeat(40) };
  const noTemplate = { ...good.spec, instance_id: 'sample__calc-4', template: 'tpl-does-not-exist' };
  const tasks: HarnessTask[] = [
    { row: sampleRow(good.spec), goldPatch: good.goldPatch },
    { row: sampleRow(fixedAlready.spec), goldPatch: fixedAlready.goldPatch },
    { row: sampleRow(badCommit), goldPatch: good.goldPatch },
    { row: sampleRow(noTemplate), goldPatch: good.goldPatch },
    { row: sampleRow({ ...good.spec, instance_id: 'sample__calc-5' }), goldPatch: 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n-def nothing():\n+def other():\n     pass\n' },
  ];
  const phases: string[] = [];
  const results = await validateHarness({ provider, tasks, concurrency: 2, journal, onPhase: (id, arm, p) => phases.push(`${id}/${arm}/${p}`) });
  const by = Object.fromEntries(results.map((r) => [r.instance_id, r]));

  const ok = by['sample__calc-1']!;
  assert.equal(ok.ok, true, JSON.stringify(ok, null, 1));
  assert.equal(ok.gold?.resolved, true);
  assert.equal(ok.gold?.fail_to_pass_success, 1);
  assert.equal(ok.gold?.pass_to_pass_success, 1);
  assert.equal(ok.control?.resolved, false);
  assert.equal(ok.control?.failure_reason, 'fail_to_pass_failure');
  assert.equal(ok.error, undefined);

  const trivial = by['sample__calc-2']!;
  assert.equal(trivial.ok, false);
  assert.match(trivial.error ?? '', /control resolved without the fix/);

  const bad = by['sample__calc-3']!;
  assert.equal(bad.ok, false);
  assert.match(bad.error ?? '', /gold: sanitizer swegym_git_sanitize failed \(exit 2\): SWE-Gym git sanitize failed: missing base commit f{40}/);

  const missing = by['sample__calc-4']!;
  assert.equal(missing.ok, false);
  assert.match(missing.error ?? '', /could not start a sandbox from template tpl-does-not-exist/);

  const noApply = by['sample__calc-5']!;
  assert.equal(noApply.ok, false);
  assert.equal(noApply.gold?.failure_reason, 'failed_apply_patch');
  assert.equal(noApply.gold?.fresh_sandbox, true);
  assert.match(noApply.error ?? '', /gold patch not resolved: unresolved \(failed_apply_patch\)/);

  // Nothing left running.
  assert.deepEqual(await provider.list({}), []);
  // Journal: what the home screen reads.
  const reread = await validateHarnessJournal(paths).load();
  assert.equal(reread.get('sample__calc-1')?.ok, true);
  assert.equal(reread.get('sample__calc-2')?.ok, false);
  assert.equal(reread.entries().length, 5);
  assert.ok(phases.includes('sample__calc-1/gold/evaluating'));
  // The --json shape.
  const json = harnessResultsJson(results);
  assert.deepEqual(Object.keys(json.results[0]!).slice(0, 5), ['instance_id', 'gold', 'control', 'ok', 'error']);
});

test('background mode with polling (as on E2B) finds the same marker, and the harness timeout is enforced', async () => {
  const row = sampleRow(good.spec);
  const sandbox = await provider.create({ template: good.spec.template, timeoutMs: 120_000 });
  try {
    assert.equal((await runBeforeAgent(sandbox, row)).ok, true);
    assert.equal((await applyPatch(sandbox, row, good.goldPatch)).ok, true);
    let polls = 0;
    const h = await runHarness(sandbox, row.metadata.blackbox_execute_cmds.after_agent[0]!, { mode: 'background', pollIntervalMs: 100, onPoll: () => polls++ });
    assert.ok(h.marker.ok, `background harness produced no marker: ${h.output}`);
    assert.equal(h.marker.payload.resolved, true);
    assert.ok(polls >= 1 && h.pollAttempts === polls);
    assert.equal(h.exitCode, 0);
    const slow = { ...row.metadata.blackbox_execute_cmds.after_agent[0]!, cmd: 'sleep 30', timeout: 1 };
    const t = await runHarness(sandbox, slow, { mode: 'foreground' });
    assert.equal(t.timedOut, true);
    assert.ok(t.marker.ok && t.marker.payload.failure_reason === 'fresh_eval_exception');
  } finally {
    await sandbox.kill();
  }
});
