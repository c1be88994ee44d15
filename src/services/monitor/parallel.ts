// `monitor --once` ingestion: the log is cut into fixed segments that the main thread and worker threads scan
// (segmentScan.ts), while the main thread applies the results to the model in file order. A segment is handed out
// only while fewer than `ahead` results wait to be applied (credit), so memory stays bounded by a few segments
// whatever the size of the log, and the work is one pass over the bytes. One core, a small file, or a worker that
// fails: the same segment scan on the main thread alone.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { stat } from 'node:fs/promises';
import { RunModel } from './runModel.js';
import { TaskTally } from './taskTally.js';
import { SegmentReader, readSegmentOps, scanFileSegments, type SegmentResult } from './segmentScan.js';
import type { ScanWorkerData, ScanWorkerOpen, ScanWorkerReady, ScanWorkerRequest } from './scanWorker.js';
import { markerSearchUsed, type MarkerSearch } from './markerScan.js';
import { setting } from '../config/envSettings.js';

/** Files smaller than this are scanned on the main thread (starting workers costs more). */
export const PARALLEL_MIN_BYTES = 48 * 1024 * 1024;
export const SEGMENT_BYTES = 2 * 1024 * 1024;
/** bin/swegym-console gives a scan worker it starts the same limits (tests/monitor/parallel.test.ts compares them). */
export const WORKER_LIMITS = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 };
/** Where bin/swegym-console leaves the scan worker it started for `monitor … --once`, until it is adopted. */
export const PRESTARTED_WORKER = Symbol.for('swegym-console.scanWorker');
/** Segments a worker may hold at once (its current one and the next). */
const WORKER_QUEUE = 2;

export interface OnceIngestOptions {
  name?: string;
  /** Threads that scan: the main thread and workers - 1 worker threads (1: the main thread alone). */
  workers?: number;
  minBytes?: number;
  segmentBytes?: number;
  /** Results that may wait for the model, per scanning thread. */
  aheadPerWorker?: number;
  /**
   * The model is only read for the `--once --json` document (RunModel.toJson and the liveness inputs): events that
   * touch nothing else there are dropped in the scanners. The failure feed, memory and the like stay empty.
   */
  documentOnly?: boolean;
  /** `js`: findMarkedLines instead of the WebAssembly marker search (the same lines; for comparisons). */
  markerSearch?: MarkerSearch;
  /** false: the main thread only applies, and `workers` worker threads scan (true by default). */
  mainScans?: boolean;
}

export interface OnceIngestResult {
  model: RunModel;
  bytes: number;
  /** Threads that scanned (the main thread included). */
  workers: number;
  segments: number;
  /** The marker search the scanners used (`wasm` unless asked otherwise or unavailable). */
  markerSearch: MarkerSearch;
  /** Segments that worker threads scanned (the rest the main thread did). */
  segmentsByWorkers: number;
  /** Whether one of them was the worker bin/swegym-console had started (adoptPrestartedWorker). */
  adoptedPrestarted: boolean;
}

/** The worker's module: beside this one in the sources; the bundle's own entry in dist/. */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('./scanWorker.ts', here);
  return new URL(/\/chunks\/[^/]*$/.test(here) ? '../monitor-scan-worker.mjs' : './monitor-scan-worker.mjs', here);
}

/**
 * The scan worker bin/swegym-console started before the bundle loaded, if it is still there (it clears it when the
 * worker exits), handed this scan's data: Node's bootstrap of a worker thread is ≈ 30–100 ms from its creation to its
 * first segment, and a worker created here would start that only after the command's modules and the file's
 * resolution. Taken once; a worker nobody adopts stays unreferenced and idle until the process exits.
 */
export function adoptPrestartedWorker(data: ScanWorkerData): Worker | undefined {
  const slot = globalThis as { [PRESTARTED_WORKER]?: Worker };
  const w = slot[PRESTARTED_WORKER];
  if (!w) return undefined;
  slot[PRESTARTED_WORKER] = undefined;
  w.ref();
  w.postMessage({ open: data } satisfies ScanWorkerOpen);
  return w;
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
    scanFileSegments(file, segmentBytes, (r) => a.apply(0, r), opts.documentOnly ?? false, opts.markerSearch ?? 'wasm');
    return { model: a.model, bytes: size, workers: 1, segments, markerSearch: markerSearchUsed(opts.markerSearch), segmentsByWorkers: 0, adoptedPrestarted: false };
  };
  if (cores < 2 || size < (opts.minBytes ?? PARALLEL_MIN_BYTES)) return sequential();
  const applier = new SegmentApplier(opts.name, opts.documentOnly);
  let byWorkers: WorkersScanned = { segments: 0, adoptedPrestarted: false };
  try {
    const data: ScanWorkerData = { file, segmentBytes, documentOnly: opts.documentOnly ?? false, markerSearch: opts.markerSearch ?? 'wasm' };
    // `cores` scanning threads: the main thread and cores - 1 workers (a worker costs ≈ 0.1 s of CPU to start,
    // during which the main thread scans instead of waiting), or `cores` workers.
    const mainScans = opts.mainScans ?? true;
    byWorkers = await runWorkers(data, segments, mainScans ? cores - 1 : cores, mainScans, opts.aheadPerWorker ?? 2, applier);
  } catch (err) {
    if (setting(process.env, 'SWEGYM_DEBUG_SCAN')) process.stderr.write(`parallel scan failed: ${(err as Error).stack}\n`);
    // The whole file again on this thread, into a fresh model (the first one may hold part of the file).
    return sequential();
  }
  return { model: applier.model, bytes: size, workers: cores, segments, markerSearch: markerSearchUsed(opts.markerSearch), segmentsByWorkers: byWorkers.segments, adoptedPrestarted: byWorkers.adoptedPrestarted };
}

/**
 * Scans the segments with `workerCount` worker threads and, when `mainScans`, the main thread too: it scans from
 * the first segment while the workers start (≈ 0.1 s of CPU each before they can scan), then between their
 * results. Workers take segments once they say they are ready. Resolves with how many segments the workers scanned,
 * and whether one of them was the entry's (adoptPrestartedWorker).
 */
interface WorkersScanned {
  segments: number;
  adoptedPrestarted: boolean;
}

function runWorkers(data: ScanWorkerData, segments: number, workerCount: number, mainScans: boolean, aheadPerWorker: number, applier: SegmentApplier): Promise<WorkersScanned> {
  return new Promise((resolve, reject) => {
    let byWorkers = 0;
    let adoptedPrestarted = false;
    const scanners = workerCount + (mainScans ? 1 : 0);
    const ahead = Math.max(scanners, aheadPerWorker * scanners);
    const waiting = new Map<number, { source: number; result: SegmentResult }>();
    const workers: Worker[] = [];
    /** Segments handed to each worker and not yet returned (none until it is ready). */
    const queued: number[] = [];
    let nextSegment = 0;
    let nextApply = 0;
    let failed = false;
    let done = false;
    const fail = (err: unknown) => {
      // A worker still starting when the others had finished may fail on its own (the file gone): no matter then.
      if (failed || done) return;
      failed = true;
      main?.close();
      for (const w of workers) void w.terminate();
      reject(err);
    };
    /** Applies the results waiting, in file order, as far as they go. */
    const applyReady = () => {
      for (let got = waiting.get(nextApply); got; got = waiting.get(nextApply)) {
        waiting.delete(nextApply);
        applier.apply(got.source, got.result);
        nextApply++;
      }
      if (nextApply === segments) {
        done = true;
        main?.close();
        for (const x of workers) x.postMessage({ stop: true } satisfies ScanWorkerRequest);
        resolve({ segments: byWorkers, adoptedPrestarted });
      }
    };
    // Credit: a segment is handed out only while the results ahead of the model stay under `ahead`.
    const credit = () => nextSegment < segments && nextSegment - nextApply < ahead;
    let mainQueued = false;
    const dispatch = () => {
      // Each worker holds up to WORKER_QUEUE segments, so that it has the next one while the main thread, busy
      // scanning or applying, has not yet read its last result (one at a time, the worker idled for ≈ a quarter of
      // the dense benchmark's read).
      for (let depth = 1; depth <= WORKER_QUEUE; depth++) {
        for (let w = 0; w < workers.length && credit(); w++) {
          if ((queued[w] ?? -1) < 0 || (queued[w] as number) >= depth) continue;
          queued[w] = (queued[w] as number) + 1;
          (workers[w] as Worker).postMessage({ segment: nextSegment++ } satisfies ScanWorkerRequest);
        }
      }
      if (main && !mainQueued && credit()) {
        mainQueued = true;
        // After the messages already waiting (the workers' results), so that they are applied in between.
        setImmediate(mainStep);
      }
    };
    const main = mainScans ? new SegmentReader(data) : undefined;
    const mainStep = () => {
      mainQueued = false;
      if (failed || done || !main || !credit()) return;
      try {
        const r = main.scan(nextSegment++);
        waiting.set(r.index, { source: workerCount, result: r });
        applyReady();
      } catch (err) {
        fail(err);
        return;
      }
      if (!done) dispatch();
    };
    for (let i = 0; i < workerCount; i++) {
      // A worker's heap holds one segment's events at a time; left to V8's defaults each of them grew to ≈ 150 MB
      // on a 4 GB log (collected lazily). A line too long for these limits ends the worker: scanned again below.
      const prestarted = i === 0 ? adoptPrestartedWorker(data) : undefined;
      if (prestarted) adoptedPrestarted = true;
      const w = prestarted ?? new Worker(workerUrl(), { workerData: data, resourceLimits: WORKER_LIMITS });
      workers.push(w);
      queued.push(-1);
      w.on('message', (m: SegmentResult | ScanWorkerReady) => {
        if (failed || done) return;
        if ('ready' in m) {
          queued[i] = 0;
          dispatch();
          return;
        }
        queued[i] = (queued[i] as number) - 1;
        byWorkers++;
        // The worker's next segment first (the credit counts this result as waiting), then the apply.
        waiting.set(m.index, { source: i, result: m });
        dispatch();
        try {
          applyReady();
        } catch (err) {
          fail(err);
          return;
        }
        if (!done) dispatch();
      });
      w.on('error', fail);
      w.on('exit', (code) => {
        if (!done) fail(new Error(`scan worker exited ${code} before the scan ended`));
      });
    }
    dispatch();
  });
}
