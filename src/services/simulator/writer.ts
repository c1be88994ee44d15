// Writers for the run simulator: offline (a whole run, or a multi-GB log, as fast as the disk takes it, in big
// buffered chunks) and live (lines appended at the pace of a real run, sped up or not, traj files written
// atomically as samples finish). Both lay a run out like Dressage's `outputs/logs/<RUN_NAME>/`:
//   <dir>/run.log                         the launcher's stdout+stderr (what `monitor LOG_FILE` reads)
//   <dir>/traj_payload/<RUN>/…, <dir>/traj_err/<RUN>/…   per-trajectory files (§7)
//   <dir>/simulation.json                 what was simulated and the counts to expect (labelled simulated)
//   <dir>/live.json                       live mode: phase, live sandboxes, steps (simulator/liveSources.ts)
//   <dir>/checkpoints/iter_<7 digits>/ + latest_checkpointed_iteration.txt (optional)
import { openSync, writeSync, closeSync, existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConsoleError, ExitCode } from '../errors.js';
import { WriteQueue, writeFileAtomic, writeJsonAtomic } from '../workspace/atomic.js';
import { SimulatedRun, type SimConfig, type SimSink, type SampleOutcome, type RolloutSummary } from './runGenerator.js';
import { trajFiles } from './traj.js';
import { liveStateFile, simulatedSandboxId, simulatedTemplate, type SimLiveState } from './liveSources.js';

import { SIM_LOG_NAME, SIM_MANIFEST_NAME } from './names.js';

export { SIM_LOG_NAME, SIM_MANIFEST_NAME };

export interface SimCounts {
  /** `SWE-Gym reward=` lines written (what `grep -c 'SWE-Gym reward='` must print). */
  sampleLines: number;
  rewardOne: number;
  rawOne: number;
  integrityViolations: number;
  byReason: Record<string, number>;
  rollouts: number;
  failedGroups: number;
  lines: number;
  bytes: number;
  trajFiles: number;
  /** Live mode only: trajectory files not written because the writes fell behind the run's clock or the run was stopped. */
  trajFilesLeftOut?: number;
  checkpoints: number[];
}

export interface SimManifest {
  simulated: true;
  note: string;
  config: SimConfig;
  log: string;
  counts: SimCounts;
  /** Per rollout: the published-curve value and what the samples gave. */
  rollouts: { rollout: number; trajectoryMean: number; sampleLines: number }[];
  complete: boolean;
}

export interface SimOutputOptions {
  dir: string;
  /** Write traj files for at most this many samples (Infinity = all; 0 = none). */
  trajLimit?: number;
  checkpoints?: boolean;
  /** Overwrite an existing simulated run in `dir`. */
  force?: boolean;
}

function emptyCounts(): SimCounts {
  return { sampleLines: 0, rewardOne: 0, rawOne: 0, integrityViolations: 0, byReason: {}, rollouts: 0, failedGroups: 0, lines: 0, bytes: 0, trajFiles: 0, checkpoints: [] };
}

function addSummary(c: SimCounts, s: RolloutSummary): void {
  c.sampleLines += s.sampleLines;
  c.rewardOne += s.rewardOne;
  c.rawOne += s.rawOne;
  c.integrityViolations += s.integrityViolations;
  c.failedGroups += s.failedGroups;
  c.rollouts++;
  for (const [k, v] of Object.entries(s.byReason)) c.byReason[k] = (c.byReason[k] ?? 0) + v;
}

async function prepareDir(opts: SimOutputOptions): Promise<string> {
  const log = path.join(opts.dir, SIM_LOG_NAME);
  if (existsSync(log) && !opts.force) {
    throw new ConsoleError({
      what: `${log} already exists`,
      cause: 'the simulator never overwrites a log it did not just create',
      fix: 'choose an empty directory, or pass --force to replace a previous simulated run there',
      exitCode: ExitCode.precondition,
    });
  }
  if (existsSync(opts.dir) && !statSync(opts.dir).isDirectory()) {
    throw new ConsoleError({ what: `${opts.dir} is not a directory`, fix: 'pass a directory for the simulated run', exitCode: ExitCode.usage });
  }
  await mkdir(opts.dir, { recursive: true });
  return log;
}

/** Checkpoints are written in order, so `latest_checkpointed_iteration.txt` always names the newest one. */
const checkpointQueue = new WriteQueue();

function writeCheckpoint(dir: string, rolloutId: number): Promise<void> {
  return checkpointQueue.run(() => writeCheckpointNow(dir, rolloutId));
}

async function writeCheckpointNow(dir: string, rolloutId: number): Promise<void> {
  const ck = path.join(dir, 'checkpoints');
  const iter = `iter_${String(rolloutId).padStart(7, '0')}`;
  await writeFileAtomic(path.join(ck, iter, 'common.pt'), `simulated checkpoint of rollout ${rolloutId}\n`);
  await writeFileAtomic(path.join(ck, 'latest_checkpointed_iteration.txt'), `${rolloutId}\n`);
}

/** Runs `tasks` with at most `limit` in flight; resolves when all are done. */
class TaskPool {
  private running = 0;
  private readonly queue: (() => Promise<void>)[] = [];
  private idleWaiters: (() => void)[] = [];
  private firstError: unknown;
  constructor(private readonly limit: number) {}
  push(task: () => Promise<void>): void {
    this.queue.push(task);
    this.pump();
  }
  get pending(): number {
    return this.running + this.queue.length;
  }
  private pump(): void {
    while (this.running < this.limit && this.queue.length) {
      const task = this.queue.shift() as () => Promise<void>;
      this.running++;
      task().catch((err) => {
        this.firstError ??= err;
      }).finally(() => {
        this.running--;
        this.pump();
        if (this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
    }
  }
  async idle(): Promise<void> {
    if (this.pending > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
    if (this.firstError) throw this.firstError;
  }
  /** Forgets the tasks not started yet; returns how many. The running ones still finish (idle() waits for them). */
  dropQueued(): number {
    const n = this.queue.splice(0).length;
    if (this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
    return n;
  }
}

/**
 * Trajectory files a live simulation may have waiting to be written. Its clock is the wall clock times the speed, so
 * on a slow or loaded machine the samples come faster than their files can be written: past this backlog a sample's
 * files are left out (counted in the manifest), so memory stays bounded and stop() does not wait minutes for a queue.
 */
const LIVE_TRAJ_BACKLOG = 2_000;

// ---- offline -------------------------------------------------------------------------------------

export interface OfflineOptions extends SimOutputOptions {
  config?: Partial<SimConfig>;
  /** Stop after the rollout during which the log reaches this many bytes; noise is sized to get there. */
  targetBytes?: number;
  /** With targetBytes: this share of the bytes in look-alike lines (lookAlikes.ts), the rest of the noise as usual. */
  lookAlikeShare?: number;
  onProgress?: (bytes: number, rollout: number) => void;
  signal?: AbortSignal;
}

const CHUNK_BYTES = 8 * 1024 * 1024;

/** Average bytes of one rollout without noise and of one noise line, measured on a throwaway model. */
function measureShape(config: SimConfig): { rolloutBytes: number; noiseBytes: number; lookAlikeBytes: number } {
  let bytes = 0;
  let lines = 0;
  const sink: SimSink = { line: (_t, text) => { bytes += Buffer.byteLength(text) + 1; lines++; } };
  const probe = new SimulatedRun({ ...config, noiseLinesPerSecond: 0, lookAlikeLinesPerSecond: 0 });
  probe.startup(sink);
  const n = Math.min(3, config.numRollouts);
  bytes = 0;
  for (let i = 0; i < n; i++) probe.rollout(i, sink);
  const rolloutBytes = bytes / Math.max(1, n);
  const noise = new SimulatedRun({ ...config, noiseLinesPerSecond: 1, lookAlikeLinesPerSecond: 0 });
  bytes = 0;
  lines = 0;
  noise.noiseBetween(sink, 0, 2_000_000);
  const noiseBytes = lines ? bytes / lines : 150;
  const looks = new SimulatedRun({ ...config, noiseLinesPerSecond: 0, lookAlikeLinesPerSecond: 1 });
  bytes = 0;
  lines = 0;
  looks.noiseBetween(sink, 0, 2_000_000);
  return { rolloutBytes, noiseBytes, lookAlikeBytes: lines ? bytes / lines : 300 };
}

/** Generates a whole simulated run (or a log of `targetBytes`) as fast as possible. */
export async function generateOffline(opts: OfflineOptions): Promise<SimManifest> {
  const log = await prepareDir(opts);
  let config = new SimulatedRun(opts.config).config;
  if (opts.targetBytes !== undefined) {
    const shape = measureShape(config);
    const simSeconds = config.numRollouts * (config.rolloutSeconds + config.trainSeconds);
    const lookBytes = opts.targetBytes * (opts.lookAlikeShare ?? 0);
    const noiseBytes = Math.max(0, opts.targetBytes * 1.01 - shape.rolloutBytes * config.numRollouts - lookBytes);
    config = { ...config, noiseLinesPerSecond: noiseBytes / shape.noiseBytes / simSeconds };
    if (lookBytes > 0) config.lookAlikeLinesPerSecond = lookBytes / shape.lookAlikeBytes / simSeconds;
  }
  const model = new SimulatedRun(config);
  const counts = emptyCounts();
  const perRollout: SimManifest['rollouts'] = [];
  const trajLimit = opts.trajLimit ?? 0;
  const pool = new TaskPool(8);
  const fd = openSync(log, 'w');
  // Lines are encoded straight into one big buffer and written in CHUNK_BYTES pieces: no per-line syscalls,
  // no intermediate joined strings.
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let partChars = 0; // bytes buffered, not yet written
  const flush = () => {
    if (partChars === 0) return;
    writeSync(fd, buf, 0, partChars);
    counts.bytes += partChars;
    partChars = 0;
  };
  const sink: SimSink = {
    line: (_t, text) => {
      if (partChars + text.length * 3 + 1 > CHUNK_BYTES) {
        flush();
        if (text.length * 3 + 1 > CHUNK_BYTES) {
          const big = Buffer.from(text + '\n');
          writeSync(fd, big);
          counts.bytes += big.length;
          counts.lines++;
          return;
        }
      }
      partChars += buf.write(text, partChars);
      buf[partChars++] = 10;
      counts.lines++;
    },
    sample: (_t, s: SampleOutcome) => {
      if (counts.trajFiles >= trajLimit) return;
      for (const f of trajFiles(s, config.runName, config.startTimeMs)) {
        counts.trajFiles++;
        pool.push(() => writeJsonAtomic(path.join(opts.dir, f.rel), f.value));
      }
    },
    checkpoint: (_t, id) => {
      counts.checkpoints.push(id);
      if (opts.checkpoints) pool.push(() => writeCheckpoint(opts.dir, id));
    },
    rollout: (_t, s) => {
      addSummary(counts, s);
      perRollout.push({ rollout: s.rolloutId, trajectoryMean: s.trajectoryMean, sampleLines: s.sampleLines });
    },
  };
  let complete = true;
  try {
    model.startup(sink);
    for (let i = 0; i < config.numRollouts; i++) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      model.rollout(i, sink);
      if (pool.pending > 64) await pool.idle();
      if (opts.targetBytes !== undefined && counts.bytes + partChars >= opts.targetBytes) {
        flush();
        if (counts.bytes >= opts.targetBytes) {
          complete = i === config.numRollouts - 1;
          break;
        }
      }
      opts.onProgress?.(counts.bytes + partChars, i);
    }
    if (complete && config.finish) model.end(sink);
    flush();
  } finally {
    closeSync(fd);
  }
  await pool.idle();
  const manifest: SimManifest = {
    simulated: true,
    note: 'Simulated Dressage SWE-Gym run (swegym-console simulator); not real training output.',
    config,
    log: SIM_LOG_NAME,
    counts,
    rollouts: perRollout,
    complete,
  };
  await writeJsonAtomic(path.join(opts.dir, SIM_MANIFEST_NAME), manifest);
  return manifest;
}

// ---- live ----------------------------------------------------------------------------------------

export interface LiveOptions extends SimOutputOptions {
  config?: Partial<SimConfig>;
  /** Simulated seconds per wall-clock second (1 = real time). */
  speed?: number;
  /** How often lines are appended, ms. */
  tickMs?: number;
  signal?: AbortSignal;
  /** Trajectory files that may wait to be written before a sample's files are left out (LIVE_TRAJ_BACKLOG). */
  trajBacklog?: number;
}

export interface LiveSandbox {
  sessionId: string;
  kind: 'agent' | 'eval';
  instanceId: string;
  repo: string;
  ageMs: number;
  /** Agent steps so far (LLM calls), estimated from elapsed agent time. */
  steps: number;
  /** Agent steps of the whole session. */
  plannedSteps: number;
  /** Agent: the Claude Code turn has ended (its last step is done). */
  done: boolean;
}

export interface LiveSnapshot {
  simulated: true;
  phase: 'starting' | 'generating' | 'training' | 'finished' | 'stopped';
  rollout: number;
  samplesDone: number;
  samplesPerRollout: number;
  sandboxes: LiveSandbox[];
  linesWritten: number;
  bytesWritten: number;
}

/** How often live.json is rewritten (wall clock). */
const LIVE_STATE_INTERVAL_MS = 1000;

interface Queued {
  t: number;
  text?: string;
  sample?: SampleOutcome;
  checkpoint?: number;
  summary?: RolloutSummary;
}

/**
 * Appends a simulated run to `<dir>/run.log` at the pace of a real run (times `speed`). Timestamps are the
 * wall clock (t = 0 is when `start()` was called). `snapshot()` gives the live sandboxes and progress, for a
 * dashboard's labelled "simulated" data source.
 */
export class LiveSimulator {
  readonly model: SimulatedRun;
  private readonly opts: LiveOptions;
  private readonly speed: number;
  private fd: number | undefined;
  private queue: Queued[] = [];
  private qHead = 0;
  private nextRollout = 0;
  private generatedUntil = 0;
  private wallStart = 0;
  private timer: NodeJS.Timeout | undefined;
  private planned: SampleOutcome[] = [];
  private plannedRollout = -1;
  private doneThisRollout = 0;
  private currentRollout = -1;
  private phase: LiveSnapshot['phase'] = 'starting';
  private readonly pool = new TaskPool(4);
  private trajSamples = 0;
  private finishedResolve: (() => void) | undefined;
  readonly finished: Promise<void>;
  readonly counts = emptyCounts();
  private error: unknown;

  constructor(opts: LiveOptions) {
    this.opts = opts;
    this.speed = opts.speed ?? 1;
    this.model = new SimulatedRun({ ...opts.config, startTimeMs: opts.config?.startTimeMs ?? Date.now() });
    this.finished = new Promise<void>((r) => (this.finishedResolve = r));
  }

  get logFile(): string {
    return path.join(this.opts.dir, SIM_LOG_NAME);
  }

  async start(): Promise<void> {
    const log = await prepareDir(this.opts);
    this.fd = openSync(log, 'w');
    this.wallStart = Date.now();
    const sink = this.queueSink();
    this.model.startup(sink);
    this.generatedUntil = this.model.rolloutStartMs(0);
    await this.writeManifest(false);
    // live.json exists once start() returns, so a reader opening the run now sees its speed and phase.
    this.liveWrittenAt = Date.now();
    await writeJsonAtomic(liveStateFile(this.opts.dir), this.liveState());
    this.timer = setInterval(() => this.tick(), this.opts.tickMs ?? 100);
    this.opts.signal?.addEventListener('abort', () => void this.stop(), { once: true });
    // Aborted while start() was preparing (a SIGTERM in the console's first moments): the event has already fired.
    if (this.opts.signal?.aborted) {
      void this.stop();
      return;
    }
    this.tick();
  }

  private queueSink(): SimSink {
    return {
      line: (t, text) => this.queue.push({ t, text }),
      sample: (t, s) => this.queue.push({ t, sample: s }),
      checkpoint: (t, id) => this.queue.push({ t, checkpoint: id }),
      rollout: (t, summary) => this.queue.push({ t, summary }),
      plan: (id, samples) => {
        this.pendingPlans.push({ id, samples: [...samples] });
      },
    };
  }

  private pendingPlans: { id: number; samples: SampleOutcome[] }[] = [];

  /** Simulated ms now. */
  now(): number {
    return (Date.now() - this.wallStart) * this.speed;
  }

  private tick(): void {
    if (this.fd === undefined) return;
    const now = this.now();
    const c = this.model.config;
    // Keep one rollout of lines generated ahead of the clock.
    while (this.generatedUntil <= now + 1000 && this.nextRollout < c.numRollouts) {
      this.model.rollout(this.nextRollout, this.queueSink());
      this.nextRollout++;
      this.generatedUntil = this.model.rolloutStartMs(this.nextRollout);
      if (this.nextRollout === c.numRollouts && c.finish) this.model.end(this.queueSink());
    }
    const out: string[] = [];
    while (this.qHead < this.queue.length && (this.queue[this.qHead] as Queued).t <= now) {
      const q = this.queue[this.qHead++] as Queued;
      if (q.text !== undefined) {
        out.push(q.text, '\n');
        this.counts.lines++;
      }
      if (q.sample) this.onSample(q.sample);
      if (q.checkpoint !== undefined) {
        this.counts.checkpoints.push(q.checkpoint);
        if (this.opts.checkpoints) {
          const id = q.checkpoint;
          this.pool.push(() => writeCheckpoint(this.opts.dir, id));
        }
      }
      if (q.summary) {
        addSummary(this.counts, q.summary);
        this.phase = 'training';
      }
    }
    if (this.qHead > 50_000) {
      this.queue = this.queue.slice(this.qHead);
      this.qHead = 0;
    }
    // Plans become current when their rollout starts.
    while (this.pendingPlans.length && this.model.rolloutStartMs((this.pendingPlans[0] as { id: number }).id) <= now) {
      const p = this.pendingPlans.shift() as { id: number; samples: SampleOutcome[] };
      this.planned = p.samples;
      this.plannedRollout = p.id;
      this.currentRollout = p.id;
      this.doneThisRollout = 0;
      this.phase = 'generating';
    }
    if (out.length) {
      const buf = Buffer.from(out.join(''));
      try {
        writeSync(this.fd, buf);
        this.counts.bytes += buf.length;
      } catch (err) {
        this.error = err;
        void this.stop();
        return;
      }
    }
    if (this.qHead >= this.queue.length && this.nextRollout >= c.numRollouts) {
      this.phase = 'finished';
      void this.stop();
      return;
    }
    if (Date.now() - this.liveWrittenAt >= LIVE_STATE_INTERVAL_MS) this.writeLiveState();
  }

  private onSample(s: SampleOutcome): void {
    if (s.rolloutId === this.plannedRollout) this.doneThisRollout++;
    const limit = this.opts.trajLimit ?? Infinity;
    if (this.trajSamples >= limit) return;
    const files = trajFiles(s, this.model.config.runName, this.model.config.startTimeMs);
    if (this.pool.pending >= (this.opts.trajBacklog ?? LIVE_TRAJ_BACKLOG)) {
      this.counts.trajFilesLeftOut = (this.counts.trajFilesLeftOut ?? 0) + files.length;
      return;
    }
    this.trajSamples++;
    for (const f of files) {
      this.counts.trajFiles++;
      this.pool.push(() => writeJsonAtomic(path.join(this.opts.dir, f.rel), f.value));
    }
  }

  snapshot(): LiveSnapshot {
    const now = this.now();
    const sandboxes: LiveSandbox[] = [];
    if (this.phase === 'generating') {
      for (const s of this.planned) {
        if (s.startMs > now || s.endMs <= now) continue;
        // Dressage kills the agent sandbox once the patch is extracted and grades in a fresh one (recipe §4.4, §5).
        const agentEnd = s.aborted ? s.endMs : s.evalStartMs;
        if (now < agentEnd) {
          const steps = Math.min(s.numSteps, Math.ceil((s.numSteps * (now - s.startMs)) / Math.max(1, agentEnd - s.startMs)));
          sandboxes.push({ sessionId: s.sessionId, kind: 'agent', instanceId: s.task.instanceId, repo: s.task.repo, ageMs: now - s.startMs, steps, plannedSteps: s.numSteps, done: steps >= s.numSteps });
        } else if (!s.aborted) {
          sandboxes.push({ sessionId: s.evalSessionId, kind: 'eval', instanceId: s.task.instanceId, repo: s.task.repo, ageMs: now - s.evalStartMs, steps: 0, plannedSteps: 0, done: false });
        }
      }
    }
    return {
      simulated: true,
      phase: this.phase,
      rollout: Math.max(0, this.currentRollout),
      samplesDone: this.doneThisRollout,
      samplesPerRollout: this.model.samplesPerRollout,
      sandboxes,
      linesWritten: this.counts.lines,
      bytesWritten: this.counts.bytes,
    };
  }

  /** What live.json holds now: the stand-in for E2B's list, the proxy's /health and nvidia-smi. */
  liveState(): SimLiveState {
    const snap = this.snapshot();
    const wallNow = Date.now();
    return {
      simulated: true,
      at: wallNow,
      phase: snap.phase,
      rollout: snap.rollout,
      samplesDone: snap.samplesDone,
      samplesPerRollout: snap.samplesPerRollout,
      gpusPerNode: this.model.config.gpusPerNode,
      nodes: this.model.config.actorNumNodes,
      speed: this.speed,
      sandboxes: snap.sandboxes.map((b) => ({
        id: simulatedSandboxId(b.sessionId),
        kind: b.kind,
        trajectoryId: b.sessionId,
        instanceId: b.instanceId,
        repo: b.repo,
        template: simulatedTemplate(b.instanceId, b.repo),
        startedAt: Math.round(wallNow - b.ageMs),
        steps: b.steps,
        plannedSteps: b.plannedSteps,
        done: b.done,
      })),
    };
  }

  private liveWriting: Promise<void> | undefined;
  private liveWrittenAt = 0;

  /** Rewrites live.json (atomically) unless a write is still in flight. */
  private writeLiveState(): void {
    if (this.liveWriting) return;
    this.liveWrittenAt = Date.now();
    this.liveWriting = writeJsonAtomic(liveStateFile(this.opts.dir), this.liveState())
      .catch(() => {})
      .finally(() => {
        this.liveWriting = undefined;
      });
  }

  private async writeManifest(complete: boolean): Promise<void> {
    const manifest: SimManifest = {
      simulated: true,
      note: 'Simulated Dressage SWE-Gym run (swegym-console simulator, live mode); not real training output.',
      config: this.model.config,
      log: SIM_LOG_NAME,
      counts: this.counts,
      rollouts: [],
      complete,
    };
    await writeJsonAtomic(path.join(this.opts.dir, SIM_MANIFEST_NAME), manifest);
  }

  private stopping: Promise<void> | undefined;

  /** Stops appending; waits for pending traj writes; records the counts. Safe to call more than once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      if (this.phase !== 'finished') this.phase = 'stopped';
      if (this.fd !== undefined) {
        closeSync(this.fd);
        this.fd = undefined;
      }
      try {
        // A run stopped before its end writes no more trajectories: what is queued is dropped, what is being
        // written finishes. A finished run writes them all.
        if (this.phase !== 'finished') {
          const dropped = this.pool.dropQueued();
          if (dropped) this.counts.trajFilesLeftOut = (this.counts.trajFilesLeftOut ?? 0) + dropped;
        }
        await this.pool.idle();
        await this.liveWriting;
        // The final state (no sandboxes; finished or stopped) so that a reader does not wait for staleness.
        if (this.wallStart) await writeJsonAtomic(liveStateFile(this.opts.dir), this.liveState());
        await this.writeManifest(this.phase === 'finished');
      } finally {
        this.finishedResolve?.();
      }
      if (this.error) throw this.error;
    })();
    return this.stopping;
  }
}
