// A tiny SWE-Gym-like task for validation tests: a git repo with a bug, a gold patch, a test patch, and a
// stdlib test runner printing pytest-style `-rA` summary lines. Built with real git.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SampleTaskSpec } from '../../src/services/demo/sampleRow.js';

const RUNNER = `import importlib.util, sys, traceback
path = sys.argv[1]
spec = importlib.util.spec_from_file_location("t", path)
mod = importlib.util.module_from_spec(spec)
sys.path.insert(0, ".")
spec.loader.exec_module(mod)
for name in sorted(n for n in dir(mod) if n.startswith("test_")):
    try:
        getattr(mod, name)()
        print("PASSED %s::%s" % (path, name))
    except Exception:
        traceback.print_exc()
        print("FAILED %s::%s - assertion" % (path, name))
`;

export interface TaskRepo {
  dir: string;
  spec: SampleTaskSpec;
  goldPatch: string;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' });
}

/** `variant`: 'ok' (gold resolves, control fails), 'already-fixed' (F2P passes without the fix). */
export async function makeTaskRepo(root: string, id: string, template: string, variant: 'ok' | 'already-fixed' = 'ok'): Promise<TaskRepo> {
  const dir = path.join(root, id);
  await mkdir(path.join(dir, 'tests'), { recursive: true });
  const buggy = variant === 'already-fixed' ? 'a + b' : 'a - b';
  await writeFile(path.join(dir, 'calc.py'), `def add(a, b):\n    return ${buggy}\n\n\ndef mul(a, b):\n    return a * b\n`);
  await writeFile(path.join(dir, 'run_tests.py'), RUNNER);
  await writeFile(path.join(dir, 'tests', 'test_calc.py'), 'from calc import add, mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n');
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  const base = git(dir, 'rev-parse', 'HEAD').trim();
  // Test patch (applied by the eval script): adds the failing test.
  await writeFile(path.join(dir, 'tests', 'test_calc.py'), 'from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n');
  const testPatch = git(dir, 'diff');
  git(dir, 'checkout', '-q', '--', '.');
  // The gold patch fixes add; for 'already-fixed' it only touches a comment (add was never broken).
  const fixedAdd = variant === 'already-fixed' ? 'a + b  # sum' : 'a + b';
  await writeFile(path.join(dir, 'calc.py'), `def add(a, b):\n    return ${fixedAdd}\n\n\ndef mul(a, b):\n    return a * b\n`);
  const goldPatch = git(dir, 'diff');
  git(dir, 'checkout', '-q', '--', '.');
  return {
    dir,
    goldPatch,
    spec: {
      instance_id: id,
      repo: 'sample/calc',
      base_commit: base,
      problem_statement: 'add(2, 3) returns -1; it must return 5.',
      test_patch: testPatch,
      test_cmd: 'python3 run_tests.py tests/test_calc.py',
      FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
      PASS_TO_PASS: ['tests/test_calc.py::test_mul'],
      template,
    },
  };
}
