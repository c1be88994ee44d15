// The sample tasks are real: the manifest is current and proven, and a sample runs end to end in a local
// bubblewrap sandbox (template with the BBS stand-in, /health, claude --version, gold patch resolves, empty does not).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import type { Sandbox } from '../../src/services/sandbox/types.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const TASKS = path.join(ROOT, 'samples', 'tasks');

interface Instance {
  instance_id: string;
  repo: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  problem_statement: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  version: string;
  local: { task_dir: string; test_command: string; start_command: string; copies: { src: string; dest: string; mode: number }[] };
}

const manifest = JSON.parse(readFileSync(path.join(TASKS, 'manifest.json'), 'utf8')) as { instances: Instance[] };

describe('sample tasks manifest', () => {
  it('has SWE-Gym-like rows for three tasks', () => {
    assert.equal(manifest.instances.length, 3);
    for (const i of manifest.instances) {
      assert.match(i.instance_id, /^[a-z-]+__[a-z]+-\d+$/);
      assert.match(i.base_commit, /^[0-9a-f]{40}$/);
      assert.ok(i.patch.startsWith('diff --git') && i.test_patch.startsWith('diff --git'));
      assert.ok(i.FAIL_TO_PASS.length > 0 && i.PASS_TO_PASS.length > 0);
      assert.ok(i.problem_statement.length > 20);
      assert.equal(i.patch, readFileSync(path.join(ROOT, i.local.task_dir, 'gold.patch'), 'utf8'));
      // The gold patch never touches tests (Dressage refuses such patches: prohibited_test_modification).
      assert.doesNotMatch(i.patch, /^\+\+\+ b\/tests\//m);
    }
  });

  it('is up to date and every task is proven (F2P fail before the gold patch, everything passes after)', () => {
    const r = spawnSync('python3', [path.join(TASKS, 'gen_manifest.py'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /3 tasks verified/);
  });

  it('makes the same base commit on every run', async () => {
    const out = await tempDir('swegym-testbed-');
    try {
      const i = manifest.instances[0] as Instance;
      const r = spawnSync('bash', [path.join(TASKS, 'make_testbed.sh'), path.join(ROOT, i.local.task_dir), path.join(out, 'testbed')], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), i.base_commit);
      const again = spawnSync('bash', [path.join(TASKS, 'make_testbed.sh'), path.join(ROOT, i.local.task_dir), path.join(out, 'testbed')], { encoding: 'utf8' });
      assert.notEqual(again.status, 0, 'refuses to overwrite a non-empty testbed');
    } finally {
      await removeDir(out);
    }
  });
});

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

describe('a sample task in a local sandbox', { skip: hasBwrap ? false : 'bubblewrap is not installed' }, () => {
  const task = manifest.instances.find((i) => i.instance_id === 'sample-org__calc-2') as Instance;
  let dir: string;
  let provider: LocalProvider;
  let sbx: Sandbox;
  const run = (cmd: string) => sbx.run(cmd, { timeoutMs: 30_000, cwd: '/testbed' });

  before(async () => {
    dir = await tempDir('swegym-sample-sbx-');
    const image = path.join(dir, 'image');
    const made = spawnSync('bash', [path.join(TASKS, 'make_testbed.sh'), path.join(ROOT, task.local.task_dir), path.join(image, 'testbed')], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    provider = new LocalProvider({ storeDir: path.join(dir, 'store') });
    const logs: string[] = [];
    await provider.buildTemplate(
      { name: 'sample-calc', baseImage: image, contextDir: ROOT, cpuCount: 1, memoryMb: 512, copies: task.local.copies, runCommands: ['claude --version'], aptPackages: ['git', 'patch'], startCommand: task.local.start_command, readyPort: 31000, readyPath: '/health' },
      { onLog: (l) => logs.push(l) },
    );
    assert.ok(logs.some((l) => l.includes('Claude Code') && l.includes('stand-in')), logs.join('\n'));
    sbx = await provider.create({ template: 'sample-calc', timeoutMs: 120_000 });
  });
  after(async () => {
    await sbx?.kill();
    await removeDir(dir);
  });

  it('serves the BBS-like /health on 31000 and has the claude stand-in', async () => {
    const h = await sbx.health(31000, '/health');
    assert.deepEqual(h.json, { healthy: true, version: '1.1.0' });
    assert.match((await run('claude --version')).stdout, /stand-in/);
    assert.equal((await run('git rev-parse HEAD')).stdout.trim(), task.base_commit);
  });

  it('the gold patch resolves the task, the empty patch does not', async () => {
    await sbx.writeFile('/tmp/test.patch', task.test_patch);
    await sbx.writeFile('/tmp/gold.patch', task.patch);
    assert.equal((await run('git apply -v /tmp/test.patch')).exitCode, 0);
    const statuses = (out: string) => new Map(out.split('\n').filter(Boolean).map((l) => [l.split(' ')[1], l.split(' ')[0]]));
    const empty = statuses((await run(task.local.test_command)).stdout);
    for (const t of task.FAIL_TO_PASS) assert.notEqual(empty.get(t), 'PASSED', t);
    for (const t of task.PASS_TO_PASS) assert.equal(empty.get(t), 'PASSED', t);
    assert.equal((await run('git apply -v /tmp/gold.patch')).exitCode, 0);
    const r = await run(task.local.test_command);
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    const gold = statuses(r.stdout);
    for (const t of [...task.FAIL_TO_PASS, ...task.PASS_TO_PASS]) assert.equal(gold.get(t), 'PASSED', t);
    // The patch as Dressage extracts it: relative to the base commit, staged + unstaged.
    const diff = await run(`git add -A && git diff --cached --binary ${task.base_commit} -- calc`);
    assert.match(diff.stdout, /\(ordered\[middle - 1\] \+ ordered\[middle\]\) \/ 2/);
  });
});
