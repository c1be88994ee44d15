// The dashboard's monitor of one run: the run is followed by the same job as `monitor RUN` headless (followJob.ts:
// the log, its follower, the run's state); this adds what only the dashboard shows (GPUs, the Ray cluster, the
// Dressage proxy, the sandboxes and their agent logs, trajectories, checkpoints: sources/types.ts, picked once per
// run by the composition root) and publishes a snapshot into the monitor store at most `hz` times a second when
// something changed. Nothing here touches React; the dashboard only reads the store.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import type { SandboxProvider } from '../sandbox/types.js';
import type { MonitorStore, MonitorSnapshot, ReadingProgress } from '../../state/monitor.js';
import { RunModel, phaseLabel } from './runModel.js';
import { resolveMonitorTarget, type MonitorTarget } from './resolve.js';
import { RunFollowJob, LIVE_TAIL_BYTES, type RunFollowEvent } from './followJob.js';
import { GpuMonitor, type GpuRunner } from './gpu.js';
import { proxyUrlFrom, type ProxyHealth } from './proxy.js';
import type { SandboxSnapshot } from './sandboxes.js';
import { computeAlerts } from './alerts.js';
import type { Liveness } from './liveness.js';
import { rayDashboardUrlFrom } from './rayCluster.js';
import { ClusterGpuHistory, clusterGpuAlerts, gpuPanelView } from './clusterGpus.js';
import { RealRunSources } from './sources/real.js';
import type { RunSources, RunSourcesPicker } from './sources/types.js';
import { CurveView } from './curves.js';
import { feedRows, rolloutRows, streamSnapshot, taskRowsOf, type DrillStream } from './snapshotRows.js';
import { loadTrajectory, type TrajectoryEntry, type TrajectoryView } from './offline.js';
import { TrajectoryIndex } from './trajIndex.js';
import { logResetText } from './logReset.js';
import { ConsoleError, formatError } from '../errors.js';
import { pollEvery } from '../util/poll.js';
import { redact } from '../secrets.js';
import { wandbLinesInLog, wandbRun } from '../train/wandb.js';
import { sandboxEnding, summarizeUsage, usageLine } from '../sandbox/usage.js';
import { readRun } from '../train/registry.js';
import { setting } from '../config/envSettings.js';
import { startTicker, type Ticker } from '../jobs/publish.js';

/** Charts: [key, label, source]. Keys exactly as slime/Dressage log them (recipe §6.5). */
export const CHARTS: [string, string, 'step' | 'rollout'][] = [
  ['rollout/raw_reward_trajectory_mean', 'reward (trajectory mean)', 'rollout'],
  ['rollout/raw_reward', 'raw reward', 'rollout'],
  ['train/loss', 'loss', 'step'],
  ['train/grad_norm', 'grad norm', 'step'],
  ['train/kl_loss', 'KL loss', 'step'],
  ['train/train_rollout_logprob_abs_diff', 'train/rollout logprob diff', 'step'],
  ['rollout/response_len/mean', 'response length', 'rollout'],
];

/** Snapshots published during the first read of a log, at most this often (ms; MonitorServiceOptions.readingRefreshMs). */
export const READING_REFRESH_MS = 500;

/** Default data refresh of a live dashboard, ms (MonitorServiceOptions.refreshMs). */
export const DEFAULT_REFRESH_MS = 2000;

/**
 * GPU polls per sparkline column (5 × the 2 s poll = 10 s). A column that moved on every poll would shift the whole
 * sparkline, and so rewrite it on the terminal, every 2 s; this way only its last column changes in between, and
 * the same width shows 5× the history. See bench/README.md (dashboard).
 */
export const GPU_SPARK_BUCKET = 5;

/** Trajectory files kept for the browser (the newest). */
const TRAJ_KEEP = 5000;

export interface MonitorServiceOptions {
  paths: RecipePaths;
  store: MonitorStore;
  env?: NodeJS.ProcessEnv;
  /** How often publishing is considered (Hz); 5 by default. */
  hz?: number;
  /**
   * Data refresh: a live run's snapshot is published at most this often (ms; 2000 by default, like htop's 1.5 s
   * delay). Every refresh redraws what changed (header, sample feed), so this sets what crosses SSH; keys and
   * opening a view answer at once. See bench/README.md (dashboard).
   */
  refreshMs?: number;
  clock?: () => number;
  /**
   * During the first read of a log, a snapshot of what was read so far (partial counters, front to back) is
   * published after the first chunk and then at most this often (ms of `clock`; 500 by default), so that a large
   * log shows numbers at once and they grow to the whole log's. 0: after every chunk (tests).
   */
  readingRefreshMs?: number;
  /** Bytes read at a time on the first read (RunFollowOptions.readChunkBytes). */
  readChunkBytes?: number;
  gpuRunner?: GpuRunner;
  /** The sandbox provider for the sandboxes panel; undefined = no panel. Created lazily. */
  provider?: () => Promise<SandboxProvider | undefined>;
  /** E2B concurrent sandbox limit of the plan (Hobby 20, Pro 100). */
  sandboxLimit?: number;
  rayDashboardUrl?: string;
  /** Picks the run's live sources when it is opened (src/app/monitorSources.ts); the real sources by default. */
  sources?: RunSourcesPicker;
  /** The `ray` executable (for `ray job logs -f`). */
  rayBin?: string;
  fetchImpl?: typeof fetch;
  /** Start live reads this far from the end unless fromStart (1 GiB: whole-run curves for almost every run). */
  tailBytes?: number;
  pollMs?: { log?: number; gpu?: number; proxy?: number; sandboxes?: number; ray?: number; stream?: number; checkpoint?: number; agents?: number; trajectories?: number; sources?: number; writer?: number; cluster?: number };
  /** The newest records of a followed run kept as objects (RunFollowOptions.unpackedRecords). */
  unpackedRecords?: number;
  /** Agent sandboxes whose Claude Code log is read per refresh (steps, last tool call). */
  agentProgressBatch?: number;
}

/** The first read's progress with the time left at the rate so far (none in its first half second). */
export function readingProgress(e: { bytes: number; total: number }, logFile: string | undefined, now: number, startedAt: number): ReadingProgress {
  const elapsed = (now - startedAt) / 1000;
  const rate = elapsed >= 0.5 && e.bytes > 0 ? e.bytes / elapsed : undefined;
  return { bytes: e.bytes, total: e.total, ...(logFile ? { file: path.basename(logFile) } : {}), ...(rate ? { etaSec: Math.max(0, (e.total - e.bytes) / rate) } : {}) };
}

export class MonitorService {
  target: MonitorTarget | undefined;
  /** The open run's follow job (the same job `monitor RUN` runs headless). */
  private job: RunFollowJob | undefined;
  private gpu: GpuMonitor | undefined;
  private timers: ReturnType<typeof setInterval>[] = [];
  private ticker: Ticker | undefined;
  private published = -1;
  private publishedAt = -Infinity;
  private dirty = 0;
  private proxyLast: ProxyHealth | undefined;
  private proxyFailures = 0;
  private sandboxes: SandboxSnapshot | undefined;
  private sources: RunSources | undefined;
  private readonly cluster = new ClusterGpuHistory();
  private stream: DrillStream | undefined;
  private trajectories: TrajectoryEntry[] = [];
  /** Remembers what was listed: each refresh lists only what is new. */
  private trajIndex: TrajectoryIndex | undefined;
  private trajectory: TrajectoryView | undefined;
  private live = false;
  private simulated = false;
  private generation = 0;
  private lastOpen: { arg: string | undefined; opts: { fromStart?: boolean; live?: boolean } } | undefined;
  /** The first read of the log while it goes (undefined once done): a header drawn meanwhile says so. */
  private reading: ReadingProgress | undefined;
  private readStartedAt: number | undefined;
  /** Clock ms of the last snapshot published during the first read (undefined: none yet in this read). */
  private readingPublishedAt: number | undefined;
  readonly clock: () => number;
  /** The curves: the large view's metric and a compared run (src/services/monitor/curves.ts). */
  readonly curves = new CurveView(
    () => {
      this.dirty++;
      this.publish(true);
    },
    () => ({ paths: this.opts.paths, openRun: this.target?.name }),
  );

  constructor(private readonly opts: MonitorServiceOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  get store(): MonitorStore {
    return this.opts.store;
  }

  /** The open run's model. */
  get model(): RunModel | undefined {
    return this.job?.model;
  }

  /** Opens a run (registry name, run dir or log file; undefined = newest). Replaces any open run. */
  async open(arg?: string, opts: { fromStart?: boolean; live?: boolean } = {}): Promise<void> {
    this.lastOpen = { arg, opts };
    const store = this.opts.store;
    // Synchronously, so that a screen mounting meanwhile sees 'loading' and does not open another run.
    store.getState().set({ status: 'loading', error: undefined, loading: undefined, snapshot: undefined, detail: 'none' });
    await this.close();
    const gen = ++this.generation;
    this.reading = undefined;
    this.readStartedAt = undefined;
    this.readingPublishedAt = undefined;
    let target: MonitorTarget;
    try {
      target = await resolveMonitorTarget(arg, this.opts.paths);
    } catch (err) {
      store.getState().set({ status: 'error', error: err instanceof ConsoleError ? formatError(err) : (err as Error).message });
      return;
    }
    const o = this.opts;
    const live = opts.live ?? true;
    const job = new RunFollowJob(target, {
      paths: o.paths,
      // The picker is asked once per run; the follow job and this service's pollers share what it picked.
      sources: async (t) => {
        const picked = await (o.sources ?? ((x: MonitorTarget) => Promise.resolve(this.defaultSources(x))))(t);
        if (gen === this.generation) this.sources = picked;
        return picked;
      },
      clock: this.clock,
      fromStart: opts.fromStart,
      tailBytes: o.tailBytes ?? LIVE_TAIL_BYTES,
      readChunkBytes: o.readChunkBytes,
      live,
      unpackedRecords: o.unpackedRecords,
      rayAddress: o.rayDashboardUrl,
      rayBin: o.rayBin ?? (o.env ? setting(o.env, 'SWEGYM_RAY_BIN') : undefined),
      pollMs: { log: o.pollMs?.log, writer: o.pollMs?.writer, ray: o.pollMs?.ray },
      onEvent: (e) => this.onFollowEvent(gen, e),
    });
    this.target = target;
    this.job = job;
    this.live = live;
    await this.readCheckpoint();
    this.wandb = undefined;
    this.wandbDone = false;
    await this.readWandb();
    try {
      if (target.runDir) {
        this.trajIndex = new TrajectoryIndex(target.runDir, target.runName);
        this.trajectories = await this.trajIndex.refresh(TRAJ_KEEP);
      }
      if (gen !== this.generation) return;
      // Reads the log (or starts `ray job logs -f`) and knows the run's state before the first frame.
      await job.open();
      this.simulated = job.simulated;
    } catch (err) {
      if (gen !== this.generation) return;
      store.getState().set({ status: 'error', error: err instanceof ConsoleError ? formatError(err) : `Cannot read ${target.logFile}: ${(err as Error).message}` });
      return;
    }
    if (gen !== this.generation) return;
    store.getState().set({ status: this.live ? 'live' : 'offline', loading: undefined });
    if (this.live) this.startPollers();
    this.startTicker();
    this.publish(true);
  }

  /** Opens the last run again (after an error, or to re-read from scratch). */
  reopen(): Promise<void> {
    return this.open(this.lastOpen?.arg, this.lastOpen?.opts ?? {});
  }

  /** The follow job's events the dashboard shows: the first read's progress; the rest it reads from the job. */
  private onFollowEvent(gen: number, e: RunFollowEvent): void {
    if (gen !== this.generation) return;
    if (e.type === 'reading') {
      const now = this.clock();
      this.reading = readingProgress(e, this.target?.logFile, now, (this.readStartedAt ??= now));
      // What is read so far, as it is read: the first chunk's numbers at once, then every readingRefreshMs.
      const every = this.opts.readingRefreshMs ?? READING_REFRESH_MS;
      const due = e.bytes > 0 && (this.readingPublishedAt === undefined || now - this.readingPublishedAt >= every);
      if (due && this.job) {
        this.readingPublishedAt = now;
        this.opts.store.getState().set({ loading: this.reading, snapshot: this.snapshot() });
      } else this.opts.store.getState().set({ loading: this.reading });
    } else if (e.type === 'read') this.reading = undefined;
    else if (e.type === 'state' || e.type === 'stream-ended') this.dirty++;
  }

  /** The real sources built from this service's options (when no picker is given). */
  private defaultSources(target: MonitorTarget): RunSources {
    const o = this.opts;
    return new RealRunSources({ paths: o.paths, target, provider: o.provider, rayDashboardUrl: rayDashboardUrlFrom(o.env ?? {}, o.rayDashboardUrl), gpuRunner: o.gpuRunner, fetchImpl: o.fetchImpl, clock: this.clock, agentProgressBatch: o.agentProgressBatch });
  }

  private startPollers(): void {
    const p = this.opts.pollMs ?? {};
    const sources = this.sources as RunSources;
    this.gpu = new GpuMonitor(this.opts.gpuRunner ?? sources.localGpus, { intervalMs: p.gpu ?? 2000, clock: this.clock });
    this.gpu.start();
    const every = (ms: number, f: () => Promise<void>) => this.timers.push(pollEvery(ms, f, { immediate: true }));
    if (sources.refresh) every(p.sources ?? 1000, () => sources.refresh!());
    every(p.proxy ?? 5000, () => this.pollProxy());
    // E2B's list every 10 s of the run's time: a simulation played faster is listed faster, or its sandboxes would
    // be gone before they are shown.
    every(p.sandboxes ?? Math.round(10_000 / sources.speed), () => this.pollSandboxes());
    every(p.cluster ?? 5000, () => this.pollCluster());
    every(p.checkpoint ?? 60_000, () => this.readCheckpoint());
    every(p.checkpoint ?? 60_000, () => this.readWandb());
    every(p.trajectories ?? 120_000, () => this.refreshTrajectories());
    if (sources.refreshAgentProgress) every(p.agents ?? 30_000, () => this.pollAgentProgress());
    every(p.stream ?? 3000, () => this.pollStream());
  }

  /** The open run's state (the follow job's; exported for tests). */
  liveness(): Liveness | undefined {
    return this.job?.liveness();
  }

  async pollProxy(): Promise<void> {
    const sources = this.sources;
    if (!sources) return;
    const h = await sources.proxyHealth(proxyUrlFrom(this.model?.effective ?? {}, this.target?.proxyUrl));
    if (!h || this.sources !== sources) return;
    this.proxyLast = h;
    this.proxyFailures = h.ok ? 0 : this.proxyFailures + 1;
    this.dirty++;
  }

  async pollSandboxes(): Promise<void> {
    const sources = this.sources;
    if (!sources) return;
    const snap = await sources.listSandboxes(this.opts.sandboxLimit ?? 100);
    if (!snap || this.sources !== sources) return;
    this.noteEndings(this.sandboxes, snap);
    this.sandboxes = snap;
    this.dirty++;
  }

  /** How each sandbox that left the list ended (its endAt against the listings around its going), newest kept. */
  private readonly endings = new Map<string, string>();

  private noteEndings(before: SandboxSnapshot | undefined, after: SandboxSnapshot): void {
    if (!before?.ok || !after.ok) return;
    const now = new Set(after.rows.map((r) => r.id));
    for (const r of before.rows) {
      if (now.has(r.id)) continue;
      this.endings.set(r.id, sandboxEnding({ endAt: r.endAt, seenAt: before.at, goneAt: after.at }).detail);
      if (this.endings.size > 2000) this.endings.delete(this.endings.keys().next().value as string);
    }
    if (this.stream && !this.stream.ending) this.stream.ending = this.endings.get(this.stream.id);
  }

  /** Reads steps and the last tool call of a few agent sandboxes (real runs: one E2B command each). */
  async pollAgentProgress(): Promise<void> {
    await this.sources?.refreshAgentProgress?.();
    this.dirty++;
  }

  /** Every node's GPUs from the Ray dashboard (this node's nvidia-smi stays the fallback). */
  async pollCluster(): Promise<void> {
    const sources = this.sources;
    if (!sources) return;
    const r = await sources.clusterGpus();
    if (this.sources !== sources) return;
    this.cluster.ingest(r, this.clock());
    this.dirty++;
  }

  /** Drill into one sandbox: follow its Claude Code stream-json log. */
  async followSandbox(id: string | undefined, trajectoryId?: string): Promise<void> {
    // A key press: shown at once, not at the next data refresh.
    if (!id) {
      this.stream = undefined;
      this.dirty++;
      this.publish(true);
      return;
    }
    // The row the operator picked may already have left the newest list (it is re-listed more often than drawn):
    // its trajectory id then comes with the key press, so the finished sample's transcript can still be found.
    this.stream = { id, trajectoryId: this.sandboxes?.rows.find((r) => r.id === id)?.trajectoryId ?? trajectoryId, events: [], steps: undefined, error: undefined };
    this.dirty++;
    this.publish(true);
    await this.pollStream();
    if (this.stream?.id === id) this.publish(true);
  }

  async pollStream(): Promise<void> {
    const s = this.stream;
    // A finished sample's transcript comes from its trajectory files, which do not change.
    if (!s || s.transcript) return;
    const sources = this.sources;
    if (!sources) return;
    try {
      const p = await sources.agentProgress(s.id, { sandbox: s.sandbox });
      if (this.stream !== s) return;
      s.sandbox = p.sandbox;
      // A sandbox that ended (its sample finished) answers with an error and no events: keep the log read while it
      // ran, so the transcript does not vanish before its trajectory files are found.
      if (!p.error || p.events.length > 0) {
        s.events = p.events;
        s.steps = p.steps;
      }
      s.error = p.error;
      if (p.agent && p.agent.events > 0) s.agent = p.agent;
    } catch (err) {
      s.error = (err as Error).message;
    }
    // E2B's own CPU/memory of the sandbox: a task killed for memory shows its memory at the limit.
    // Asked even when its log cannot be read yet (no runtime): a sandbox that is gone answers 404, caught.
    if (sources.sandboxMetrics) {
      try {
        const u = summarizeUsage(await sources.sandboxMetrics(s.id));
        if (this.stream === s && u) s.usage = usageLine(u);
      } catch {}
    }
    s.ending ??= this.endings.get(s.id);
    if (s.error) await this.finishedTranscript(s);
    this.dirty++;
  }

  /**
   * The sandbox cannot be read (gone, killed): when its sample finished, Dressage wrote its trajectory files
   * (traj_payload / traj_err, named by the session id = the sandbox's trajectory_id); show those instead.
   */
  private async finishedTranscript(s: DrillStream): Promise<void> {
    const tid = s.trajectoryId;
    if (!tid || !this.target?.runDir) return;
    const safe = tid.replace(/[^A-Za-z0-9._-]/g, '_');
    const find = () => this.trajectories.find((e) => e.session === tid || e.session === safe);
    let entry = find();
    // The listing is refreshed every 2 min (incrementally); a sample that just finished is looked for at most every 10 s.
    if (!entry && this.clock() - (s.relistedAt ?? -Infinity) >= 10_000) {
      s.relistedAt = this.clock();
      if (this.trajIndex) this.trajectories = await this.trajIndex.refresh(TRAJ_KEEP);
      entry = find();
    }
    if (!entry || this.stream !== s) return;
    s.transcript = await loadTrajectory(entry);
    s.error = undefined;
  }

  async openTrajectory(entry: TrajectoryEntry | undefined): Promise<void> {
    this.trajectory = entry ? await loadTrajectory(entry) : undefined;
    this.dirty++;
    this.publish(true);
  }

  /** Re-lists the trajectory files (offline browser refresh). */
  async refreshTrajectories(): Promise<void> {
    if (this.trajIndex) this.trajectories = await this.trajIndex.refresh(TRAJ_KEEP);
    this.dirty++;
    this.publish(true);
  }

  private startTicker(): void {
    this.ticker = startTicker(() => this.publish(), { hz: this.opts.hz ?? 5, unref: true });
  }

  /** Builds and publishes a snapshot when the model or a live source changed (or `force`). */
  publish(force = false): void {
    const m = this.model;
    if (!m) return;
    const v = m.version + (this.dirty + (this.job?.version ?? 0)) * 1_000_003 + (this.gpu?.version ?? 0) * 7919;
    if (!force && v === this.published) return;
    // Changes wait for the next refresh; the ticker comes back until then.
    const now = performance.now();
    if (!force && now - this.publishedAt < (this.opts.refreshMs ?? DEFAULT_REFRESH_MS)) return;
    this.publishedAt = now;
    this.published = v;
    this.opts.store.getState().set({ snapshot: this.snapshot() });
  }

  /** The snapshot the dashboard renders (bounded: only what panels can show). */
  snapshot(): MonitorSnapshot {
    const m = this.model as RunModel;
    const now = this.clock();
    const rs = m.sortedRollouts();
    const { charts, curves } = this.curves.build(m, CHARTS);
    const rollouts = rolloutRows(rs);
    const feed = feedRows(m);
    const ts = m.taskSummary();
    const taskRows = taskRowsOf(ts);
    const phase = m.phase;
    const gpuLatest = this.gpu?.latest ?? [];
    const util: Record<number, number[]> = {};
    const mem: Record<number, number[]> = {};
    for (const [i, h] of this.gpu?.history ?? []) {
      util[i] = h.util.bucketMeans(GPU_SPARK_BUCKET);
      mem[i] = h.mem.bucketMeans(GPU_SPARK_BUCKET);
    }
    const ck = m.lastCheckpoint;
    const liveness = this.liveness();
    const gpuPanel = gpuPanelView(this.cluster, { latest: gpuLatest, history: this.gpu?.history ?? new Map(), error: this.gpu?.error, bucket: GPU_SPARK_BUCKET }, this.sources?.localNodeLabel ?? 'this node (nvidia-smi)');
    return {
      version: m.version,
      header: {
        run: this.target?.name ?? m.name ?? '',
        source: this.target?.rayJob ? `ray job logs ${this.target.rayJob}` : this.target?.logFile ? path.basename(this.target.logFile) : this.target?.runDir ?? '',
        phase: phaseLabel(phase),
        phaseKind: phase.kind,
        rollout: m.inProgressRollout,
        totalRollouts: m.numRollout,
        samplesDone: m.pending.total,
        samplesPerRollout: m.samplesPerRollout,
        elapsedMs: m.firstAt !== undefined && m.lastAt !== undefined ? m.lastAt - m.firstAt : undefined,
        // An ETA only while the run runs: a stalled, crashed or finished run has none.
        etaSec: liveness?.state === 'running' ? m.etaSeconds() : undefined,
        lastCheckpoint: ck ? `iter ${ck.iteration}` : this.checkpointFromDisk,
        rayNodes: m.rayNodes ? `${m.rayNodes.count}/${m.rayNodes.expected}` : undefined,
        router: m.router ? `${m.router.host}:${m.router.port}` : undefined,
        ...(this.wandb ? { wandb: this.wandb } : {}),
        simulated: this.simulated,
        // Before the first read is done the log's end is not known: no state, and the counters are partial.
        liveness: this.reading ? undefined : liveness,
        ...(this.reading ? { reading: this.reading } : {}),
      },
      charts,
      curves,
      rollouts,
      feed,
      // Log text may carry secrets (URLs with tokens, echoed env): redacted before it reaches the screen.
      failures: m.failures.tail(200).map((f) => ({ rollout: f.rollout, kind: f.kind, text: redact(f.text) })),
      totals: m.totals,
      tasks: { always: ts.always, sometimes: ts.sometimes, never: ts.never, rows: taskRows },
      alerts: [
        ...(this.job?.streamError ? [{ id: 'ray-job-logs', level: 'fail' as const, text: this.job.streamError }] : []),
        // GPU thresholds over what the panel shows: every node's GPUs when Ray gives them, else this node's.
        ...computeAlerts({ model: m, now, proxy: { last: this.proxyLast, consecutiveFailures: this.proxyFailures }, sandboxes: this.sandboxes, gpus: gpuPanel.source === 'ray' ? [] : gpuLatest, live: this.live, liveness }),
        ...(gpuPanel.source === 'ray' ? clusterGpuAlerts(gpuPanel) : []),
        // A log replaced or truncated under the follower was read again from its start: say so, or the totals
        // dropping (or not doubling) would be a mystery.
        ...(this.job?.logResets.slice(-1) ?? []).map((r) => ({ id: 'log-reset', level: 'warn' as const, text: logResetText(r, this.target?.logFile) })),
      ].map((a) => ({ ...a, text: redact(a.text) })),
      gpus: { latest: gpuLatest, util, mem, error: this.gpu?.error },
      gpuPanel,
      rayNodes: this.cluster.nodes.length ? this.cluster.nodes.map((n) => ({ id: n.id, ip: n.ip, name: n.hostname, state: n.state, isHead: n.isHead, gpus: n.gpus.length })) : undefined,
      proxy: { url: proxyUrlFrom(m.effective, this.target?.proxyUrl), last: this.proxyLast, failures: this.proxyFailures },
      sandboxes: this.sandboxes,
      sandboxStream: this.stream ? streamSnapshot(this.stream) : undefined,
      trajectories: this.trajectories.slice(0, 2000),
      ...(this.target?.runDir ? { trajectoryRoot: { runName: this.target.runName, from: this.target.runNameFrom } } : {}),
      trajectory: this.trajectory,
      live: this.live,
    };
  }

  private checkpointFromDisk: string | undefined;
  private wandb: string | undefined;
  private wandbDone = false;

  /** The W&B run of a registry run that turned W&B on: its link (or offline dir), once wandb has logged it. */
  async readWandb(): Promise<void> {
    const t = this.target;
    if (this.wandbDone || !t?.registryName) return;
    try {
      const rec = await readRun(this.opts.paths, t.registryName);
      if (!rec) return;
      const lines = t.logFile ? await wandbLinesInLog(t.logFile) : {};
      const w = wandbRun({ ...rec.config.effective, ...rec.config.explicit }, lines);
      this.wandb = w ? redact(w.summary) : undefined;
      // Settled once wandb named the run (or W&B is off): not read again.
      this.wandbDone = !w || w.runUrl !== undefined || w.dir !== undefined;
    } catch {}
  }

  /** Reads latest_checkpointed_iteration.txt (Megatron layout, recipe §6.3). */
  async readCheckpoint(): Promise<void> {
    const dir = this.target?.checkpointDir;
    if (!dir) return;
    try {
      const text = (await readFile(path.join(dir, 'latest_checkpointed_iteration.txt'), 'utf8')).trim();
      if (/^\d+$/.test(text)) this.checkpointFromDisk = `iter ${Number(text)} (disk)`;
    } catch {}
  }

  async close(): Promise<void> {
    this.generation++;
    this.ticker?.stop();
    this.ticker = undefined;
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.gpu?.stop();
    this.gpu = undefined;
    const job = this.job;
    this.job = undefined;
    await job?.close();
    this.stream = undefined;
    this.trajectory = undefined;
    this.trajectories = [];
    this.trajIndex = undefined;
    this.sandboxes = undefined;
    this.proxyLast = undefined;
    this.proxyFailures = 0;
    this.sources = undefined;
    this.cluster.ingest({ ok: true, value: [] }, this.clock());
  }

  dispose(): void {
    void this.close();
  }
}
