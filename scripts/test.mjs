// `npm test`: build, then typecheck, lint and every test at once (they share no files: the tests read dist/, which
// the build wrote first). Each stage's output is kept and printed whole when it ends, so a failure reads in one piece;
// the tests stream as they run. Exit non-zero when any stage failed.
//
//   node scripts/test.mjs                 everything (what CI runs)
//   node scripts/test.mjs --fast          the fast tier only: no built binary, no tmux, no sandboxes (the edit loop)
//   node scripts/test.mjs tests typecheck run only the named stages (build, typecheck, lint, tests)
//   node scripts/test.mjs -- FILE…        the tests stage on these files
//
// Test files run in three groups (docs/TESTING.md, "How the runner schedules"):
//   shared      short fast-tier files, several to a process (--test-isolation=none), in a few processes at once:
//               for them, starting node, tsx, Ink and React cost more than their tests;
//   concurrent  every other file in its own process, several at once (each owns its temp dirs, ports and tmux
//               sockets), longest first; the shared processes run beside it;
//   alone       after both, one at a time: files with the line `// test-group: alone` near their top, saying why.
// A fast-tier file stays in its own process with the line `// test-isolation: process` (and why), or when it mocks
// the global clock (mock.timers: a timer left behind by another file in the same process would fire in its time).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, mkdtempSync, rmSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { isSlowTier } from './test-tiers.mjs';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const explicitFiles = dash >= 0 ? argv.slice(dash + 1) : [];
const flags = dash >= 0 ? argv.slice(0, dash) : argv;
const fast = flags.includes('--fast');
const only = flags.filter((a) => !a.startsWith('--'));
const want = (stage) => (only.length ? only.includes(stage) : fast ? stage === 'tests' : true);

// Most test time is waiting (child processes, sockets, tmux), so more files than cores run at once.
const concurrency = Number(process.env.SWEGYM_TEST_CONCURRENCY) || Math.max(4, availableParallelism() * 2);

function listTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTests(p));
    else if (/\.test\.tsx?$/.test(entry.name)) out.push(p);
  }
  return out.sort();
}

const head = (file) => readFileSync(file, 'utf8').slice(0, 4000);
const ALONE = /\/\/ test-group: alone\b/;
const OWN_PROCESS = /\/\/ test-isolation: process\b/;
const MOCKS_CLOCK = /\bmock\.timers\b/;

// Each file's time (ms, summed over its top-level tests) in a quiet full run: for the longest-first order, for
// balancing the shared processes, and for ranking the fast tier's longest files. Refreshed with
// SWEGYM_TEST_TIMES=scripts/test-times.json npm test; a file not in it counts as UNKNOWN_MS.
const TIMES_FILE = 'scripts/test-times.json';
const knownTimes = existsSync(TIMES_FILE) ? JSON.parse(readFileSync(TIMES_FILE, 'utf8')) : {};
const UNKNOWN_MS = 1000;
const timeOf = (file) => knownTimes[path.relative('.', file)] ?? UNKNOWN_MS;
// Processes for the shared group, running beside the concurrent group.
const sharedProcesses = Number(process.env.SWEGYM_TEST_SHARED_PROCESSES) || Math.max(2, availableParallelism() + 1);
// The longest fast-tier files keep their own processes: for them start-up is a small part, some wait more than they
// compute, and in a shared process they would run one after another. By rank, not by a time: recorded times scale
// with the machine and with what ran beside them.
const LONGEST_OWN_PROCESS = 16;

/** The fast-tier files that share processes: all but the longest, those that ask for their own and those mocking the clock. */
function sharingFiles(files) {
  const fastTier = files.filter((f) => !isSlowTier(f));
  const longest = new Set([...fastTier].sort((a, b) => timeOf(b) - timeOf(a)).slice(0, LONGEST_OWN_PROCESS));
  return fastTier.filter((f) => {
    if (longest.has(f)) return false;
    const text = readFileSync(f, 'utf8');
    return !OWN_PROCESS.test(text.slice(0, 4000)) && !MOCKS_CLOCK.test(text);
  });
}

/** Longest first onto the least loaded of `n` lists (the files' recorded times). */
function balance(files, n) {
  const shards = Array.from({ length: n }, () => ({ ms: 0, files: [] }));
  for (const f of [...files].sort((a, b) => timeOf(b) - timeOf(a))) {
    const least = shards.reduce((a, b) => (b.ms < a.ms ? b : a));
    least.ms += timeOf(f);
    least.files.push(f);
  }
  return shards.map((s) => s.files).filter((l) => l.length);
}

function run(name, file, args, { stream = false, env = process.env } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(file, args, { stdio: ['ignore', stream ? 'inherit' : 'pipe', stream ? 'inherit' : 'pipe'], env });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    child.on('close', (code, signal) => {
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      if (out.trim()) process.stderr.write(`\n== ${name} output\n${out}`);
      const ok = code === 0;
      process.stderr.write(`== ${name} ${ok ? 'ok' : `failed (exit ${code ?? signal})`} (${secs}s)\n`);
      resolve({ name, ok, secs, started, ended: Date.now() });
    });
  });
}

const node = process.execPath;
const bin = (tool) => path.join('node_modules', '.bin', tool);
const lintDirs = ['src', 'tests', 'bench', 'scripts'].filter((d) => existsSync(d));

// Screens render with production React, as the built binary ships it (scripts/build.mjs), which also takes a third
// less CPU than React's development build; NODE_ENV=development npm test runs them with React's development checks.
const testEnv = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'production' };

async function testsStage() {
  const all = explicitFiles.length ? explicitFiles : listTests('tests');
  const files = fast && !explicitFiles.length ? all.filter((f) => !isSlowTier(f)) : all;
  const alone = files.filter((f) => ALONE.test(head(f)));
  const shared = sharingFiles(files.filter((f) => !alone.includes(f)));
  const together = files.filter((f) => !alone.includes(f) && !shared.includes(f)).sort((a, b) => timeOf(b) - timeOf(a));
  const shards = balance(shared, sharedProcesses);
  const reportDir = mkdtempSync(path.join(tmpdir(), 'swegym-test-report-'));
  const common = ['--import', 'tsx', '--test', '--test-timeout=180000', '--test-reporter=./scripts/test-summary-reporter.mjs'];
  const spec = (dest) => ['--test-reporter=spec', `--test-reporter-destination=${dest}`];
  process.stderr.write(`\n== tests: ${shared.length} short files in ${shards.length} shared processes, beside ${together.length} files ` +
    `in their own processes, ${concurrency} at a time; then ${alone.length} alone\n`);
  const summary = (name) => `--test-reporter-destination=${path.join(reportDir, `${name}.json`)}`;
  // The shared processes' reports are printed whole when each ends (several streams at once would interleave);
  // the concurrent group streams.
  const sharedRuns = shards.map((list, i) => run(`tests (shared ${i + 1}/${shards.length}: ${list.length} files)`, node,
    [...common, summary(`shared-${i}`), ...spec('stdout'), '--test-isolation=none', ...list], { env: testEnv }));
  const concurrentRun = together.length
    ? run('tests (concurrent)', node, [...common, summary('concurrent'), ...spec('stdout'), `--test-concurrency=${concurrency}`, ...together], { stream: true, env: testEnv })
    : Promise.resolve(undefined);
  const results = (await Promise.all([...sharedRuns, concurrentRun])).filter(Boolean);
  if (alone.length) {
    results.push(await run('tests (alone)', node, [...common, summary('alone'), ...spec('stdout'), '--test-concurrency=1', ...alone], { stream: true, env: testEnv }));
  }
  printSummary(reportDir);
  rmSync(reportDir, { recursive: true, force: true });
  const started = Math.min(...results.map((r) => r.started));
  return { name: 'tests', ok: results.every((r) => r.ok), secs: ((Math.max(...results.map((r) => r.ended)) - started) / 1000).toFixed(1) };
}

/** One line for every reason tests were skipped, and the totals of both groups together. */
function printSummary(dir) {
  const totals = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const skips = new Map();
  const files = [];
  const failures = [];
  for (const f of readdirSync(dir)) {
    const doc = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
    files.push(...Object.entries(doc.files));
    for (const k of Object.keys(totals)) totals[k] += doc.totals[k];
    for (const [reason, n] of Object.entries(doc.skips)) skips.set(reason, (skips.get(reason) ?? 0) + n);
    failures.push(...doc.failures);
  }
  // SWEGYM_TEST_TIMES=FILE keeps every file's time (ms), for comparing runs.
  if (process.env.SWEGYM_TEST_TIMES) {
    const byFile = Object.fromEntries(files.map(([f, ms]) => [path.relative('.', f), Math.round(ms)]).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(process.env.SWEGYM_TEST_TIMES, JSON.stringify(byFile, null, 1) + '\n');
  }
  process.stderr.write('\nslowest files: ' + files.sort((a, b) => b[1] - a[1]).slice(0, 10)
    .map(([f, ms]) => `${path.relative('.', f)} ${(ms / 1000).toFixed(1)}s`).join(', ') + '\n');
  for (const [reason, n] of [...skips].sort((a, b) => b[1] - a[1])) process.stderr.write(`${n} test${n === 1 ? '' : 's'} skipped: ${reason}\n`);
  for (const { name, file, error } of failures) {
    process.stderr.write(`\nFAILED: ${name} (${path.relative('.', file)})\n${error.replace(/^/gm, '  ')}\n`);
  }
  // The plain closing line CI reads.
  process.stdout.write(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
}

const started = Date.now();
const results = [];
if (want('build')) {
  process.stderr.write(`\n== build: node scripts/build.mjs\n`);
  const r = await run('build', node, ['scripts/build.mjs']);
  results.push(r);
  if (!r.ok) process.exit(1);
}
const parallel = [];
if (want('typecheck')) {
  // TypeScript, then the AssemblyScript under wasm/: its compiler type-checks it and the generated module must match.
  parallel.push(run('typecheck', node, [bin('tsc'), '-p', 'tsconfig.json', '--noEmit']).then(async (ts) => {
    const as = await run('typecheck (wasm/)', node, ['scripts/build-wasm.mjs', '--check']);
    return { ...ts, ok: ts.ok && as.ok };
  }));
}
if (want('lint')) parallel.push(run('lint', node, [bin('eslint'), '--max-warnings', '0', ...lintDirs]));
if (want('tests')) parallel.push(testsStage());
results.push(...(await Promise.all(parallel)));
const failed = results.filter((r) => !r.ok);
process.stderr.write(`\n== ${results.map((r) => `${r.name} ${r.ok ? 'ok' : 'FAILED'} ${r.secs}s`).join(' · ')} · wall ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
process.exit(failed.length ? 1 : 0);
