// Line builders that follow the recipe reference §6.5/§6.6 formats exactly (Python logging format
// `[%(asctime)s] %(filename)s:%(lineno)d - %(message)s`, Ray actor prefixes, Python dict repr).

export type Py = number | string | boolean | null | Py[] | { [k: string]: Py } | { tuple: Py[] };

/** Python repr of a value: single-quoted strings (double quotes when the text holds a single quote), nan/inf. */
export function pyRepr(v: Py): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'nan';
    if (v === Infinity) return 'inf';
    if (v === -Infinity) return '-inf';
    if (Number.isInteger(v)) return String(v);
    // Python prints small floats with exponents: 1e-06.
    const s = Math.abs(v) < 1e-4 || Math.abs(v) >= 1e16 ? v.toExponential() : String(v);
    return s.replace(/e([+-])(\d)$/, 'e$10$2');
  }
  if (typeof v === 'string') {
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(new RegExp(q, 'g'), `\\${q}`);
    return q + body + q;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if ('tuple' in v && Array.isArray((v as { tuple: Py[] }).tuple)) {
    const t = (v as { tuple: Py[] }).tuple;
    return t.length === 1 ? `(${pyRepr(t[0] as Py)},)` : `(${t.map(pyRepr).join(', ')})`;
  }
  return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x as Py)}`).join(', ')}}`;
}

export function ts(sec = 0): string {
  const d = new Date(Date.UTC(2026, 7, 1, 12, 0, 0) + sec * 1000);
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

export const RM = '(RolloutManager pid=2211, ip=10.0.0.1) ';
export const TRAIN = '(MegatronTrainRayActor pid=3301, ip=10.0.0.2) ';

export function pyLog(file: string, line: number, msg: string, sec = 0): string {
  return `[${ts(sec)}] ${file}:${line} - ${msg}`;
}

export function metricLine(kind: 'step' | 'rollout' | 'perf' | 'eval', n: number, metrics: Record<string, Py>, sec = 0, prefix = kind === 'perf' || kind === 'eval' ? RM : TRAIN): string {
  const file = kind === 'step' ? 'model.py' : kind === 'rollout' ? 'data.py' : 'rollout.py';
  return prefix + pyLog(file, 123, `${kind} ${n}: ${pyRepr(metrics)}`, sec);
}

export interface SampleOpts {
  reward?: number;
  raw?: number;
  integrity?: boolean;
  instance?: string;
  f2p?: string;
  p2p?: string;
  reason?: string;
}

export function sampleLine(o: SampleOpts = {}, sec = 0, prefix = RM): string {
  const raw = o.raw ?? o.reward ?? 0;
  const reward = o.reward ?? raw;
  return (
    prefix +
    pyLog(
      'reward.py',
      88,
      `SWE-Gym reward=${reward.toFixed(1)} raw=${raw.toFixed(1)} integrity=${o.integrity ? 'True' : 'False'} instance=${o.instance ?? 'getmoto__moto-1234'} f2p=${o.f2p ?? '2/2'} p2p=${o.p2p ?? '40/40'} reason=${o.reason ?? ''}`,
      sec,
    )
  );
}

export function stepMetrics(n: number): Record<string, Py> {
  return {
    'train/loss': 0.0123 + n / 1000,
    'train/pg_loss': -0.004,
    'train/entropy_loss': 0.61,
    'train/pg_clipfrac': 0.0021,
    'train/ppo_kl': 1.2e-5,
    'train/train_rollout_logprob_abs_diff': 0.0101,
    'train/kl_loss': 0.00042,
    'train/grad_norm': 0.31,
    'train/lr-pg_0': 1e-6,
    'train/global_batch_size': 128,
    'train/step': n,
  };
}

export function perfMetrics(n: number, mean = 0.3): Record<string, Py> {
  return {
    'rollout/raw_reward_trajectory_mean': mean,
    'rollout/segments_per_trajectory_mean': 1.2,
    'rollout/num_trajectories': 128,
    'rollout/response_len/mean': 5123.5,
    'rollout/zero_std/count_0.0': 3,
    'rollout/zero_std/count_1.0': 1,
    'perf/rollout_time': 1800.25 + n,
  };
}

export const EFFECTIVE_LINES = [
  'effective_parallelism: total_actor_gpus=32 TP_SIZE=2 CP_SIZE=4 DP_SIZE=4 CONTEXT_WINDOW=65536 ROLLOUT_MAX_CONTEXT_LEN=65536',
  'effective_blackbox: provider=e2b proxy=https://proxy.example.com max_steps=80 compact_threshold=57536',
  'effective_claude_code: version=2.1.207 bbs_version=1.1.0 portable_python=3.10.20',
  'effective_batch: num_rollout=500 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128',
  'effective_grpo: normalize_advantages=1 use_tis=1 use_kl_loss=1 kl_coef=0.0 entropy_coef=0.0 eps_clip=0.2 eps_clip_high=0.28 kl_loss_coef=0.001 kl_loss_type=low_var_kl',
];

/** A whole rollout: n sample lines (every third solved), then the perf, rollout and step summaries. */
export function rolloutLines(r: number, samples = 128, opts: { sec?: number; mean?: number } = {}): string[] {
  const out: string[] = [];
  const base = opts.sec ?? r * 3600;
  for (let i = 0; i < samples; i++) {
    const ok = i % 3 === 0;
    out.push(sampleLine({ reward: ok ? 1 : 0, instance: `task__repo-${i % 8}`, f2p: ok ? '2/2' : '0/2', reason: ok ? '' : 'fail_to_pass_failure' }, base + i));
  }
  out.push(metricLine('perf', r, perfMetrics(r, opts.mean), base + samples + 1));
  out.push(metricLine('rollout', r, { 'rollout/raw_reward': 0.33, 'rollout/advantages': 0.0, 'rollout/response_lengths': 5000 }, base + samples + 2));
  out.push(metricLine('step', r, stepMetrics(r), base + samples + 3));
  return out;
}

/** A run log with what a packed model must get right: late lines of old records, extra keys, thinning, failures. */
export function runWithLateLines(seed: number, rollouts: number): string[] {
  const lines = [...EFFECTIVE_LINES];
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let r = 0; r < rollouts; r++) {
    lines.push(...rolloutLines(r, 16 + Math.floor(rand() * 20), { mean: rand() }));
    // Some with the integrity scan's verdict: raw 1, reward 0.
    if (rand() < 0.3) lines.push(sampleLine({ reward: 0, raw: rand() < 0.5 ? 1 : 0, integrity: rand() < 0.5, reason: `reason_${Math.floor(rand() * 4)}`, instance: `other__t-${r % 5}` }, r * 3600 + 900));
    // A line of an older record, after others: it merges into that record (a new key, and a changed value).
    if (r > 4 && rand() < 0.3) {
      const old = r - 1 - Math.floor(rand() * 4);
      lines.push(metricLine('rollout', old, { 'rollout/late': rand(), 'rollout/raw_reward': rand() }, r * 3600 + 1000));
      lines.push(metricLine('step', old, { ...stepMetrics(old), 'train/late': 'text' }, r * 3600 + 1001));
    }
    if (rand() < 0.2) lines.push(metricLine('perf', r, { ...perfMetrics(r), 'perf/flag': true, 'perf/none': null }, r * 3600 + 1002));
  }
  return lines;
}
