// `monitor --once` ingestion: the log is cut into fixed segments that worker threads scan (segmentScan.ts) while
// the main thread applies the results to the model in file order. The main thread hands a worker its next segment
// only while fewer than `ahead` results wait to be applied (credit), so memory stays bounded by a few segments
// whatever the size of the log, and the work is one pass over the bytes. One core, a small file, or a worker that
// fails: the same segment scan on the main thread.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { stat } from 'node:fs/promises';
import { RunModel } from './model.js';
import { TaskTally } from './taskTally.js';
import { readSegmentOps, scanFileSegments, type SegmentResult } from './segmentScan.js';
import type { ScanWorkerData, ScanWorkerRequest } from './scanWorker.js';

/** Files smaller than this are scanned on the main thread (starting workers costs more). */
export const PARALLEL_MIN_BYTES = 48 * 1024 * 1024;
export const SEGMENT_BYTES = 2 * 1024 * 1024;
const WORKER_LIMITS = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 };

export interface OnceIngestOptions {
  name?: string;
  workers?: number;
  minBytes?: number;
  segmentBytes?: number;
  /** Results that may wait for the model, per worker. */
  aheadPerWorker?: number;
  /**
   * The model is only read for the `--once --json` document (RunModel.toJson and the liveness inputs): events that
   * touch nothing else there are dropped in the scanners. The failure feed, memory and the like stay empty.
   */
  documentOnly?: boolean;
}

export interface OnceIngestResult {
  model: RunModel;
  bytes: number;
  workers: number;
  segments: number;
}

/** The worker's module: beside this one in the sources; the bundle's own entry in dist/. */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('./scanWorker.ts', here);
  return new URL(/\/chunks\/[^/]*$/.test(here) ? '../monitor-scan-worker.mjs' : './monitor-scan-worker.mjs', here);
}

/** Applies segment results to one model, in file order; each scanner's local ids map to names and tally ids. */
export class SegmentApplier {
  readonly tally = new TaskTally();
  readonly model: RunModel;
  private readonly sources = new Map<number, { taskIds: number[]; reasons: string[] }>();
  applied = 0;
  private settleQueued = false;

  /** documentText: the model keeps its document's metrics as text as they settle (toJsonText). */
  constructor(name: string | undefined, documentText = false) {
    this.model = new RunModel({ name, taskTally: this.tally, documentText });
  }

  apply(source: number, r: SegmentResult): void {
    let src = this.sources.get(source);
    if (!src) this.sources.set(source, (src = { taskIds: [], reasons: [] }));
    const { taskIds, reasons } = src;
    r.newNames.forEach((n, i) => (taskIds[r.firstNewId + i] = this.tally.id(n)));
    r.newReasons.forEach((n, i) => (reasons[r.firstNewReason + i] = n));
    const t = r.tasks;
    const model = this.model;
    const tally = this.tally;
    readSegmentOps(
      r,
      (id) => reasons[id] as string,
      (stats, firstTime, from, to) => {
        for (let k = from; k < to; k += 3) tally.add(taskIds[t[k] as number] as number, t[k + 1] as number, t[k + 2] as number);
        model.applySamples(stats, firstTime);
      },
      (event, time, repeat) => {
        model.lines++;
        model.apply(event, time, repeat);
      },
    );
    this.applied++;
    // After the caller has handed out the next segments: this thread waits for the workers meanwhile.
    if (!this.settleQueued) {
      this.settleQueued = true;
      setImmediate(() => {
        this.settleQueued = false;
        this.model.settleDocumentText();
      });
    }
  }
}

/** Reads a whole log into a new model for `monitor --once`. */
export async function ingestOnceFile(file: string, opts: OnceIngestOptions = {}): Promise<OnceIngestResult> {
  const size = (await stat(file)).size;
  const segmentBytes = opts.segmentBytes ?? SEGMENT_BYTES;
  const segments = Math.ceil(size / segmentBytes);
  const cores = Math.min(opts.workers ?? Math.min(4, availableParallelism()), Math.max(1, segments));
  const sequential = () => {
    const a = new SegmentApplier(opts.name, opts.documentOnly);
    scanFileSegments(file, segmentBytes, (r) => a.apply(0, r), opts.documentOnly ?? false);
    return { model: a.model, bytes: size, workers: 1, segments };
  };
  if (cores < 2 || size < (opts.minBytes ?? PARALLEL_MIN_BYTES)) return sequential();
  const applier = new SegmentApplier(opts.name, opts.documentOnly);
  try {
    await runWorkers(file, segments, cores, segmentBytes, opts.aheadPerWorker ?? 2, applier, opts.documentOnly ?? false);
  } catch (err) {
    if (process.env.SWEGYM_DEBUG_SCAN) process.stderr.write(`parallel scan failed: ${(err as Error).stack}\n`);
    // The whole file again on this thread, into a fresh model (the first one may hold part of the file).
    return sequential();
  }
  return { model: applier.model, bytes: size, workers: cores, segments };
}

function runWorkers(file: string, segments: number, cores: number, segmentBytes: number, aheadPerWorker: number, applier: SegmentApplier, documentOnly: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const ahead = Math.max(cores, aheadPerWorker * cores);
    const waiting = new Map<number, { source: number; result: SegmentResult }>();
    const workers: Worker[] = [];
    const idle: number[] = [];
    let nextSegment = 0;
    let nextApply = 0;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      for (const w of workers) void w.terminate();
      reject(err);
    };
    const dispatch = () => {
      // Credit: a segment is handed out only while the results ahead of the model stay under `ahead`.
      while (idle.length && nextSegment < segments && nextSegment - nextApply < ahead) {
        const w = idle.shift() as number;
        (workers[w] as Worker).postMessage({ segment: nextSegment++ } satisfies ScanWorkerRequest);
      }
    };
    const data: ScanWorkerData = { file, segmentBytes, documentOnly };
    for (let i = 0; i < cores; i++) {
      // A worker's heap holds one segment's events at a time; left to V8's defaults each of them grew to ≈ 150 MB
      // on a 4 GB log (collected lazily). A line too long for these limits ends the worker: scanned again below.
      const w = new Worker(workerUrl(), { workerData: data, resourceLimits: WORKER_LIMITS });
      workers.push(w);
      idle.push(i);
      w.on('message', (r: SegmentResult) => {
        if (failed) return;
        waiting.set(r.index, { source: i, result: r });
        idle.push(i);
        try {
          for (let got = waiting.get(nextApply); got; got = waiting.get(nextApply)) {
            waiting.delete(nextApply);
            applier.apply(got.source, got.result);
            nextApply++;
          }
        } catch (err) {
          fail(err);
          return;
        }
        if (nextApply === segments) {
          for (const x of workers) x.postMessage({ stop: true } satisfies ScanWorkerRequest);
          resolve();
          return;
        }
        dispatch();
      });
      w.on('error', fail);
      w.on('exit', (code) => {
        if (nextApply < segments) fail(new Error(`scan worker exited ${code} before the scan ended`));
      });
    }
    dispatch();
  });
}
