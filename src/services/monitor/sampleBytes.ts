// The per-sample line (`SWE-Gym reward=… raw=… integrity=… instance=… f2p=… p2p=… reason=…`, SAMPLE in lines.ts)
// read straight from the bytes, for the scan workers: a dense log has hundreds of thousands of them, and decoding
// each to a string and running the prefix and sample regexes costs several times the byte scan.
//
// This is not a second classifier. It accepts a line only where parseLine would certainly give a sample with the
// same fields, and answers false for anything else (ANSI other than complete colour codes before the text, a
// `[repeated …]` suffix, non-ASCII or control bytes in the fields, an odd number format): the caller then decodes
// the line and runs parseLine. tests/monitor/sampleBytes.test.ts holds the two to the same answers.
import { pyNum } from './lines.js';

/** The texts the reading compares (the WebAssembly reader in markerScan.ts gets them from here). */
export const SAMPLE_MARK = 'SWE-Gym reward=';
export const REPEATED_FOLD = '[repeated ';
export const SAMPLE_FIELDS = [' raw=', ' integrity=', ' instance=', ' f2p=', ' p2p=', ' reason='] as const;
const MARK = Buffer.from(SAMPLE_MARK);
const FOLD = Buffer.from(REPEATED_FOLD);
const FIELDS = SAMPLE_FIELDS.map((s) => Buffer.from(s));
const TRUE = Buffer.from('True');

/** What the stats need of one sample line; offsets into the buffer that was read. */
export interface SampleBytes {
  rewardOne: boolean;
  rawOne: boolean;
  integrity: boolean;
  instanceStart: number;
  instanceEnd: number;
  /** `reason=` value, trimmed of spaces. */
  reasonStart: number;
  reasonEnd: number;
}

export function emptySampleBytes(): SampleBytes {
  return { rewardOne: false, rawOne: false, integrity: false, instanceStart: 0, instanceEnd: 0, reasonStart: 0, reasonEnd: 0 };
}

/** Is buf[s, e) (printable ASCII) a number equal to 1 as pyNum reads it? `1`, `1.0` and `0…` without a call. */
export function isOne(buf: Buffer, s: number, e: number): boolean {
  const c = buf[s];
  if (e - s === 3 && buf[s + 1] === 46 && buf[s + 2] === 48 && (c === 48 || c === 49)) return c === 49;
  if (e - s === 1 && (c === 48 || c === 49)) return c === 49;
  return pyNum(buf.toString('latin1', s, e)) === 1;
}

/** Bytes of the marker text: a colour code between two of them might hide a marker that stripAnsi would join. */
const IN_MARK = new Uint8Array(256);
for (const b of MARK) IN_MARK[b] = 1;
const fieldStart = new Int32Array(6);
const fieldEnd = new Int32Array(6);

/**
 * Where the next marker, escape and `[repeated ` fold are, in a window of lines read in increasing order: a native
 * search from one line start finds the next hit, which the lines before it reuse, so a window's searches cost
 * about one pass over it (and searching a view that ends with the window, a byte the log lacks costs no more).
 * Reading a dense log's sample lines byte by byte in JavaScript cost several times these few calls.
 */
export class SampleSearch {
  private view: Buffer = Buffer.alloc(0);
  private end = 0;
  // Each: the first hit at or after `from` (`end` when none), valid while queries do not go back before `from`.
  private mark = -1;
  private markFrom = 0;
  private rep = -1;
  private repFrom = 0;
  private esc = -1;
  private escFrom = 0;

  /** A new window: lines of buf that end at or before `end`. */
  reset(buf: Buffer, end: number): this {
    this.view = end < buf.length ? buf.subarray(0, end) : buf;
    this.end = Math.min(end, buf.length);
    this.mark = this.rep = this.esc = -1;
    return this;
  }

  nextMark(from: number): number {
    if (this.mark < from || from < this.markFrom) {
      const k = this.view.indexOf(MARK, from);
      this.mark = k < 0 ? this.end : k;
      this.markFrom = from;
    }
    return this.mark;
  }

  nextRepeated(from: number): number {
    if (this.rep < from || from < this.repFrom) {
      const k = this.view.indexOf(FOLD, from);
      this.rep = k < 0 ? this.end : k;
      this.repFrom = from;
    }
    return this.rep;
  }

  nextEsc(from: number): number {
    if (this.esc < from || from < this.escFrom) {
      const k = this.view.indexOf(27, from);
      this.esc = k < 0 ? this.end : k;
      this.escFrom = from;
    }
    return this.esc;
  }
}

/**
 * Reads the line buf[start, end) (end: its newline or the end of the data) as a per-sample line into `out`.
 * False: not certainly one — classify the decoded line with parseLine instead. `search`: the window's searches
 * (SampleSearch), when lines are read in order.
 */
export function readSampleBytes(buf: Buffer, start: number, end: number, out: SampleBytes, search: SampleSearch = new SampleSearch().reset(buf, end)): boolean {
  let e = end;
  if (e > start && buf[e - 1] === 13) e--; // splitPrefixes drops one trailing CR
  const h = search.nextMark(start);
  if (h + MARK.length > e) return false;
  // No `[repeated …]` fold anywhere (it would cut the line).
  if (search.nextRepeated(start) + FOLD.length <= e) return false;
  // Colour codes before the marker: stripAnsi removes them, which must leave the text from the marker on as it is
  // (only complete CSI sequences, and none between two marker bytes, which could join into an earlier marker).
  let x = search.nextEsc(start);
  if (x >= e) x = -1;
  while (x >= 0 && x < h) {
    if (buf[x + 1] !== 91) return false;
    let j = x + 2;
    let b = buf[j] as number;
    while (j < h && ((b >= 48 && b <= 57) || b === 59 || b === 63)) b = buf[++j] as number;
    while (j < h && b >= 32 && b <= 47) b = buf[++j] as number;
    if (j >= h || b < 64 || b > 126) return false;
    if (x > start && IN_MARK[buf[x - 1] as number] === 1 && IN_MARK[buf[j + 1] as number] === 1) return false;
    x = search.nextEsc(j + 1);
    if (x >= e) x = -1;
  }
  // No escape after the marker (stripAnsi would change the fields).
  if (x >= 0 && x < e) return false;
  // Fields: runs of printable non-space ASCII, each followed by exactly the next ` name=` (\S+ in SAMPLE).
  let i = h + MARK.length;
  for (let f = 0; f < 6; f++) {
    const s = i;
    let c = buf[i] as number;
    while (c > 32 && c < 127 && i < e) c = buf[++i] as number;
    if (i >= e || c !== 32) return false;
    // instance=(\S*) may be empty; the others are \S+.
    if (i === s && f !== 3) return false;
    fieldStart[f] = s;
    fieldEnd[f] = i;
    const lit = FIELDS[f] as Buffer;
    if (i + lit.length > e) return false;
    for (let k = 1; k < lit.length; k++) if (buf[i + k] !== lit[k]) return false;
    i += lit.length;
  }
  // reason=(.*)$, trimmed: printable ASCII to the end (a control or non-ASCII byte may be a line or space
  // separator that `.` or trim() treats differently).
  for (let k = i; k < e; k++) {
    const c = buf[k] as number;
    if (c < 32 || c > 126) return false;
  }
  let rs = i;
  let re = e;
  while (rs < re && buf[rs] === 32) rs++;
  while (re > rs && buf[re - 1] === 32) re--;
  // Field order: reward, raw, integrity, instance, f2p, p2p (each ended by the next name).
  out.rewardOne = isOne(buf, fieldStart[0] as number, fieldEnd[0] as number);
  out.rawOne = isOne(buf, fieldStart[1] as number, fieldEnd[1] as number);
  const is = fieldStart[2] as number;
  out.integrity = (fieldEnd[2] as number) - is === 4 && buf[is] === TRUE[0] && buf[is + 1] === TRUE[1] && buf[is + 2] === TRUE[2] && buf[is + 3] === TRUE[3];
  out.instanceStart = fieldStart[3] as number;
  out.instanceEnd = fieldEnd[3] as number;
  out.reasonStart = rs;
  out.reasonEnd = re;
  return true;
}
