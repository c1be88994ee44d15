// Differential test: the patch rule and the patch timeout of src/services/validate/evaluator.ts against
// dressage/recipes/swegym/evaluator.py, run side by side in python3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractPatchCommand, isProhibitedPath, patchTimeoutSec, prohibitedPaths, PATCH_TIMEOUT_ENV } from '../../src/services/validate/evaluator.js';
import { pySplitLines, shlexSplit, ShlexError } from '../../src/services/util/python.js';
import { ConsoleError } from '../../src/services/errors.js';
import { oracle, pick, rng, upstreamSkipReason } from '../helpers/upstreamOracle.js';

const skip = upstreamSkipReason();

const diffFor = (a: string, b: string, body = '@@ -1 +1 @@\n-x\n+y\n') => `diff --git ${a} ${b}\nindex 1..2 100644\n--- ${a}\n+++ ${b}\n${body}`;

/** The patches of the issue, plus the shapes git writes (renames, quoted names, new/deleted files). */
const NAMED_PATCHES: Record<string, string> = {
  'setup.cfg': diffFor('a/setup.cfg', 'b/setup.cfg'),
  'pyproject.toml': diffFor('a/pyproject.toml', 'b/pyproject.toml'),
  'Tests/helper.py': diffFor('a/Tests/helper.py', 'b/Tests/helper.py'),
  'src/Test_foo.py': diffFor('a/src/Test_foo.py', 'b/src/Test_foo.py'),
  'rename out of tests/': 'diff --git a/tests/util.py b/src/util.py\nsimilarity index 100%\nrename from tests/util.py\nrename to src/util.py\n',
  'rename into tests/': 'diff --git a/src/util.py b/tests/util.py\nsimilarity index 100%\nrename from src/util.py\nrename to tests/util.py\n',
  'quoted path with a space': diffFor('"a/tests/my file.py"', '"b/tests/my file.py"'),
  'quoted path with a space outside tests': diffFor('"a/src/my file.py"', '"b/src/my file.py"'),
  'quoted octal escape': diffFor('"a/src/caf\\303\\251.py"', '"b/tests/caf\\303\\251.py"'),
  'unbalanced quote': 'diff --git "a/tests/x.py b/tests/x.py\n',
  conftest: diffFor('a/pkg/conftest.py', 'b/pkg/conftest.py'),
  'tox.ini + code': diffFor('a/tox.ini', 'b/tox.ini') + diffFor('a/src/m.py', 'b/src/m.py'),
  'test_ data file': diffFor('a/data/test_input.json', 'b/data/test_input.json'),
  '_test.py': diffFor('a/pkg/util_test.py', 'b/pkg/util_test.py'),
  'r2e_tests dir': diffFor('a/r2e_tests/a.py', 'b/r2e_tests/a.py'),
  'testing as a file name': diffFor('a/pkg/testing', 'b/pkg/testing'),
  'only ---/+++ lines': '--- a/tests/x.py\n+++ b/tests/x.py\n@@ -1 +1 @@\n-a\n+b\n',
  'CRLF': diffFor('a/tests/x.py', 'b/tests/x.py').replace(/\n/g, '\r\n'),
  'form feed before diff': 'x\fdiff --git a/tests/x.py b/tests/x.py\n',
  'dev/null side': 'diff --git a/tests/new.py b/tests/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/new.py\n',
  'no b/ prefix (--no-prefix)': 'diff --git tests/a.py tests/a.py\n',
  'too few words': 'diff --git a/tests/x.py\n',
  'backslash path': diffFor('a/src\\\\tests\\\\x.py', 'b/src\\\\tests\\\\x.py'),
  'dot parts': diffFor('a/./tests/./x.py', 'b/./tests/./x.py'),
  'trailing slash': diffFor('a/src/testing/', 'b/src/testing/'),
};

const PARTS = ['src', 'tests', 'Tests', 'TESTING', 'test', 'testdata', 'r2e_tests', 'pkg', '.', '..', 'my dir', 'caf\u00e9', 'x\\y', ''];
const BASES = ['setup.cfg', 'pyproject.toml', 'conftest.py', 'Conftest.PY', 'pytest.ini', 'tox.ini', 'test_a.py', 'Test_B.txt', 'a_test.py', 'a_TEST.py', 'mytest.py', 'test.py', 'tests', 'main.py', 'te st_x.py', "o'k.py", 'q"uote.py'];

function randomPath(r: () => number): string {
  const n = Math.floor(r() * 3);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(pick(r, PARTS));
  parts.push(pick(r, BASES));
  return parts.join(r() < 0.1 ? '//' : '/');
}

function quoteForGit(r: () => number, p: string): string {
  if (r() < 0.3 || /[ "'\\]/.test(p)) return `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return p;
}

function generatedPatches(count: number): string[] {
  const r = rng(14);
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    const files = 1 + Math.floor(r() * 3);
    let patch = r() < 0.2 ? 'From 1234 Mon Sep 17 00:00:00 2001\nSubject: fix\n\n' : '';
    for (let f = 0; f < files; f++) {
      const oldP = randomPath(r);
      const newP = r() < 0.3 ? randomPath(r) : oldP;
      patch += diffFor(quoteForGit(r, `a/${oldP}`), quoteForGit(r, `b/${newP}`));
    }
    out.push(r() < 0.1 ? patch.replace(/\n/g, '\r\n') : patch);
  }
  return out;
}

test('the prohibited-path rule equals evaluator.py on the issue cases and 400 generated patches', { skip }, async () => {
  const patches = [...Object.entries(NAMED_PATCHES), ...generatedPatches(400).map((p, i) => [`generated #${i}`, p] as const)];
  const replies = await oracle(patches.map(([, p]) => ({ fn: 'prohibited_patch_paths', args: [p] })));
  let prohibitedSeen = 0;
  patches.forEach(([name, patch], i) => {
    const want = replies[i] as { ok: string[] };
    assert.ok('ok' in want, `${name}: upstream raised ${JSON.stringify(want)}`);
    assert.deepEqual(prohibitedPaths(patch), want.ok, `${name}: ${JSON.stringify(patch).slice(0, 300)}`);
    if (want.ok.length) prohibitedSeen++;
  });
  // Both verdicts are exercised (the comparison would be weak if every patch were allowed).
  assert.ok(prohibitedSeen > 50 && prohibitedSeen < patches.length - 50, `prohibited in ${prohibitedSeen}/${patches.length}`);
});

test('the issue cases: setup.cfg and pyproject.toml are allowed, case and renames follow upstream', () => {
  assert.deepEqual(prohibitedPaths(NAMED_PATCHES['setup.cfg'] as string), []);
  assert.deepEqual(prohibitedPaths(NAMED_PATCHES['pyproject.toml'] as string), []);
  assert.deepEqual(prohibitedPaths(NAMED_PATCHES['Tests/helper.py'] as string), ['Tests/helper.py']);
  assert.deepEqual(prohibitedPaths(NAMED_PATCHES['src/Test_foo.py'] as string), ['src/Test_foo.py']);
  assert.deepEqual(prohibitedPaths(NAMED_PATCHES['rename out of tests/'] as string), []);
  assert.deepEqual(prohibitedPaths(NAMED_PATCHES['quoted path with a space'] as string), ['tests/my file.py']);
  assert.equal(isProhibitedPath('pkg/Conftest.PY'), true);
  assert.equal(isProhibitedPath('src/mytest.py'), false);
});

test('str.splitlines and shlex.split equal python3 on edge inputs', { skip }, async () => {
  const texts = ['', 'a', 'a\n', 'a\r\nb', 'a\rb\n\n', 'x\vy\fz', 'p\x1cq\x1dr\x1es', 'u\x85v', 'w\u2028x\u2029y', '\n\n', 'a\r', '\r\n\r\n'];
  const words = [`diff --git "a/x y" b/z`, `a 'b c' d`, `a\\ b`, `"a\\"b" 'c\\d'`, `"\\$x\\y"`, `'' ""`, `a""b`, `x\\`, `"open`, `'open`, ` \t lead\ttrail \n`, `caf\u00e9 "\\303"`];
  const replies = await oracle([...texts.map((t) => ({ fn: 'splitlines', args: [t] })), ...words.map((w) => ({ fn: 'shlex_split', args: [w] }))]);
  texts.forEach((t, i) => assert.deepEqual(pySplitLines(t), (replies[i] as { ok: unknown }).ok, JSON.stringify(t)));
  words.forEach((w, i) => {
    const want = replies[texts.length + i] as { ok?: unknown; error?: string };
    if (want.error) assert.throws(() => shlexSplit(w), ShlexError, `${JSON.stringify(w)} raises upstream: ${want.error}`);
    else assert.deepEqual(shlexSplit(w), want.ok, JSON.stringify(w));
  });
});

test('the patch timeout honours DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC and the row setting as evaluator.py does', { skip }, async () => {
  const cases: { own?: unknown; env?: string }[] = [{}, { env: '300' }, { env: ' 45.5 ' }, { env: '1e3' }, { env: '1_0' }, { env: '0' }, { env: '-5' }, { env: 'abc' }, { env: '' }, { own: 30 }, { own: '60', env: '5' }, { own: '', env: '7' }, { own: 0, env: '9' }, { own: true }];
  const replies = await oracle(cases.map((c) => ({ fn: 'positive_float', args: [c.own ?? null, PATCH_TIMEOUT_ENV, 120.0], env: { [PATCH_TIMEOUT_ENV]: c.env ?? null } })));
  cases.forEach((c, i) => {
    const want = replies[i] as { ok?: number; error?: string };
    const env = c.env === undefined ? {} : { [PATCH_TIMEOUT_ENV]: c.env };
    const meta = c.own === undefined ? {} : { swegym_patch_timeout_sec: c.own };
    if (want.error) assert.throws(() => patchTimeoutSec(meta, env), ConsoleError, `${JSON.stringify(c)} raises upstream: ${want.error}`);
    else assert.equal(patchTimeoutSec(meta, env), want.ok, JSON.stringify(c));
  });
});

test('the patch extraction command equals evaluator.py\'s, quoting included', { skip }, async () => {
  const cases: [string, string][] = [['/testbed', 'a'.repeat(40)], ['/testbed', ''], ['/work dir/repo', ' 0123abc '], ["/it's", 'HEAD~1'], ['/t', 'v1.0+build@x']];
  const replies = await oracle(cases.map(([w, b]) => ({ fn: 'extract_patch_command', args: [w, b.trim()] })));
  cases.forEach(([w, b], i) => assert.equal(extractPatchCommand(w, b), (replies[i] as { ok: string }).ok, JSON.stringify([w, b])));
});
