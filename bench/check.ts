// The benchmark regression check, run by hand before a release (not in CI: the machines are noisy): the headline
// ratios of a benchmark run against the ones committed in bench/baseline.json; a ratio more than 25 % worse fails.
// Every headline ratio is "measured / reference" (lower is better), so worse means larger.
//
//   npm run bench:check                                   run the benchmarks the baseline has, then compare
//   npm run bench:check -- --only ingest --no-4gb         run these instead (arguments go to bench/run.ts)
//   npm run bench:check -- --results bench/out/results-….json    compare a run already made
//   npm run bench:check -- --results FILE --record        write FILE's ratios as the new baseline
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './lib.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const BASELINE_FILE = path.join(HERE, 'baseline.json');
/** A ratio this much larger than its baseline fails. */
export const TOLERANCE = 0.25;

export interface Baseline {
  /** Where the numbers come from (date, commit, machine, load). */
  recorded: string;
  ratios: Record<string, { value: number; what: string }>;
}

export interface Verdict {
  id: string;
  what: string;
  baseline: number;
  value: number | undefined;
  /** value / baseline. */
  change: number | undefined;
  status: 'ok' | 'worse' | 'not run' | 'failed';
}

/** Each baseline ratio against the run's: worse past the tolerance, or not run, or the benchmark failed. */
export function compareRatios(baseline: Baseline, results: readonly BenchResult[], tolerance = TOLERANCE): Verdict[] {
  return Object.entries(baseline.ratios).map(([id, base]) => {
    const r = results.find((x) => x.id === id);
    if (!r) return { id, what: base.what, baseline: base.value, value: undefined, change: undefined, status: 'not run' };
    if (r.status === 'failed' || !r.ratio || !Number.isFinite(r.ratio.value)) return { id, what: base.what, baseline: base.value, value: r.ratio?.value, change: undefined, status: 'failed' };
    const change = r.ratio.value / base.value;
    return { id, what: base.what, baseline: base.value, value: r.ratio.value, change, status: change > 1 + tolerance ? 'worse' : 'ok' };
  });
}

/** The baseline a run's headline ratios make. */
export function baselineOf(results: readonly BenchResult[], recorded: string): Baseline {
  const ratios: Baseline['ratios'] = {};
  for (const r of results) if (r.status !== 'failed' && r.ratio && Number.isFinite(r.ratio.value)) ratios[r.id] = { value: r.ratio.value, what: r.ratio.what };
  return { recorded, ratios };
}

/** The benchmark (`--only` name) that gives a headline ratio: ingestion gives one per log, start-up two. */
export function benchmarkOf(ratioId: string): string {
  return ratioId.replace(/^ingest-.*/, 'ingest').replace(/^startup-.*/, 'startup');
}

/** The verdicts as a table, and whether the check passes (nothing worse, nothing failed; not run is not a failure). */
export function report(verdicts: readonly Verdict[]): { text: string; pass: boolean } {
  const f = (v: number | undefined) => (v === undefined ? '–' : `${v.toFixed(2)}×`);
  const lines = ['| benchmark | baseline | now | change | verdict |', '|---|---|---|---|---|'];
  for (const v of verdicts) lines.push(`| ${v.id} (${v.what}) | ${f(v.baseline)} | ${f(v.value)} | ${v.change === undefined ? '–' : `${((v.change - 1) * 100).toFixed(0)} %`} | ${v.status} |`);
  return { text: lines.join('\n') + '\n', pass: verdicts.every((v) => v.status === 'ok' || v.status === 'not run') };
}

function newestResults(since: number): string | undefined {
  const dir = path.join(HERE, 'out');
  let best: [string, number] | undefined;
  for (const n of readdirSync(dir)) {
    if (!/^results-.*\.json$/.test(n)) continue;
    const t = statSync(path.join(dir, n)).mtimeMs;
    if (t >= since && (!best || t > best[1])) best = [path.join(dir, n), t];
  }
  return best?.[0];
}

function main(): void {
  const args = process.argv.slice(2);
  const at = args.indexOf('--results');
  const record = args.includes('--record');
  let file = at >= 0 ? args[at + 1] : undefined;
  if (at >= 0 && !file) {
    process.stderr.write('--results needs a results file (bench/out/results-….json)\n');
    process.exit(2);
  }
  const baseline = record && file ? undefined : (JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline);
  if (!file) {
    const runArgs = args.filter((a) => a !== '--record');
    if (!runArgs.includes('--only') && baseline) runArgs.push('--only', [...new Set(Object.keys(baseline.ratios).map(benchmarkOf))].join(','));
    const t0 = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(HERE, 'run.ts'), ...runArgs], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
    file = newestResults(t0);
    if (!file) {
      process.stderr.write('the benchmark run saved no results\n');
      process.exit(1);
    }
  }
  const run = JSON.parse(readFileSync(file, 'utf8')) as { machine?: { date?: string; loadavg?: string }; results: BenchResult[] };
  if (record) {
    const b = baselineOf(run.results, `${path.basename(file)} (load ${run.machine?.loadavg ?? '?'})`);
    writeFileSync(BASELINE_FILE, JSON.stringify(b, null, 2) + '\n');
    process.stdout.write(`recorded ${Object.keys(b.ratios).length} ratios from ${file} in ${path.relative(process.cwd(), BASELINE_FILE)}\n`);
    return;
  }
  if (!baseline) return;
  const { text, pass } = report(compareRatios(baseline, run.results));
  process.stdout.write(`against ${path.relative(process.cwd(), BASELINE_FILE)} (${baseline.recorded}), fails past +${TOLERANCE * 100} %:\n\n${text}`);
  process.exit(pass ? 0 : 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
