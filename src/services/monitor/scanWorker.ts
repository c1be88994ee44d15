// A `monitor --once` scan worker thread: scans the segments the main thread hands it (one at a time, so the main
// thread's credit decides how far ahead of the model the workers may read) and posts each result back.
// Bundled as its own entry (dist/monitor-scan-worker.mjs, scripts/build.mjs); run from the sources under tsx.
import { parentPort, workerData } from 'node:worker_threads';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { SegmentScanner, readSegment } from './segmentScan.js';
import type { MarkerSearch } from './markerScan.js';

export interface ScanWorkerData {
  file: string;
  segmentBytes: number;
  /** Only what `--once --json` prints (SegmentScanner). */
  documentOnly: boolean;
  markerSearch: MarkerSearch;
}

export type ScanWorkerRequest = { segment: number } | { stop: true };

if (parentPort) {
  const port = parentPort;
  const { file, segmentBytes, documentOnly, markerSearch } = workerData as ScanWorkerData;
  const fd = openSync(file, 'r');
  const size = fstatSync(fd).size;
  const scanner = new SegmentScanner(documentOnly, markerSearch);
  const bytes = Math.min(size, segmentBytes) + 64 * 1024 + 1;
  let buf = scanner.readBuffer(bytes);
  port.on('message', (m: ScanWorkerRequest) => {
    if ('stop' in m) {
      closeSync(fd);
      port.close();
      return;
    }
    const start = m.segment * segmentBytes;
    if (buf.byteLength === 0) buf = scanner.readBuffer(bytes); // the search's memory grew
    const seg = readSegment(fd, start, Math.min(size, start + segmentBytes), size, buf);
    if (seg.buf.length > buf.length) buf = seg.buf;
    const r = scanner.scan(m.segment, seg.buf, seg.stop < 0 ? 0 : seg.from, seg.stop);
    port.postMessage(r, [r.tasks.buffer as ArrayBuffer]);
  });
}
