// `validate harness` judges gold patches by Dressage's prohibited-path rule: a gold patch that also edits setup.cfg
// and pyproject.toml (as real SWE-Gym fixes do) validates; one that adds a Test_*.py file is refused, as Dressage would
// refuse it. A bad DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC stops before any sandbox. Real local sandboxes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { validateHarness } from '../../src/services/validate/harness.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { ConsoleError } from '../../src/services/errors.js';
import { makeTaskRepo, type TaskRepo } from './taskRepo.js';

let root: string;
let provider: LocalProvider;
let task: TaskRepo;

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir, encoding: 'utf8' });
}

/** The task's gold fix plus extra files, as one `git diff --cached` patch. */
async function goldWith(extra: Record<string, string>): Promise<string> {
  await writeFile(path.join(task.dir, 'calc.py'), 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n');
  for (const [f, text] of Object.entries(extra)) await writeFile(path.join(task.dir, f), text);
  git(task.dir, 'add', '-A');
  const patch = git(task.dir, 'diff', '--cached', '--binary');
  git(task.dir, 'reset', '-q', '--hard');
  git(task.dir, 'clean', '-fdq');
  return patch;
}

before(async () => {
  root = await tempDir('swegym-goldpaths-');
  provider = new LocalProvider({ storeDir: path.join(root, 'store'), log: new CommandLog() });
  task = await makeTaskRepo(path.join(root, 'repos'), 'sample__calc-1', 'tpl-goldpaths');
  await provider.buildTemplate({ name: task.spec.template, baseImage: task.dir, cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
});

after(async () => {
  await removeDir(root);
});

test('a gold patch editing setup.cfg and pyproject.toml validates; one adding Test_helpers.py is refused as Dressage refuses it', async () => {
  const config = await goldWith({ 'setup.cfg': '[metadata]\nname = calc\n', 'pyproject.toml': '[project]\nname = "calc"\n' });
  const testFile = await goldWith({ 'Test_helpers.py': 'X = 1\n' });
  const results = await validateHarness({
    provider,
    env: {},
    tasks: [
      { row: sampleRow(task.spec), goldPatch: config },
      { row: sampleRow({ ...task.spec, instance_id: 'sample__calc-2' }), goldPatch: testFile },
    ],
  });
  const [withConfig, withTest] = results;
  assert.equal(withConfig?.ok, true, JSON.stringify(withConfig, null, 1));
  assert.equal(withConfig?.gold?.resolved, true);
  assert.equal(withTest?.ok, false);
  assert.equal(withTest?.gold?.failure_reason, 'prohibited_test_modification');
  assert.match(withTest?.error ?? '', /Test_helpers\.py.*Dressage would zero it/);
});

test('a DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC Dressage refuses stops validation before any sandbox starts', async () => {
  await assert.rejects(
    validateHarness({ provider, env: { DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC: 'soon' }, tasks: [{ row: sampleRow(task.spec), goldPatch: task.goldPatch }] }),
    (e: unknown) => e instanceof ConsoleError && /DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC must be a positive number; got 'soon'/.test(e.message),
  );
  assert.deepEqual(await provider.list({}), []);
});
