// Chooses the fingerprints and buckets of the WebAssembly marker search (src/services/monitor/markerScan.ts) from
// run logs, and writes them to src/services/monitor/markerFingerprints.ts. Any choice finds the same lines; a good
// one makes fewer bytes look like a fingerprint, so fewer candidates are compared in full.
//
//   node --import tsx scripts/marker-fingerprints.ts LOG...   (the benchmark's simulated logs, bench/out/logs/*/run.log)
//
// The cost of a choice is the number of 4-byte windows of the logs that some bucket's nibble tables accept, plus
// the same under a model where bytes are independent (their frequencies in the logs), so that windows the sample
// happens to lack still count. Greedy start, then moves of one text (its fingerprint or its bucket) while any helps.
import { openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LINE_MARKERS } from '../src/services/monitor/lines.js';

const W = 4;
const BUCKETS = 8;
const SAMPLE_BYTES = 50_000_000;
/** Weight of the independent-bytes model against the windows seen. */
const PRIOR = 0.5;

const files = process.argv.slice(2);
if (!files.length) {
  process.stderr.write('usage: node --import tsx scripts/marker-fingerprints.ts LOG...\n');
  process.exit(2);
}

const counts = new Map<number, number>();
const bytes = new Float64Array(256);
let windows = 0;
for (const f of files) {
  const fd = openSync(f, 'r');
  const buf = Buffer.allocUnsafe(SAMPLE_BYTES);
  const n = readSync(fd, buf, 0, SAMPLE_BYTES, 0);
  closeSync(fd);
  const scale = SAMPLE_BYTES / n;
  for (let p = 0; p + W <= n; p++) {
    const k = buf.readUInt32BE(p);
    counts.set(k, (counts.get(k) ?? 0) + scale);
    bytes[buf[p] as number] = (bytes[buf[p] as number] as number) + scale;
  }
  windows += SAMPLE_BYTES;
}
const grams = Float64Array.from(counts.keys());
const gramCounts = Float64Array.from(counts.values());
const freq = bytes.map((c) => c / windows);

interface Choice {
  text: string;
  bytes: Uint8Array;
  at: number;
  bucket: number;
}
const enc = new TextEncoder();
const choices: Choice[] = LINE_MARKERS.map(([text]) => ({ text, bytes: enc.encode(text), at: 0, bucket: 0 }));

/** Per position, which bytes the bucket's nibble tables accept (a text shorter than W accepts any there). */
function accepts(members: Choice[]): Uint8Array[] {
  return Array.from({ length: W }, (_, j) => {
    const lo = new Set<number>();
    const hi = new Set<number>();
    let any = false;
    for (const c of members) {
      if (c.at + j >= c.bytes.length) any = true;
      else {
        lo.add((c.bytes[c.at + j] as number) & 15);
        hi.add((c.bytes[c.at + j] as number) >> 4);
      }
    }
    const ok = new Uint8Array(256);
    for (let b = 0; b < 256; b++) ok[b] = any || (lo.has(b & 15) && hi.has(b >> 4)) ? 1 : 0;
    return ok;
  });
}

function bucketCost(members: Choice[]): number {
  if (!members.length) return 0;
  const ok = accepts(members);
  const [a, b, c, d] = ok as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  let seen = 0;
  for (let i = 0; i < grams.length; i++) {
    const g = grams[i] as number;
    if (a[g >>> 24] && b[(g >>> 16) & 255] && c[(g >>> 8) & 255] && d[g & 255]) seen += gramCounts[i] as number;
  }
  let model = windows;
  for (const o of ok) {
    let p = 0;
    for (let x = 0; x < 256; x++) if (o[x]) p += freq[x] as number;
    model *= p;
  }
  return seen + PRIOR * model;
}

const members = (b: number) => choices.filter((c) => c.bucket === b);
const offsets = (c: Choice) => Array.from({ length: Math.max(1, c.bytes.length - W + 1) }, (_, i) => i);

// Greedy: each text alone picks its cheapest fingerprint; then, hardest first, the bucket where it adds least.
for (const c of choices) {
  let bestCost = Infinity;
  for (const at of offsets(c)) {
    const cost = bucketCost([{ ...c, at }]);
    if (cost < bestCost) [c.at, bestCost] = [at, cost];
  }
}
const placed: Choice[] = [];
for (const c of [...choices].sort((x, y) => bucketCost([y]) - bucketCost([x]))) {
  let bestBucket = 0;
  let bestDelta = Infinity;
  for (let b = 0; b < BUCKETS; b++) {
    const now = placed.filter((p) => p.bucket === b);
    const delta = bucketCost([...now, { ...c, bucket: b }]) - bucketCost(now);
    if (delta < bestDelta) [bestBucket, bestDelta] = [b, delta];
  }
  c.bucket = bestBucket;
  placed.push(c);
}

const costs = Array.from({ length: BUCKETS }, (_, b) => bucketCost(members(b)));
const total = () => costs.reduce((s, x) => s + x, 0);
process.stderr.write(`greedy: ${Math.round(total())} windows accepted per ${files.length} × ${SAMPLE_BYTES / 1e6} MB\n`);
for (let sweep = 0, improved = true; improved && sweep < 6; sweep++) {
  improved = false;
  for (const c of choices) {
    const from = c.bucket;
    const start = { at: c.at, bucket: c.bucket };
    let best = { ...start, gain: 0 };
    for (const at of offsets(c)) {
      for (let b = 0; b < BUCKETS; b++) {
        if (at === start.at && b === start.bucket) continue;
        c.at = at;
        c.bucket = b;
        const gain = b === from ? costs[from]! - bucketCost(members(from)) : costs[from]! + costs[b]! - bucketCost(members(from)) - bucketCost(members(b));
        if (gain > best.gain + 1e-6) best = { at, bucket: b, gain };
      }
    }
    c.at = best.at;
    c.bucket = best.bucket;
    if (best.gain > 0) {
      improved = true;
      costs[from] = bucketCost(members(from));
      costs[c.bucket] = bucketCost(members(c.bucket));
    }
  }
  process.stderr.write(`sweep ${sweep + 1}: ${Math.round(total())}\n`);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'src/services/monitor/markerFingerprints.ts');
const rows = choices.map((c) => `  ${JSON.stringify(c.text)}: [${c.at}, ${c.bucket}], // ${JSON.stringify(c.text.slice(c.at, c.at + W))}`);
writeFileSync(
  target,
  '// Generated by scripts/marker-fingerprints.ts from simulated run logs: for each lines.ts LINE_MARKERS text, where\n' +
    '// its 4-byte fingerprint starts and its bucket (markerScan.ts). Only speed depends on it: a text missing here is\n' +
    '// still found (its fingerprint is guessed). Run the script again after changing LINE_MARKERS.\n' +
    'export const MARKER_FINGERPRINTS: Readonly<Record<string, readonly [at: number, bucket: number]>> = {\n' +
    rows.join('\n') +
    '\n};\n',
);
process.stderr.write(`wrote ${path.relative(root, target)}: ${Math.round(total())} windows accepted per ${files.length} × ${SAMPLE_BYTES / 1e6} MB\n`);
