// The logs the ingestion benchmarks read, all written by the project's run simulator (src/services/simulator) and
// cached in bench/out/logs (git-ignored):
//   simulator — the default simulated run (293 tasks, 8×16 samples a rollout), noise sized to the target;
//   dense     — 300k per-sample lines over 39k distinct instances in 200 MB (several datasets, or a long run):
//               17 prompts × 7 samples a rollout, 2,521 rollouts, little noise;
//   sparse    — 90k per-sample lines in 1 GB: 704 rollouts drowned in Ray/SGLang/httpx noise.
// In each, LOOK_ALIKE_SHARE of the bytes are look-alike lines (src/services/simulator/lookAlikes.ts: printed configs,
// `step skipped: {…}`, cut metric dicts, traceback lines), as real logs have: marker texts outside their shapes.
// The 4 GB run for memory is the dense log repeated in /tmp (tmpLog), deleted after the benchmark.
import { existsSync, readFileSync, createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { generateOffline, SIM_LOG_NAME, SIM_MANIFEST_NAME, type SimManifest } from '../src/services/simulator/writer.js';
import type { SimConfig } from '../src/services/simulator/runGenerator.js';
import { OUT, fmt } from './lib.js';

/** Share of a bench log's bytes in look-alike lines (≈ 14 % in the real logs issue #29 measured). */
export const LOOK_ALIKE_SHARE = 0.14;

export type LogKind = 'simulator' | 'dense' | 'sparse';

export interface BenchLog {
  kind: LogKind;
  file: string;
  manifest: SimManifest;
  generatedMs?: number;
}

const SHAPES: Record<LogKind, (bytes: number) => { targetBytes: number; config: Partial<SimConfig> }> = {
  simulator: (bytes) => ({ targetBytes: bytes, config: {} }),
  dense: (bytes) => ({
    targetBytes: bytes,
    config: { tasks: 39_000, rolloutBatchSize: 17, samplesPerPrompt: 7, numRollouts: Math.round((300_000 / 119) * (bytes / 200e6)), noiseLinesPerSecond: 0.5 },
  }),
  sparse: (bytes) => ({ targetBytes: bytes, config: { numRollouts: Math.round((90_000 / 128) * (bytes / 1e9)) } }),
};

/** A simulated log of `kind`, about `bytes` long, generated once (seeded) and cached. */
export async function benchLog(kind: LogKind, bytes: number, seed: number, log: (s: string) => void): Promise<BenchLog> {
  const dir = path.join(OUT, 'logs', `${kind === 'simulator' ? 'sim' : kind}-${Math.round(bytes / 1e6)}MB-seed${seed}-lookalike${Math.round(LOOK_ALIKE_SHARE * 100)}`);
  const manifestFile = path.join(dir, SIM_MANIFEST_NAME);
  const file = path.join(dir, SIM_LOG_NAME);
  if (existsSync(manifestFile) && existsSync(file)) {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as SimManifest;
    if ((await stat(file)).size === manifest.counts.bytes) return { kind, file, manifest };
  }
  await rm(dir, { recursive: true, force: true });
  log(`  generating a ${fmt(bytes / 1e9, 2)} GB ${kind} log in ${path.relative(process.cwd(), dir)} …`);
  const t0 = performance.now();
  const shape = SHAPES[kind](bytes);
  const manifest = await generateOffline({ dir, targetBytes: shape.targetBytes, lookAlikeShare: LOOK_ALIKE_SHARE, config: { seed, ...shape.config } });
  return { kind, file, manifest, generatedMs: performance.now() - t0 };
}

/** `file` written `times` times over into a new file (a long log whose counts are known). */
export async function repeatedLog(file: string, out: string, times: number): Promise<void> {
  const w = createWriteStream(out, { highWaterMark: 1 << 22 });
  for (let i = 0; i < times; i++) {
    await new Promise<void>((resolve, reject) => {
      const r = createReadStream(file, { highWaterMark: 1 << 22 });
      r.on('error', reject);
      r.on('end', resolve);
      r.pipe(w, { end: false });
    });
  }
  await new Promise<void>((resolve, reject) => w.end((err?: Error | null) => (err ? reject(err) : resolve())));
}
