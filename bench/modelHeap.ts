// Benchmark 2c: what the run model keeps per rollout. The dashboard keeps the whole run's history (curves, the rollouts
// table, the document) up to the model's limits, so its memory grows with the run by this much a rollout; the
// dashboard's RSS over 30 minutes at --speed 60 (≈ 53 rollouts a minute) creeps by about this times the rollouts.
// The dashboard's model packs the records behind its newest 512 (packedHistory.ts); `monitor --once` and `report`
// keep objects. Method: the simulator writes a run of `rollouts` rollouts; a child process (--expose-gc) reads the
// log up to rollout `rollouts`/2 and another up to rollout `rollouts`, each forces GC and reports its heap plus its
// typed arrays; the difference over the rollouts between is the cost of one (its steps included). Three alternating
// pairs for each model, medians.
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

/** How the child builds its model: as `monitor --once` and `report` do, or as the dashboard does (older records packed). */
type ModelKind = 'objects' | 'packed';

function childHeap(log: string, kind: ModelKind): number {
  const r = spawnSync(NODE, ['--expose-gc', '--import', 'tsx', path.join(REPO, 'bench', 'modelHeap.ts'), CHILD_FLAG, log, kind], { cwd: REPO, encoding: 'utf8' });
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
    // Both cuts past the dashboard's unpacked records (512): the difference is what one more rollout keeps.
    const from = Math.floor(rollouts / 2);
    const small = path.join(dir, 'small.log');
    const large = path.join(dir, 'large.log');
    await writeFile(small, cutBefore(text, from));
    await writeFile(large, cutBefore(text, rollouts - 1));
    const per: Record<ModelKind, number[]> = { objects: [], packed: [] };
    for (let i = 0; i < 3; i++) {
      for (const kind of ['objects', 'packed'] as const) {
        const a = childHeap(small, kind);
        const b = childHeap(large, kind);
        per[kind].push((b - a) / (rollouts - 1 - from));
        log(`  pair ${i + 1}, ${kind}: ${fmt(a / 1048576)} → ${fmt(b / 1048576)} MiB`);
      }
    }
    res.metrics.push({ label: `heap per rollout as objects (monitor --once, report), rollouts ${from} → ${rollouts - 1}, median of 3`, value: fmt(median(per.objects), 0), unit: 'bytes' });
    res.metrics.push({ label: 'heap per rollout packed (the dashboard: records behind the newest 512), median of 3', value: fmt(median(per.packed), 0), unit: 'bytes' });
    res.metrics.push({ label: 'the dashboard at --speed 60 (≈ 53 rollouts a minute)', value: fmt((median(per.packed) * 53) / 1048576, 3), unit: 'MiB a minute' });
    return res;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function child(log: string, kind: ModelKind): Promise<void> {
  const { ingestFile } = await import('../src/services/monitor/ingest.js');
  const { RunModel, UNPACKED_RECORDS } = await import('../src/services/monitor/runModel.js');
  const read = await ingestFile(log, kind === 'packed' ? { model: new RunModel({ unpackedRecords: UNPACKED_RECORDS }) } : {});
  const gc = (globalThis as { gc?: () => void }).gc as () => void;
  for (let i = 0; i < 4; i++) gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 0; i < 4; i++) gc();
  // The packed records' typed arrays are outside V8's heap.
  const m = process.memoryUsage();
  process.stdout.write(`heap ${m.heapUsed + m.arrayBuffers} rollouts ${read.model.rollouts.count}\n`);
}

if (process.argv[2] === CHILD_FLAG) await child(process.argv[3] as string, (process.argv[4] ?? 'objects') as ModelKind);
