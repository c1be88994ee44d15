// Parallel scan of a large log for `monitor --once`: the file is cut at line boundaries into one range per core,
// worker threads find the marked lines of their range (the same findMarkedLines as LineScanner), and the main
// thread feeds them to the model in file order. Classification stays single-threaded (it needs order).
// The worker body and the scan functions are self-contained functions serialised into an eval worker, so they run
// the same from the sources and from the bundle. Any worker failure falls back to the sequential scan.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { open, stat } from 'node:fs/promises';
import { LINE_MARKERS } from './lines.js';
import { LineScanner, compileMarkers, findMarkedLines, scanFile } from './tail.js';

/** Files smaller than this are scanned on the main thread (starting workers costs more). */
export const PARALLEL_MIN_BYTES = 48 * 1024 * 1024;

interface Job {
  file: string;
  start: number;
  end: number;
  markers: (readonly [string, string])[];
}

/**
 * Runs inside the worker. Must not reference anything outside its own body (it is serialised with toString()).
 * Reads [start, end) (end is just after a newline or at EOF) and posts the candidate lines.
 */
function workerMain(): void {
  // process.getBuiltinModule, not require/import: a bundler would rewrite those into references outside this body.
  const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads') as typeof import('node:worker_threads');
  const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
  if (!parentPort) return;
  // Put on globalThis by WORKER_SOURCE (the same functions LineScanner uses).
  const g = globalThis as unknown as { __scanCompile: typeof compileMarkers; __scanFind: typeof findMarkedLines };
  const job = workerData as Job;
  const groups = g.__scanCompile(job.markers);
  const find = g.__scanFind;
  const fd = fs.openSync(job.file, 'r');
  const CHUNK = 4 * 1024 * 1024;
  const WINDOW = 256 * 1024;
  const buf = Buffer.allocUnsafe(CHUNK);
  let carry: Buffer | undefined;
  let pos = job.start;
  let out: string[] = [];
  const starts: number[] = [];
  const scanWindow = (b: Buffer, from: number, end: number) => {
    starts.length = 0;
    find(b, from, end, groups, starts);
    for (const s of starts) {
      let stop = b.indexOf(10, s);
      if (stop < 0 || stop > end) stop = end;
      out.push(b.toString('utf8', s, stop));
    }
  };
  const scan = (b: Buffer, from: number, end: number) => {
    let p = from;
    while (p <= end) {
      let stop = end;
      if (end - p > WINDOW) {
        const nl = b.lastIndexOf(10, p + WINDOW);
        stop = nl >= p ? nl : b.indexOf(10, p + WINDOW);
        if (stop < 0 || stop > end) stop = end;
      }
      scanWindow(b, p, stop);
      p = stop + 1;
    }
  };
  while (pos < job.end) {
    const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, job.end - pos), pos);
    if (n <= 0) break;
    pos += n;
    const chunk = buf.subarray(0, n);
    let from = 0;
    if (carry) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      const line = Buffer.concat([carry, chunk.subarray(0, nl + 1)]);
      carry = undefined;
      scan(line, 0, line.length - 1);
      from = nl + 1;
    }
    const last = chunk.lastIndexOf(10);
    if (last >= from) {
      scan(chunk, from, last);
      if (last + 1 < chunk.length) carry = Buffer.from(chunk.subarray(last + 1));
    } else if (from < chunk.length) {
      carry = Buffer.from(chunk.subarray(from));
    }
    // Small batches, so the main thread classifies range 0 while the workers still scan.
    if (out.length >= 2000) {
      parentPort.postMessage({ lines: out });
      out = [];
    }
  }
  if (carry && carry.length) {
    const line = Buffer.concat([carry, Buffer.from('\n')]);
    scan(line, 0, line.length - 1);
  }
  fs.closeSync(fd);
  parentPort.postMessage({ lines: out, done: true });
}

// `__name` is the helper esbuild/tsx insert to keep function names; the worker has no such global.
const WORKER_SOURCE = [
  'var __name = (f) => f;',
  `globalThis.__scanCompile = (${compileMarkers.toString()});`,
  `globalThis.__scanFind = (${findMarkedLines.toString()});`,
  `(${workerMain.toString()})()`,
].join('\n');

/** Offsets that cut [0, size) into `n` ranges, each starting at a line start. */
export async function lineAlignedCuts(file: string, size: number, n: number): Promise<number[]> {
  const cuts = [0];
  const fh = await open(file, 'r');
  try {
    const probe = Buffer.allocUnsafe(64 * 1024);
    for (let i = 1; i < n; i++) {
      let p = Math.floor((size * i) / n);
      if (p <= (cuts[cuts.length - 1] as number)) continue;
      // Find the next newline at or after p.
      let found = -1;
      while (p < size && found < 0) {
        const { bytesRead } = await fh.read(probe, 0, probe.length, p);
        if (bytesRead <= 0) break;
        const nl = probe.subarray(0, bytesRead).indexOf(10);
        if (nl >= 0) found = p + nl + 1;
        else p += bytesRead;
      }
      if (found > 0 && found < size && found > (cuts[cuts.length - 1] as number)) cuts.push(found);
    }
  } finally {
    await fh.close();
  }
  cuts.push(size);
  return cuts;
}

function runWorker(job: Job, onLines: (lines: string[]) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: job });
    let done = false;
    w.on('message', (m: { lines: string[]; done?: boolean }) => {
      onLines(m.lines);
      if (m.done) done = true;
    });
    w.on('error', reject);
    w.on('exit', (code) => (done && code === 0 ? resolve() : reject(new Error(`scan worker exited ${code}`))));
  });
}

/**
 * Scans the whole file and calls `sink` for every candidate line in file order. Uses worker threads for large
 * files when more than one core is available; otherwise (or on any worker error) the sequential scanner.
 */
export async function scanFileParallel(file: string, sink: (line: string) => void, opts: { workers?: number; minBytes?: number } = {}): Promise<{ bytes: number; workers: number }> {
  const size = (await stat(file)).size;
  const cores = opts.workers ?? Math.min(8, availableParallelism());
  if (cores < 2 || size < (opts.minBytes ?? PARALLEL_MIN_BYTES)) {
    const r = await scanFile(file, new LineScanner(sink), { final: true });
    return { bytes: r.bytes, workers: 1 };
  }
  const cuts = await lineAlignedCuts(file, size, cores);
  const ranges = cuts.length - 1;
  // Lines are fed in file order as soon as every earlier range is complete; later ranges wait in buffers.
  const pending: string[][][] = Array.from({ length: ranges }, () => []);
  const finished: boolean[] = new Array(ranges).fill(false);
  let next = 0;
  let fedAny = false;
  const drain = () => {
    while (next < ranges) {
      for (const lines of (pending[next] as string[][]).splice(0)) {
        if (lines.length) fedAny = true;
        for (const l of lines) sink(l);
      }
      if (!finished[next]) return;
      next++;
    }
  };
  const workers = cuts.slice(1).map((end, i) =>
    runWorker({ file, start: cuts[i] as number, end, markers: LINE_MARKERS.map(([t, b]) => [t, b] as const) }, (lines) => {
      (pending[i] as string[][]).push(lines);
      if (i === next) drain();
    }).then(() => {
      finished[i] = true;
      if (i === next) drain();
    }),
  );
  try {
    await Promise.all(workers);
  } catch (err) {
    if (process.env.SWEGYM_DEBUG_SCAN) process.stderr.write(`parallel scan failed: ${(err as Error).stack}\n`);
    // A worker failed. Before any line reached the sink, fall back to the sequential scan; after, the caller's
    // model already holds part of the file, so say so (callers build a fresh model per scan).
    if (!fedAny) {
      const r = await scanFile(file, new LineScanner(sink), { final: true });
      return { bytes: r.bytes, workers: 1 };
    }
    throw new Error('a parallel scan worker failed after lines were already ingested');
  }
  drain();
  return { bytes: size, workers: ranges };
}
