// `npm test`: typecheck, lint, build, then every test (unit, services against fakes, screens, built binary).
// Stops at the first failing stage and exits non-zero.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const lintDirs = ['src', 'tests', 'bench', 'scripts'].filter((d) => existsSync(d));

const stages = [
  ['typecheck', ['npx', 'tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['lint', ['npx', 'eslint', '--max-warnings', '0', ...lintDirs]],
  ['build', ['node', 'scripts/build.mjs']],
  ['tests', ['node', '--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', '--test-reporter=spec',
    'tests/**/*.test.ts', 'tests/**/*.test.tsx']],
];
const only = process.argv.slice(2);
for (const [name, argv] of stages) {
  if (only.length && !only.includes(name)) continue;
  process.stderr.write(`\n== ${name}: ${argv.join(' ')}\n`);
  const started = Date.now();
  // `node` stages run on this very Node (the project's Node 24 under npm), whatever PATH says.
  const file = argv[0] === 'node' ? process.execPath : argv[0];
  const r = spawnSync(file, argv.slice(1), { stdio: 'inherit', env: process.env });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    process.stderr.write(`== ${name} failed (exit ${r.status ?? r.signal}) after ${secs}s\n`);
    process.exit(r.status || 1);
  }
  process.stderr.write(`== ${name} ok (${secs}s)\n`);
}
