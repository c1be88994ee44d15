// A `monitor --once` scan worker thread: scans the segments the main thread hands it (one at a time, so the main
// thread's credit decides how far ahead of the model the workers may read) and posts each result back.
// Bundled as its own entry (dist/monitor-scan-worker.mjs, scripts/build.mjs); run from the sources under tsx.
import { parentPort, workerData } from 'node:worker_threads';
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

if (parentPort) {
  const port = parentPort;
  const reader = new SegmentReader(workerData as ScanWorkerData);
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
