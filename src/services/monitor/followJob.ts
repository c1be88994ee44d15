// Following a run: the job both faces run. It picks the run's sources once (the composition root's picker), reads
// the log (its last LIVE_TAIL_BYTES, or from the start) into a RunModel, follows it (a polled file, or `ray job logs
// -f`), and polls what the run's state is derived from (the writer, Ray's job, the log's growth). It emits typed
// events: `monitor RUN` without a terminal prints them; the dashboard's MonitorService reads the model and the
// liveness into its store. Neither face reads or follows a log on its own.
import { stat } from 'node:fs/promises';
import type { RecipePaths } from '../workspace/paths.js';
import { RunModel, UNPACKED_RECORDS } from './runModel.js';
import { modelLineScanner, FileFollower, scanFile, followRayJob } from './tail.js';
import { SkipFirstLine, statLogFile } from './ingest.js';
import { isSimulatedRun, type MonitorTarget } from './resolve.js';
import { deriveLiveness, livenessLabel, progressTimesOf, type Liveness, type RayJobStatus, type WriterStatus } from './liveness.js';
import type { RunSources, RunSourcesPicker } from './sources/types.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import { pollEvery } from '../util/poll.js';

/** Live (non --from-start) reads begin this far before the end of the log: whole-run curves for almost every run. */
export const LIVE_TAIL_BYTES = 1024 * 1024 * 1024;

export type RunFollowEvent =
  /** The run is open: its sources are picked, its model is empty. */
  | { type: 'opened'; run: string; source: MonitorTarget['source']; simulated: boolean; fromByte: number; totalBytes: number | undefined }
  /** The first read of the log, as it goes (a few updates, not one per chunk of lines). */
  | { type: 'reading'; bytes: number; total: number }
  /** The first read is done: the model holds the log so far (log files only; a Ray job streams from its start). */
  | { type: 'read'; offset: number }
  /** The model changed since the last tick (at most once per tick). */
  | { type: 'progress'; version: number }
  /** The run's state (livenessLabel) changed; the first poll always reports. */
  | { type: 'state'; liveness: Liveness }
  /** The log went shorter (truncated, rewritten): the model starts again from the file's first byte. */
  | { type: 'log-truncated'; reset: LogReset }
  /** Another file is at the path now (mv, rsync's rename): the model starts again from its first byte. */
  | { type: 'log-rotated'; reset: LogReset }
  | { type: 'read-error'; message: string }
  /** `ray job logs` ended; `error` when it could not run or failed. */
  | { type: 'stream-ended'; error: string | undefined; spawnError: string | undefined }
  /** The run ended (its log's end or its state; a Ray job: the stream's end). The job keeps its model until close(). */
  | { type: 'ended'; failed: boolean };

/**
 * A log that was replaced or truncated under the follower. Reading on would count its lines twice (a file rewritten
 * with the same run holds them all again), so the model is thrown away and the file is read from its start.
 */
export interface LogReset {
  kind: 'replaced' | 'truncated';
  /** Clock ms when the follower noticed. */
  at: number;
  /** What the discarded model had counted. */
  samplesBefore: number;
  rolloutsBefore: number;
}

export interface RunFollowOptions {
  paths: RecipePaths;
  /** Picks the run's live sources when it is opened (src/app/monitorSources.ts). */
  sources: RunSourcesPicker;
  clock?: () => number;
  /** Read from the log's first byte instead of its last LIVE_TAIL_BYTES. */
  fromStart?: boolean;
  tailBytes?: number;
  /** Bytes read at a time on the first read (scanFile's 4 MiB by default; smaller in tests: more `reading` events). */
  readChunkBytes?: number;
  /** false: read what the log holds and stop (no follower, no pollers). */
  live?: boolean;
  /** The newest records the model keeps as objects, older ones packed (RunModel; UNPACKED_RECORDS by default). */
  unpackedRecords?: number;
  /** Ray dashboard address for `ray job logs --address`; the `ray` executable. */
  rayAddress?: string;
  rayBin?: string;
  pollMs?: { log?: number; writer?: number; ray?: number; tick?: number };
  /**
   * The job's tick holds the process while it follows (a headless command has nothing else keeping it alive);
   * off, every timer is unref'd (the dashboard's Ink app holds the process, tests end when they are done).
   */
  keepAlive?: boolean;
  onEvent?: JobListener<RunFollowEvent>;
}

export class RunFollowJob {
  /** The run as read so far; a new one after the log was replaced or truncated (LogReset). */
  model: RunModel;
  /** Every time the log was replaced or truncated while followed, oldest first. */
  readonly logResets: LogReset[] = [];
  sources: RunSources | undefined;
  simulated = false;
  /** Bumped whenever something the liveness or the stream's error derive from was polled (the dashboard republishes). */
  version = 0;
  /** Why `ray job logs` ended, when it failed. */
  streamError: string | undefined;
  private readonly emit: (e: RunFollowEvent) => void;
  private readonly clock: () => number;
  private follower: FileFollower | undefined;
  private rayAbort: AbortController | undefined;
  /** Stops the first read when the job is closed during it (Ctrl-C, another run opened). */
  private readonly readAbort = new AbortController();
  private timers: ReturnType<typeof setInterval>[] = [];
  private writer: WriterStatus | undefined;
  private rayJob: RayJobStatus | undefined;
  /** Epoch ms the log last grew (its mtime; the clock of the last streamed line for `ray job logs`). */
  private lastLineAt: number | undefined;
  private state: string | undefined;
  private lastVersion = -1;
  private ended = false;
  private closed = false;

  constructor(
    readonly target: MonitorTarget,
    private readonly opts: RunFollowOptions,
  ) {
    this.clock = opts.clock ?? Date.now;
    this.emit = jobEmitter('monitor follow', opts.onEvent);
    this.model = new RunModel({ name: target.runName ?? target.name, clock: this.clock, unpackedRecords: opts.unpackedRecords ?? UNPACKED_RECORDS });
  }

  get live(): boolean {
    return this.opts.live ?? true;
  }

  /**
   * Picks the sources, reads the log and, when live, starts following it; resolves once the model holds the log so
   * far and the run's state is known (a finished log must not read `running` first). A log that cannot be read
   * throws (a ConsoleError when it is missing).
   */
  async open(): Promise<void> {
    const { target } = this;
    const o = this.opts;
    this.simulated = await isSimulatedRun(target);
    const sources = await o.sources(target);
    if (this.closed) return;
    this.sources = sources;
    let fromByte = 0;
    let totalBytes: number | undefined;
    if (!target.rayJob && target.logFile) {
      const size = await statLogFile(target.logFile);
      const tail = o.tailBytes ?? LIVE_TAIL_BYTES;
      fromByte = o.fromStart || size <= tail ? 0 : size - tail;
      totalBytes = size - fromByte;
    }
    this.emit({ type: 'opened', run: target.name, source: target.source, simulated: this.simulated, fromByte, totalBytes });
    if (target.rayJob) this.streamRayJob(target.rayJob);
    else if (target.logFile) {
      // Through `this.model`: a replaced or truncated log swaps the model under the same scanner.
      const scanner = modelLineScanner({ ingestLine: (l) => this.model.ingestLine(l), ingestParsed: (p) => this.model.ingestParsed(p) });
      // The cut mid-file leaves a partial first line: it is skipped.
      const reader = fromByte > 0 ? new SkipFirstLine(scanner) : scanner;
      const total = totalBytes ?? 0;
      this.emit({ type: 'reading', bytes: 0, total });
      const res = await scanFile(target.logFile, reader, { offset: fromByte, chunkBytes: o.readChunkBytes, signal: this.readAbort.signal, onProgress: (bytes) => this.emit({ type: 'reading', bytes, total }) });
      if (this.closed) return;
      if (this.live) {
        this.follower = new FileFollower(target.logFile, scanner, {
          offset: res.offset,
          ino: res.ino,
          intervalMs: o.pollMs?.log ?? 1000,
          onTruncate: () => this.emit({ type: 'log-truncated', reset: this.resetModel('truncated') }),
          onRotate: () => this.emit({ type: 'log-rotated', reset: this.resetModel('replaced') }),
          onError: (err) => this.emit({ type: 'read-error', message: (err as Error).message }),
        });
        this.follower.start();
      } else scanner.end();
      this.emit({ type: 'read', offset: res.offset });
    }
    await Promise.all([this.pollWriter(), this.pollRay()]).catch(() => {});
    if (this.closed) return;
    this.reportState();
    if (this.live) this.startPollers();
  }

  /** A fresh model for a log read again from its start (the follower has just moved to byte 0 of the file at the path). */
  private resetModel(kind: LogReset['kind']): LogReset {
    const old = this.model;
    const reset: LogReset = { kind, at: this.clock(), samplesBefore: old.totals.total, rolloutsBefore: old.rollouts.count };
    this.logResets.push(reset);
    if (this.logResets.length > 20) this.logResets.shift();
    this.model = new RunModel({ name: old.name, clock: this.clock, unpackedRecords: this.opts.unpackedRecords ?? UNPACKED_RECORDS });
    this.lastVersion = -1;
    this.version++;
    return reset;
  }

  /** The run's state now (derived, never assumed: liveness.ts). */
  liveness(): Liveness {
    const m = this.model;
    const phase = m.phase;
    return deriveLiveness({ now: this.clock(), phase: phase.kind, phaseDetail: phase.detail, logExitCode: m.launcherExit, lastLineAt: this.lastLineAt, progressTimes: progressTimesOf(m), writer: this.writer, rayJob: this.rayJob });
  }

  /** The writer's word and the log's growth. */
  async pollWriter(): Promise<void> {
    const file = this.target.rayJob ? undefined : this.target.logFile;
    if (file) {
      try {
        this.lastLineAt = (await stat(file)).mtimeMs;
      } catch {}
    }
    const writer = await this.sources?.writer();
    if (this.closed) return;
    this.writer = writer;
    this.version++;
  }

  /** Ray's job status (the run's job: named by the target or the log, else the newest submission). */
  async pollRay(): Promise<void> {
    const job = await this.sources?.rayJob(this.target.rayJob ?? this.model.jobEnd?.job);
    if (this.closed) return;
    this.rayJob = job;
    this.version++;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.readAbort.abort();
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.rayAbort?.abort();
    this.rayAbort = undefined;
    const f = this.follower;
    this.follower = undefined;
    await f?.stop();
  }

  private streamRayJob(job: string): void {
    // `ray job logs -f`: the child streams the job's output from its start; it ends with the job (or close()).
    const ac = new AbortController();
    this.rayAbort = ac;
    void followRayJob(job, (l) => {
      this.lastLineAt = this.clock();
      this.model.ingestLine(l);
    }, { cwd: this.opts.paths.root, signal: ac.signal, address: this.opts.rayAddress, rayBin: this.opts.rayBin, follow: this.live }).then((r) => {
      if (this.closed) return;
      const failed = !!r.spawnError || (r.exitCode !== 0 && !r.cancelled);
      this.streamError = failed ? r.spawnError ?? `ray job logs exited ${r.exitCode ?? r.signal}: ${r.stderr.slice(-1)[0] ?? ''}` : undefined;
      this.version++;
      this.emit({ type: 'stream-ended', error: this.streamError, spawnError: r.spawnError });
      this.end(this.model.phase.kind === 'failed');
    });
  }

  private startPollers(): void {
    const p = this.opts.pollMs ?? {};
    const every = (ms: number, f: () => unknown) => this.timers.push(pollEvery(ms, f));
    every(p.tick ?? 1000, () => this.tick());
    if (this.opts.keepAlive) this.timers[this.timers.length - 1]?.ref?.();
    every(p.writer ?? 5000, async () => {
      await this.pollWriter();
      this.reportState();
    });
    every(p.ray ?? 15_000, async () => {
      await this.pollRay();
      this.reportState();
    });
  }

  /** Once a tick: the model's changes, and the end of a run read from a log (a Ray job ends with its stream). */
  private tick(): void {
    const v = this.model.version;
    if (v !== this.lastVersion) {
      this.lastVersion = v;
      this.emit({ type: 'progress', version: v });
    }
    if (this.target.rayJob || this.ended) return;
    const phase = this.model.phase.kind;
    const l = this.state === undefined ? undefined : this.liveness();
    const stateEnded = l && (l.state === 'finished' || l.state === 'crashed' || l.state === 'exited');
    if (phase === 'finished' || phase === 'failed' || stateEnded) {
      this.end(phase === 'failed' || l?.state === 'crashed' || (l?.state === 'exited' && l.exitCode !== undefined && l.exitCode !== 0));
    }
  }

  private reportState(): void {
    if (this.closed) return;
    const l = this.liveness();
    const label = livenessLabel(l);
    if (label === this.state) return;
    this.state = label;
    this.emit({ type: 'state', liveness: l });
  }

  private end(failed: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.reportState();
    this.emit({ type: 'ended', failed });
  }
}
