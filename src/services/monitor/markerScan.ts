// The marker search of the log scan in WebAssembly (wasm/markerScan.ts, compiled into src/generated/): one SIMD
// pass over a window finds the lines that hold a marker text, where findMarkedLines (markers.ts) makes one native
// indexOf pass per needle and checks each hit in JavaScript. Same contract and same answers as findMarkedLines
// (tests/monitor/markerScan.test.ts holds the two together); findMarkedLines stays the fallback where WebAssembly's
// SIMD is missing.
import { MARKER_SCAN_WASM } from '../../generated/markerScanWasm.js';
import { MARKER_FINGERPRINTS } from './markerFingerprints.js';
import { compileMarkers, findMarkedLines } from './markers.js';
import { REPEATED_FOLD, SAMPLE_FIELDS, SAMPLE_MARK } from './sampleBytes.js';
import { MEMORY_USAGE, RAY_EXCEPTIONS, SWE_GYM_FOLLOWERS, shapeOf } from './markerShapes.js';

const PAGE = 65536;
/**
 * Memory layout (wasm/markerScan.ts describes the tables): page 0 is the module's own; then a page of tables, the
 * marker texts and the per-sample reader's literals; the records found; the window's bytes.
 */
const TABLES = PAGE;
const TEXTS = TABLES + 256;
const LITERALS = TABLES + PAGE / 2;
const OUT = 2 * PAGE;
/** i32s per record: line start, line end, then the per-sample fields (R_*). */
export const RECORD = 20;
const OUT_CAPACITY = Math.floor((8 * PAGE) / (4 * RECORD));
const DATA = OUT + 8 * PAGE;
/** Bytes past the end of a window that `find` may read (its 4 loads of 16 bytes); it reads 16 before it too. */
const SLACK = 64;
const FINGERPRINT = 4;
const BUCKETS = 8;

/*
 * A record's fields (offsets are into the caller's buffer): the line's start and end (its newline, or the window's
 * end); then, when per-sample lines were asked for, R_SAMPLE = 1 if the line certainly is one (readSampleBytes's
 * answer; else 0 and nothing more), and its fields: the reward's and raw's ranges, integrity's truth (1 for
 * `True`), the instance's range and the trimmed reason's; then, always, the marker texts in the line and its first
 * escape byte; then the sample's f2p and p2p ranges; then whether a `: {` has SUMMARY's shape.
 */
export const R_START = 0;
export const R_END = 1;
export const R_SAMPLE = 2;
export const R_REWARD_START = 3;
export const R_REWARD_END = 4;
export const R_RAW_START = 5;
export const R_RAW_END = 6;
export const R_INTEGRITY = 7;
export const R_INSTANCE_START = 8;
export const R_INSTANCE_END = 9;
export const R_REASON_START = 10;
export const R_REASON_END = 11;
/** The marker texts the line holds, as bits by their index in the marker list (0–31, 32–63). */
export const R_TEXTS_LOW = 12;
export const R_TEXTS_HIGH = 13;
/** The offset of the line's first escape byte, or -1. */
export const R_ESCAPE = 14;
/** A per-sample line's f2p and p2p ranges. */
export const R_F2P_START = 15;
export const R_F2P_END = 16;
export const R_P2P_START = 17;
export const R_P2P_END = 18;
/**
 * 1 when a `: {` of the line has SUMMARY's shape (markerShapes.ts summaryShapeHolds), 0 when each one it holds
 * counts only for the `Memory-Usage` before it (or it holds none): such a line gives a memory event or none.
 */
export const R_SUMMARY = 19;

/**
 * With a run limit (`lines`), R_SAMPLE = R_RUN marks a record of consecutive per-sample lines (R_START: the first
 * one's start, R_END: the last one's end): their count, the counts of reward 1, raw 1 and integrity `True`, and
 * RUN_REASONS (reason slot, lines) pairs in order of first appearance (MarkerScan.reasonText names a slot). A run
 * takes the lines whose numbers are `0`, `1`, `0.0` or `1.0` and whose reason is in the table (addReason); any other
 * per-sample line gets its own record and ends the run.
 */
export const R_RUN = 2;
export const R_RUN_LINES = 3;
export const R_RUN_REWARD_ONE = 4;
export const R_RUN_RAW_ONE = 5;
export const R_RUN_INTEGRITY = 6;
export const R_RUN_REASONS = 7;
/** The first (slot, lines) pair. */
export const R_RUN_PAIRS = 8;
/** Reasons the table holds, and their greatest length (wasm/markerScan.ts REASON_MAX). */
const REASON_SLOTS = 32;
const REASON_MAX = 48;
const REASON_COUNT = LITERALS + 960;
const REASON_TABLE = LITERALS + 1024;

interface MarkerScanExports {
  configure(tables: number, texts: number, literals: number, out: number, capacity: number): void;
  find(base: number, from: number, end: number, samples: number, runLimit: number): number;
  resume(): number;
  candidates(): number;
}

/** The part of the WebAssembly API used here (the project's type libraries, without the DOM's, do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: unknown };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** The compiled module, or null where this runtime lacks WebAssembly SIMD (relaxed SIMD included). */
function wasmModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(Buffer.from(MARKER_SCAN_WASM, 'base64')) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** Where a text's fingerprint starts, when the table has none for it: its least common 4 bytes by a rough guess. */
function guessFingerprint(bytes: Uint8Array): number {
  const weight = (c: number) => (c === 32 ? 8 : c >= 97 && c <= 122 ? 3 : c >= 48 && c <= 57 ? 3 : c >= 65 && c <= 90 ? 0.5 : 1);
  let best = 0;
  let bestScore = Infinity;
  for (let at = 0; at + FINGERPRINT <= bytes.length; at++) {
    let score = 1;
    for (let j = 0; j < FINGERPRINT; j++) score *= weight(bytes[at + j] as number);
    if (score < bestScore) [best, bestScore] = [at, score];
  }
  return best;
}

export class MarkerScan {
  private u8: Uint8Array;
  private view: DataView;
  /** The reason table's texts, by slot, and their slots. */
  private readonly reasons: string[] = [];
  private readonly reasonSlots = new Map<string, number>();

  private constructor(
    private readonly memory: WasmMemory,
    private readonly exports: MarkerScanExports,
  ) {
    this.u8 = new Uint8Array(memory.buffer);
    this.view = new DataView(memory.buffer);
  }

  /** A scanner for these marker texts (lines.ts LINE_MARKERS), or undefined without WebAssembly SIMD. */
  static create(markers: readonly (readonly [text: string, needle: string])[]): MarkerScan | undefined {
    const mod = wasmModule();
    if (!mod || !wasm) return undefined;
    const memory = new wasm.Memory({ initial: DATA / PAGE + 8 });
    const instance = new wasm.Instance(mod, { env: { memory, abort: () => {} } });
    const scan = new MarkerScan(memory, instance.exports as unknown as MarkerScanExports);
    scan.writeTables(markers);
    return scan;
  }

  private writeTables(markers: readonly (readonly [string, string])[]): void {
    const enc = new TextEncoder();
    if (markers.length > 64) throw new Error('the marker search holds at most 64 marker texts');
    const texts = markers.map(([text], index) => {
      const bytes = enc.encode(text);
      if (bytes.length === 0 || bytes.length !== text.length || text.includes('\n')) throw new Error(`bad line marker ${JSON.stringify(text)}`);
      const known = MARKER_FINGERPRINTS[text];
      const at = known && known[0] + Math.min(FINGERPRINT, bytes.length) <= bytes.length ? known[0] : guessFingerprint(bytes);
      return { bytes, at, bucket: known ? known[1] : BUCKETS - 1, index, shape: shapeOf(text) };
    });
    const u8 = this.u8;
    const view = this.view;
    u8.fill(0, TABLES, OUT);
    u8.fill(0x0f, TABLES + 176, TABLES + 192);
    let index = 0;
    let bytesAt = TEXTS + 16 * texts.length;
    for (let b = 0; b < BUCKETS; b++) {
      view.setUint32(TABLES + 128 + 4 * b, index, true);
      for (const t of texts) {
        if (t.bucket !== b) continue;
        for (let j = 0; j < FINGERPRINT; j++) {
          const lo = TABLES + 32 * j;
          const hi = lo + 16;
          if (t.at + j >= t.bytes.length) {
            // A text shorter than the fingerprint: any byte there.
            for (let x = 0; x < 16; x++) {
              u8[lo + x] = (u8[lo + x] as number) | (1 << b);
              u8[hi + x] = (u8[hi + x] as number) | (1 << b);
            }
            continue;
          }
          const c = t.bytes[t.at + j] as number;
          u8[lo + (c & 15)] = (u8[lo + (c & 15)] as number) | (1 << b);
          u8[hi + (c >> 4)] = (u8[hi + (c >> 4)] as number) | (1 << b);
        }
        if (bytesAt + t.bytes.length > LITERALS) throw new Error('line markers do not fit the scanner tables');
        u8.set(t.bytes, bytesAt);
        view.setUint32(TEXTS + 16 * index, bytesAt, true);
        view.setUint32(TEXTS + 16 * index + 4, t.bytes.length, true);
        view.setUint32(TEXTS + 16 * index + 8, t.at, true);
        view.setUint32(TEXTS + 16 * index + 12, t.index + 256 * t.shape, true);
        bytesAt += t.bytes.length;
        index++;
      }
    }
    view.setUint32(TABLES + 128 + 4 * BUCKETS, index, true);
    // The per-sample reader's literals (sampleBytes.ts has the same texts).
    const mark = enc.encode(SAMPLE_MARK);
    u8.set(mark, LITERALS);
    u8.set(enc.encode(REPEATED_FOLD), LITERALS + 16);
    // wasm/markerScan.ts compares a name as one 16-byte load.
    if (SAMPLE_FIELDS.some((name) => name.length > 16)) throw new Error('a per-sample field name is longer than its 16-byte slot');
    SAMPLE_FIELDS.forEach((name, f) => {
      u8.set(enc.encode(name), LITERALS + 32 + 16 * f);
      u8[LITERALS + 128 + f] = name.length;
    });
    for (const b of mark) u8[LITERALS + 256 + b] = 1;
    u8.fill(10, LITERALS + 576, LITERALS + 592);
    u8.fill(27, LITERALS + 592, LITERALS + 608);
    u8.fill(mark[0] as number, LITERALS + 608, LITERALS + 624);
    u8.fill(REPEATED_FOLD.charCodeAt(0), LITERALS + 624, LITERALS + 640);
    u8.fill(REPEATED_FOLD.charCodeAt(1), LITERALS + 832, LITERALS + 848);
    u8.fill(mark[1] as number, LITERALS + 848, LITERALS + 864);
    // The shapes' literals (markerShapes.ts).
    u8.set(enc.encode(MEMORY_USAGE), LITERALS + 640);
    u8.set(enc.encode(RAY_EXCEPTIONS), LITERALS + 656);
    // wasm/markerScan.ts knows their places and lengths.
    if (MEMORY_USAGE.length !== 12 || RAY_EXCEPTIONS.length !== 15 || SWE_GYM_FOLLOWERS.map((f) => f.length).join() !== '7,31,44') throw new Error('the shape literals changed: update wasm/markerScan.ts');
    [672, 688, 720].forEach((at, k) => u8.set(enc.encode(SWE_GYM_FOLLOWERS[k] as string), LITERALS + at));
    u8.fill(MEMORY_USAGE.charCodeAt(0), LITERALS + 768, LITERALS + 784);
    // The per-sample reader's byte classes: a field ends at a byte ≤ 32 or ≥ 127, the reason holds none < 32 or ≥ 127.
    u8.fill(32, LITERALS + 784, LITERALS + 800);
    u8.fill(31, LITERALS + 800, LITERALS + 816);
    u8.fill(127, LITERALS + 816, LITERALS + 832);
    this.exports.configure(TABLES, TEXTS, LITERALS, OUT, OUT_CAPACITY);
  }

  /**
   * Puts the reason buf[s, e) (printable ASCII) in the table that run records take, while it has room; the runs
   * of later searches count the lines with it. Its slot, or -1.
   */
  addReason(buf: Uint8Array, s: number, e: number): number {
    const text = Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('latin1');
    const known = this.reasonSlots.get(text);
    if (known !== undefined) return known;
    if (e - s > REASON_MAX || this.reasons.length === REASON_SLOTS) return -1;
    const slot = this.reasons.length;
    const entry = REASON_TABLE + 64 * slot;
    this.view.setInt32(entry, e - s, true);
    for (let k = 0; k < e - s; k++) this.u8[entry + 16 + k] = text.charCodeAt(k);
    this.reasons.push(text);
    this.reasonSlots.set(text, slot);
    this.view.setInt32(REASON_COUNT, this.reasons.length, true);
    return slot;
  }

  /** The reason text of a run record's slot. */
  reasonText(slot: number): string {
    return this.reasons[slot] as string;
  }

  /** Fingerprint hits compared in full so far (a measure of how well the fingerprints fit a log). */
  get candidates(): number {
    return this.exports.candidates();
  }

  /** As findMarkedLines: appends to `out` the start offsets of the lines of buf[from, end) that hold a marker. */
  find(buf: Uint8Array, from: number, end: number, out: number[]): void {
    this.lines(buf, from, end, false, (records, count) => {
      for (let k = 0; k < count; k++) out.push(records[k * RECORD + R_START] as number);
    });
  }

  /**
   * The lines of buf[from, end) that hold a marker, as records (R_*; offsets into buf), handed to `visit`
   * a batch at a time: `records` is valid only during the call. `samples`: read per-sample lines on the bytes too.
   * `runLimit` > 0 (with `samples`): per-sample lines of at most that many bytes come in run records (R_RUN).
   */
  lines(buf: Uint8Array, from: number, end: number, samples: boolean, visit: (records: Int32Array, count: number) => void, runLimit = 0): void {
    const n = end - from;
    if (n <= 0) return;
    let base = DATA;
    // A view of this memory elsewhere than the segment buffer would be detached if the memory grew below.
    if (buf.buffer === this.memory.buffer && buf.byteOffset !== DATA) buf = Uint8Array.prototype.slice.call(buf);
    if (buf.buffer !== this.memory.buffer) {
      this.reserve(n + SLACK);
      // Bytes past the window are whatever an earlier window left: the module reads them, never matches on them.
      this.u8.set(buf.subarray(from, end), DATA);
      // The window sits at DATA; with base = DATA - from (wrapping like the module's 32-bit address sums), every
      // offset the module reads or writes is one in buf.
      base = (DATA - from) >>> 0;
    }
    const records = new Int32Array(this.memory.buffer, OUT, OUT_CAPACITY * RECORD);
    let at = from;
    for (;;) {
      const found = this.exports.find(base, at, end, samples ? 1 : 0, samples ? runLimit : 0);
      visit(records, found);
      const next = this.exports.resume();
      if (next < 0) return;
      at = next;
    }
  }

  /**
   * A buffer in the module's own memory to read a segment into, so that its windows are searched where they lie
   * (no copy). It reads as empty once the memory has grown (a window of another buffer larger than it): ask again.
   */
  segmentBuffer(bytes: number): Buffer {
    this.reserve(bytes + SLACK);
    return Buffer.from(this.memory.buffer, DATA, bytes);
  }

  private reserve(bytes: number): void {
    const need = DATA + bytes;
    if (need <= this.memory.buffer.byteLength) return;
    this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / PAGE));
    this.u8 = new Uint8Array(this.memory.buffer);
    this.view = new DataView(this.memory.buffer);
  }
}

/** Which marker search a scanner uses: the WebAssembly one, or findMarkedLines (the reference; for comparisons). */
export type MarkerSearch = 'wasm' | 'js';

export type MarkedLineSearch = (buf: Buffer, from: number, end: number, out: number[]) => void;

/** The search a scanner asked for `kind` gets on this runtime. */
export function markerSearchUsed(kind: MarkerSearch = 'wasm'): MarkerSearch {
  return kind === 'wasm' && wasmModule() ? 'wasm' : 'js';
}

/** One instance per marker list and thread: a search runs to its end synchronously, so scanners can share one. */
const shared = new WeakMap<object, MarkerScan | undefined>();

/** This thread's WebAssembly search for these texts, or undefined where it cannot run. */
export function sharedMarkerScan(markers: readonly (readonly [text: string, needle: string])[]): MarkerScan | undefined {
  if (!shared.has(markers)) shared.set(markers, MarkerScan.create(markers));
  return shared.get(markers);
}

/** The marker search for these texts: the WebAssembly one unless `js` is asked for or it cannot run here. */
export function markedLineSearch(markers: readonly (readonly [text: string, needle: string])[], kind: MarkerSearch = 'wasm'): MarkedLineSearch {
  const scan = kind === 'wasm' ? sharedMarkerScan(markers) : undefined;
  if (scan) return (buf, from, end, out) => scan.find(buf, from, end, out);
  const groups = compileMarkers(markers);
  return (buf, from, end, out) => findMarkedLines(buf, from, end, groups, out);
}
