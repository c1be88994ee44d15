// Benchmark 4e: the trajectory listing over a whole run. The dashboard refreshes its listing every 120 s while the
// run writes sessions; if a refresh cost grew with the sessions already listed, the run's total listing work would
// grow with the square of its length. Here a run grows by one rollout (128 sessions over 2,344 instance
// directories) between refreshes, from nothing to `sessions`; each refresh is timed and its work counted. Linear
// total = a flat cost per refresh (its stats stay at instances + new sessions; its time in the last tenth of the
// run ≈ the first tenth's).
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, result, type BenchResult } from './lib.js';
import { TrajectoryIndex } from '../src/services/monitor/trajIndex.js';

const INSTANCES = 2344;
const PER_ROLLOUT = 128;

export async function benchTrajectoryGrowth(sessions: number, log: (s: string) => void): Promise<BenchResult> {
  const res = result('trajectory-growth', `trajectory listing refreshed after every rollout, 0 → ${sessions.toLocaleString('en-US')} sessions`);
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-growth-'));
  try {
    const root = path.join(dir, 'traj_payload', 'run');
    const write = async (i: number) => {
      const d = path.join(root, `repo__task-${i % INSTANCES}`, `bbs-${i}`);
      await mkdir(d, { recursive: true });
      await writeFile(path.join(d, 'session.json'), '{}');
    };
    const index = new TrajectoryIndex(dir, 'run');
    const rows: { size: number; ms: number; stats: number; readdirs: number }[] = [];
    let total = 0;
    for (let n = 0; n < sessions; n += PER_ROLLOUT) {
      const batch = Math.min(PER_ROLLOUT, sessions - n);
      await Promise.all(Array.from({ length: batch }, (_, k) => write(n + k)));
      const t0 = performance.now();
      const listed = await index.refresh(5000);
      const ms = performance.now() - t0;
      total += ms;
      rows.push({ size: n + batch, ms, stats: index.lastWork.stats, readdirs: index.lastWork.readdirs });
      if (listed.length !== Math.min(5000, n + batch)) res.notes.push(`after ${n + batch} sessions the listing kept ${listed.length}`);
      if (rows.length % 100 === 0) log(`  ${n + batch} sessions, refresh ${fmt(ms, 0)} ms`);
    }
    // Compared once every directory exists (the first tenth also creates most instance directories).
    const tenth = Math.max(1, Math.floor(rows.length / 10));
    const settled = rows.filter((r) => r.size > INSTANCES * 2);
    const early = settled.slice(0, tenth);
    const late = rows.slice(-tenth);
    const ms = (xs: typeof rows) => median(xs.map((r) => r.ms));
    const stats = (xs: typeof rows) => median(xs.map((r) => r.stats));
    res.metrics.push({ label: 'refreshes', value: rows.length });
    res.metrics.push({ label: 'refresh time, median: first tenth (after every instance has a session) → last tenth', value: `${fmt(ms(early), 1)} → ${fmt(ms(late), 1)}`, unit: 'ms' });
    res.metrics.push({ label: 'stats per refresh, median: first tenth → last tenth', value: `${stats(early)} → ${stats(late)}` });
    res.metrics.push({ label: 'all refreshes together', value: fmt(total / 1000, 1), unit: 's' });
    res.metrics.push({ label: `refresh at ${rows.at(-1)?.size.toLocaleString('en-US')} sessions`, value: fmt(rows.at(-1)?.ms ?? NaN, 1), unit: `ms (${rows.at(-1)?.stats} stats, ${rows.at(-1)?.readdirs} readdirs)` });
    res.ratio = { value: ms(late) / ms(early), what: 'refresh time late ÷ early in the run (1 = linear total)' };
    return res;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
