// Benchmark 2b: opening the dashboard on a finished dense log (200 MB, ≈ 300k per-sample lines over ≈ 39k
// instances, 2,521 rollouts): how long until rollouts are on the screen (the header's reward(traj) shows a
// number) and until the last rollout is (the whole log read), against `monitor LOG --once --json` on the same log
// and bare `node -e ''`, alternating in one run. The counts of the --once document are checked against the
// simulator's (exact at any length).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NODE, OUT, endSession, fmt, median, ptySpawn, result, sleep, timed, type BenchResult, type Bundle } from './lib.js';
import { benchLog } from './logs.js';

const COLS = 120;
const ROWS = 40;

export async function benchDashboardOpen(bundle: Bundle, runs: number, seed: number, log: (s: string) => void): Promise<BenchResult> {
  const res = result('dashboard-open', 'dashboard opened on the dense 200 MB log: time until rollouts are on screen');
  const dense = await benchLog('dense', 200e6, seed, log);
  const firstShown: number[] = [];
  const firstNumbers: number[] = [];
  const allShown: number[] = [];
  const once: number[] = [];
  const bare: number[] = [];
  const out = path.join(OUT, 'dashboard-open.json');
  let onceJson: { samples?: { total?: number }; rollouts?: unknown[]; series?: unknown } | undefined;
  for (let i = 0; i < runs; i++) {
    bare.push((await timed(NODE, ['-e', ''])).ms);
    const r = await timed('/bin/sh', ['-c', `'${NODE}' '${bundle.bin}' monitor '${dense.file}' --once --json > '${out}'`]);
    once.push(r.ms);
    onceJson = JSON.parse(await readFile(out, 'utf8'));
    const s = await ptySpawn(NODE, [bundle.bin, 'monitor', dense.file], { cols: COLS, rows: ROWS });
    const t0 = performance.now();
    const deadline = t0 + 120_000;
    let first: number | undefined;
    let numbers: number | undefined;
    let all: number | undefined;
    let screen = '';
    while (all === undefined && !s.isExited() && performance.now() < deadline) {
      screen = await s.screen();
      const reward = /reward\(traj\) (\d[\d.]*)/.test(screen);
      if (reward && first === undefined) first = performance.now() - t0;
      // The first numbers: during the first read the header says `so far: solved N/M` (issue #29: within 1 s).
      const soFar = /so far: solved (\d+)\/(\d+)/.exec(screen);
      if (numbers === undefined && ((soFar && Number(soFar[2]) > 0) || reward)) numbers = performance.now() - t0;
      // The header counts rollouts as `rollout N/TOTAL` (TOTAL is the run's configured count: a run that stopped
      // early never reaches it); the whole log is read once N is what `--once` lists.
      const at = /rollout (\d+)\/(\d+)/.exec(screen);
      const listed = onceJson?.rollouts?.length;
      if (reward && at && listed !== undefined && Number(at[1]) === listed) all = performance.now() - t0;
      else await sleep(20);
    }
    await writeFile(path.join(OUT, 'dashboard-open-screen.txt'), screen + '\n');
    await endSession(s);
    if (first !== undefined) firstShown.push(first);
    if (numbers !== undefined) firstNumbers.push(numbers);
    if (all !== undefined) allShown.push(all);
  }
  const b = median(bare);
  res.metrics.push({ label: "bare `node -e ''` (median)", value: fmt(b, 0), unit: 'ms' });
  res.metrics.push({ label: '`monitor LOG --once --json` (median)', value: fmt(median(once), 0), unit: `ms (${once.map((x) => fmt(x, 0)).join(', ')})` });
  res.metrics.push({ label: 'dashboard: first numbers on screen, from the spawn (`so far: solved N/M`, N > 0), median; goal ≤ 1 s', value: firstNumbers.length ? fmt(median(firstNumbers), 0) : 'not seen', unit: `ms (${firstNumbers.length}/${runs} runs: ${firstNumbers.map((x) => fmt(x, 0)).join(', ')})` });
  res.metrics.push({ label: 'dashboard: first rollouts on screen (median)', value: firstShown.length ? fmt(median(firstShown), 0) : 'not seen', unit: `ms (${firstShown.length}/${runs} runs: ${firstShown.map((x) => fmt(x, 0)).join(', ')})` });
  res.metrics.push({ label: 'dashboard: every rollout on screen (header `rollout N/…` with N the rollouts `--once` lists), median', value: allShown.length ? fmt(median(allShown), 0) : 'not seen', unit: `ms (${allShown.length}/${runs} runs)` });
  const total = onceJson?.samples?.total;
  const exact = total === dense.manifest.counts.sampleLines;
  res.metrics.push({ label: 'the last screen', value: 'bench/out/dashboard-open-screen.txt' });
  res.metrics.push({ label: '--once counts: samples.total vs the simulator', value: `${total} vs ${dense.manifest.counts.sampleLines} (${exact ? 'exact' : 'DIFFERENT'})` });
  if (!exact) res.status = 'failed';
  if (firstShown.length) res.ratio = { value: median(firstShown) / median(once), what: 'dashboard first rollouts ÷ --once --json' };
  return res;
}
