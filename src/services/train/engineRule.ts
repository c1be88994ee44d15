// ROLLOUT_NUM_GPUS_PER_ENGINE against where slime places SGLang engines and how SGLang splits the model. Neither the
// launcher nor Dressage checks it; slime's placement is read from its source, SGLang's head rule is not in
// ../shared/upstream (SGLang is not vendored), so a value that breaks them is a warning that names both, not a block.
import type { LaunchCheck } from '../../state/types/train.js';
import { warn } from './checkParts.js';
import { OWN_CHECK } from '../errors.js';

/** slime's --num-gpus-per-node default (slime/utils/arguments.py); the launcher does not pass it. */
export const SLIME_ROLLOUT_GPUS_PER_NODE = 8;

/** Attention heads of the recipe's model config (slime/scripts/models/qwen3.5-4B.sh: --num-attention-heads 16, --num-query-groups 4). */
export const MODEL_ATTENTION_HEADS: Readonly<Record<string, { heads: number; kvHeads: number }>> = {
  'qwen3.5-4B.sh': { heads: 16, kvHeads: 4 },
};

export function engineGpuWarning(e: Record<string, string>): LaunchCheck | undefined {
  const raw = e.ROLLOUT_NUM_GPUS_PER_ENGINE ?? '';
  if (!/^\d+$/.test(raw) || Number(raw) < 1) return undefined;
  const per = Number(raw);
  const node = SLIME_ROLLOUT_GPUS_PER_NODE;
  const problems: string[] = [];
  const fits = per <= node ? node % per === 0 : per % node === 0;
  if (!fits) {
    const span = Math.min(per, node);
    const bad = Array.from({ length: 16 }, (_, rank) => rank).find((rank) => ((rank * span) % node) + span > node);
    const base = bad === undefined ? 0 : (bad * span) % node;
    problems.push(
      `slime places SGLang engine r at GPU (r × ${span}) mod ${node} of its node (slime/backends/sglang_utils/sglang_engine.py get_base_gpu_id, --num-gpus-per-node ${node}), so engine ${bad} would need GPUs ${base}–${base + span - 1} of an ${node}-GPU node`,
    );
  }
  const model = MODEL_ATTENTION_HEADS[e.MODEL_CONFIG ?? ''];
  if (model && (model.heads % per !== 0 || (model.kvHeads % per !== 0 && per % model.kvHeads !== 0))) {
    problems.push(
      `SGLang's tensor parallelism (tp_size = ROLLOUT_NUM_GPUS_PER_ENGINE, slime/backends/sglang_utils/sglang_engine.py) splits the model's ${model.heads} attention heads and ${model.kvHeads} KV heads (slime/scripts/models/${e.MODEL_CONFIG}) evenly across its GPUs, which ${per} does not (SGLang's rule; its source is not in ../shared/upstream)`,
    );
  }
  if (problems.length === 0) return undefined;
  return warn('engine-gpus', 'GPUs per SGLang engine', `${OWN_CHECK}ROLLOUT_NUM_GPUS_PER_ENGINE=${per}: ${problems.join('; ')}`, 'use 1, 2, 4 or 8 GPUs per engine (the recipe uses 2)');
}
