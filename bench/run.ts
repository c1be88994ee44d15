// `npm run bench` — the benchmark suite. Every benchmark is a ratio measured side by side in one run; the
// results print as a table and are saved to bench/out/results-<date>.json. See bench/README.md.
//
//   npm run bench                              all benchmarks, default sizes (a few minutes on 2 cores)
//   npm run bench -- --only ingest,startup     some of them (see ALL below)
//   npm run bench -- --size 4GB --dashboard-seconds 300    bigger
import { parseArgs } from 'node:util';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OUT, buildBundle, fmt, machine, type BenchResult, type Bundle } from './lib.js';
import { benchIngest } from './ingest.js';
import { benchDashboard, benchStartup } from './terminal.js';
import { benchFactory, benchLocalSandbox, benchParquet, benchTrajectories } from './components.js';
import { benchTrajectoryGrowth } from './growth.js';
import { benchDashboardOpen } from './dashboardOpen.js';
import { benchModelHeap } from './modelHeap.js';
import { benchReadAlignment } from './readAlignment.js';
import { benchDashboardRows } from './dashboardRows.js';
import { parseSize } from '../src/cli/commands/simulate.js';

const ALL = ['ingest', 'dashboard', 'startup', 'parquet', 'sandbox', 'factory', 'trajectories', 'trajectory-growth', 'dashboard-open', 'model-heap', 'read-alignment', 'dashboard-rows'] as const;
type Id = (typeof ALL)[number];

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    size: { type: 'string', default: '1GB' },
    'ingest-runs': { type: 'string', default: '3' },
    'no-4gb': { type: 'boolean' },
    'dashboard-seconds': { type: 'string', default: '60' },
    'htop-seconds': { type: 'string', default: '20' },
    'dashboard-heap': { type: 'boolean' },
    'heap-early': { type: 'string' },
    'dashboard-speed': { type: 'string' },
    'rss-every': { type: 'string', default: '15' },
    'rows-seconds': { type: 'string', default: '60' },
    'rows-after': { type: 'string', default: '8' },
    'rows-speed': { type: 'string', default: '60' },
    'lines-per-second': { type: 'string', default: '2000' },
    'startup-runs': { type: 'string', default: '10' },
    'open-runs': { type: 'string', default: '3' },
    'model-rollouts': { type: 'string', default: '1600' },
    /** Another checkout's built bin/swegym-console, started alternately with this one (before/after). */
    'startup-baseline': { type: 'string' },
    'factory-builds': { type: 'string', default: '2344' },
    'factory-concurrency': { type: 'string', default: '20' },
    'factory-build-ms': { type: 'string', default: '50' },
    'trajectory-sessions': { type: 'string', default: '64000' },
    'trajectory-growth-sessions': { type: 'string', default: '64000' },
    seed: { type: 'string', default: '1' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(`usage: npm run bench -- [--only ${ALL.join(',')}] [--size 1GB] [--dashboard-seconds 60] [--startup-runs 10] …\n`);
  process.exit(0);
}

const only = (values.only ? values.only.split(',').map((s) => s.trim()) : [...ALL]) as Id[];
for (const id of only) {
  if (!(ALL as readonly string[]).includes(id)) {
    process.stderr.write(`unknown benchmark "${id}"; choose from ${ALL.join(', ')}\n`);
    process.exit(2);
  }
}
const int = (name: keyof typeof values) => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`--${name} must be a positive number\n`);
    process.exit(2);
  }
  return n;
};

const log = (s: string) => process.stderr.write(s + '\n');

async function main(): Promise<void> {
  const m = machine();
  log(`swegym-console benchmarks — ${m.date}, ${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, load ${m.loadavg}`);
  const results: BenchResult[] = [];
  let bundle: Bundle | undefined;
  let bundleError: string | undefined;
  if (only.some((id) => id === 'ingest' || id === 'dashboard' || id === 'startup' || id === 'parquet' || id === 'dashboard-open' || id === 'model-heap' || id === 'dashboard-rows')) {
    log('building the bundle …');
    try {
      bundle = await buildBundle();
      log(`  ${bundle.note}`);
    } catch (err) {
      bundleError = (err as Error).message;
      log(`  ${bundleError}`);
    }
  }
  for (const id of only) {
    log(`[${id}]`);
    const t0 = performance.now();
    let r: BenchResult;
    try {
      if ((id === 'ingest' || id === 'dashboard' || id === 'startup' || id === 'dashboard-open' || id === 'model-heap' || id === 'dashboard-rows') && !bundle) {
        r = { id, title: id, status: 'failed', metrics: [], notes: [`no bundle: ${bundleError}`] };
      } else if (id === 'ingest') {
        const rows = await benchIngest(bundle as Bundle, { bytes: parseSize(values.size as string), runs: int('ingest-runs'), seed: int('seed'), big: !values['no-4gb'] }, log);
        results.push(...rows.slice(0, -1));
        r = rows[rows.length - 1] as BenchResult;
      }
      else if (id === 'dashboard') r = await benchDashboard(bundle as Bundle, { seconds: int('dashboard-seconds'), htopSeconds: int('htop-seconds'), linesPerSecond: int('lines-per-second'), sandboxes: 128, heap: values['dashboard-heap'] === true, speed: values['dashboard-speed'] ? int('dashboard-speed') : undefined, sampleEverySec: int('rss-every'), heapEarlySec: values['heap-early'] ? int('heap-early') : undefined }, log);
      else if (id === 'startup') {
        const [home, firstFrame] = await benchStartup(bundle as Bundle, int('startup-runs'), log, values['startup-baseline']);
        results.push(home);
        r = firstFrame;
      }
      else if (id === 'parquet') r = await benchParquet(5, bundle?.bin);
      else if (id === 'sandbox') r = await benchLocalSandbox(5);
      else if (id === 'trajectories') r = await benchTrajectories(int('trajectory-sessions'));
      else if (id === 'dashboard-open') r = await benchDashboardOpen(bundle as Bundle, int('open-runs'), int('seed'), log);
      else if (id === 'model-heap') r = await benchModelHeap(bundle as Bundle, int('model-rollouts'), log);
      else if (id === 'read-alignment') r = await benchReadAlignment(log);
      else if (id === 'dashboard-rows') r = await benchDashboardRows(bundle as Bundle, int('rows-seconds'), log, int('rows-after'), int('rows-speed'));
      else if (id === 'trajectory-growth') r = await benchTrajectoryGrowth(int('trajectory-growth-sessions'), log);
      else r = await benchFactory(int('factory-builds'), int('factory-concurrency'), int('factory-build-ms'));
    } catch (err) {
      r = { id, title: id, status: 'failed', metrics: [], notes: [(err as Error).stack?.split('\n').slice(0, 3).join(' ') ?? String(err)] };
    }
    log(`  done in ${fmt((performance.now() - t0) / 1000)} s`);
    results.push(r);
  }
  process.stdout.write(table(results));
  await mkdir(OUT, { recursive: true });
  const file = path.join(OUT, `results-${m.date.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, JSON.stringify({ machine: m, bundle: bundle?.note, results }, null, 2) + '\n');
  log(`results saved to ${path.relative(process.cwd(), file)}`);
}

function table(results: BenchResult[]): string {
  const lines: string[] = [''];
  lines.push('| benchmark | ratio | goal | status |');
  lines.push('|---|---|---|---|');
  for (const r of results) {
    const ratio = r.ratio ? `${fmt(r.ratio.value, 2)}× (${r.ratio.what})` : '–';
    const goal = r.ratio?.goal !== undefined ? `≤ ${r.ratio.goal}× ${r.ratio.pass ? 'met' : 'NOT met'}` : '–';
    lines.push(`| ${r.title} | ${ratio} | ${goal} | ${r.status} |`);
  }
  for (const r of results) {
    lines.push('', `${r.title} [${r.status}]`);
    for (const mtr of r.metrics) lines.push(`  ${mtr.label}: ${mtr.value}${mtr.unit ? ` ${mtr.unit}` : ''}`);
    for (const n of r.notes) lines.push(`  note: ${n}`);
  }
  return lines.join('\n') + '\n';
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
