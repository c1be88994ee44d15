// The determinism check: the whole suite N times in a row (default 5) while scripts/cpu-hog.mjs keeps every core busy.
// Any failure is a bug to fix, not a run to retry. Prints one line per run and exits non-zero if any run failed; each
// run's whole output is kept as under-load-run-N.log in test-artifacts/ (SWEGYM_TEST_ARTIFACTS), to read a failure.
//   node scripts/test-under-load.mjs [--runs N] [-- args for scripts/test.mjs]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const passOn = dash >= 0 ? argv.slice(dash + 1) : [];
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 5;

const hog = spawn(process.execPath, ['scripts/cpu-hog.mjs'], { stdio: ['ignore', 'inherit', 'inherit'] });
const stopHog = () => hog.kill('SIGTERM');
process.on('exit', stopHog);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(130));

const lines = [];
const artifacts = process.env.SWEGYM_TEST_ARTIFACTS || 'test-artifacts';
mkdirSync(artifacts, { recursive: true });
for (let i = 1; i <= runs; i++) {
  const started = Date.now();
  const r = spawnSync(process.execPath, ['scripts/test.mjs', ...passOn], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const out = `${r.stdout}${r.stderr}`;
  writeFileSync(path.join(artifacts, `under-load-run-${i}.log`), out);
  const closing = /tests: (\d+) passed, (\d+) failed, (\d+) skipped/.exec(out)?.[0] ?? 'no closing line';
  const failed = [...out.matchAll(/^✖ (.+?) \(\d/gm)].map((m) => m[1]);
  const line = `run ${i}/${runs}: exit ${r.status} · ${closing} · ${((Date.now() - started) / 1000).toFixed(0)}s${failed.length ? ` · failed: ${[...new Set(failed)].join(' | ')}` : ''}`;
  lines.push(line);
  process.stderr.write(line + '\n');
}
stopHog();
process.exit(lines.every((l) => / exit 0 /.test(l)) ? 0 : 1);
