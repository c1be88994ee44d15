// The bounded model of one run, fed line by line from its log: training steps, rollout summaries, per-sample
// reward lines (grouped per rollout), failures, launcher facts, and the derived phase. Every collection is capped.
import type { PyDict } from './pyReprParse.js';
import { toJsonSafe } from './pyReprParse.js';
import { parseLine, metricNumber, type HangSignature, type LogEvent, type ParsedEvent, type SampleLine, type SummaryKind } from './lines.js';
import { CappedMap, OutcomeStrip, Ring, ThinnedSeries } from './ring.js';
import { TaskTally } from './taskTally.js';
import { PackedHistory, PackedRollout, PackedStep, metricOf } from './packedHistory.js';
import type { RolloutFailures, RolloutRecord, StepRecord } from './runRecords.js';
export type { RolloutFailures, RolloutRecord, StepRecord } from './runRecords.js';
import type { PhaseKind, SampleStats } from '../../state/types/monitor.js';
import type { GroupTally } from '../../state/types/monitor.js';
export type { GroupTally } from '../../state/types/monitor.js';
export type { PhaseKind, SampleStats } from '../../state/types/monitor.js';

export function emptyStats(): SampleStats {
  return { total: 0, reward_one: 0, raw_one: 0, integrity_violations: 0, by_reason: {} };
}

/** Adds the totals of `d` (sample lines reduced elsewhere, in order) to `s`: as addSample for each of them. */
export function mergeStats(s: SampleStats, d: SampleStats): void {
  s.total += d.total;
  s.reward_one += d.reward_one;
  s.raw_one += d.raw_one;
  s.integrity_violations += d.integrity_violations;
  for (const k in d.by_reason) s.by_reason[k] = (s.by_reason[k] ?? 0) + (d.by_reason[k] as number);
}

function addSample(s: SampleStats, x: SampleLine, times: number): void {
  s.total += times;
  if (x.reward === 1) s.reward_one += times;
  if (x.raw === 1) s.raw_one += times;
  if (x.integrity) s.integrity_violations += times;
  s.by_reason[x.reason] = (s.by_reason[x.reason] ?? 0) + times;
}

/**
 * A closed rollout's sample stats, its reasons in sorted order. Built key by key in the order the reasons first came,
 * each rollout's reasons would take hidden classes of their own in V8 (≈ 0.5 KB a rollout, kept for the whole run);
 * in one order, rollouts with the same reasons share them.
 */
function closedStats(s: SampleStats): SampleStats {
  const byReason: Record<string, number> = {};
  for (const k of Object.keys(s.by_reason).sort()) byReason[k] = s.by_reason[k] as number;
  return { ...s, by_reason: byReason };
}

function emptyFailures(): RolloutFailures {
  return { aborted_samples: 0, failed_groups: 0, group_retries: 0, eval_failures: 0, early_stops: {}, transient_retries: 0 };
}

export interface FeedItem {
  rollout: number;
  at: number | undefined;
  sample: SampleLine;
}

export interface FailureItem {
  rollout: number;
  at: number | undefined;
  kind: LogEvent['kind'];
  text: string;
}

export interface TaskHistory {
  instance: string;
  attempts: number;
  solved: number;
  /** Its outcome in each of its newest rollouts, oldest first. */
  recent: OutcomeStrip;
}

export interface Phase {
  kind: PhaseKind;
  rollout?: number;
  done?: number;
  total?: number;
  detail?: string;
}

export function phaseLabel(p: Phase): string {
  switch (p.kind) {
    case 'starting':
      return 'starting';
    case 'waiting_workers':
      return `waiting for workers${p.detail ? ` (${p.detail})` : ''}`;
    case 'generating':
      return `rollout ${p.rollout} generating ${p.done}/${p.total}`;
    case 'training':
      return `training${p.rollout !== undefined ? ` (rollout ${p.rollout})` : ''}`;
    case 'saving':
      return `saving checkpoint${p.detail ? ` (${p.detail})` : ''}`;
    case 'finished':
      return 'finished';
    case 'failed':
      return `failed${p.detail ? `: ${p.detail}` : ''}`;
  }
}

/** One rank's hang signature as logged; `progress`: steps + rollouts logged before it (later progress means it passed). */
export interface HangRecord {
  at: number | undefined;
  signature: HangSignature;
  rank: number | undefined;
  node: string | undefined;
  detail: string;
  text: string;
  progress: number;
  repeat: number;
}

export interface ModelLimits {
  steps: number;
  rollouts: number;
  feed: number;
  failures: number;
  tasks: number;
  taskHistory: number;
  fatal: number;
}

/**
 * Steps and rollouts are thinned past their limit (ThinnedSeries: every 2nd, 4th, … kept, counts exact); the other
 * buffers keep their newest entries.
 */
export const DEFAULT_LIMITS: ModelLimits = {
  steps: 20_000,
  rollouts: 20_000,
  feed: 2_000,
  failures: 1_000,
  tasks: 20_000,
  taskHistory: 128,
  fatal: 50,
};

/**
 * The records a followed run keeps as objects (the newest rollouts and steps): the rollouts table lists the newest
 * 500 and reads every field of each at every snapshot; the packed ones behind them feed the curves.
 */
export const UNPACKED_RECORDS = 512;

export class RunModel {
  readonly limits: ModelLimits;
  name: string | undefined;
  version = 0;
  lines = 0;
  events = 0;
  effective: Record<string, Record<string, string>> = {};
  readonly steps: ThinnedSeries<StepRecord>;
  readonly rollouts: ThinnedSeries<RolloutRecord>;
  pending: SampleStats = emptyStats();
  pendingFailures: RolloutFailures = emptyFailures();
  pendingStartedAt: number | undefined;
  totals: SampleStats = emptyStats();
  readonly feed: Ring<FeedItem>;
  readonly failures: Ring<FailureItem>;
  readonly tasks: CappedMap<string, TaskHistory>;
  /**
   * Exact per-task totals without per-task history, for `monitor --once` (the segment scan feeds it through
   * applySamples); when set, taskSummary reads it and `tasks` stays empty.
   */
  readonly taskTally: TaskTally | undefined;
  readonly memory = new CappedMap<string, { rank: number | undefined; label: string; values: PyDict; at: number | undefined }>(64);
  readonly fatal: Ring<{ at: number | undefined; text: string }>;
  /** NCCL hang signatures (lines.ts classifyHang), newest last: every rank prints its own. */
  readonly hangs = new Ring<HangRecord>(256);
  router: { host: string; port: number; prometheus: number | undefined } | undefined;
  rayNodes: { count: number; expected: number } | undefined;
  lastCheckpoint: { iteration: number; path: string; at: number | undefined } | undefined;
  jobEnd: { status: string; job: string } | undefined;
  /** Consecutive aborted samples without a graded one (error streak). */
  errorStreak = 0;
  maxErrorStreak = 0;
  firstAt: number | undefined;
  lastAt: number | undefined;
  /** Clock time (ms) of the last line that showed progress (sample, summary, step). */
  lastProgressClock: number | undefined;
  private lastSummaryRollout: number | undefined;
  private lastStep: number | undefined;
  private phaseState: Phase = { kind: 'starting' };
  private failedDetail: string | undefined;
  private savingDetail: string | undefined;
  /** Per-rollout per-task tallies of the in-progress rollout: [attempts, solved, raw solved]. */
  private pendingTasks = new Map<string, [number, number, number]>();
  /** Every metric key logged so far and where it is logged (train steps or rollouts), for the metric picker. */
  readonly metricKeys = new Map<string, 'step' | 'rollout'>();
  /** Actors (Ray prefix names, '' for none) whose last line was logged with a traceback to follow. */
  private readonly tracebackExpected = new Set<string>();
  /** The launch wrapper's exit line (0 = the launcher ended cleanly). */
  launcherExit: number | undefined;
  readonly clock: () => number;
  /**
   * With `documentText`: the JSON text of step and rollout metrics, written by settleDocumentText once a record has
   * gone a batch of lines without a change (a change drops it), so that toJsonText has little left to write at the
   * end. Keyed by the record's metrics object.
   */
  private readonly metricsText: WeakMap<PyDict, string> | undefined;
  /** Metrics changed since the last settleDocumentText, and those changed in the batch before it. */
  private changedNow = new Set<PyDict>();
  private changedBefore = new Set<PyDict>();
  private readonly unsettled = new WeakSet<PyDict>();
  /** With `unpackedRecords`: where older records are packed, and the newest records' keys, oldest first. */
  private packed: PackedHistory | undefined;
  /** The series' thinning when the packed records were last written: thinned-out records leave their bytes behind. */
  private packedEvery = { steps: 1, rollouts: 1 };
  private readonly unpackedRecords: number;
  private readonly unpackedRollouts: number[] = [];
  private readonly unpackedSteps: number[] = [];

  /**
   * `unpackedRecords`: the newest this many rollouts and steps stay objects, older ones are packed (packedHistory.ts:
   * ≈ 1.0 KB instead of ≈ 2.4 KB a rollout), for a model that follows a run for days. Not with `documentText`.
   */
  constructor(opts: { limits?: Partial<ModelLimits>; clock?: () => number; name?: string; taskTally?: TaskTally; documentText?: boolean; unpackedRecords?: number } = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.clock = opts.clock ?? Date.now;
    this.name = opts.name;
    this.steps = new ThinnedSeries(this.limits.steps);
    this.rollouts = new ThinnedSeries(this.limits.rollouts);
    this.taskTally = opts.taskTally;
    this.feed = new Ring(this.limits.feed);
    this.failures = new Ring(this.limits.failures);
    this.tasks = new CappedMap(this.limits.tasks);
    this.fatal = new Ring(this.limits.fatal);
    if (opts.documentText) this.metricsText = new WeakMap();
    this.unpackedRecords = opts.unpackedRecords ?? Infinity;
    if (Number.isFinite(this.unpackedRecords) && !opts.documentText) this.packed = new PackedHistory();
  }

  /** Packs the records that have left the newest `unpackedRecords` (those thinned out meanwhile are gone already). */
  private packOlder(): void {
    const store = this.packed;
    if (!store) return;
    while (this.unpackedRollouts.length > this.unpackedRecords) {
      const n = this.unpackedRollouts.shift() as number;
      const rec = this.rollouts.get(n);
      if (!rec || rec instanceof PackedRollout) continue;
      const p = store.packRollout(rec);
      if (p) this.rollouts.set(n, p);
    }
    while (this.unpackedSteps.length > this.unpackedRecords) {
      const n = this.unpackedSteps.shift() as number;
      const rec = this.steps.get(n);
      if (rec && !(rec instanceof PackedStep)) this.steps.set(n, store.packStep(rec));
    }
  }

  /**
   * After a series was thinned (every 2nd, 4th, … record kept), the packed records still kept are written into a new
   * store: the old one's chunks held the dropped ones too, and would grow with the run past the limits.
   */
  private repackIfThinned(): void {
    if (!this.packed || (this.steps.every === this.packedEvery.steps && this.rollouts.every === this.packedEvery.rollouts)) return;
    this.packedEvery = { steps: this.steps.every, rollouts: this.rollouts.every };
    const store = new PackedHistory();
    for (const n of [...this.rollouts.keys()]) {
      const rec = this.rollouts.get(n);
      if (rec instanceof PackedRollout) this.rollouts.set(n, store.packRollout(rec.unpacked()) as PackedRollout);
    }
    for (const n of [...this.steps.keys()]) {
      const rec = this.steps.get(n);
      if (rec instanceof PackedStep) this.steps.set(n, store.packStep(rec.unpacked()));
    }
    this.packed = store;
  }

  /** A record that a later line changes is an object again (rare: a run logs a record's lines together). */
  private unpackedRollout(n: number): RolloutRecord | undefined {
    const rec = this.rollouts.get(n);
    if (!(rec instanceof PackedRollout)) return rec;
    const full = rec.unpacked();
    this.rollouts.set(n, full);
    this.unpackedRollouts.push(n);
    return full;
  }

  private unpackedStep(n: number): StepRecord | undefined {
    const rec = this.steps.get(n);
    if (!(rec instanceof PackedStep)) return rec;
    const full = rec.unpacked();
    this.steps.set(n, full);
    this.unpackedSteps.push(n);
    return full;
  }

  /** Samples per rollout: rollout_batch_size × n_samples_per_prompt from `effective_batch`, else 128. */
  get samplesPerRollout(): number {
    const b = this.effective['batch'];
    const a = Number(b?.['rollout_batch_size']);
    const n = Number(b?.['n_samples_per_prompt']);
    return a > 0 && n > 0 ? a * n : 128;
  }

  get groupsPerRollout(): number {
    const a = Number(this.effective['batch']?.['rollout_batch_size']);
    return a > 0 ? a : 8;
  }

  get numRollout(): number | undefined {
    const v = Number(this.effective['batch']?.['num_rollout']);
    return v > 0 ? v : undefined;
  }

  /** The rollout the next sample lines belong to. */
  get inProgressRollout(): number {
    return this.lastSummaryRollout === undefined ? 0 : this.lastSummaryRollout + 1;
  }

  ingestLine(raw: string): LogEvent | undefined {
    return this.ingestParsed(parseLine(raw));
  }

  /** A line already parsed (parseLine, or a per-sample line read on its bytes: tail.ts sampleFromRecord). */
  ingestParsed(p: ParsedEvent): LogEvent | undefined {
    this.lines++;
    if (!p.event) return undefined;
    // A routine evaluation failure is logged with exc_info=True (evaluator.py): the Traceback right after it, from
    // the same actor, is that record's, not a crash.
    const actor = p.actor ?? '';
    const attached = this.tracebackExpected.delete(actor);
    if (p.event.kind === 'eval_failed') {
      if (this.tracebackExpected.size >= 1024) this.tracebackExpected.clear();
      this.tracebackExpected.add(actor);
    }
    if (attached && p.event.kind === 'fatal' && p.event.text.startsWith('Traceback (most recent call last):')) return undefined;
    this.apply(p.event, p.time, p.repeat);
    return p.event;
  }

  apply(ev: LogEvent, time: number | undefined, repeat = 1): void {
    this.events++;
    this.version++;
    if (time !== undefined && Number.isFinite(time)) {
      if (this.firstAt === undefined || time < this.firstAt) this.firstAt = time;
      if (this.lastAt === undefined || time > this.lastAt) this.lastAt = time;
    }
    const rollout = this.inProgressRollout;
    switch (ev.kind) {
      case 'sample': {
        const times = Math.max(1, repeat);
        if (this.pending.total === 0) this.pendingStartedAt = time;
        addSample(this.pending, ev, times);
        addSample(this.totals, ev, times);
        this.feed.push({ rollout, at: time, sample: ev });
        if (this.taskTally) {
          // The --once segment scan's compact tally (no per-rollout groups: --once prints none).
          this.taskTally.add(this.taskTally.id(ev.instance), times, ev.reward === 1 ? times : 0);
        } else {
          const t = this.pendingTasks.get(ev.instance) ?? [0, 0, 0];
          t[0] += times;
          if (ev.reward === 1) t[1] += times;
          if (ev.raw === 1) t[2] += times;
          if (!this.pendingTasks.has(ev.instance) && this.pendingTasks.size < this.limits.tasks) this.pendingTasks.set(ev.instance, t);
        }
        this.afterSamples(rollout);
        break;
      }
      case 'summary':
        this.summary(ev.type, ev.n, ev.metrics, time);
        break;
      case 'early_stop':
        this.pendingFailures.early_stops[ev.stopKind] = (this.pendingFailures.early_stops[ev.stopKind] ?? 0) + repeat;
        this.fail(ev, rollout, time, `${ev.stopKind} ${ev.session}`);
        break;
      case 'sample_failed':
        this.pendingFailures.aborted_samples += repeat;
        this.errorStreak += repeat;
        this.maxErrorStreak = Math.max(this.maxErrorStreak, this.errorStreak);
        this.fail(ev, rollout, time, `${ev.session}: ${ev.summary}`);
        break;
      case 'eval_failed':
        this.pendingFailures.eval_failures += repeat;
        this.fail(ev, rollout, time, `${ev.instance}: ${ev.error}`);
        break;
      case 'eval_poll_retry':
      case 'patch_retry':
        this.pendingFailures.transient_retries += repeat;
        this.fail(ev, rollout, time, ev.kind === 'patch_retry' ? `patch extraction retry ${ev.attempt} ${ev.session}` : `eval poll retry ${ev.attempt} ${ev.error}`);
        break;
      case 'group_retry':
        this.pendingFailures.group_retries += repeat;
        this.fail(ev, rollout, time, `group retry ${ev.attempt}/${ev.max}: ${ev.summary}`);
        break;
      case 'group_failed':
        this.pendingFailures.failed_groups += repeat;
        this.fail(ev, rollout, time, ev.summary);
        break;
      case 'no_trainable':
        this.failedDetail = 'no trainable samples';
        this.fail(ev, rollout, time, ev.text);
        break;
      case 'effective':
        this.effective[ev.name] = ev.values;
        break;
      case 'ray_nodes':
        this.rayNodes = { count: ev.count, expected: ev.expected };
        if (this.phaseState.kind === 'starting' || this.phaseState.kind === 'waiting_workers') {
          this.phaseState = ev.count < ev.expected ? { kind: 'waiting_workers', detail: `${ev.count}/${ev.expected} nodes` } : { kind: 'starting' };
        }
        break;
      case 'ray_timeout':
        this.failedDetail = 'timed out waiting for Ray workers';
        break;
      case 'ray_worker':
        break;
      case 'router':
        this.router = { host: ev.host, port: ev.port, prometheus: ev.prometheus };
        break;
      case 'memory': {
        const key = `${ev.rank ?? '-'}`;
        this.memory.delete(key);
        this.memory.set(key, { rank: ev.rank, label: ev.label, values: ev.values, at: time });
        break;
      }
      case 'proxy_failed':
        this.failedDetail = `Dressage proxy failed (see ${ev.log})`;
        break;
      case 'checkpoint':
        if (ev.phase === 'saving') {
          this.savingDetail = `iteration ${ev.iteration}`;
          this.phaseState = { kind: 'saving', detail: this.savingDetail };
        } else {
          this.lastCheckpoint = { iteration: ev.iteration, path: ev.path, at: time };
          this.savingDetail = undefined;
          if (this.phaseState.kind === 'saving') this.afterStep();
        }
        break;
      case 'job_end':
        this.jobEnd = { status: ev.status, job: ev.job };
        if (ev.status !== 'succeeded') this.failedDetail = `ray job ${ev.status}`;
        break;
      case 'launcher_exit':
        this.launcherExit = ev.code;
        if (ev.code !== 0) this.failedDetail ??= `launcher exited with code ${ev.code}`;
        break;
      case 'hang':
        this.hangs.push({ at: time, signature: ev.signature, rank: ev.rank, node: ev.node, detail: ev.detail, text: ev.text, progress: this.steps.count + this.rollouts.count, repeat });
        break;
      case 'fatal':
        this.fatal.push({ at: time, text: ev.text });
        // A refusal of the launcher: it exits 1 right after printing it.
        if (ev.exit) this.failedDetail ??= ev.text;
        break;
    }
  }

  /**
   * Sample lines already reduced to their totals (by the --once segment scan, which has put their tasks into
   * taskTally): the same effect as `apply` of each in order, except the feed of recent samples (not printed by
   * --once). `firstTime` is the first one's log time.
   */
  applySamples(d: SampleStats, firstTime: number | undefined): void {
    if (d.total === 0) return;
    this.events++;
    this.version++;
    if (firstTime !== undefined && Number.isFinite(firstTime)) {
      if (this.firstAt === undefined || firstTime < this.firstAt) this.firstAt = firstTime;
      if (this.lastAt === undefined || firstTime > this.lastAt) this.lastAt = firstTime;
    }
    if (this.pending.total === 0) this.pendingStartedAt = firstTime;
    mergeStats(this.pending, d);
    mergeStats(this.totals, d);
    this.afterSamples(this.inProgressRollout);
  }

  /** What any sample line does besides its counts. */
  private afterSamples(rollout: number): void {
    this.errorStreak = 0;
    this.progress();
    this.savingDetail = undefined;
    this.phaseState = { kind: 'generating', rollout, done: this.pending.total, total: this.samplesPerRollout };
  }

  private progress(): void {
    this.lastProgressClock = this.clock();
  }

  private fail(ev: LogEvent, rollout: number, at: number | undefined, text: string): void {
    this.failures.push({ rollout, at, kind: ev.kind, text });
  }

  private summary(type: SummaryKind, n: number, metrics: PyDict, time: number | undefined): void {
    this.progress();
    for (const k of Object.keys(metrics)) if (!this.metricKeys.has(k) && this.metricKeys.size < 4096) this.metricKeys.set(k, type === 'step' ? 'step' : 'rollout');
    if (type === 'step') {
      const prev = this.unpackedStep(n);
      if (prev) prev.metrics = this.merged(prev.metrics, metrics);
      else if (!this.steps.seen(n)) {
        const rec: StepRecord = { step: n, metrics: { ...metrics }, at: time };
        this.steps.set(n, rec);
        this.changed(rec.metrics);
        if (this.packed) {
          this.unpackedSteps.push(n);
          this.packOlder();
          this.repackIfThinned();
        }
      }
      if (this.lastStep === undefined || n >= this.lastStep) this.lastStep = n;
      this.afterStep();
      return;
    }
    let rec = this.unpackedRollout(n);
    // A rollout thinned out of the series was still seen: its later summary lines do not open it again.
    if (!rec && !this.rollouts.seen(n)) {
      // The first summary line of rollout n closes its sample window.
      rec = { rollout: n, metrics: { ...metrics }, samples: closedStats(this.pending), failures: this.pendingFailures, at: time ?? this.clock(), startedAt: this.pendingStartedAt, groups: this.pendingGroups(1024) };
      this.rollouts.set(n, rec);
      this.closeTasks();
      this.pending = emptyStats();
      this.pendingFailures = emptyFailures();
      this.pendingStartedAt = undefined;
      if (this.lastSummaryRollout === undefined || n > this.lastSummaryRollout) this.lastSummaryRollout = n;
      this.changed(rec.metrics);
      if (this.packed) {
        this.unpackedRollouts.push(n);
        this.packOlder();
        this.repackIfThinned();
      }
    } else if (rec) rec.metrics = this.merged(rec.metrics, metrics);
    // The rollout's train step has not been logged yet: it is training.
    if ((this.lastStep === undefined || this.lastStep < n) && n === this.lastSummaryRollout) {
      this.phaseState = { kind: 'training', rollout: n };
    }
  }

  /** The in-progress rollout's groups so far. */
  pendingGroups(limit = 1024): GroupTally[] {
    const out: GroupTally[] = [];
    for (const [instance, [n, solved, raw]] of this.pendingTasks) {
      if (out.length >= limit) break;
      // The task's name as the task table holds it: the line's copy would be kept once more for every rollout.
      out.push({ instance: this.tasks.get(instance)?.instance ?? instance, n, solved, raw });
    }
    return out;
  }

  /**
   * Train steps per rollout (slime: rollout_batch_size × n_samples_per_prompt / global_batch_size; step ids are
   * rollout_id × that + step_id), so a train metric can be drawn on the rollout axis. 1 when not logged.
   */
  get stepsPerRollout(): number {
    const b = this.effective['batch'];
    const g = Number(b?.['global_batch_size']);
    const per = this.samplesPerRollout;
    return g > 0 && per >= g && Number.isInteger(per / g) ? per / g : 1;
  }

  private closeTasks(): void {
    this.taskTally?.closeRollout();
    for (const [instance, [attempts, solved]] of this.pendingTasks) {
      let h = this.tasks.get(instance);
      if (!h) {
        h = { instance, attempts: 0, solved: 0, recent: new OutcomeStrip(this.limits.taskHistory) };
        this.tasks.set(instance, h);
      }
      h.attempts += attempts;
      h.solved += solved;
      h.recent.push(attempts, solved);
    }
    this.pendingTasks.clear();
  }

  private afterStep(): void {
    const step = this.lastStep ?? -1;
    const total = this.numRollout;
    if (total !== undefined && step + 1 >= total) {
      this.phaseState = { kind: 'finished' };
      return;
    }
    if (this.savingDetail) {
      this.phaseState = { kind: 'saving', detail: this.savingDetail };
      return;
    }
    this.phaseState = { kind: 'generating', rollout: Math.max(this.inProgressRollout, step + 1), done: this.pending.total, total: this.samplesPerRollout };
  }

  get phase(): Phase {
    if (this.failedDetail) return { kind: 'failed', detail: this.failedDetail };
    if (this.jobEnd?.status === 'succeeded' || this.launcherExit === 0) return { kind: 'finished' };
    return this.phaseState;
  }

  /** Task outcome across rollouts: always / sometimes / never solved (only tasks attempted at least once). */
  taskSummary(): { seen: number; always: number; sometimes: number; never: number; tasks: TaskHistory[] } {
    if (this.taskTally) return { ...this.taskTally.summary(), tasks: [] };
    let always = 0;
    let sometimes = 0;
    let never = 0;
    const tasks: TaskHistory[] = [];
    for (const t of this.tasks.values()) {
      tasks.push(t);
      if (t.solved === 0) never++;
      else if (t.solved === t.attempts) always++;
      else sometimes++;
    }
    return { seen: tasks.length, always, sometimes, never, tasks };
  }

  sortedRollouts(): RolloutRecord[] {
    return [...this.rollouts.values()].sort((a, b) => a.rollout - b.rollout);
  }

  sortedSteps(): StepRecord[] {
    return [...this.steps.values()].sort((a, b) => a.step - b.step);
  }

  /** Mean seconds per rollout over the last `window` completed rollouts (by first-summary times). */
  secondsPerRollout(window = 10): number | undefined {
    const rs = this.sortedRollouts().filter((r) => r.at !== undefined);
    if (rs.length < 2) return undefined;
    const tail = rs.slice(-Math.max(2, window + 1));
    const first = tail[0] as RolloutRecord;
    const last = tail[tail.length - 1] as RolloutRecord;
    const span = ((last.at as number) - (first.at as number)) / 1000;
    const n = last.rollout - first.rollout;
    return n > 0 && span > 0 ? span / n : undefined;
  }

  etaSeconds(): number | undefined {
    const per = this.secondsPerRollout();
    const total = this.numRollout;
    if (per === undefined || total === undefined) return undefined;
    const remaining = total - this.inProgressRollout;
    if (remaining <= 0) return 0;
    const partial = this.samplesPerRollout > 0 ? Math.min(1, this.pending.total / this.samplesPerRollout) : 0;
    return Math.max(0, (remaining - partial) * per);
  }

  /** Numeric series of one metric across steps or rollouts (NaN where missing). */
  series(source: 'step' | 'rollout', key: string, limit = 2000): { x: number[]; y: number[] } {
    const recs = source === 'step' ? this.sortedSteps() : this.sortedRollouts();
    const x: number[] = [];
    const y: number[] = [];
    for (const r of recs.slice(-limit)) {
      const v = metricNumber(metricOf(r, key));
      x.push(source === 'step' ? (r as StepRecord).step : (r as RolloutRecord).rollout);
      y.push(v === undefined ? NaN : v);
    }
    return { x, y };
  }

  /**
   * A record's metrics with a later summary line's merged in, as a new object when the line adds keys: V8 keeps a
   * spread's result in fast properties, while keys added one by one to a grown object (Object.assign) turn it into a
   * dictionary — 2.2 KB instead of 0.8 KB for a rollout's 35 metrics, kept for every rollout of the run.
   */
  private merged(into: PyDict, add: PyDict): PyDict {
    let adds = false;
    for (const k in add) if (!Object.hasOwn(into, k)) { adds = true; break; }
    if (!adds) {
      this.changed(Object.assign(into, add));
      return into;
    }
    const next = { ...into, ...add };
    this.replaced(into, next);
    this.changed(next);
    return next;
  }

  /** The document text's bookkeeping follows a metrics object that `merged` replaced. */
  private replaced(old: PyDict, next: PyDict): void {
    if (!this.metricsText) return;
    this.changedNow.delete(old);
    this.changedBefore.delete(old);
    if (this.unsettled.delete(old) || this.metricsText.delete(old)) this.unsettled.add(next);
  }

  private changed(metrics: PyDict): void {
    if (!this.metricsText || this.unsettled.has(metrics)) return;
    // A record that changes after its text was written is left to the end: a log that comes back to its records
    // (the benchmark's 4 GB log is one log 20 times over) would write and drop their texts again and again.
    if (this.metricsText.delete(metrics)) this.unsettled.add(metrics);
    else this.changedNow.add(metrics);
  }

  /**
   * Between batches of lines (the --once scan's segments): writes the JSON text of the metrics that changed in the
   * batch before last and not since, while the scan still runs. Without `documentText` it does nothing.
   */
  settleDocumentText(): void {
    const cache = this.metricsText;
    if (!cache) return;
    for (const m of this.changedBefore) if (!this.changedNow.has(m)) cache.set(m, metricsJson(m));
    this.changedBefore = this.changedNow;
    this.changedNow = new Set();
  }

  /** The document's parts other than the steps and the rollouts. */
  private documentParts(): { run: unknown; inProgress: unknown; series: unknown } {
    // Past the limits the step and rollout series are thinned; the counts stay exact, and the document says so.
    const thinned = this.steps.every > 1 || this.rollouts.every > 1;
    const series = (t: ThinnedSeries<unknown>) => ({ count: t.count, listed: t.size, every: t.every });
    return {
      run: { name: this.name ?? null, phase: phaseLabel(this.phase) },
      inProgress: { rollout: this.inProgressRollout, samples: this.pending },
      series: thinned ? { steps: series(this.steps), rollouts: series(this.rollouts) } : undefined,
    };
  }

  /** The `monitor --once --json` document (issue #8). */
  toJson(): unknown {
    const p = this.documentParts();
    return {
      run: p.run,
      effective: this.effective,
      steps: this.sortedSteps().map((s) => ({ step: s.step, metrics: toJsonSafe(s.metrics) })),
      rollouts: this.sortedRollouts().map((r) => ({ rollout: r.rollout, metrics: toJsonSafe(r.metrics), samples: r.samples })),
      in_progress: p.inProgress,
      samples: this.totals,
      ...(p.series ? { series: p.series } : {}),
    };
  }

  /**
   * `JSON.stringify({ ...toJson(), ...extra })`, written in parts: the metrics texts that settleDocumentText wrote
   * are used as they are (one stringify of the whole document cost ≈ 100 ms at the end of a --once scan).
   */
  toJsonText(extra: Record<string, unknown> = {}): string {
    const keys = Object.keys(extra);
    // Keys of the document or array indices would take another place in the spread: the plain way.
    if (keys.some((k) => !/^[a-z_]+$/.test(k) || DOCUMENT_KEYS.has(k))) return JSON.stringify({ ...(this.toJson() as Record<string, unknown>), ...extra });
    const p = this.documentParts();
    const cache = this.metricsText;
    const metrics = (m: PyDict) => cache?.get(m) ?? metricsJson(m);
    const out: string[] = [`{"run":${JSON.stringify(p.run)},"effective":${JSON.stringify(this.effective)},"steps":[`];
    // Pieces pushed one by one (not templates): join then copies flat strings.
    let sep = '{"step":';
    for (const s of this.sortedSteps()) {
      out.push(sep, JSON.stringify(s.step), ',"metrics":', metrics(s.metrics), '}');
      sep = ',{"step":';
    }
    out.push('],"rollouts":[');
    sep = '{"rollout":';
    for (const r of this.sortedRollouts()) {
      out.push(sep, JSON.stringify(r.rollout), ',"metrics":', metrics(r.metrics), ',"samples":', JSON.stringify(r.samples), '}');
      sep = ',{"rollout":';
    }
    out.push(`],"in_progress":${JSON.stringify(p.inProgress)},"samples":${JSON.stringify(this.totals)}`);
    if (p.series) out.push(`,"series":${JSON.stringify(p.series)}`);
    for (const k of keys) {
      const v = JSON.stringify(extra[k]);
      if (v !== undefined) out.push(`,"${k}":${v}`);
    }
    out.push('}');
    return out.join('');
  }
}

const DOCUMENT_KEYS = new Set(['run', 'effective', 'steps', 'rollouts', 'in_progress', 'samples', 'series']);

/**
 * `JSON.stringify(toJsonSafe(m))` without the copy and its check of every value: JSON.stringify itself writes a
 * non-finite number as null, at any depth, which is all toJsonSafe changes in a parsed value.
 */
export function metricsJson(m: PyDict): string {
  return JSON.stringify(m);
}

export function zeroStdGroups(metrics: PyDict): number {
  let n = 0;
  for (const [k, v] of Object.entries(metrics)) {
    if (k.startsWith('rollout/zero_std/count_')) {
      const x = metricNumber(v);
      if (x !== undefined && Number.isFinite(x)) n += x;
    }
  }
  return n;
}
