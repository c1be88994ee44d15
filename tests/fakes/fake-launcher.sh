#!/usr/bin/env bash
# Fake of Dressage's examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh for tests.
# It reads the same variables with the same defaults, validates them like the real launcher (exact error strings from
# the recipe reference §8), prints the five effective_* lines (§1.7), then simulates the proxy, Ray join and the job:
# per-sample `SWE-Gym reward=…` lines and `perf N:` / `rollout N:` / `step N:` metric lines (§6.5, §6.6), with
# Megatron-style checkpoints (§6.3). Test controls (not read by the real launcher):
#   FAKE_LAUNCHER_ROLLOUTS   rollouts to simulate (default NUM_ROLLOUT)
#   FAKE_LAUNCHER_SAMPLES    per-sample lines per rollout (default ROLLOUT_BATCH_SIZE*N_SAMPLES_PER_PROMPT)
#   FAKE_LAUNCHER_LINE_DELAY seconds between output lines (default 0)
#   FAKE_LAUNCHER_HOLD=1     keep running after the last rollout until signalled
#   FAKE_LAUNCHER_EXIT_CODE  exit code at the end (default 0)
#   FAKE_LAUNCHER_PID_FILE   write this script's pid here
#   FAKE_RAY_POLL_SEC        node-count poll interval (real: 10)
#   FAKE_PROXY_HEALTH_TRIES  /health attempts at 1 s (real: 60)
set -uo pipefail

die() { echo "$*" >&2; exit 1; }

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -z "${REPO_ROOT:-}" ]]; then
  case "${SCRIPT_DIR}" in
    */examples/scripts) REPO_ROOT="$(cd "${SCRIPT_DIR}/../.." && pwd)" ;;
    *) die "REPO_ROOT is required when this script is not inside examples/scripts/." ;;
  esac
fi
[[ -n "${FAKE_LAUNCHER_PID_FILE:-}" ]] && echo $$ > "${FAKE_LAUNCHER_PID_FILE}"

SLIME_ROOT="${SLIME_ROOT:-${REPO_ROOT}/slime}"
DEFAULT_ENV_FILE="${DEFAULT_ENV_FILE:-${REPO_ROOT}/examples/scripts/default/dressage_env_defaults.sh}"
MODEL_NAME="${MODEL_NAME:-Qwen3.5-4B}"
MODEL_CONFIG="${MODEL_CONFIG:-qwen3.5-4B.sh}"
MODEL_CONFIG_PATH="${MODEL_CONFIG_PATH:-${SLIME_ROOT}/scripts/models/${MODEL_CONFIG}}"
[[ -f "${MODEL_CONFIG_PATH}" ]] || die "Missing Slime model config: ${MODEL_CONFIG_PATH}"
[[ -f "${DEFAULT_ENV_FILE}" ]] || die "Missing Dressage default env file: ${DEFAULT_ENV_FILE}"

[[ -n "${MODEL_ROOT:-}" ]] || die "MODEL_ROOT must point to model/checkpoint files, e.g. /path/to/models"
[[ -n "${PROMPT_DATA:-}" ]] || die "PROMPT_DATA must point to Claude Code SWE-Gym Dressage JSONL"
TOKENIZER_PATH="${TOKENIZER_PATH:-${MODEL_ROOT}/${MODEL_NAME}}"
HF_CHECKPOINT="${HF_CHECKPOINT:-${MODEL_ROOT}/${MODEL_NAME}}"
REF_LOAD="${REF_LOAD:-${MODEL_ROOT}/${MODEL_NAME}_torch_dist/}"

HOST_IP="$(hostname -I 2>/dev/null | awk '{print $1}')"
MASTER_ADDR="${MASTER_ADDR:-${HOST_IP}}"
CURRENT_NODE_IP="${CURRENT_NODE_IP:-${HOST_IP}}"
[[ -n "${MASTER_ADDR}" ]] || die "MASTER_ADDR is required and could not be inferred."
ACTOR_NUM_NODES="${ACTOR_NUM_NODES:-${WORLD_SIZE:-1}}"
ACTOR_NUM_GPUS_PER_NODE="${ACTOR_NUM_GPUS_PER_NODE:-8}"
RAY_NUM_GPUS_PER_NODE="${RAY_NUM_GPUS_PER_NODE:-${ACTOR_NUM_GPUS_PER_NODE}}"
RAY_JOIN_TIMEOUT_SEC="${RAY_JOIN_TIMEOUT_SEC:-600}"
RAY_TEMP_DIR="${RAY_TEMP_DIR:-${LOG_DIR:-${REPO_ROOT}/outputs/logs}/ray}"

TP_SIZE="${TP_SIZE:-2}"
CP_SIZE="${CP_SIZE:-4}"
MAX_TOKENS_PER_GPU="${MAX_TOKENS_PER_GPU:-16384}"
CONTEXT_WINDOW="${CONTEXT_WINDOW:-$((MAX_TOKENS_PER_GPU * CP_SIZE))}"
ROLLOUT_MAX_CONTEXT_LEN="${ROLLOUT_MAX_CONTEXT_LEN:-${CONTEXT_WINDOW}}"
ROLLOUT_MAX_RESPONSE_LEN="${ROLLOUT_MAX_RESPONSE_LEN:-16000}"
COMPACT_RESERVE_TOKENS="${COMPACT_RESERVE_TOKENS:-$((ROLLOUT_MAX_RESPONSE_LEN / 2))}"
DRESSAGE_BLACKBOX_COMPACT_THRESHOLD="${DRESSAGE_BLACKBOX_COMPACT_THRESHOLD:-$((CONTEXT_WINDOW - COMPACT_RESERVE_TOKENS))}"
NUM_ROLLOUT="${NUM_ROLLOUT:-500}"
ROLLOUT_BATCH_SIZE="${ROLLOUT_BATCH_SIZE:-8}"
N_SAMPLES_PER_PROMPT="${N_SAMPLES_PER_PROMPT:-16}"
GLOBAL_BATCH_SIZE="${GLOBAL_BATCH_SIZE:-128}"
ROLLOUT_NUM_GPUS_PER_ENGINE="${ROLLOUT_NUM_GPUS_PER_ENGINE:-2}"
SGLANG_SERVER_CONCURRENCY="${SGLANG_SERVER_CONCURRENCY:-4}"

NORMALIZE_ADVANTAGES="${NORMALIZE_ADVANTAGES:-1}"
USE_TIS="${USE_TIS:-1}"
USE_KL_LOSS="${USE_KL_LOSS:-1}"
KL_COEF="${KL_COEF:-0.0}"
KL_LOSS_COEF="${KL_LOSS_COEF:-0.001}"
KL_LOSS_TYPE="${KL_LOSS_TYPE:-low_var_kl}"
ENTROPY_COEF="${ENTROPY_COEF:-0.0}"
EPS_CLIP="${EPS_CLIP:-0.2}"
EPS_CLIP_HIGH="${EPS_CLIP_HIGH:-0.28}"

MODEL_NAME_LOWER="${MODEL_NAME,,}"
RUN_NAME="${RUN_NAME:-swegym-${MODEL_NAME_LOWER}-claude-code-grpo-sync}"
SAVE_ROOT="${SAVE_ROOT:-${REPO_ROOT}/outputs/checkpoints/${RUN_NAME}}"
LOG_DIR="${LOG_DIR:-${REPO_ROOT}/outputs/logs/${RUN_NAME}}"
SAVE_INTERVAL="${SAVE_INTERVAL:-10}"
RESUME_FROM_CKPT="${RESUME_FROM_CKPT:-0}"
RESUME_LOAD_OPTIM="${RESUME_LOAD_OPTIM:-1}"
DEBUG_ROLLOUT_ONLY="${DEBUG_ROLLOUT_ONLY:-0}"
USE_WANDB="${USE_WANDB:-0}"
DRESSAGE_CLEAR_TRAJECTORY_LOGS="${DRESSAGE_CLEAR_TRAJECTORY_LOGS:-0}"
DRESSAGE_SKIP_PROXY_HEALTHCHECK="${DRESSAGE_SKIP_PROXY_HEALTHCHECK:-0}"
DRESSAGE_RAY_STOP_ON_EXIT="${DRESSAGE_RAY_STOP_ON_EXIT:-0}"
DRESSAGE_ALLOW_EMPTY_TRAIN_BATCH="${DRESSAGE_ALLOW_EMPTY_TRAIN_BATCH:-0}"
PROXY_LOG_FILE="${PROXY_LOG_FILE:-${LOG_DIR}/proxy/${RUN_NAME}.log}"
PROXY_PID_FILE="${PROXY_PID_FILE:-${LOG_DIR}/proxy/${RUN_NAME}.pid}"

CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.207}"
CLAUDE_CODE_BBS_VERSION="${CLAUDE_CODE_BBS_VERSION:-1.1.0}"
CLAUDE_CODE_PORTABLE_PYTHON_VERSION="${CLAUDE_CODE_PORTABLE_PYTHON_VERSION:-3.10.20}"
DRESSAGE_SANDBOX_PROVIDER="${DRESSAGE_SANDBOX_PROVIDER:-e2b}"
DRESSAGE_E2B_BLACKBOX_PORT="${DRESSAGE_E2B_BLACKBOX_PORT:-31000}"
# The real defaults file sets 100 before the launcher's own `:-80` (tests/train/launcher.upstream.test.ts checks this).
DRESSAGE_BLACKBOX_MAX_STEPS="${DRESSAGE_BLACKBOX_MAX_STEPS:-100}"
PROXY_PUBLIC_HOST="${PROXY_PUBLIC_HOST:-${CURRENT_NODE_IP:-${MASTER_ADDR}}}"
DRESSAGE_PROXY_URL="${DRESSAGE_PROXY_URL:-http://${PROXY_PUBLIC_HOST}:${PROXY_PORT:-8800}}"
SGLANG_ROUTER_URL="${SGLANG_ROUTER_URL:-http://${SGLANG_ROUTER_HOST:-$(hostname -i 2>/dev/null)}:${SGLANG_ROUTER_PORT:-8000}}"

for name in NORMALIZE_ADVANTAGES USE_TIS USE_KL_LOSS; do
  value="${!name}"
  [[ "${value}" == "0" || "${value}" == "1" ]] || die "${name} must be 0 or 1; got ${value}"
done

case "${DRESSAGE_SANDBOX_PROVIDER}" in
  e2b) [[ -n "${DRESSAGE_E2B_API_KEY:-}" ]] || die "DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b" ;;
  custom) [[ -n "${DRESSAGE_PADDOCK_CLASS:-}" ]] || die "DRESSAGE_PADDOCK_CLASS is required for DRESSAGE_SANDBOX_PROVIDER=custom" ;;
esac

if [[ "${DRESSAGE_PROXY_URL}" =~ ^https?://(localhost|127\.|0\.0\.0\.0|\[::1\]|::1)([:/]|$) ]]; then
  echo "DRESSAGE_PROXY_URL must be reachable from the sandbox; got local-only URL: ${DRESSAGE_PROXY_URL}" >&2
  die "Set PROXY_PUBLIC_HOST or DRESSAGE_PROXY_URL to this machine's sandbox-reachable IP/hostname."
fi
if [[ "${SGLANG_ROUTER_URL}" =~ ^https?://(0\.0\.0\.0|\[::\]|::)([:/]|$) ]]; then
  die "SGLANG_ROUTER_URL is a proxy client target and cannot use a wildcard bind address: ${SGLANG_ROUTER_URL}"
fi

total_actor_gpus=$((ACTOR_NUM_NODES * ACTOR_NUM_GPUS_PER_NODE))
tp_cp=$((TP_SIZE * CP_SIZE))
(( total_actor_gpus % tp_cp == 0 )) || die "total actor GPUs (${total_actor_gpus}) must be divisible by TP_SIZE*CP_SIZE (${tp_cp})"
DP_SIZE=$((total_actor_gpus / tp_cp))
(( DRESSAGE_BLACKBOX_COMPACT_THRESHOLD > 0 )) || die "DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive; got ${DRESSAGE_BLACKBOX_COMPACT_THRESHOLD}"
if [[ "${RESUME_FROM_CKPT}" == "1" && -z "${RESUME_CKPT_ROOT:-}" ]]; then
  die "RESUME_CKPT_ROOT is required when RESUME_FROM_CKPT=1"
fi
if [[ -n "${HOSTFILE:-}" && -f "${HOSTFILE}" && -z "${RAY_SSH_USER:-}" ]]; then
  die "RAY_SSH_USER is required when HOSTFILE is set"
fi

echo "effective_parallelism: total_actor_gpus=${total_actor_gpus} TP_SIZE=${TP_SIZE} CP_SIZE=${CP_SIZE} DP_SIZE=${DP_SIZE} CONTEXT_WINDOW=${CONTEXT_WINDOW} ROLLOUT_MAX_CONTEXT_LEN=${ROLLOUT_MAX_CONTEXT_LEN}"
echo "effective_blackbox: provider=${DRESSAGE_SANDBOX_PROVIDER} proxy=${DRESSAGE_PROXY_URL} max_steps=${DRESSAGE_BLACKBOX_MAX_STEPS} compact_threshold=${DRESSAGE_BLACKBOX_COMPACT_THRESHOLD}"
echo "effective_claude_code: version=${CLAUDE_CODE_VERSION} bbs_version=${CLAUDE_CODE_BBS_VERSION} portable_python=${CLAUDE_CODE_PORTABLE_PYTHON_VERSION}"
echo "effective_batch: num_rollout=${NUM_ROLLOUT} rollout_batch_size=${ROLLOUT_BATCH_SIZE} n_samples_per_prompt=${N_SAMPLES_PER_PROMPT} global_batch_size=${GLOBAL_BATCH_SIZE}"
echo "effective_grpo: normalize_advantages=${NORMALIZE_ADVANTAGES} use_tis=${USE_TIS} use_kl_loss=${USE_KL_LOSS} kl_coef=${KL_COEF} entropy_coef=${ENTROPY_COEF} eps_clip=${EPS_CLIP} eps_clip_high=${EPS_CLIP_HIGH} kl_loss_coef=${KL_LOSS_COEF} kl_loss_type=${KL_LOSS_TYPE}"

DELAY="${FAKE_LAUNCHER_LINE_DELAY:-0}"
pace() { if [[ "${DELAY}" != "0" ]]; then sleep "${DELAY}" & wait $!; fi; }

# The "proxy": a background child in the launcher's process group, killed by the exit trap like the real one.
mkdir -p "$(dirname "${PROXY_LOG_FILE}")"
sleep 100000 > "${PROXY_LOG_FILE}" 2>&1 &
PROXY_PID=$!
echo "${PROXY_PID}" > "${PROXY_PID_FILE}"
cleanup() {
  kill "${PROXY_PID}" 2>/dev/null
  rm -f "${PROXY_PID_FILE}"
  if [[ "${DRESSAGE_RAY_STOP_ON_EXIT}" == "1" ]]; then echo "ray stop --force"; fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

if [[ "${DRESSAGE_SKIP_PROXY_HEALTHCHECK}" != "1" ]]; then
  ok=0
  for ((i = 0; i < ${FAKE_PROXY_HEALTH_TRIES:-60}; i++)); do
    if curl -sf "${DRESSAGE_PROXY_URL}/health" > /dev/null 2>&1; then ok=1; break; fi
    sleep 1
  done
  (( ok == 1 )) || die "Dressage proxy failed; see ${PROXY_LOG_FILE}"
fi

nodes=1
if [[ -n "${HOSTFILE:-}" && -n "${RAY_SSH_USER:-}" ]]; then
  while read -r ip _; do
    [[ -z "${ip}" || "${ip}" == "${MASTER_ADDR}" ]] && continue
    echo "Starting Ray worker on ${ip}"
    nodes=$((nodes + 1))
  done < "${HOSTFILE}"
fi
waited=0
while :; do
  echo "Current Ray node count: ${nodes}; expected ACTOR_NUM_NODES: ${ACTOR_NUM_NODES}"
  (( nodes >= ACTOR_NUM_NODES )) && break
  if awk -v w="${waited}" -v t="${RAY_JOIN_TIMEOUT_SEC}" 'BEGIN { exit !(w >= t) }'; then die "Timed out waiting for Ray workers to join."; fi
  sleep "${FAKE_RAY_POLL_SEC:-10}"
  waited=$(awk -v w="${waited}" -v p="${FAKE_RAY_POLL_SEC:-10}" 'BEGIN { print w + p }')
done

# Runtime errors raised inside the job (provider and slime), as the Ray job output would show them.
if [[ "${DRESSAGE_SANDBOX_PROVIDER}" == "e2b" && "${DRESSAGE_E2B_BLACKBOX_PORT}" != "31000" ]]; then
  die "E2BSandboxProvider blackbox templates use the fixed internal-compatible port 31000; unset DRESSAGE_E2B_BLACKBOX_PORT or set it to 31000"
fi
if [[ "${USE_KL_LOSS}" == "1" ]] && awk -v a="${KL_COEF}" -v b="${KL_LOSS_COEF}" 'BEGIN { exit !(a != 0 && b != 0) }'; then
  die "Only one of kl_coef and kl_loss_coef can be set"
fi

ROLLOUTS="${FAKE_LAUNCHER_ROLLOUTS:-${NUM_ROLLOUT}}"
SAMPLES="${FAKE_LAUNCHER_SAMPLES:-$((ROLLOUT_BATCH_SIZE * N_SAMPLES_PER_PROMPT))}"
ts() { date -u '+%Y-%m-%d %H:%M:%S'; }
RM="(RolloutManager pid=$$, ip=${MASTER_ADDR})"
TR="(MegatronTrainRayActor pid=$$, ip=${MASTER_ADDR})"
echo "${RM} [$(ts)] router.py:88 - Router launched at ${MASTER_ADDR}:8000, Prometheus port: 29000"
for ((r = 0; r < ROLLOUTS; r++)); do
  resolved=0
  for ((k = 0; k < SAMPLES; k++)); do
    reward="0.0"; f2p=0
    if (( (k + r) % 3 == 0 )); then reward="1.0"; f2p=2; resolved=$((resolved + 1)); fi
    echo "${RM} [$(ts)] rollout.py:412 - SWE-Gym reward=${reward} raw=${reward} integrity=False instance=getmoto__moto-$((6900 + k)) f2p=${f2p}/2 p2p=40/40 reason="
    pace
  done
  mean=$(awk -v a="${resolved}" -v b="${SAMPLES}" 'BEGIN { printf "%.4f", a / b }')
  echo "${RM} [$(ts)] rollout.py:530 - perf ${r}: {'rollout/raw_reward_trajectory_mean': ${mean}, 'rollout/num_trajectories': ${SAMPLES}, 'rollout/response_len/mean': 3120.5, 'perf/rollout_time': 1800.2}"
  echo "${TR} [$(ts)] data.py:301 - rollout ${r}: {'rollout/raw_reward': ${mean}, 'rollout/rewards': 0.0, 'rollout/response_lengths': 3120.5, 'rollout/truncated': 0.0}"
  echo "${TR} [$(ts)] model.py:640 - step ${r}: {'train/loss': 0.0123, 'train/pg_loss': 0.011, 'train/entropy_loss': 0.42, 'train/pg_clipfrac': 0.002, 'train/ppo_kl': 0.0004, 'train/train_rollout_logprob_abs_diff': 0.0101, 'train/kl_loss': 0.0005, 'train/grad_norm': 0.31, 'train/lr-pg_0': 1e-06, 'train/global_batch_size': ${GLOBAL_BATCH_SIZE}, 'train/step': ${r}}"
  if (( (r + 1) % SAVE_INTERVAL == 0 || r + 1 == ROLLOUTS )); then
    ckpt="${SAVE_ROOT}/iter_$(printf '%07d' "${r}")"
    mkdir -p "${ckpt}"
    echo "${r}" > "${SAVE_ROOT}/latest_checkpointed_iteration.txt"
    echo "${TR} [$(ts)] checkpoint.py:120 - saved checkpoint ${ckpt}"
  fi
  pace
done

if [[ "${FAKE_LAUNCHER_HOLD:-0}" == "1" ]]; then
  while :; do sleep 1 & wait $!; done
fi
exit "${FAKE_LAUNCHER_EXIT_CODE:-0}"
