// Reading a run log fast and following it live.
// - LineScanner: takes raw chunks, keeps a partial last line, and hands only candidate lines (those containing a
//   marker of lines.ts LINE_MARKERS) to the sink, decoded as UTF-8. The raw bytes are searched in one WebAssembly
//   SIMD pass (markerScan.ts); only the lines around a verified marker are decoded, noise lines never are.
// - scanFile: reads a file from an offset to its end in large chunks.
// - FileFollower: polls a file, survives truncation, rotation (new inode) and partial writes.
// - followRayJob: `ray job logs -f <id>` as a child process through runProcess.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { READ_ALIGNMENT, alignedBuffer, alignedOffset } from '../util/alignedRead.js';
import { LINE_MARKERS, pair, pyNum, splitPrefixes, type ParsedEvent } from './lines.js';
import {
  RECORD,
  R_END,
  R_F2P_END,
  R_F2P_START,
  R_INSTANCE_END,
  R_INSTANCE_START,
  R_INTEGRITY,
  R_P2P_END,
  R_P2P_START,
  R_RAW_END,
  R_RAW_START,
  R_REASON_END,
  R_REASON_START,
  R_REWARD_END,
  R_REWARD_START,
  R_SAMPLE,
  R_START,
  markedLineSearch,
  sharedMarkerScan,
  type MarkerScan,
} from './markerScan.js';
import { dashboardUrl, streamRayJobLogs } from '../ray/jobsApi.js';
import { runProcess, type RunResult } from '../process/run.js';

export type LineSink = (line: string) => void;

/**
 * A per-sample line the WebAssembly search read on its bytes (R_SAMPLE: readSampleBytes's rules), as parseLine would
 * give it: the event from the fields, and the actor and time from the prefixes before the marker (decoded alone:
 * a sample line holds no colour code after its marker and no `[repeated …]` fold). Only the message is not made.
 */
export function sampleFromRecord(buf: Buffer, r: Int32Array, k: number): ParsedEvent {
  const start = r[k + R_START] as number;
  const field = (from: number, to: number) => buf.toString('latin1', r[k + from] as number, r[k + to] as number);
  const prefix = splitPrefixes(buf.toString('utf8', start, (r[k + R_REWARD_START] as number) - 'SWE-Gym reward='.length));
  return {
    actor: prefix.actor,
    repeat: 1,
    time: prefix.time,
    event: {
      kind: 'sample',
      reward: pyNum(field(R_REWARD_START, R_REWARD_END)),
      raw: pyNum(field(R_RAW_START, R_RAW_END)),
      integrity: r[k + R_INTEGRITY] === 1,
      instance: field(R_INSTANCE_START, R_INSTANCE_END),
      f2p: pair(field(R_F2P_START, R_F2P_END)),
      p2p: pair(field(R_P2P_START, R_P2P_END)),
      reason: field(R_REASON_START, R_REASON_END),
    },
  };
}
export { compileMarkers, findMarkedLines, type MarkerGroup } from './markers.js';

const NL = 10;
/** Bytes searched at a time: the marker search copies them into its memory, which stays small. */
const WINDOW = 256 * 1024;

/** Bytes before the read offset compared on each poll to notice a file rewritten in place at the same size. */
const SIG_BYTES = 4096;

/** What a model takes from a line scanner (RunModel). */
export interface LineModel {
  ingestLine(line: string): unknown;
  ingestParsed(parsed: ParsedEvent): unknown;
}

/** A scanner feeding a model, per-sample lines read on their bytes (the rest decoded and parsed by the model). */
export function modelLineScanner(model: LineModel): LineScanner {
  return new LineScanner((line) => model.ingestLine(line), { onSample: (parsed) => model.ingestParsed(parsed) });
}

export class LineScanner {
  private carry: Buffer | undefined;
  private readonly findMarked = markedLineSearch(LINE_MARKERS);
  private readonly starts: number[] = [];
  /** With `onSample`: the WebAssembly search, which reads per-sample lines on their bytes. */
  private readonly wasm: MarkerScan | undefined;
  private buf: Buffer = Buffer.alloc(0);
  /** Bytes consumed (including the carried partial line). */
  bytes = 0;
  /** Lines handed to the sink (lines with a marker). */
  candidates = 0;

  /**
   * `onSample`: per-sample lines read on their bytes go there, already parsed (sampleFromRecord), instead of being
   * decoded for the sink; the other marked lines still go to the sink.
   */
  constructor(
    private readonly sink: LineSink,
    private readonly opts: { maxLineBytes?: number; onSample?: (parsed: ParsedEvent) => void } = {},
  ) {
    this.wasm = opts.onSample ? sharedMarkerScan(LINE_MARKERS) : undefined;
  }

  /** Feed a chunk. The chunk may be reused by the caller after this returns. */
  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let from = 0;
    if (this.carry) {
      // Complete the carried partial line with the head of this chunk, without copying the whole chunk.
      const nl = chunk.indexOf(NL);
      if (nl < 0) {
        this.keep(Buffer.concat([this.carry, chunk]));
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, nl + 1)]);
      this.carry = undefined;
      this.scan(line, 0, line.length - 1);
      from = nl + 1;
    }
    const lastNl = chunk.lastIndexOf(NL);
    if (lastNl < from) {
      if (from < chunk.length) this.keep(chunk.subarray(from));
      return;
    }
    this.scan(chunk, from, lastNl);
    if (lastNl + 1 < chunk.length) this.keep(chunk.subarray(lastNl + 1));
  }

  /** End of input: the partial last line (if any) is treated as a line. */
  end(): void {
    const c = this.carry;
    this.carry = undefined;
    if (c && c.length) {
      const line = Buffer.concat([c, Buffer.from('\n')]);
      this.scan(line, 0, c.length);
    }
  }

  /** Drops a partial line (after truncation or rotation). */
  reset(): void {
    this.carry = undefined;
  }

  get hasPartial(): boolean {
    return this.carry !== undefined && this.carry.length > 0;
  }

  private keep(part: Buffer): void {
    const max = this.opts.maxLineBytes ?? 8 * 1024 * 1024;
    // A line longer than the cap is not a line we parse; keep memory bounded by dropping it.
    if (part.length > max) {
      this.carry = Buffer.alloc(0);
      return;
    }
    this.carry = Buffer.from(part);
  }

  /** Scans buf[from .. end] (end = index of a newline) for marked lines, in file order, in newline-aligned windows. */
  private scan(buf: Buffer, from: number, end: number): void {
    let pos = from;
    while (pos <= end) {
      let stop = end;
      if (end - pos > WINDOW) {
        const nl = buf.lastIndexOf(NL, pos + WINDOW);
        stop = nl >= pos ? nl : buf.indexOf(NL, pos + WINDOW);
        if (stop < 0 || stop > end) stop = end;
      }
      this.scanWindow(buf, pos, stop);
      pos = stop + 1;
    }
  }

  private scanWindow(buf: Buffer, from: number, end: number): void {
    if (this.wasm) {
      this.buf = buf;
      this.wasm.lines(buf, from, end, true, this.visitRecords);
      return;
    }
    const starts = this.starts;
    starts.length = 0;
    this.findMarked(buf, from, end, starts);
    for (const start of starts) {
      let stop = buf.indexOf(NL, start);
      if (stop < 0 || stop > end) stop = end;
      this.candidates++;
      this.sink(buf.toString('utf8', start, stop));
    }
  }

  private readonly visitRecords = (r: Int32Array, count: number): void => {
    const buf = this.buf;
    const onSample = this.opts.onSample as (parsed: ParsedEvent) => void;
    for (let k = 0; k < count * RECORD; k += RECORD) {
      this.candidates++;
      if (r[k + R_SAMPLE] === 1) onSample(sampleFromRecord(buf, r, k));
      else this.sink(buf.toString('utf8', r[k + R_START] as number, r[k + R_END] as number));
    }
  };
}

export interface ScanResult {
  bytes: number;
  offset: number;
  /** The inode read: a follower started after the scan notices a file put at the path in between. */
  ino: number;
}

/** Reads `file` from `offset` to its current end in large chunks. */
export async function scanFile(file: string, scanner: LineScanner, opts: { offset?: number; chunkBytes?: number; signal?: AbortSignal; final?: boolean; onProgress?: (bytesRead: number) => void } = {}): Promise<ScanResult> {
  const fh = await open(file, 'r');
  try {
    const { size, ino } = await fh.stat();
    let pos = Math.min(opts.offset ?? 0, size);
    const chunkBytes = opts.chunkBytes ?? 4 * 1024 * 1024;
    // Two buffers: the next chunk is read (on the libuv pool) while this one is scanned. Each read lands where the
    // kernel's copy stays aligned (alignedRead.ts).
    const bufs = [alignedBuffer(chunkBytes + READ_ALIGNMENT), alignedBuffer(chunkBytes + READ_ALIGNMENT)];
    let read = 0;
    let which = 0;
    const readAt = (at: number, i: number) => fh.read(bufs[i] as Buffer, alignedOffset(at), Math.min(chunkBytes, size - at), at);
    let next = pos < size && !opts.signal?.aborted ? readAt(pos, which) : undefined;
    while (next) {
      const { bytesRead, buffer } = await next;
      next = undefined;
      // Aborted while this chunk was read ahead: it is not consumed (offset stays where the scan stopped).
      if (bytesRead <= 0 || opts.signal?.aborted) break;
      const chunk = buffer.subarray(alignedOffset(pos), alignedOffset(pos) + bytesRead);
      pos += bytesRead;
      which ^= 1;
      if (pos < size && !opts.signal?.aborted) next = readAt(pos, which);
      try {
        scanner.push(chunk);
      } catch (err) {
        // Do not close the handle under a read still in flight.
        await next?.catch(() => {});
        throw err;
      }
      read += bytesRead;
      opts.onProgress?.(read);
    }
    if (opts.final) scanner.end();
    return { bytes: read, offset: pos, ino };
  } finally {
    await fh.close();
  }
}

export interface FollowerEvents {
  onTruncate?: () => void;
  onRotate?: () => void;
  onError?: (err: unknown) => void;
}

/**
 * Follows a file by polling (works on NFS and over SSH sessions, where fs.watch is unreliable).
 * Truncation (size < offset) restarts from 0; rotation (new inode at the path) drains the old file, then reads the
 * new one from 0. A partial last line waits for its newline.
 */
export class FileFollower {
  private fh: FileHandle | undefined;
  private ino: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private busy = false;
  private readonly chunk: Buffer;
  private sig: Buffer | undefined;
  private lastRead: Buffer = Buffer.alloc(0);
  offset: number;
  /** Bumped after each poll that read bytes. */
  reads = 0;
  missing = false;

  constructor(
    readonly file: string,
    private readonly scanner: LineScanner,
    private readonly opts: { offset?: number; intervalMs?: number; chunkBytes?: number; ino?: number } & FollowerEvents = {},
  ) {
    this.offset = opts.offset ?? 0;
    // The inode already read up to `offset` (scanFile's): another file at the path by the first poll is a rotation.
    this.ino = opts.ino;
    this.chunk = alignedBuffer((opts.chunkBytes ?? 1024 * 1024) + READ_ALIGNMENT);
  }

  start(): void {
    this.stopped = false;
    void this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close().catch(() => {});
  }

  /** One poll: read everything new. Exposed for tests and for `--once`. */
  async poll(): Promise<number> {
    if (this.busy) return 0;
    this.busy = true;
    try {
      return await this.pollInner();
    } finally {
      this.busy = false;
    }
  }

  private async pollInner(): Promise<number> {
    let st;
    try {
      st = await stat(this.file);
      this.missing = false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.missing = true;
        return 0;
      }
      throw err;
    }
    let total = 0;
    if (this.fh && st.ino !== this.ino) {
      // Rotated: finish the old file, then switch.
      total += await this.drain(this.fh);
      await this.fh.close().catch(() => {});
      this.fh = undefined;
      this.ino = undefined;
      this.rotated();
    }
    if (!this.fh) {
      this.fh = await open(this.file, 'r');
      const ino = (await this.fh.stat()).ino;
      // The file opened is not the one read so far (scanFile's, before this follower opened it): put there since.
      // Judged on the open handle, not the path's stat above: a rename between the two would pass unseen.
      if (this.ino !== undefined && ino !== this.ino) this.rotated();
      this.ino = ino;
    }
    const size = (await this.fh.stat()).size;
    if (size < this.offset || !(await this.sameTail(this.fh))) {
      this.scanner.reset();
      this.offset = 0;
      this.sig = undefined;
      this.lastRead = Buffer.alloc(0);
      this.opts.onTruncate?.();
    }
    total += await this.drain(this.fh);
    if (total > 0) this.reads++;
    return total;
  }

  /** Another file is at the path: it is read from its start. */
  private rotated(): void {
    this.scanner.end();
    this.offset = 0;
    this.sig = undefined;
    this.lastRead = Buffer.alloc(0);
    this.opts.onRotate?.();
  }

  /** The bytes just before the offset are still what was read: the file was not rewritten in place. */
  private async sameTail(fh: FileHandle): Promise<boolean> {
    const sig = this.sig;
    if (!sig || sig.length === 0 || this.offset < sig.length) return true;
    const now = Buffer.alloc(sig.length);
    const { bytesRead } = await fh.read(now, 0, sig.length, this.offset - sig.length);
    return bytesRead === sig.length && now.equals(sig);
  }

  private remember(): void {
    const n = Math.min(SIG_BYTES, this.offset);
    if (n === 0) {
      this.sig = undefined;
      return;
    }
    // The last bytes read are at the end of this.chunk after a drain.
    this.sig = Buffer.from(this.lastRead.subarray(Math.max(0, this.lastRead.length - n)));
  }

  private async drain(fh: FileHandle): Promise<number> {
    let total = 0;
    for (;;) {
      // At the chunk's place that keeps the kernel's copy aligned (alignedRead.ts).
      const at = alignedOffset(this.offset);
      const { bytesRead } = await fh.read(this.chunk, at, this.chunk.length - READ_ALIGNMENT, this.offset);
      if (bytesRead <= 0) break;
      const got = this.chunk.subarray(at, at + bytesRead);
      this.scanner.push(got);
      this.offset += bytesRead;
      total += bytesRead;
      // A copy: `got` is a view of this.chunk, which the next read overwrites (a view kept here made the next poll
      // take small appends for a rewrite and read the whole log again).
      this.lastRead = bytesRead >= SIG_BYTES ? Buffer.from(got.subarray(bytesRead - SIG_BYTES)) : Buffer.concat([this.lastRead, got]).subarray(-SIG_BYTES);
      if (this.stopped) break;
    }
    if (total > 0) this.remember();
    return total;
  }

  private async loop(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.poll();
    } catch (err) {
      // A poll that stop() cut short (it closes the handle the poll reads with) is not a read error.
      if (!this.stopped) this.opts.onError?.(err);
    }
    if (this.stopped) {
      // stop() ran while this poll was reading: close what the poll may have opened.
      const fh = this.fh;
      this.fh = undefined;
      await fh?.close().catch(() => {});
      return;
    }
    this.timer = setTimeout(() => void this.loop(), this.opts.intervalMs ?? 500);
    this.timer.unref?.();
  }
}

/**
 * Streams `ray job logs -f <job>` into a sink (the Ray job's stdout, §7 live source 5). Resolves when the child
 * exits (job finished, or aborted through `signal`). Without a working `ray` here (not installed, or it cannot reach
 * the cluster, and it printed no line), the same logs come from Ray's Jobs REST API on the dashboard port
 * (services/ray/jobsApi.ts): a laptop with an SSH tunnel to the head's :8265 follows the run with no `ray`.
 */
export async function followRayJob(jobId: string, sink: LineSink, opts: { cwd: string; address?: string; signal?: AbortSignal; rayBin?: string; follow?: boolean; env?: NodeJS.ProcessEnv }): Promise<RunResult> {
  const args = ['job', 'logs', ...(opts.follow === false ? [] : ['-f']), jobId];
  if (opts.address) args.push('--address', opts.address);
  let lines = 0;
  const cli = await runProcess(opts.rayBin ?? 'ray', args, {
    cwd: opts.cwd,
    signal: opts.signal,
    keepLines: 20,
    note: 'monitor: follow ray job logs',
    onLine: (_stream, line) => {
      lines++;
      sink(line);
    },
  });
  if (cli.cancelled || lines > 0 || (!cli.spawnError && cli.exitCode === 0)) return cli;
  const env = opts.env ?? process.env;
  const base = dashboardUrl(opts.address && /^https?:\/\//.test(opts.address) ? { ...env, SWEGYM_RAY_DASHBOARD: opts.address } : env);
  const started = Date.now();
  const api = await streamRayJobLogs(base, jobId, sink, { follow: opts.follow !== false, signal: opts.signal });
  const cliError = cli.spawnError ?? `ray job logs exited ${cli.exitCode ?? cli.signal}: ${cli.stderr.slice(-1)[0] ?? ''}`;
  if (api.ok) return { exitCode: 0, signal: undefined, timedOut: false, cancelled: opts.signal?.aborted ?? false, stdout: [], stderr: [], durationMs: Date.now() - started };
  return { ...cli, ...(cli.spawnError ? { spawnError: `${cli.spawnError}; and through Ray's Jobs API: ${api.error}` } : {}), stderr: [...cli.stderr, `${cliError}; Ray's Jobs API: ${api.error}`] };
}
