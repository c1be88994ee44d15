// The run simulator's model: a synchronous GRPO run of Dressage's SWE-Gym + Claude Code launcher, as the
// lines it prints (reference §1.7 start-up, §6.5 metric dicts, §6.6 per-sample lines) and the per-sample
// outcomes behind them. Everything is drawn from one seeded generator, so a seed and a config give the same
// run every time. The model pushes timestamped lines into a sink; writers (offline file, live pacing) decide
// when the lines reach disk. Nothing here does I/O.
import { Rng } from './rng.js';
import { lookAlikeMessage } from './lookAlikes.js';
import { buildCatalog, type SimTask } from './catalog.js';
import { pyRepr, pyInt, type PyLiteral } from './pyReprWrite.js';
import { RAY_DASHBOARD_PORT } from '../recipe.js';
import { PATCH_EXTRACT_RETRY, backoffDelay } from '../util/retry.js';

export interface SimConfig {
  seed: number;
  runName: string;
  /** Rollouts of the run (`NUM_ROLLOUT`, 500 by default). */
  numRollouts: number;
  /** Prompts per rollout (`ROLLOUT_BATCH_SIZE`). */
  rolloutBatchSize: number;
  /** Samples per prompt (`N_SAMPLES_PER_PROMPT`). */
  samplesPerPrompt: number;
  /** Agent sessions in flight at once (64 on 4×8 GPUs, §6.4). */
  concurrency: number;
  /** Simulated seconds of the generation phase of one rollout. */
  rolloutSeconds: number;
  /** Simulated seconds of the training phase (train step, weight sync) after each rollout. */
  trainSeconds: number;
  /** Simulated seconds from launch to the first rollout. */
  startupSeconds: number;
  /** Noise lines (Ray, httpx, warnings, tqdm) per simulated second. */
  noiseLinesPerSecond: number;
  /**
   * Look-alike lines (lookAlikes.ts: printed configs, `step skipped: {…}`, cut metric dicts, traceback lines) per
   * simulated second, on a generator of their own (0 leaves every other line of a seeded run as it was).
   */
  lookAlikeLinesPerSecond: number;
  /** Wall-clock time of simulated t = 0, epoch ms (timestamps in the log). */
  startTimeMs: number;
  actorNumNodes: number;
  gpusPerNode: number;
  /** `DRESSAGE_ROLLOUT_MAX_RETRIES` (0 by default: a group with an aborted sample is marked failed). */
  maxRetries: number;
  /** Probability that one sample aborts (sandbox/agent failure). */
  abortRate: number;
  /** Colour Ray's actor prefixes with ANSI escapes, as `ray job submit` does. */
  ansi: boolean;
  saveInterval: number;
  /** Dressage checkout root, used in the paths the lines mention. */
  workspace: string;
  proxyUrl: string;
  /** Append the final `Job '…' succeeded` lines after the last rollout. */
  finish: boolean;
  /** Distinct SWE-Gym instances in the prompt set (293: the SWE-Gym lite train split; more: several datasets). */
  tasks: number;
}

export const DEFAULT_CONFIG: SimConfig = {
  seed: 1,
  runName: 'swegym-qwen3.5-4b-claude-code-grpo-sync',
  numRollouts: 500,
  rolloutBatchSize: 8,
  samplesPerPrompt: 16,
  concurrency: 64,
  rolloutSeconds: 2700,
  trainSeconds: 240,
  startupSeconds: 600,
  noiseLinesPerSecond: 2,
  lookAlikeLinesPerSecond: 0,
  startTimeMs: Date.UTC(2026, 10, 20, 8, 0, 0),
  actorNumNodes: 4,
  gpusPerNode: 8,
  maxRetries: 0,
  abortRate: 0.004,
  ansi: true,
  saveInterval: 10,
  workspace: '/home/op/Dressage',
  proxyUrl: 'https://proxy.example.com',
  finish: true,
  tasks: 293,
};

/** Failure reasons of the `reason=` field (marker `failure_reason` values, §5.2). */
export const FAILURE_REASONS = [
  'fail_to_pass_failure',
  'pass_to_pass_regression',
  'test_log_parse_failure',
  'empty_generation',
  'prohibited_test_modification',
  'failed_apply_patch',
  'patch_extract_failed',
  'fresh_eval_exception',
  'missing_reward_marker',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];


export interface SampleOutcome {
  rolloutId: number;
  groupIndex: number;
  index: number;
  task: SimTask;
  sessionId: string;
  evalSessionId: string;
  trajectoryId: string;
  /** Simulated ms: agent sandbox created, evaluation sandbox created, sample finished. */
  startMs: number;
  evalStartMs: number;
  endMs: number;
  aborted: boolean;
  abortError?: { type: string; message: string };
  earlyStop?: 'max_steps_exceeded' | 'context_overflow';
  resolved: boolean;
  raw: number;
  reward: number;
  integrityViolation: boolean;
  integrityKind?: 'invalid_tool_call' | 'invalid_pytest_write';
  reason: FailureReason | '';
  f2p: [number, number] | null;
  p2p: [number, number] | null;
  segments: number;
  responseTokens: number;
  promptTokens: number;
  numSteps: number;
  patchBytes: number;
  truncated: boolean;
}

export interface RolloutSummary {
  rolloutId: number;
  /** Per-sample `SWE-Gym reward=` lines written for this rollout. */
  sampleLines: number;
  rewardOne: number;
  rawOne: number;
  integrityViolations: number;
  byReason: Record<string, number>;
  failedGroups: number;
  trajectoryMean: number;
}

export interface SimSink {
  line(tMs: number, text: string): void;
  /** Called once per finished (or aborted) sample, at its end time. */
  sample?(tMs: number, s: SampleOutcome): void;
  /** Called when a rollout's checkpoint is saved. */
  checkpoint?(tMs: number, rolloutId: number): void;
  rollout?(tMs: number, summary: RolloutSummary): void;
  /** Called once per rollout, before its lines, with every sample already placed on the timeline. */
  plan?(rolloutId: number, samples: readonly SampleOutcome[]): void;
}

/** The published curve: `raw_reward_trajectory_mean` ~0.27 at step 0, > 0.6 by step 80, then a slow plateau. */
export function rewardCurve(rolloutId: number): number {
  return 0.27 + 0.43 * (1 - Math.exp(-rolloutId / 38));
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

interface Actor {
  name: string;
  pid: number;
  ip: string;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** The simulated run. Call `startup`, then `rollout(i)` for each i, then `end`. */
export class SimulatedRun {
  readonly config: SimConfig;
  readonly tasks: SimTask[];
  private readonly rng: Rng;
  private readonly noiseRng: Rng;
  private readonly lookAlikeRng: Rng;
  private readonly ips: string[];
  private readonly rolloutManager: Actor;
  private readonly trainActor: Actor;
  private readonly engines: Actor[];
  private readonly jobId: string;
  private tsSecond = -1;
  private tsText = '';
  private tsDay = -1;
  private tsDayText = '';
  private taskOrder: number[] = [];
  private taskCursor = 0;
  private smoothedGrad = 0.3;

  constructor(config: Partial<SimConfig> = {}) {
    this.config = { ...DEFAULT_CONFIG, ...config };
    this.tasks = buildCatalog(this.config.tasks);
    this.rng = new Rng(this.config.seed);
    this.noiseRng = this.rng.fork(7);
    // Not a fork: a fork draws from the run's generator, and every later line would change.
    this.lookAlikeRng = new Rng((Math.imul(this.config.seed, 0x9e3779b1) ^ 0x5bd1e995) >>> 0);
    this.ips = Array.from({ length: this.config.actorNumNodes }, (_, i) => `10.128.0.${11 + i}`);
    const pid = () => this.rng.range(3000, 48000);
    this.rolloutManager = { name: 'RolloutManager', pid: pid(), ip: this.ips[0] as string };
    this.trainActor = { name: 'MegatronTrainRayActor', pid: pid(), ip: this.ips[0] as string };
    this.engines = Array.from({ length: Math.max(1, (this.config.actorNumNodes * this.config.gpusPerNode) / 2) }, (_, i) => ({
      name: 'SGLangEngine',
      pid: pid(),
      ip: this.ips[Math.floor((i * 2) / this.config.gpusPerNode)] ?? (this.ips[0] as string),
    }));
    this.jobId = `raysubmit_${this.rng.hex(16).replace(/[0-9]/g, (d) => 'ABCDEFGHJK'[Number(d)] as string)}`;
  }

  get samplesPerRollout(): number {
    return this.config.rolloutBatchSize * this.config.samplesPerPrompt;
  }

  /** Simulated ms at which rollout `id` starts generating. */
  rolloutStartMs(id: number): number {
    return (this.config.startupSeconds + id * (this.config.rolloutSeconds + this.config.trainSeconds)) * 1000;
  }

  get totalMs(): number {
    return this.rolloutStartMs(this.config.numRollouts) + 1000;
  }

  // ---- formatting -------------------------------------------------------------------------------

  /** `YYYY-MM-DD HH:MM:SS` (UTC), cached per second: the hot path formats millions of these. */
  timestamp(tMs: number): string {
    const abs = this.config.startTimeMs + tMs;
    const sec = Math.floor(abs / 1000);
    if (sec !== this.tsSecond) {
      this.tsSecond = sec;
      const day = Math.floor(sec / 86400);
      if (day !== this.tsDay) {
        const d = new Date(day * 86400_000);
        this.tsDay = day;
        this.tsDayText = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
      }
      const rest = sec - day * 86400;
      const h = Math.floor(rest / 3600);
      const m = Math.floor((rest % 3600) / 60);
      this.tsText = `${this.tsDayText} ${pad2(h)}:${pad2(m)}:${pad2(rest % 60)}`;
    }
    return this.tsText;
  }

  private prefix(a: Actor): string {
    const p = `(${a.name} pid=${a.pid}, ip=${a.ip})`;
    return this.config.ansi ? `\u001b[36m${p}\u001b[0m ` : `${p} `;
  }

  /** A Python logging line inside Ray's actor prefix: `(Actor pid=…, ip=…) [ts] file.py:N - msg`. */
  private log(a: Actor, tMs: number, file: string, line: number, msg: string): string {
    return `${this.prefix(a)}[${this.timestamp(tMs)}] ${file}:${line} - ${msg}`;
  }

  // ---- start-up ---------------------------------------------------------------------------------

  startup(sink: SimSink): void {
    const c = this.config;
    const S = c.startupSeconds * 1000;
    const totalGpus = c.actorNumNodes * c.gpusPerNode;
    let t = 0;
    let noiseFrom = S * 0.45;
    const out = (text: string) => {
      if (t > noiseFrom) {
        this.noiseBetween(sink, noiseFrom, t);
        noiseFrom = t;
      }
      sink.line(t, text);
    };
    out(`effective_parallelism: total_actor_gpus=${totalGpus} TP_SIZE=2 CP_SIZE=4 DP_SIZE=${Math.max(1, totalGpus / 8)} CONTEXT_WINDOW=65536 ROLLOUT_MAX_CONTEXT_LEN=65536`);
    out(`effective_blackbox: provider=e2b proxy=${c.proxyUrl} max_steps=100 compact_threshold=57536`);
    out('effective_claude_code: version=2.1.207 bbs_version=1.1.0 portable_python=3.10.20');
    out(`effective_batch: num_rollout=${c.numRollouts} rollout_batch_size=${c.rolloutBatchSize} n_samples_per_prompt=${c.samplesPerPrompt} global_batch_size=${this.samplesPerRollout}`);
    out('effective_grpo: normalize_advantages=1 use_tis=1 use_kl_loss=1 kl_coef=0.0 entropy_coef=0.0 eps_clip=0.2 eps_clip_high=0.28 kl_loss_coef=0.001 kl_loss_type=low_var_kl');
    t = S * 0.02;
    out(`Starting Dressage proxy: python3 -m dressage.proxy.server --tokenizer-path ${c.workspace}/models/Qwen3.5-4B --host 0.0.0.0 --port 8800 (log: ${c.workspace}/outputs/logs/${c.runName}/proxy/${c.runName}.log)`);
    t = S * 0.05;
    out(`Usage stats collection is disabled.`);
    out(`Local node IP: ${this.ips[0]}`);
    out('--------------------');
    out('Ray runtime started.');
    out('--------------------');
    // Node-count wait (§1.7 step 7), one line per poll until all nodes joined.
    const polls = Math.max(c.actorNumNodes, 3);
    for (let i = 0; i < polls; i++) {
      t = S * (0.1 + (0.3 * i) / polls);
      const n = Math.min(c.actorNumNodes, 1 + Math.floor((i * c.actorNumNodes) / (polls - 1)));
      out(`Current Ray node count: ${n}; expected ACTOR_NUM_NODES: ${c.actorNumNodes}`);
    }
    t = S * 0.42;
    out(`Job submission server address: http://127.0.0.1:${RAY_DASHBOARD_PORT}`);
    out('');
    out('-------------------------------------------------------');
    out(`Job '${this.jobId}' submitted successfully`);
    out('-------------------------------------------------------');
    out('');
    out('Next steps');
    out('  Query the logs of the job:');
    out(`    ray job logs ${this.jobId}`);
    out('');
    out('Tailing logs until the job exits (disable with --no-wait):');
    t = S * 0.5;
    out(`${this.prefix(this.rolloutManager)}[${this.timestamp(t)}] router.py:81 - Router launched at ${this.ips[0]}:8000, Prometheus port: 29000`);
    t = S * 0.55;
    out(this.log(this.rolloutManager, t, 'rollout.py', 95, `Launching ${this.engines.length} SGLang engines (tp_size=2) on ${c.actorNumNodes} nodes`));
    for (let r = 0; r < Math.min(8, c.gpusPerNode); r++) {
      t = S * (0.6 + r * 0.01);
      out(this.log(this.trainActor, t, 'memory_utils.py', 37, `[Rank ${r}] Memory-Usage after init model: ${this.memoryDict(r, 38 + this.rng.uniform(0, 4))}`));
    }
    t = S * 0.9;
    out(this.log(this.trainActor, t, 'actor.py', 212, 'Offloading train model before first rollout'));
    this.noiseBetween(sink, Math.max(noiseFrom, t), S);
  }

  private memoryDict(gpu: number, usedGb: number): string {
    const total = 139.81;
    const allocated = usedGb * this.rng.uniform(0.8, 0.95);
    return pyRepr({
      gpu: String(gpu),
      total_GB: round2(total),
      free_GB: round2(total - usedGb),
      used_GB: round2(usedGb),
      allocated_GB: round2(allocated),
      reserved_GB: round2(usedGb * 0.98),
      host_total_GB: 2015.56,
      host_available_GB: round2(1700 + this.rng.uniform(0, 100)),
      host_used_GB: round2(280 + this.rng.uniform(0, 40)),
      host_free_GB: round2(900 + this.rng.uniform(0, 80)),
    });
  }

  // ---- one rollout ------------------------------------------------------------------------------

  private nextTask(): SimTask {
    if (this.taskCursor >= this.taskOrder.length) {
      // `--rollout-shuffle`: each epoch visits the tasks in a fresh order.
      this.taskOrder = this.tasks.map((_, i) => i);
      for (let i = this.taskOrder.length - 1; i > 0; i--) {
        const j = this.rng.int(i + 1);
        [this.taskOrder[i], this.taskOrder[j]] = [this.taskOrder[j] as number, this.taskOrder[i] as number];
      }
      this.taskCursor = 0;
    }
    return this.tasks[this.taskOrder[this.taskCursor++] as number] as SimTask;
  }

  private drawSample(rolloutId: number, groupIndex: number, index: number, task: SimTask, pSolve: number): SampleOutcome {
    const r = this.rng;
    const s: SampleOutcome = {
      rolloutId,
      groupIndex,
      index,
      task,
      sessionId: `bbs-${r.uuid4()}`,
      evalSessionId: `swegym-eval-${r.hex(32)}`,
      trajectoryId: '',
      startMs: 0,
      evalStartMs: 0,
      endMs: 0,
      aborted: false,
      resolved: false,
      raw: 0,
      reward: 0,
      integrityViolation: false,
      reason: '',
      f2p: null,
      p2p: null,
      segments: r.weighted([[1, 70], [2, 20], [3, 7], [4, 3]] as const),
      responseTokens: 0,
      promptTokens: r.range(2200, 4800),
      numSteps: r.range(6, 80),
      patchBytes: 0,
      truncated: false,
    };
    s.trajectoryId = s.sessionId;
    s.responseTokens = Math.min(60000, Math.round(Math.exp(r.normal(9.1, 0.6))));
    if (r.chance(this.config.abortRate)) {
      s.aborted = true;
      s.abortError = r.pick([
        { type: 'RuntimeError', message: 'blackbox agent backend timeout (HTTP 504): Backend call exceeded backend_timeout.' },
        { type: 'RuntimeError', message: "blackbox agent returned failed state 'desynced'" },
        { type: 'RuntimeError', message: 'required execute_cmd failed: name=swegym_git_sanitize returncode=2 timed_out=False' },
        { type: 'SandboxException', message: '502: sandbox create failed: template not ready' },
        { type: 'RuntimeError', message: 'claude_code exited with code 1; see claude_code.stderr.log' },
        { type: 'RuntimeError', message: 'failed to start background SWE-Gym evaluator: result={"returncode": 1}' },
      ]);
      return s;
    }
    const es = r.next();
    if (es < 0.07) s.earlyStop = 'max_steps_exceeded';
    else if (es < 0.11) s.earlyStop = 'context_overflow';
    if (s.earlyStop === 'max_steps_exceeded') s.numSteps = 80;
    if (s.earlyStop === 'context_overflow') {
      s.truncated = true;
      s.responseTokens = Math.max(s.responseTokens, 57536 - s.promptTokens);
    }
    // Evaluator-side outcomes first (no test counts), then the harness result.
    const pre = r.weighted<FailureReason | ''>([
      ['', 0.915],
      ['empty_generation', 0.03],
      ['prohibited_test_modification', 0.025],
      ['failed_apply_patch', 0.012],
      ['patch_extract_failed', 0.004],
      ['fresh_eval_exception', 0.008],
      ['missing_reward_marker', 0.006],
    ]);
    s.patchBytes = pre === 'empty_generation' ? 0 : r.range(300, 9000);
    if (pre !== '') {
      s.reason = pre;
    } else {
      const [f2pTotal, p2pTotal] = [task.f2pTotal, task.p2pTotal];
      if (r.chance(pSolve)) {
        s.resolved = true;
        s.raw = 1;
        s.f2p = [f2pTotal, f2pTotal];
        s.p2p = [p2pTotal, p2pTotal];
      } else {
        s.reason = r.weighted<FailureReason>([
          ['fail_to_pass_failure', 0.78],
          ['pass_to_pass_regression', 0.14],
          ['test_log_parse_failure', 0.08],
        ]);
        if (s.reason === 'test_log_parse_failure') {
          s.f2p = [0, f2pTotal];
          s.p2p = [0, p2pTotal];
        } else if (s.reason === 'pass_to_pass_regression') {
          s.f2p = [r.range(0, f2pTotal), f2pTotal];
          s.p2p = [Math.max(0, p2pTotal - r.range(1, Math.max(1, Math.min(12, p2pTotal)))), p2pTotal];
        } else {
          s.f2p = [r.range(0, Math.max(0, f2pTotal - 1)), f2pTotal];
          s.p2p = [p2pTotal - (r.chance(0.2) && p2pTotal > 0 ? 1 : 0), p2pTotal];
        }
      }
    }
    // Integrity scan: a violation zeroes the reward even when the tests pass (§5.3).
    if (r.chance(s.resolved ? 0.03 : 0.012)) {
      s.integrityViolation = true;
      s.integrityKind = r.chance(0.6) ? 'invalid_pytest_write' : 'invalid_tool_call';
    }
    s.reward = s.integrityViolation ? 0 : s.raw;
    return s;
  }

  /** The logit level at which the catalogue's mean solve rate equals `p` (tasks differ in difficulty). */
  private solveBase(p: number): number {
    let lo = -12;
    let hi = 12;
    for (let k = 0; k < 40; k++) {
      const mid = (lo + hi) / 2;
      let sum = 0;
      // A large catalogue (several datasets) is calibrated on its first 512 tasks: the same spread of difficulty,
      // without 40 passes over tens of thousands of tasks per rollout.
      const n = Math.min(this.tasks.length, 512);
      for (let i = 0; i < n; i++) sum += sigmoid(mid + (this.tasks[i] as SimTask).difficulty);
      if (sum / n < p) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  }

  /** Places samples on the timeline: `concurrency` slots, each sample holds one until its evaluation ends. */
  private schedule(samples: SampleOutcome[], t0: number, spanMs: number): void {
    const slots = new Array<number>(Math.max(1, this.config.concurrency)).fill(0);
    const order = samples.map((_, i) => i);
    let maxEnd = 1;
    const raw: { start: number; evalStart: number; end: number }[] = [];
    for (const i of order) {
      let best = 0;
      for (let k = 1; k < slots.length; k++) if ((slots[k] as number) < (slots[best] as number)) best = k;
      const start = slots[best] as number;
      const s = samples[i] as SampleOutcome;
      const agent = Math.exp(this.rng.normal(0, 0.55)) * (s.earlyStop === 'max_steps_exceeded' ? 1.6 : 1);
      const evalDur = s.aborted ? 0 : Math.exp(this.rng.normal(-1.2, 0.4));
      const end = start + agent + evalDur;
      slots[best] = end;
      raw.push({ start, evalStart: start + agent, end });
      if (end > maxEnd) maxEnd = end;
    }
    const scale = (spanMs * 0.97) / maxEnd;
    raw.forEach((x, k) => {
      const s = samples[order[k] as number] as SampleOutcome;
      s.startMs = t0 + x.start * scale + k * 3; // creation is staggered by a few ms
      s.evalStartMs = t0 + x.evalStart * scale;
      s.endMs = Math.max(s.startMs + 1, t0 + x.end * scale);
    });
  }

  private sampleLine(s: SampleOutcome): string {
    const f2p = s.f2p ? `${s.f2p[0]}/${s.f2p[1]}` : 'None/None';
    const p2p = s.p2p ? `${s.p2p[0]}/${s.p2p[1]}` : 'None/None';
    const integrity = s.integrityViolation ? 'True' : 'False';
    const msg = `SWE-Gym reward=${s.reward.toFixed(1)} raw=${s.raw.toFixed(1)} integrity=${integrity} instance=${s.task.instanceId} f2p=${f2p} p2p=${p2p} reason=${s.reason}`;
    return this.log(this.rolloutManager, s.endMs, 'reward.py', 139, msg);
  }

  private groupSummary(kind: string, group: SampleOutcome[], bad: SampleOutcome): string {
    const aborted = group.filter((x) => x.aborted).length;
    const err = bad.abortError ?? { type: 'RuntimeError', message: 'unknown' };
    return `task_error=${err.type}: ${err.message} statuses=ABORTED:${aborted},COMPLETED:${group.length - aborted} sample[${bad.index} session_id=${bad.sessionId} instance_id=${bad.task.instanceId}] blackbox_error=${kind}`;
  }

  /** Generates rollout `id`: its samples, failure and retry lines, then the summary dicts and the train step. */
  rollout(id: number, sink: SimSink): RolloutSummary {
    const c = this.config;
    const r = this.rng;
    const t0 = this.rolloutStartMs(id);
    const R = c.rolloutSeconds * 1000;
    const T = c.trainSeconds * 1000;
    const pRollout = rewardCurve(id) + r.normal(0, 0.025);
    // Per-task solve probability: the rollout's level shifted by the task's difficulty, calibrated so that the
    // trajectory mean follows the curve (difficulty has mean 0; the shift makes the average land near pRollout).
    const base = this.solveBase(Math.min(0.95, Math.max(0.05, pRollout)));
    type Ev = { t: number; text?: string; sample?: SampleOutcome };
    const events: Ev[] = [];
    const samples: SampleOutcome[] = [];
    const groups: SampleOutcome[][] = [];
    for (let g = 0; g < c.rolloutBatchSize; g++) {
      const task = this.nextTask();
      const p = sigmoid(base + task.difficulty);
      const group: SampleOutcome[] = [];
      for (let k = 0; k < c.samplesPerPrompt; k++) group.push(this.drawSample(id, g, g * c.samplesPerPrompt + k, task, p));
      groups.push(group);
      samples.push(...group);
    }
    this.schedule(samples, t0 + 2000, Math.max(1000, R - 3000));
    sink.plan?.(id, samples);
    const rm = this.rolloutManager;
    events.push({ t: t0, text: this.log(rm, t0, 'rollout.py', 402, `Start rollout ${id}: ${samples.length} samples (${c.rolloutBatchSize} prompts x ${c.samplesPerPrompt})`) });
    for (const s of samples) {
      if (s.aborted) {
        events.push({ t: s.endMs, text: this.log(rm, s.endMs, 'blackbox_dispatch_swegym.py', 611, `blackbox rollout failed for session_id=${s.sessionId}: ${s.abortError?.type}: ${s.abortError?.message}`) });
        events.push({ t: s.endMs, sample: s });
        continue;
      }
      if (s.earlyStop) {
        events.push({ t: s.evalStartMs, text: this.log(rm, s.evalStartMs, 'blackbox_dispatch_swegym.py', 478, `harvesting blackbox rollout after agent early stop: session_id=${s.sessionId} kind=${s.earlyStop}`) });
      }
      if (r.chance(0.02)) {
        const tt = s.evalStartMs + 1;
        const m = 5;
        const a = r.range(1, 2);
        events.push({ t: tt, text: this.log(rm, tt, 'fresh_eval.py', 233, `source patch extraction failed transiently; retrying: session_id=${s.sessionId} attempt=${a}/${m} delay=${(backoffDelay(PATCH_EXTRACT_RETRY, a) / 1000).toFixed(1)}s status=503 body='upstream connect error or disconnect/reset before headers' error=HTTPStatusError: Server error '503 Service Unavailable' for url 'https://31000-${r.hex(20)}.e2b.app/v1/sessions/${s.sessionId}/execute_cmd'`) });
      }
      if (r.chance(0.03)) {
        const tt = (s.evalStartMs + s.endMs) / 2;
        events.push({ t: tt, text: this.log(rm, tt, 'fresh_eval.py', 318, `SWE-Gym evaluator poll failed; retrying: session_id=${s.evalSessionId} attempt=${r.range(1, 3)} error=ReadTimeout: timed out`) });
      }
      if (s.reason === 'fresh_eval_exception') {
        const tt = s.endMs - 1;
        events.push({ t: tt, text: this.log(rm, tt, 'blackbox_dispatch_swegym.py', 702, `fresh SWE-Gym evaluation failed for instance=${s.task.instanceId}: ReadTimeout: timed out`) });
      }
      events.push({ t: s.endMs, text: this.sampleLine(s), sample: s });
    }
    // Group failures: with no retries left, the group is marked failed once all its samples are done (§8.16).
    let failedGroups = 0;
    for (const group of groups) {
      const bad = group.find((x) => x.aborted);
      if (!bad) continue;
      const tDone = Math.max(...group.map((x) => x.endMs)) + 5;
      if (c.maxRetries > 0) {
        events.push({ t: tDone, text: this.log(rm, tDone, 'sync_rollout.py', 188, `resubmitting rollout group for retry (attempt 1/${c.maxRetries}): ${this.groupSummary('aborted', group, bad)}`) });
        // The retried group succeeds; its samples count but are not drawn again (kept simple and bounded).
        continue;
      }
      failedGroups++;
      events.push({ t: tDone, text: this.log(rm, tDone, 'sync_rollout.py', 201, `rollout group exhausted retries and will be marked failed: ${this.groupSummary('aborted', group, bad)}`) });
    }
    // Progress bar noise (tqdm), every ~1/8 of the samples.
    const sortedEnds = samples.map((s) => s.endMs).sort((a, b) => a - b);
    for (let k = 16; k <= sortedEnds.length; k += 16) {
      const tt = (sortedEnds[k - 1] as number) + 2;
      const pct = Math.round((100 * k) / sortedEnds.length);
      events.push({ t: tt, text: `${this.prefix(rm)}Rollout generation: ${String(pct).padStart(3)}%|${'█'.repeat(Math.round(pct / 10)).padEnd(10)}| ${k}/${sortedEnds.length} [${fmtDur(tt - t0)}<${fmtDur(((tt - t0) / k) * (sortedEnds.length - k))}, ${((tt - t0) / 1000 / k).toFixed(2)}s/it]` });
    }
    events.sort((a, b) => a.t - b.t);

    // Emit sample events with noise in between.
    let cursor = t0;
    for (const e of events) {
      if (e.t > cursor) {
        this.noiseBetween(sink, cursor, e.t);
        cursor = e.t;
      }
      if (e.text !== undefined) sink.line(e.t, e.text);
      if (e.sample) sink.sample?.(e.t, e.sample);
    }
    const tEnd = t0 + R;
    this.noiseBetween(sink, cursor, tEnd);

    // Summary of the rollout.
    const trainable = groups.filter((g) => c.maxRetries > 0 || !g.some((x) => x.aborted)).flat();
    const summary: RolloutSummary = {
      rolloutId: id,
      sampleLines: samples.filter((s) => !s.aborted).length,
      rewardOne: samples.filter((s) => !s.aborted && s.reward === 1).length,
      rawOne: samples.filter((s) => !s.aborted && s.raw === 1).length,
      integrityViolations: samples.filter((s) => !s.aborted && s.integrityViolation).length,
      byReason: {},
      failedGroups,
      trajectoryMean: trainable.length ? trainable.filter((s) => s.reward === 1).length / trainable.length : 0,
    };
    for (const s of samples) if (!s.aborted) summary.byReason[s.reason] = (summary.byReason[s.reason] ?? 0) + 1;
    let noiseCursor = tEnd;
    const timed: SimSink = {
      ...sink,
      line: (t, text) => {
        if (t > noiseCursor) {
          this.noiseBetween(sink, noiseCursor, t);
          noiseCursor = t;
        }
        sink.line(t, text);
      },
    };
    this.summaryLines(timed, id, tEnd, T, trainable, groups, summary);
    sink.rollout?.(tEnd, summary);
    this.noiseBetween(sink, noiseCursor, t0 + R + T);
    return summary;
  }

  private summaryLines(sink: SimSink, id: number, tEnd: number, T: number, trainable: SampleOutcome[], groups: SampleOutcome[][], summary: RolloutSummary): void {
    const r = this.rng;
    const c = this.config;
    const rm = this.rolloutManager;
    const ta = this.trainActor;
    const lens = trainable.map((s) => s.responseTokens).sort((a, b) => a - b);
    const mean = lens.length ? lens.reduce((a, b) => a + b, 0) / lens.length : 0;
    const segs = trainable.map((s) => s.segments);
    const zero: Record<string, number> = {};
    for (const g of groups) {
      if (c.maxRetries === 0 && g.some((x) => x.aborted)) continue;
      const first = g[0]?.reward ?? 0;
      if (g.every((x) => x.reward === first)) zero[first.toFixed(1)] = (zero[first.toFixed(1)] ?? 0) + 1;
    }
    const rolloutTime = (c.rolloutSeconds * r.uniform(0.97, 1.0));
    const tokens = lens.reduce((a, b) => a + b, 0);
    const gpus = c.actorNumNodes * c.gpusPerNode;
    const perf: Record<string, PyLiteral> = {
      'rollout/raw_reward_trajectory_mean': summary.trajectoryMean,
      'rollout/segments_per_trajectory_mean': segs.length ? segs.reduce((a, b) => a + b, 0) / segs.length : 0,
      'rollout/segments_per_trajectory_max': pyInt(segs.length ? Math.max(...segs) : 0),
      'rollout/segments_per_trajectory_min': pyInt(segs.length ? Math.min(...segs) : 0),
      'rollout/num_trajectories': pyInt(trainable.length),
      'rollout/num_segments': pyInt(segs.reduce((a, b) => a + b, 0)),
      'rollout/response_len/mean': mean,
      'rollout/response_len/median': lens.length ? (lens[Math.floor(lens.length / 2)] as number) : 0,
      'rollout/response_len/max': pyInt(lens.length ? (lens[lens.length - 1] as number) : 0),
      'rollout/response_len/min': pyInt(lens[0] ?? 0),
    };
    for (const k of Object.keys(zero).sort()) perf[`rollout/zero_std/count_${k}`] = pyInt(zero[k] as number);
    perf['rollout/repetition_frac'] = r.uniform(0, 0.02);
    perf['rollout/truncated_ratio'] = trainable.length ? trainable.filter((s) => s.truncated).length / trainable.length : 0;
    perf['perf/rollout_time'] = rolloutTime;
    perf['perf/tokens_per_gpu_per_sec'] = tokens / rolloutTime / gpus;
    perf['perf/longest_sample_tokens_per_sec'] = (lens[lens.length - 1] ?? 0) / (rolloutTime * r.uniform(0.6, 0.95));
    perf['perf/effective_tokens_per_gpu_per_sec'] = (tokens * 0.92) / rolloutTime / gpus;
    let t = tEnd;
    sink.line(t, this.log(rm, t, 'rollout.py', 517, `perf ${id}: ${pyRepr(perf)}`));
    t += 1000;
    sink.line(t, this.log(ta, t, 'memory_utils.py', 37, `[Rank 0] Memory-Usage before wake_up model: ${this.memoryDict(0, 22 + r.uniform(0, 2))}`));
    t += T * 0.05;
    sink.line(t, this.log(ta, t, 'memory_utils.py', 37, `[Rank 0] Memory-Usage after wake_up model: ${this.memoryDict(0, 61 + r.uniform(0, 3))}`));
    const raw = trainable.length ? trainable.filter((s) => s.raw === 1).length / trainable.length : 0;
    const lp = -0.28 - r.uniform(0, 0.06);
    const rollout: Record<string, PyLiteral> = {
      'rollout/raw_reward': raw,
      'rollout/rewards': r.normal(0, 1) * 1e-9,
      'rollout/advantages': r.normal(0, 1) * 1e-9,
      'rollout/returns': r.normal(0, 1) * 1e-9,
      'rollout/log_probs': lp,
      'rollout/ref_log_probs': lp - r.uniform(0.0005, 0.004),
      'rollout/rollout_log_probs': lp + r.uniform(-0.012, 0.012),
      'rollout/response_lengths': mean,
      'rollout/total_lengths': mean + 3400 + r.uniform(-200, 200),
      'rollout/truncated': perf['rollout/truncated_ratio'] as number,
    };
    t += T * 0.05;
    sink.line(t, this.log(ta, t, 'data.py', 251, `rollout ${id}: ${pyRepr(rollout)}`));
    // Train step (one optimizer step per rollout: global batch = rollout batch).
    this.smoothedGrad = 0.85 * this.smoothedGrad + 0.15 * (0.3 + r.normal(0, 0.05));
    const nanStep = r.chance(0.01);
    const step: Record<string, PyLiteral> = {
      'train/loss': r.normal(0, 0.02),
      'train/pg_loss': r.normal(0, 0.02),
      'train/entropy_loss': 0.35 + r.uniform(-0.05, 0.05) - id * 1e-4,
      'train/pg_clipfrac': r.uniform(0.0005, 0.004),
      'train/ppo_kl': r.normal(0, 1) * 1e-5,
      'train/train_rollout_logprob_abs_diff': 0.0095 + r.uniform(-0.0005, 0.0015),
      'train/kl_loss': Math.abs(r.normal(0, 1)) * 3e-5 + id * 2e-7,
      'train/ois': 1 + r.normal(0, 0.002),
      'train/tis': 0.99 + r.uniform(0, 0.01),
      'train/tis_clipfrac': nanStep ? NaN : r.uniform(0, 1e-3),
      'train/tis_abs': r.uniform(0.005, 0.02),
      'train/grad_norm': r.chance(0.003) ? Infinity : Math.max(0.05, this.smoothedGrad + r.normal(0, 0.08)),
      'train/lr-pg_0': 1e-6,
      'train/global_batch_size': pyInt(this.samplesPerRollout),
      'train/step': pyInt(id),
    };
    t += T * 0.5;
    sink.line(t, this.log(ta, t, 'model.py', 586, `step ${id}: ${pyRepr(step)}`));
    const trainTime = T * 0.5 / 1000;
    const tperf: Record<string, PyLiteral> = {
      'perf/data_preprocess_time': r.uniform(0.4, 1.5),
      'perf/ref_log_probs_time': r.uniform(15, 30),
      'perf/log_probs_time': r.uniform(15, 30),
      'perf/actor_train_time': trainTime * r.uniform(0.5, 0.7),
      'perf/actor_train_tflops': r.uniform(80, 140),
      'perf/actor_train_tok_per_s': r.uniform(9000, 16000),
      'perf/update_weights_time': r.uniform(20, 45),
      'perf/step_time': c.rolloutSeconds + c.trainSeconds * r.uniform(0.95, 1),
      'perf/wait_time_ratio': r.uniform(0.85, 0.95),
    };
    t += 10;
    sink.line(t, this.log(ta, t, 'train_metric_utils.py', 64, `perf ${id}: ${pyRepr(tperf)}`));
    if ((id + 1) % c.saveInterval === 0 || id === c.numRollouts - 1) {
      t += T * 0.05;
      const dir = `${c.workspace}/outputs/checkpoints/${c.runName}`;
      sink.line(t, `${this.prefix(ta)}saving checkpoint at iteration ${String(id).padStart(7)} to ${dir} in torch_dist format`);
      t += T * 0.15;
      sink.line(t, `${this.prefix(ta)}  successfully saved checkpoint from iteration ${String(id).padStart(7)} to ${dir} [ t 1/2, p 1/1 ]`);
      sink.checkpoint?.(t, id);
    }
    t += T * 0.05;
    sink.line(t, this.log(ta, t, 'actor.py', 540, `update_weights: pushed ${this.engines.length} engines in ${r.uniform(20, 45).toFixed(2)}s`));
    t += T * 0.02;
    sink.line(t, this.log(ta, t, 'memory_utils.py', 37, `[Rank 0] Memory-Usage after offload model: ${this.memoryDict(0, 4 + r.uniform(0, 1))}`));
  }

  /** The end of the job: Ray's closing lines. */
  end(sink: SimSink): void {
    const t = this.rolloutStartMs(this.config.numRollouts);
    sink.line(t, '');
    sink.line(t, '------------------------------------------');
    sink.line(t, `Job '${this.jobId}' succeeded`);
    sink.line(t, '------------------------------------------');
  }

  // ---- noise ------------------------------------------------------------------------------------

  /** Noise lines in (from, to]: Ray, httpx, Python warnings, repeated-line folds. Never a per-sample line. */
  noiseBetween(sink: SimSink, from: number, to: number): void {
    // Look-alikes between the noise lines, in time order.
    const looks = this.lookAlikeTimes(from, to);
    let li = 0;
    const looksUntil = (t: number) => {
      while (li < looks.length && (looks[li] as number) <= t) this.lookAlikeLine(sink, looks[li++] as number);
    };
    const rate = this.config.noiseLinesPerSecond;
    if (rate > 0 && to > from) {
      const nr = this.noiseRng;
      const expected = ((to - from) / 1000) * rate;
      let n = Math.floor(expected);
      if (nr.next() < expected - n) n++;
      const step = (to - from) / Math.max(1, n);
      for (let i = 0; i < n; i++) {
        const t = from + step * (i + nr.next());
        looksUntil(t);
        sink.line(t, this.noiseLine(t));
      }
    }
    looksUntil(Infinity);
  }

  /** The times of the look-alike lines in (from, to], at `lookAlikeLinesPerSecond`, in order. */
  private lookAlikeTimes(from: number, to: number): number[] {
    const rate = this.config.lookAlikeLinesPerSecond;
    if (rate <= 0 || to <= from) return [];
    const lr = this.lookAlikeRng;
    const expected = ((to - from) / 1000) * rate;
    let n = Math.floor(expected);
    if (lr.next() < expected - n) n++;
    return Array.from({ length: n }, (_, i) => from + ((to - from) / n) * (i + lr.next()));
  }

  private lookAlikeLine(sink: SimSink, t: number): void {
    const lr = this.lookAlikeRng;
    const step = Math.max(0, Math.floor((t / 1000 - this.config.startupSeconds) / (this.config.rolloutSeconds + this.config.trainSeconds)));
    const msg = lookAlikeMessage(lr, step);
    const actor = lr.chance(0.5) ? this.trainActor : this.rolloutManager;
    const file = lr.pick(['train.py', 'arguments.py', 'rollout.py', 'worker.py']);
    sink.line(t, lr.chance(0.5) ? this.log(actor, t, file, lr.range(20, 900), msg) : `${this.prefix(actor)}${msg}`);
  }

  private noiseLine(t: number): string {
    const nr = this.noiseRng;
    const x = nr.int(100);
    const rm = this.rolloutManager;
    if (x < 55) {
      const path = nr.pick(['/v1/chat/completions', '/trajectory/read', '/session/finalize', '/health', '/trajectory/stats']);
      return this.log(rm, t, '_client.py', 1740, `HTTP Request: POST ${this.config.proxyUrl}${path} "HTTP/1.1 200 OK"`);
    }
    if (x < 70) {
      const e = this.engines[nr.int(this.engines.length)] as Actor;
      return `${this.prefix(e)}[${this.timestamp(t)} TP${nr.int(2)}] Decode batch. #running-req: ${nr.range(1, 16)}, #token: ${nr.range(20000, 400000)}, token usage: ${nr.next().toFixed(2)}, cuda graph: True, gen throughput (token/s): ${nr.uniform(200, 2400).toFixed(2)}, #queue-req: ${nr.int(3)}`;
    }
    if (x < 80) {
      return this.log(rm, t, 'e2b_provider.py', 214, `sandbox ${nr.pick(['created', 'killed', 'connected'])}: id=i${nr.hex(19)} template=swegym-${nr.hex(8)} trajectory_id=bbs-${nr.uuid4()}`);
    }
    if (x < 88) {
      const ip = this.ips[nr.int(this.ips.length)] as string;
      return `(raylet, ip=${ip}) [${this.timestamp(t)}] WARNING: worker heartbeat is slow (${nr.range(1, 9)}00ms) [repeated ${nr.range(2, 40)}x across cluster]`;
    }
    if (x < 94) {
      return `${this.prefix(this.trainActor)}/usr/local/lib/python3.12/dist-packages/torch/distributed/c10d_logger.py:83: UserWarning: barrier(): using the device under current context. Specify device_id in init_process_group() to mute this warning.`;
    }
    if (x < 98) {
      return this.log(rm, t, 'proxy_client.py', 77, `proxy stats: active_sessions=${nr.range(0, this.config.concurrency)} store_total_items=${nr.range(0, 5000)} reward_cache_hits=${nr.int(50)}`);
    }
    return `${this.prefix(rm)}[${this.timestamp(t)}] sync_rollout.py:140 - ${nr.pick(['waiting on', 'collected'])} ${nr.range(1, 8)} groups; pending=${nr.int(128)}`;
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function fmtDur(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${pad2(Math.floor(s / 60))}:${pad2(s % 60)}`;
}
