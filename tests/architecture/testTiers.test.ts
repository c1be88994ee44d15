// One layout for the tests: tests/<domain>/<name>[.<tier>].test.ts(x), the tier word saying what the file needs
// (scripts/test-tiers.mjs). The fast tier (`npm run test:fast`) must stay fast: a file without a tier word imports
// nothing that runs the built binary, tmux, the real Claude Code CLI, bubblewrap sandboxes or upstream's code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { tierOf } from '../../scripts/test-tiers.mjs';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : /\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

const FILES = testFiles('tests');
const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

/** What only a slow tier may import, by the tier that it implies. */
const SLOW_IMPORTS: [RegExp, string][] = [
  [/helpers\/tmux\.js$/, 'tmux'],
  [/helpers\/(builtCli|shipped)\.js$/, 'shipped'],
  [/helpers\/claudeCode\.js$/, 'shipped'],
  [/helpers\/upstream[A-Za-z]*\.js$/, 'upstream'],
  [/services\/sandbox\/local\.js$/, 'sandbox'],
];

test('every test file is tests/<domain>/<name>[.<tier>].test.ts(x), with no tier folders', () => {
  const wrong = FILES.filter((f) => f.split(path.sep).length !== 3 || /^tests\/(e2e|shipped|faults|upstream|services)\//.test(f));
  assert.deepEqual(wrong, [], 'move these to tests/<domain>/ and name their tier');
  assert.ok(FILES.length > 100, `${FILES.length} test files found`);
});

test('the fast tier imports nothing that runs the built binary, tmux, the real CLI, sandboxes or upstream code', () => {
  const offenders = FILES.filter((f) => tierOf(f) === undefined).flatMap((f) =>
    imports(f).flatMap((spec) => SLOW_IMPORTS.filter(([re]) => re.test(spec)).map(([, tier]) => `${f} imports ${spec}: name it .${tier}.test.ts`)),
  );
  assert.deepEqual(offenders, []);
});

test('a .tmux file drives a terminal', () => {
  const idle = FILES.filter((f) => tierOf(f) === 'tmux' && !imports(f).some((s) => /helpers\/tmux\.js$/.test(s)));
  assert.deepEqual(idle, []);
});

test('property tests draw from the seeded fast-check (tests/helpers/property.ts), not fast-check itself', () => {
  // The seed is set in the helper, which only the files that use fast-check load; one importing fast-check directly
  // would draw anew each run and its verdict would depend on the draw.
  const direct = FILES.filter((f) => imports(f).includes('fast-check'));
  assert.deepEqual(direct, []);
  assert.ok(FILES.some((f) => imports(f).some((s) => /helpers\/property\.js$/.test(s))), 'some test uses the seeded fast-check');
});

test('a file that asks for its own process or for the machine alone says why, on the same line', () => {
  // scripts/test.mjs reads these lines; a bare marker would leave the next reader guessing whether it still holds.
  const bare = FILES.flatMap((f) =>
    readFileSync(f, 'utf8').split('\n').filter((l) => /\/\/ test-(isolation|group):/.test(l) && !/\/\/ test-(isolation: process|group: alone) — \S/.test(l)).map((l) => `${f}: ${l.trim()}`),
  );
  assert.deepEqual(bare, []);
  assert.ok(FILES.some((f) => /\/\/ test-isolation: process — /.test(readFileSync(f, 'utf8'))), 'the marker is in use');
});

test('the recorded test times name only files that exist', () => {
  // A renamed file would lose its time and fall back to the default, and might land in the wrong group.
  const times = JSON.parse(readFileSync('scripts/test-times.json', 'utf8')) as Record<string, number>;
  const known = new Set(FILES.map((f) => f.split(path.sep).join('/')));
  const stale = Object.keys(times).filter((f) => f.endsWith('.test.ts') || f.endsWith('.test.tsx')).filter((f) => !known.has(f));
  assert.deepEqual(stale, [], 'refresh with SWEGYM_TEST_TIMES=scripts/test-times.json npm test');
});
