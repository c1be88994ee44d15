// Noise that looks like the lines the monitor reads and is not: real run logs print configs and other dicts,
// `step`/`rollout`/`perf`/`eval` followed by a word where a metric line has its number, metric dicts cut short (a
// line split by a crash or a full pipe), traceback lines, warnings that name SWE-Gym. Each holds a marker text of
// lines.ts LINE_MARKERS and classifies as nothing (tests/monitor/markerShapes.test.ts checks both), so that the
// benchmarks' logs cost the monitor what a real log costs.
import type { Rng } from './rng.js';

const CONFIG_KEYS: readonly (readonly [string, () => string])[] = [
  ['actor_num_nodes', () => '4'],
  ['actor_num_gpus_per_node', () => '8'],
  ['rollout_batch_size', () => '8'],
  ['n_samples_per_prompt', () => '16'],
  ['global_batch_size', () => '128'],
  ['lr', () => '1e-06'],
  ['min_lr', () => '0.0'],
  ['weight_decay', () => '0.1'],
  ['adam_beta2', () => '0.98'],
  ['clip_grad', () => '1.0'],
  ['eps_clip', () => '0.2'],
  ['kl_coef', () => '0.0'],
  ['rollout_max_response_len', () => '32768'],
  ['rollout_temperature', () => '1.0'],
  ['advantage_estimator', () => "'grpo'"],
  ['hf_checkpoint', () => "'/models/Qwen3.5-4B'"],
  ['save_interval', () => '10'],
  ['optimizer', () => "{'name': 'adam', 'betas': (0.9, 0.98), 'eps': 1e-08}"],
  ['sglang_mem_fraction_static', () => '0.7'],
  ['use_dynamic_batch_size', () => 'True'],
  ['max_tokens_per_gpu', () => '16384'],
  ['seed', () => '1234'],
];

const STEP_WORDS: readonly string[] = [
  "step skipped: {'reason': 'found inf/nan in grads', 'loss_scale': 32768.0, 'skipped_iterations': 1}",
  "rollout buffer: {'size': 128, 'pending': 12, 'ready': 116, 'dropped': 0}",
  "perf counters: {'tokens_per_second': 18234.5, 'mfu': 0.41, 'step_time': 212.7}",
  "eval dataset: {'name': 'swegym-lite', 'split': 'test', 'instances': 293}",
  "rollout config: {'temperature': 1.0, 'top_p': 1.0, 'max_new_tokens': 32768, 'stop': None}",
  "step timing: {'forward': 41.2, 'backward': 88.9, 'optimizer': 3.1, 'weight_sync': 12.4}",
];

const TRACEBACK: readonly string[] = [
  'httpx.ReadError: [Errno 104] Connection reset by peer',
  'ConnectionResetError: [Errno 104] Connection reset by peer',
  'asyncio.exceptions.CancelledError',
  'RuntimeError: CUDA error: an illegal memory access was encountered',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 139.81 GiB',
  'During handling of the above exception, another exception occurred: ValueError: bad patch header',
];

const SWE_GYM_WARNINGS: readonly string[] = [
  'Loaded SWE-Gym split train (2438 instances) from /data/swegym/train.jsonl',
  'SWE-Gym image cache miss for instance, pulling from registry',
  'UserWarning: SWE-Gym dataset field `FAIL_TO_PASS` is a string, parsing as JSON',
];

/** The dict of a metric line (`step N: {…}`), cut before its end. */
function cutMetricLine(rng: Rng, n: number): string {
  const kind = rng.pick(['step', 'rollout', 'perf']);
  let dict = '{';
  const keys = 8 + rng.int(12);
  for (let k = 0; k < keys; k++) dict += `${k ? ', ' : ''}'${kind === 'perf' ? 'perf' : kind === 'step' ? 'train' : 'rollout'}/metric_${k}': ${rng.uniform(-2, 2).toFixed(6)}`;
  // Anywhere after the brace and before the closing one.
  return `${kind} ${n}: ${dict.slice(0, 2 + rng.int(dict.length - 2))}`;
}

function configLine(rng: Rng): string {
  const parts = CONFIG_KEYS.filter(() => rng.chance(0.8)).map(([k, v]) => `'${k}': ${v()}`);
  return `${rng.pick(['args', 'megatron config', 'sglang server args', 'Namespace'])}: {${parts.join(', ')}}`;
}

/** One look-alike message (without Ray or logging prefixes); `n`: a number near the run's current step. */
export function lookAlikeMessage(rng: Rng, n: number): string {
  const x = rng.int(100);
  if (x < 30) return configLine(rng);
  if (x < 50) return rng.pick(STEP_WORDS);
  if (x < 70) return cutMetricLine(rng, n);
  if (x < 90) return rng.pick(TRACEBACK);
  return rng.pick(SWE_GYM_WARNINGS);
}
