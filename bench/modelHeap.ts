// Benchmark 2c: what the run model keeps per rollout. The dashboard keeps the whole run's history (curves, the rollouts
// table, the document) up to the model's limits, so its memory grows with the run by this much a rollout; the
// dashboard's RSS over 30 minutes at --speed 60 (≈ 53 rollouts a minute) creeps by about this times the rollouts.
// Method: the simulator writes a run of `rollouts` rollouts; a child process (--expose-gc) reads the log up to
// rollout 2 and another up to rollout `rollouts`, each forces GC and reports its heap; the difference over the
// rollouts between is the cost of one (its steps included). Three alternating pairs, medians.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NODE, REPO, fmt, median, result, type BenchResult, type Bundle } from './lib.js';

const CHILD_FLAG = '--model-heap-child';

/** The log's lines before rollout `n`'s first summary line. */
function cutBefore(text: string, n: number): string {
  const at = text.search(new RegExp(`rollout ${n}: \\{`));
  const lineStart = at < 0 ? text.length : text.lastIndexOf('\n', at) + 1;
  return text.slice(0, lineStart);
}

function childHeap(log: string): number {
  const r = spawnSync(NODE, ['--expose-gc', '--import', 'tsx', path.join(REPO, 'bench', 'modelHeap.ts'), CHILD_FLAG, log], { cwd: REPO, encoding: 'utf8' });
  const bytes = Number(/heap (\d+)/.exec(r.stdout)?.[1]);
  if (!Number.isFinite(bytes)) throw new Error(`model-heap child: ${r.stderr.slice(-400)}`);
  return bytes;
}

export async function benchModelHeap(bundle: Bundle, rollouts: number, log: (s: string) => void): Promise<BenchResult> {
  const res = result('model-heap', `run model's heap per rollout (a simulated run of ${rollouts} rollouts, 128 samples each)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-model-'));
  try {
    const sim = spawnSync(bundle.bin, ['simulate', path.join(dir, 'run'), '--rollouts', String(rollouts), '--traj', 'none', '--noise-rate', '0'], { encoding: 'utf8' });
    if (sim.status !== 0) throw new Error(`simulate: ${sim.stderr.slice(-400)}`);
    const text = await readFile(path.join(dir, 'run', 'run.log'), 'utf8');
    const small = path.join(dir, 'small.log');
    const large = path.join(dir, 'large.log');
    await writeFile(small, cutBefore(text, 2));
    await writeFile(large, cutBefore(text, rollouts - 1));
    const per: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = childHeap(small);
      const b = childHeap(large);
      per.push((b - a) / (rollouts - 3));
      log(`  pair ${i + 1}: ${fmt(a / 1048576)} → ${fmt(b / 1048576)} MiB`);
    }
    res.metrics.push({ label: 'heap per rollout (its train step included), median of 3', value: fmt(median(per), 0), unit: 'bytes' });
    res.metrics.push({ label: 'at --speed 60 (≈ 53 rollouts a minute)', value: fmt((median(per) * 53) / 1048576, 2), unit: 'MiB a minute' });
    return res;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function child(log: string): Promise<void> {
  const { ingestFile } = await import('../src/services/monitor/ingest.js');
  const read = await ingestFile(log, {});
  const gc = (globalThis as { gc?: () => void }).gc as () => void;
  for (let i = 0; i < 4; i++) gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 0; i < 4; i++) gc();
  process.stdout.write(`heap ${process.memoryUsage().heapUsed} rollouts ${read.model.rollouts.count}\n`);
}

if (process.argv[2] === CHILD_FLAG) await child(process.argv[3] as string);
