// A `monitor --once` scan worker thread: scans the segments the main thread hands it (one at a time, so the main
// thread's credit decides how far ahead of the model the workers may read) and posts each result back.
// Bundled as its own entry (dist/monitor-scan-worker.mjs, scripts/build.mjs); run from the sources under tsx.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { SegmentReader } from './segmentScan.js';
import type { MarkerSearch } from './markerScan.js';

export interface ScanWorkerData {
  file: string;
  segmentBytes: number;
  /** Only what `--once --json` prints (SegmentScanner). */
  documentOnly: boolean;
  markerSearch: MarkerSearch;
}

export type ScanWorkerRequest = { segment: number } | { stop: true };
/** The worker's first message: started and ready for segments. */
export type ScanWorkerReady = { ready: true };
/**
 * A worker started before its file is known (bin/swegym-console starts one for `monitor … --once` before the bundle
 * loads: parallel.ts adoptPrestartedWorker) waits for this message, then reads as one given its data at start.
 */
export type ScanWorkerOpen = { open: ScanWorkerData };
export type ScanWorkerStart = ScanWorkerData | { deferred: true };

if (parentPort) {
  const port = parentPort;
  const start = workerData as ScanWorkerStart;
  if ('deferred' in start) port.once('message', (m: ScanWorkerOpen) => serve(port, m.open));
  else serve(port, start);
}

function serve(port: MessagePort, data: ScanWorkerData): void {
  const reader = new SegmentReader(data);
  port.on('message', (m: ScanWorkerRequest) => {
    if ('stop' in m) {
      reader.close();
      port.close();
      return;
    }
    const r = reader.scan(m.segment);
    port.postMessage(r, [r.tasks.buffer as ArrayBuffer]);
  });
  port.postMessage({ ready: true } satisfies ScanWorkerReady);
}
