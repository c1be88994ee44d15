// The `monitor --once` scan of one segment of a log: marked lines found on the raw bytes (markers.ts), per-sample
// lines reduced to totals on the bytes (sampleBytes.ts) and every other marked line classified by parseLine, the
// one classifier. The result is small (totals, task tallies under integer ids, the non-sample events in order),
// so segments can be scanned by worker threads in any order and applied to the model in file order.
// Used by the scan workers (scanWorker.ts) and, for small files or one core, on the main thread.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { LINE_MARKERS, parseLine, type LogEvent } from './lines.js';
import {
  RECORD,
  R_END,
  R_INSTANCE_END,
  R_INSTANCE_START,
  R_INTEGRITY,
  R_RAW_END,
  R_RAW_START,
  R_REASON_END,
  R_REASON_START,
  R_REWARD_END,
  R_REWARD_START,
  R_RUN,
  R_RUN_INTEGRITY,
  R_RUN_LINES,
  R_RUN_PAIRS,
  R_RUN_RAW_ONE,
  R_RUN_REASONS,
  R_RUN_REWARD_ONE,
  R_SAMPLE,
  R_START,
  R_ESCAPE,
  R_SUMMARY,
  R_TEXTS_HIGH,
  R_TEXTS_LOW,
  markedLineSearch,
  sharedMarkerScan,
  type MarkedLineSearch,
  type MarkerScan,
  type MarkerSearch,
} from './markerScan.js';
import { SAMPLE_MARK, SampleSearch, emptySampleBytes, isOne, readSampleBytes } from './sampleBytes.js';
import { READ_ALIGNMENT, alignedBuffer, alignedStart } from '../util/alignedRead.js';
import { adjacentPairs, strippingJoinsNone } from './escapeJoins.js';
import { MEMORY_USAGE, RAY_EXCEPTIONS, SWE_GYM_FOLLOWERS } from './markerShapes.js';
import type { SampleStats } from './runModel.js';

/**
 * One segment's lines, reduced. `ops` holds records in file order:
 *   a run of sample lines between two other events: OP_SAMPLES, total, reward_one, raw_one, integrity_violations,
 *     has-time, first time, taskFrom, taskTo, reasons n, then n × (reason id, count) in order of first appearance;
 *   any other event: OP_EVENT, has-time, time, repeat (the event itself is the next of `events`).
 * Numbers in a typed array and strings once each: a worker's result crosses to the main thread as a few blocks
 * instead of one object per line (structured cloning of objects cost more than scanning them).
 */
export interface SegmentResult {
  index: number;
  ops: Float64Array;
  events: LogEvent[];
  /** Triples (task id local to the scanner, attempts, solved) per sample line, in order. */
  tasks: Float64Array;
  /** Instance names that got their local id in this segment: local id = firstNewId + position. */
  newNames: string[];
  firstNewId: number;
  /** The same for `reason=` texts. */
  newReasons: string[];
  firstNewReason: number;
  /** Lines that held a marker (decoded or read on the bytes). */
  candidates: number;
}

export const OP_SAMPLES = 0;
export const OP_EVENT = 1;

/**
 * Events whose only effects are on what the `--once --json` document never prints (the failure feed and counts,
 * error streaks, memory, Ray workers, the router, event times): with `documentOnly` the scanner drops them
 * instead of sending them to the main thread, so they cost neither a structured clone nor an apply, and the
 * sample runs around them merge. Nor is the task tally kept (the document has no per-task figures; the text
 * summary's `tasks:` line does). RunModel.toJson and the liveness inputs (phase, launcher exit, step and rollout
 * times) come out the same; tests/monitor/scan.test.ts holds the document to classifying every line.
 */
export const NOT_IN_DOCUMENT: ReadonlySet<LogEvent['kind']> = new Set<LogEvent['kind']>([
  'early_stop',
  'sample_failed',
  'eval_failed',
  'eval_poll_retry',
  'patch_retry',
  'group_retry',
  'group_failed',
  'memory',
  'ray_worker',
  'router',
]);

/**
 * Marker texts whose lines give no event or one of NOT_IN_DOCUMENT's kinds, whatever else the line holds besides
 * other marker texts: each regex of lines.ts that gives a kind the document keeps needs a marker text outside this
 * list. With documentOnly, the WebAssembly search's record names a line's texts, and a line that holds only these is
 * dropped without decoding, unless removing its colour codes could join text into another marker (escapeJoins.ts).
 * tests/monitor/markerScan.test.ts checks the claim on the classifier.
 */
export const DROPPED_MARKERS: readonly string[] = [
  'harvesting blackbox rollout after agent early stop: session_id=',
  'blackbox rollout failed for session_id=',
  'resubmitting rollout group for retry (attempt ',
  'rollout group exhausted retries and will be marked failed:',
  'source patch extraction failed transiently; retrying: session_id=',
  'Starting Ray worker on ',
  'Router launched at ',
];

/** The LINE_MARKERS texts outside DROPPED_MARKERS, as bits by index (the records' R_TEXTS_LOW and R_TEXTS_HIGH). */
function keptMarkerBits(): [low: number, high: number] {
  let low = 0;
  let high = 0;
  LINE_MARKERS.forEach(([text], i) => {
    if (DROPPED_MARKERS.includes(text)) return;
    if (i < 32) low |= 1 << i;
    else high |= 1 << (i - 32);
  });
  return [low | 0, high | 0];
}
const [KEPT_LOW, KEPT_HIGH] = keptMarkerBits();
/**
 * The kept texts, with the literals of their shapes (markerShapes.ts: a shaped text's bit is set only where its shape
 * holds on the bytes), as the classifier's regexes have them.
 */
const KEPT_TEXTS = [
  ...LINE_MARKERS.map(([text]) => text).filter((text) => !DROPPED_MARKERS.includes(text)),
  ...SWE_GYM_FOLLOWERS.map((f) => `SWE-Gym ${f}`),
  MEMORY_USAGE,
  RAY_EXCEPTIONS,
];
/**
 * Their byte pairs, and those of word runs: a line's escapes whose removal joins none of them cannot make one of the
 * texts or shapes (escapeJoins.ts).
 */
const KEPT_PAIRS = adjacentPairs(KEPT_TEXTS, { words: true });
/** `SWE-Gym `'s bit: of the kinds the document keeps, that text leads only to a sample, which needs SAMPLE_MARK. */
const SWE_GYM_BIT = 1 << LINE_MARKERS.findIndex(([text]) => text === 'SWE-Gym ');
/** `: {`'s bit: it leads to a kept kind (summary) only where SUMMARY's shape holds, not for `Memory-Usage` alone. */
const SUMMARY_DICT_BIT = 1 << LINE_MARKERS.findIndex(([text]) => text === ': {');
const SAMPLE_MARK_BYTES = Buffer.from(SAMPLE_MARK);

/**
 * With documentOnly: whether a marked line (record k of r) can be dropped undecoded because it can give no event
 * the document keeps: it holds only DROPPED_MARKERS texts, `: {` only after `Memory-Usage` (a memory line: the
 * summary shape holds at none of its `: {`), or (an evaluator's retry or failure line) `SWE-Gym ` but not as a sample
 * the byte reader took and without SAMPLE_MARK; and removing its escapes joins none of those texts.
 * tests/monitor/markerScan.test.ts holds these claims on the classifier.
 */
export function droppableInDocument(buf: Buffer, s: number, le: number, r: Int32Array, k: number): boolean {
  let low = (r[k + R_TEXTS_LOW] as number) & KEPT_LOW;
  if (r[k + R_SUMMARY] === 0) low &= ~SUMMARY_DICT_BIT;
  if (((r[k + R_TEXTS_HIGH] as number) & KEPT_HIGH) !== 0) return false;
  if (low !== 0 && (low !== SWE_GYM_BIT || r[k + R_SAMPLE] === 1 || buf.subarray(s, le).indexOf(SAMPLE_MARK_BYTES) >= 0)) return false;
  const escape = r[k + R_ESCAPE] as number;
  return escape === -1 || strippingJoinsNone(buf, s, le, escape, KEPT_PAIRS);
}

/** Reads a result's records back, with the scanner's local ids turned into names. */
export function readSegmentOps(
  r: SegmentResult,
  reasonName: (id: number) => string,
  onSamples: (stats: SampleStats, firstTime: number | undefined, taskFrom: number, taskTo: number) => void,
  onEvent: (event: LogEvent, time: number | undefined, repeat: number) => void,
): void {
  const o = r.ops;
  let e = 0;
  for (let i = 0; i < o.length; ) {
    if (o[i] === OP_SAMPLES) {
      const by: Record<string, number> = {};
      const n = o[i + 9] as number;
      for (let k = 0; k < n; k++) {
        const name = reasonName(o[i + 10 + 2 * k] as number);
        by[name] = (by[name] ?? 0) + (o[i + 11 + 2 * k] as number);
      }
      const stats: SampleStats = { total: o[i + 1] as number, reward_one: o[i + 2] as number, raw_one: o[i + 3] as number, integrity_violations: o[i + 4] as number, by_reason: by };
      onSamples(stats, o[i + 5] ? (o[i + 6] as number) : undefined, o[i + 7] as number, o[i + 8] as number);
      i += 10 + 2 * n;
    } else {
      onEvent(r.events[e++] as LogEvent, o[i + 1] ? (o[i + 2] as number) : undefined, o[i + 3] as number);
      i += 4;
    }
  }
}

const WINDOW = 256 * 1024;
const NL = 10;
const MAX_LINE_BYTES = 8 * 1024 * 1024;

export class SegmentScanner {
  /** The WebAssembly search, which reads the per-sample lines too; else findMarkedLines and readSampleBytes. */
  private readonly wasm: MarkerScan | undefined;
  private readonly findMarked: MarkedLineSearch | undefined;
  private readonly starts: number[] = [];
  /** The buffer of the window being scanned (for the record visitor). */
  private buf: Buffer = Buffer.alloc(0);
  private readonly ids = new Map<string, number>();
  /** Open addressing over `names` (id + 1; 0 = empty), keyed by the FNV-1a hash of the name's bytes. */
  private slots = new Int32Array(1 << 12);
  /**
   * Per id in the table: its hash, and its bytes in one pool (offset, length). A probe compares hashes, then bytes
   * with bytes, without reaching for the name strings scattered over the heap (one cache miss each on 39k names).
   */
  private hashes = new Int32Array(1 << 11);
  private offsets = new Int32Array(1 << 11);
  private lengths = new Int32Array(1 << 11);
  private pool = new Uint8Array(1 << 16);
  private poolLen = 0;
  private readonly names: string[] = [];
  private nextId = 0;
  private readonly sb = emptySampleBytes();
  private readonly sampleSearch = new SampleSearch();
  /** Reason texts seen on the byte path, with their bytes, so that the usual few are not decoded each time. */
  private reasons: { bytes: Buffer; id: number }[] = [];

  private readonly reasonIds = new Map<string, number>();
  private nextReason = 0;
  /** The reason ids of the WebAssembly search's reason slots (run records), as they come; and the reasons offered to it. */
  private readonly slotReasons: number[] = [];
  private readonly offeredReasons = new Set<number>();

  // Per segment:
  private ops = new Float64Array(4096);
  private opLen = 0;
  private events: LogEvent[] = [];
  private newReasons: string[] = [];
  /** The run of samples being reduced (none: -1); its reasons in order of first appearance. */
  private run = -1;
  private readonly runReasons: number[] = [];
  private readonly runCounts: number[] = [];
  private tasks = new Float64Array(3 * 4096);
  private taskLen = 0;
  private newNames: string[] = [];
  private candidates = 0;

  /**
   * documentOnly: only what `--once --json` prints is needed (NOT_IN_DOCUMENT events are dropped). markerSearch: `js`
   * uses findMarkedLines instead of the WebAssembly search (the same lines; for comparisons).
   */
  constructor(
    private readonly documentOnly = false,
    markerSearch: MarkerSearch = 'wasm',
  ) {
    this.wasm = markerSearch === 'wasm' ? sharedMarkerScan(LINE_MARKERS) : undefined;
    this.findMarked = this.wasm ? undefined : markedLineSearch(LINE_MARKERS, 'js');
  }

  /** A buffer to read segments into: one the WebAssembly search reads in place, when it is in use. */
  readBuffer(bytes: number): Buffer {
    return this.wasm ? this.wasm.segmentBuffer(bytes) : Buffer.allocUnsafe(bytes);
  }

  /**
   * Scans the lines of buf[from, stop] (from: a line start; stop: the index of the newline that ends the last
   * line, or buf.length when the data ends without one).
   */
  scan(index: number, buf: Buffer, from: number, stop: number): SegmentResult {
    this.opLen = 0;
    this.events = [];
    this.run = -1;
    this.taskLen = 0;
    this.newNames = [];
    this.newReasons = [];
    this.candidates = 0;
    const firstNewId = this.nextId;
    const firstNewReason = this.nextReason;
    let pos = from;
    while (pos <= stop && pos < buf.length) {
      let end = stop;
      if (end - pos > WINDOW) {
        const nl = buf.lastIndexOf(NL, pos + WINDOW);
        end = nl >= pos ? nl : buf.indexOf(NL, pos + WINDOW);
        if (end < 0 || end > stop) end = stop;
      }
      this.window(buf, pos, end);
      pos = end + 1;
    }
    this.closeRun();
    return {
      index,
      ops: this.ops.slice(0, this.opLen),
      events: this.events,
      tasks: this.tasks.slice(0, this.taskLen),
      newNames: this.newNames,
      firstNewId,
      newReasons: this.newReasons,
      firstNewReason,
      candidates: this.candidates,
    };
  }

  private window(buf: Buffer, from: number, end: number): void {
    if (this.wasm) {
      this.buf = buf;
      // Without the task tally (documentOnly) a sample line is only counted: the search counts runs of them.
      this.wasm.lines(buf, from, end, true, this.visitRecords, this.documentOnly ? MAX_LINE_BYTES : 0);
      return;
    }
    const starts = this.starts;
    starts.length = 0;
    (this.findMarked as MarkedLineSearch)(buf, from, end, starts);
    const sb = this.sb;
    const search = this.sampleSearch.reset(buf, end);
    for (const s of starts) {
      let le = buf.indexOf(NL, s);
      if (le < 0 || le > end) le = end;
      // As LineScanner: a line longer than this is not a line we parse (and decoding it would cost a worker's heap).
      if (le - s > MAX_LINE_BYTES) continue;
      this.candidates++;
      // Read on the bytes; sample times are not (--once prints none).
      if (readSampleBytes(buf, s, le, sb, search)) {
        this.sampleOnBytes(buf, sb.rewardOne, sb.rawOne, sb.integrity, sb.instanceStart, sb.instanceEnd, sb.reasonStart, sb.reasonEnd);
        continue;
      }
      this.markedLine(buf, s, le);
    }
  }

  /** The WebAssembly search's records of a window (the same steps as the loop above). */
  private readonly visitRecords = (r: Int32Array, count: number): void => {
    const buf = this.buf;
    for (let k = 0; k < count * RECORD; k += RECORD) {
      if (r[k + R_SAMPLE] === R_RUN) {
        this.sampleRun(r, k);
        continue;
      }
      const s = r[k + R_START] as number;
      const le = r[k + R_END] as number;
      if (le - s > MAX_LINE_BYTES) continue;
      this.candidates++;
      if (this.documentOnly && droppableInDocument(buf, s, le, r, k)) continue;
      if (r[k + R_SAMPLE] === 1) {
        const rewardOne = isOne(buf, r[k + R_REWARD_START] as number, r[k + R_REWARD_END] as number);
        const rawOne = isOne(buf, r[k + R_RAW_START] as number, r[k + R_RAW_END] as number);
        const reasonStart = r[k + R_REASON_START] as number;
        const reasonEnd = r[k + R_REASON_END] as number;
        const reason = this.sampleOnBytes(buf, rewardOne, rawOne, r[k + R_INTEGRITY] === 1, r[k + R_INSTANCE_START] as number, r[k + R_INSTANCE_END] as number, reasonStart, reasonEnd);
        // Its reason into the search's table, so that later lines with it come in runs.
        if (this.documentOnly && !this.offeredReasons.has(reason)) {
          this.offeredReasons.add(reason);
          const slot = (this.wasm as MarkerScan).addReason(buf, reasonStart, reasonEnd);
          if (slot >= 0) this.slotReasons[slot] = reason;
        }
        continue;
      }
      this.markedLine(buf, s, le);
    }
  };

  /** A per-sample line read on its bytes; its reason's id. */
  private sampleOnBytes(buf: Buffer, rewardOne: boolean, rawOne: boolean, integrity: boolean, instanceStart: number, instanceEnd: number, reasonStart: number, reasonEnd: number): number {
    if (this.run < 0) this.openRun(false, 0);
    const reason = this.reasonAt(buf, reasonStart, reasonEnd);
    this.addSample(1, rewardOne, rawOne, integrity, reason);
    if (!this.documentOnly) this.taskBytes(buf, instanceStart, instanceEnd, 1, rewardOne ? 1 : 0);
    return reason;
  }

  /** A run record of the WebAssembly search (R_RUN): as sampleOnBytes for each of its lines, in order. */
  private sampleRun(r: Int32Array, k: number): void {
    const lines = r[k + R_RUN_LINES] as number;
    this.candidates += lines;
    if (this.run < 0) this.openRun(false, 0);
    const o = this.ops;
    const at = this.run;
    o[at + 1] = (o[at + 1] as number) + lines;
    o[at + 2] = (o[at + 2] as number) + (r[k + R_RUN_REWARD_ONE] as number);
    o[at + 3] = (o[at + 3] as number) + (r[k + R_RUN_RAW_ONE] as number);
    o[at + 4] = (o[at + 4] as number) + (r[k + R_RUN_INTEGRITY] as number);
    const pairs = r[k + R_RUN_REASONS] as number;
    for (let p = k + R_RUN_PAIRS; p < k + R_RUN_PAIRS + 2 * pairs; p += 2) {
      const slot = r[p] as number;
      // The table is the thread's, shared by its scanners: a slot another scanner filled gets its id here.
      const reason = this.slotReasons[slot] ?? (this.slotReasons[slot] = this.reasonId((this.wasm as MarkerScan).reasonText(slot)));
      this.countReason(reason, r[p + 1] as number);
    }
  }

  /** Any other marked line: decoded and classified by parseLine. */
  private markedLine(buf: Buffer, s: number, le: number): void {
    const p = parseLine(this.decode(buf, s, le));
    const ev = p.event;
    if (!ev) return;
    if (ev.kind === 'sample') {
      const times = Math.max(1, p.repeat);
      if (this.run < 0) this.openRun(p.time !== undefined, p.time ?? 0);
      // As addSample in runModel.ts.
      this.addSample(times, ev.reward === 1, ev.raw === 1, ev.integrity, this.reasonId(ev.reason));
      if (!this.documentOnly) this.task(ev.instance, times, ev.reward === 1 ? times : 0);
      return;
    }
    if (this.documentOnly && NOT_IN_DOCUMENT.has(ev.kind)) return;
    this.closeRun();
    this.op(OP_EVENT);
    this.op(p.time === undefined ? 0 : 1);
    this.op(p.time ?? 0);
    this.op(p.repeat);
    this.events.push(ev);
  }

  private op(v: number): void {
    if (this.opLen >= this.ops.length) {
      const o = new Float64Array(this.ops.length * 2);
      o.set(this.ops);
      this.ops = o;
    }
    this.ops[this.opLen++] = v;
  }

  private openRun(hasTime: boolean, time: number): void {
    this.run = this.opLen;
    this.op(OP_SAMPLES);
    for (let k = 0; k < 4; k++) this.op(0);
    this.op(hasTime ? 1 : 0);
    this.op(time);
    this.op(this.taskLen);
    this.op(this.taskLen);
    this.op(0);
    this.runReasons.length = 0;
    this.runCounts.length = 0;
  }

  private addSample(times: number, rewardOne: boolean, rawOne: boolean, integrity: boolean, reason: number): void {
    const o = this.ops;
    const r = this.run;
    o[r + 1] = (o[r + 1] as number) + times;
    if (rewardOne) o[r + 2] = (o[r + 2] as number) + times;
    if (rawOne) o[r + 3] = (o[r + 3] as number) + times;
    if (integrity) o[r + 4] = (o[r + 4] as number) + times;
    this.countReason(reason, times);
  }

  /** The open run's count of `reason`, in the order its reasons first came. */
  private countReason(reason: number, times: number): void {
    const rr = this.runReasons;
    let k = 0;
    while (k < rr.length && rr[k] !== reason) k++;
    if (k === rr.length) {
      rr.push(reason);
      this.runCounts.push(times);
    } else this.runCounts[k] = (this.runCounts[k] as number) + times;
  }

  private reasonId(text: string): number {
    let id = this.reasonIds.get(text);
    if (id === undefined) {
      id = this.nextReason++;
      this.reasonIds.set(text, id);
      this.newReasons.push(text);
    }
    return id;
  }

  /**
   * The line as text. Colour codes (complete CSI sequences between ASCII characters) are cut out, which gives
   * exactly what stripAnsi would leave and spares its regex; any other escape is left to stripAnsi. The line is
   * decoded whole and cut as text: every cut is between ASCII characters, and UTF-8 decodes an ASCII byte as
   * itself whatever comes before, so this is the text of the bytes between the cuts (one decoding instead of a
   * view, a search and a decoding per piece).
   */
  private decode(buf: Buffer, s: number, e: number): string {
    const text = buf.toString('utf8', s, e);
    let x = text.indexOf('\u001b');
    if (x < 0) return text;
    const n = text.length;
    let out = '';
    let p = 0;
    while (x >= 0) {
      if (text.charCodeAt(x + 1) !== 91 || (x > 0 && text.charCodeAt(x - 1) >= 128)) return text;
      let j = x + 2;
      let c = text.charCodeAt(j);
      while (j < n && ((c >= 48 && c <= 57) || c === 59 || c === 63)) c = text.charCodeAt(++j);
      while (j < n && c >= 32 && c <= 47) c = text.charCodeAt(++j);
      if (j >= n || c < 64 || c > 126 || (j + 1 < n && text.charCodeAt(j + 1) >= 128)) return text;
      if (x > p) out += text.slice(p, x);
      p = j + 1;
      x = text.indexOf('\u001b', p);
    }
    return p < n ? out + text.slice(p) : out;
  }

  private closeRun(): void {
    if (this.run < 0) return;
    const r = this.run;
    this.ops[r + 8] = this.taskLen;
    this.ops[r + 9] = this.runReasons.length;
    for (let k = 0; k < this.runReasons.length; k++) {
      this.op(this.runReasons[k] as number);
      this.op(this.runCounts[k] as number);
    }
    this.run = -1;
  }

  /** The id of the reason text buf[s, e) (printable ASCII); the usual few are matched on their bytes. */
  private reasonAt(buf: Buffer, s: number, e: number): number {
    const n = e - s;
    for (const r of this.reasons) {
      if (r.bytes.length !== n) continue;
      let k = 0;
      while (k < n && buf[s + k] === r.bytes[k]) k++;
      if (k === n) return r.id;
    }
    const id = this.reasonId(buf.toString('latin1', s, e));
    // A log whose reasons are free text would make this list long: keep the usual few only.
    if (this.reasons.length < 32) this.reasons.push({ bytes: Buffer.from(buf.subarray(s, e)), id });
    return id;
  }

  /** A task named by printable ASCII bytes: interned by a hash of its bytes, no string unless it is new. */
  private taskBytes(buf: Buffer, s: number, e: number, attempts: number, solved: number): void {
    let h = 0x811c9dc5;
    for (let k = s; k < e; k++) h = Math.imul(h ^ (buf[k] as number), 16777619);
    const n = e - s;
    const mask = this.slots.length - 1;
    const pool = this.pool;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const id = (this.slots[slot] as number) - 1;
      if (id < 0) break;
      if (this.hashes[id] !== h || this.lengths[id] !== n) continue;
      const o = this.offsets[id] as number;
      let k = 0;
      while (k < n && pool[o + k] === buf[s + k]) k++;
      if (k === n) return this.tally(id, attempts, solved);
    }
    this.task(buf.toString('latin1', s, e), attempts, solved);
  }

  private hashSlot(name: string): number {
    let h = 0x811c9dc5;
    for (let k = 0; k < name.length; k++) h = Math.imul(h ^ (name.charCodeAt(k) & 0xff), 16777619);
    return h;
  }

  private task(name: string, attempts: number, solved: number): void {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(name, id);
      this.newNames.push(name);
      this.names.push(name);
      // Only ASCII names go in the byte table (the byte path reads printable ASCII only).
      if (/^[\x21-\x7e]*$/.test(name)) {
        if (this.nextId * 2 > this.slots.length) this.rehash();
        this.remember(name, id);
        this.place(id);
      }
    }
    this.tally(id, attempts, solved);
  }

  /** The hash and bytes of a name in the table. */
  private remember(name: string, id: number): void {
    if (id >= this.hashes.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.hashes = grow(this.hashes);
      this.offsets = grow(this.offsets);
      this.lengths = grow(this.lengths);
    }
    if (this.poolLen + name.length > this.pool.length) {
      const p = new Uint8Array(Math.max(this.pool.length * 2, this.poolLen + name.length));
      p.set(this.pool.subarray(0, this.poolLen));
      this.pool = p;
    }
    this.hashes[id] = this.hashSlot(name);
    this.offsets[id] = this.poolLen;
    this.lengths[id] = name.length;
    for (let k = 0; k < name.length; k++) this.pool[this.poolLen++] = name.charCodeAt(k);
  }

  private place(id: number): void {
    const mask = this.slots.length - 1;
    let slot = (this.hashes[id] as number) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = id + 1;
  }

  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (let k = 0; k < old.length; k++) if ((old[k] as number) > 0) this.place((old[k] as number) - 1);
  }

  private tally(id: number, attempts: number, solved: number): void {
    if (this.taskLen + 3 > this.tasks.length) {
      const t = new Float64Array(this.tasks.length * 2);
      t.set(this.tasks);
      this.tasks = t;
    }
    this.tasks[this.taskLen++] = id;
    this.tasks[this.taskLen++] = attempts;
    this.tasks[this.taskLen++] = solved;
  }
}

/** A segment's bytes: the lines that start in [start, end) of the file, whole. */
export interface SegmentBytes {
  buf: Buffer;
  from: number;
  stop: number;
}

/**
 * Reads the lines that start in [start, end) of an open file of `size` bytes (a line belongs to the segment where
 * it starts; the last one is read to its newline, or to the end of the file). `buf` is reused when large enough.
 */
export function readSegment(fd: number, start: number, end: number, size: number, into: Buffer, read: ReadAt = readFully): SegmentBytes {
  let buf: Buffer = into;
  // From the byte before `start` (a newline there means a line starts at `start`), or the aligned position before
  // it: `into` is aligned (alignedRead.ts), and so the copy is.
  const base = start > 0 ? alignedStart(start - 1) : 0;
  let want = Math.min(size, end + 64 * 1024) - base;
  if (buf.length < want) buf = alignedBuffer(want);
  let len = read(fd, buf, 0, want, base);
  let from = 0;
  if (start > 0) {
    const nl = buf.subarray(0, Math.min(len, end - base)).indexOf(NL, start - 1 - base);
    if (nl < 0) return { buf, from: 0, stop: -1 }; // no line starts in this segment
    from = nl + 1;
  }
  if (from >= end - base) return { buf, from: 0, stop: -1 };
  // The newline that ends the line holding byte end-1.
  let stop = buf.subarray(0, len).indexOf(NL, end - 1 - base);
  while (stop < 0 && base + len < size) {
    want = Math.min(size - base, len * 2);
    const grown = alignedBuffer(want);
    buf.copy(grown, 0, 0, len);
    buf = grown;
    const at = len;
    len += read(fd, buf, len, want - len, base + len);
    stop = buf.subarray(0, len).indexOf(NL, at);
  }
  if (stop < 0) stop = len; // the file ends without a newline: the last line is complete
  return { buf: buf.subarray(0, Math.max(len, stop)), from, stop };
}

/** Reads up to `n` bytes at file position `pos` into buf[off…]; returns how many (fewer only at the end of the file). */
export type ReadAt = (fd: number, buf: Buffer, off: number, n: number, pos: number) => number;

function readFully(fd: number, buf: Buffer, off: number, n: number, pos: number): number {
  let got = 0;
  while (got < n) {
    const r = readSync(fd, buf, off + got, n - got, pos + got);
    if (r <= 0) break;
    got += r;
  }
  return got;
}

/** One scanner reading the segments of one file (a scan worker's, or the main thread's). */
export class SegmentReader {
  private readonly fd: number;
  private readonly size: number;
  private readonly scanner: SegmentScanner;
  private readonly bytes: number;
  private buf: Buffer;

  constructor(private readonly opts: { file: string; segmentBytes: number; documentOnly: boolean; markerSearch: MarkerSearch }) {
    this.fd = openSync(opts.file, 'r');
    this.size = fstatSync(this.fd).size;
    this.scanner = new SegmentScanner(opts.documentOnly, opts.markerSearch);
    // A segment, the 64 KiB read past it, and the bytes before it back to an aligned position (readSegment).
    this.bytes = Math.min(this.size, opts.segmentBytes) + 64 * 1024 + READ_ALIGNMENT;
    this.buf = this.scanner.readBuffer(this.bytes);
  }

  get fileSize(): number {
    return this.size;
  }

  /** Segment `index`: the lines that start in its bytes of the file. */
  scan(index: number): SegmentResult {
    const start = index * this.opts.segmentBytes;
    if (this.buf.byteLength === 0) this.buf = this.scanner.readBuffer(this.bytes); // the search's memory grew
    const seg = readSegment(this.fd, start, Math.min(this.size, start + this.opts.segmentBytes), this.size, this.buf);
    if (seg.buf.length > this.buf.length) this.buf = seg.buf;
    return seg.stop < 0 ? this.scanner.scan(index, seg.buf, 0, -1) : this.scanner.scan(index, seg.buf, seg.from, seg.stop);
  }

  private closed = false;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** Scans a whole file on this thread, segment by segment (small files, one core, or the workers' fallback). */
export function scanFileSegments(file: string, segmentBytes: number, onResult: (r: SegmentResult) => void, documentOnly = false, markerSearch: MarkerSearch = 'wasm'): number {
  const reader = new SegmentReader({ file, segmentBytes, documentOnly, markerSearch });
  try {
    const size = reader.fileSize;
    for (let index = 0; index * segmentBytes < size; index++) onResult(reader.scan(index));
    return size;
  } finally {
    reader.close();
  }
}
