// The table of every variable Dressage's SWE-Gym launcher reads that an operator may change (recipe reference §6.1),
// grouped as the launch form shows them, each with its default, a short explanation and its validation. A few
// console-only settings (E2B plan limit, price estimate) feed the derived values and are never passed to the launcher.
// Settings persist per workspace in .swegym-console/settings.json (secrets kept out), or secrets in a 0600 file the
// operator opts into.
import { chmod, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from '../workspace/atomic.js';
import { ConsoleError, ExitCode, OWN_CHECK } from '../errors.js';
import { describeSecret, isSecretName, rememberSecrets } from '../secrets.js';
import { BLACKBOX_PORT, RAY_DASHBOARD_PORT } from '../recipe.js';
import { maxStepsVerdict, proxyUrlRefusal } from './dressageRules.js';
import { settingDefault } from '../config/envSettings.js';

export type SettingGroup = 'model' | 'data' | 'cluster' | 'topology' | 'batch' | 'algorithm' | 'sandbox' | 'run' | 'logging';

export const GROUPS: { id: SettingGroup; title: string }[] = [
  { id: 'model', title: 'Model' },
  { id: 'data', title: 'Data' },
  { id: 'cluster', title: 'Cluster / Ray' },
  { id: 'topology', title: 'Topology' },
  { id: 'batch', title: 'Batch' },
  { id: 'algorithm', title: 'Algorithm' },
  { id: 'sandbox', title: 'Sandbox / proxy' },
  { id: 'run', title: 'Run / checkpoints' },
  { id: 'logging', title: 'Logging' },
];

export type SettingKind =
  | 'path' // a filesystem path
  | 'text' // free text
  | 'posint' // integer ≥ 1
  | 'int0' // integer ≥ 0
  | 'number' // a decimal number (1e-6 allowed)
  | 'fraction' // 0 < x ≤ 1
  | 'toggle' // 0 or 1 (the launcher rejects anything else)
  | 'url' // http(s) URL with a host
  | 'port' // 1..65535
  | 'host' // host name or IP
  | 'enum'
  | 'envlist' // comma list of environment variable names
  | 'secret';

export interface SettingDef {
  key: string;
  group: SettingGroup;
  kind: SettingKind;
  /** The launcher's default as text (may name other variables), shown in the form. */
  defaultText: string;
  help: string;
  options?: string[];
  /** The launcher refuses to start without it. */
  required?: boolean;
  secret?: boolean;
  /** Read by the console only (derived values, checks); never passed to the launcher. */
  consoleOnly?: boolean;
}

const s = (key: string, group: SettingGroup, kind: SettingKind, defaultText: string, help: string, extra: Partial<SettingDef> = {}): SettingDef => ({
  key,
  group,
  kind,
  defaultText,
  help,
  ...extra,
});

/** slime's choices for --kl-loss-type (slime/utils/arguments.py). */
export const SLIME_KL_LOSS_TYPES = ['k1', 'k2', 'k3', 'low_var_kl'] as const;

/** The launcher's own 0/1 checks (it exits 1 on anything else); other toggles only compare with "1". */
export const LAUNCHER_CHECKED_TOGGLES = new Set(['NORMALIZE_ADVANTAGES', 'USE_TIS', 'USE_KL_LOSS']);

export { OWN_CHECK };

/** What the launcher exports as no_proxy (and NO_PROXY) before `ray start`, whatever was set before. */
export const NO_PROXY_DEFAULT = '127.0.0.1,localhost,${MASTER_ADDR},${PROXY_PUBLIC_HOST},${SGLANG_ROUTER_HOST}';

/** Launcher variables it overwrites unconditionally: a value set for them never reaches the run. */
export const LAUNCHER_OVERWRITES = ['no_proxy', 'NO_PROXY'] as const;

/**
 * Settings whose value Dressage's Python code judges at the first rollout, by a check of their own in checks.ts
 * (in Dressage's words): the generic kind validation would refuse spellings Dressage accepts, and the 'values'
 * check leaves them to that check.
 */
export const JUDGED_BY_DRESSAGE: ReadonlySet<string> = new Set(['DRESSAGE_PROXY_URL', 'DRESSAGE_E2B_BLACKBOX_PORT', 'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD']);

export const SETTINGS: SettingDef[] = [
  // Model
  s('MODEL_ROOT', 'model', 'path', '(required)', 'directory holding <MODEL_NAME>/ (HF weights) and <MODEL_NAME>_torch_dist/ (Megatron)', { required: true }),
  s('MODEL_NAME', 'model', 'text', 'Qwen3.5-4B', 'model directory name under MODEL_ROOT; also names the run'),
  s('MODEL_CONFIG', 'model', 'text', 'qwen3.5-4B.sh', 'slime model config under slime/scripts/models/ (defines MODEL_ARGS)'),
  s('TOKENIZER_PATH', 'model', 'path', '${MODEL_ROOT}/${MODEL_NAME}', 'tokenizer for the Dressage proxy'),
  s('HF_CHECKPOINT', 'model', 'path', '${MODEL_ROOT}/${MODEL_NAME}', 'Hugging Face checkpoint SGLang serves'),
  s('REF_LOAD', 'model', 'path', '${MODEL_ROOT}/${MODEL_NAME}_torch_dist/', 'Megatron (torch_dist) checkpoint a fresh run starts from'),
  s('MEGATRON_ROOT', 'model', 'path', '(unset)', 'Megatron-LM checkout prepended to PYTHONPATH when set'),
  s('REPO_ROOT', 'model', 'path', '(the Dressage checkout)', 'Dressage checkout the launcher works in; inferred from its location'),
  s('SLIME_ROOT', 'model', 'path', '${REPO_ROOT}/slime', 'slime checkout (may live outside the Dressage checkout)'),
  s('MODEL_CONFIG_PATH', 'model', 'path', '${SLIME_ROOT}/scripts/models/${MODEL_CONFIG}', 'the slime model config the launcher sources'),
  s('DEFAULT_ENV_FILE', 'model', 'path', '${REPO_ROOT}/examples/scripts/default/dressage_env_defaults.sh', 'the Dressage defaults the launcher sources'),
  s('PYTHONPATH', 'model', 'text', '(inherited)', 'kept after ${REPO_ROOT}:${SLIME_ROOT} (and MEGATRON_ROOT)'),
  // Data
  s('PROMPT_DATA', 'data', 'path', '(required; console: data/swegym-train-claude-code-e2b.jsonl)', 'the converted, verified Dressage JSONL', { required: true }),
  // Cluster / Ray
  s('WORLD_SIZE', 'cluster', 'posint', '(unset)', 'node count from the cluster scheduler; the default of ACTOR_NUM_NODES'),
  s('ACTOR_NUM_NODES', 'cluster', 'posint', '${WORLD_SIZE:-1}', 'nodes in the run; the 4-node recipe needs 4 (the default is 1!)'),
  s('ACTOR_NUM_GPUS_PER_NODE', 'cluster', 'posint', '8', 'GPUs per node used by training and rollout (colocated)'),
  s('RAY_NUM_GPUS_PER_NODE', 'cluster', 'posint', '${ACTOR_NUM_GPUS_PER_NODE}', 'GPUs each Ray node advertises'),
  s('MASTER_ADDR', 'cluster', 'host', 'first address of `hostname -I`', 'head node address the workers join'),
  s('CURRENT_NODE_IP', 'cluster', 'host', 'first address of `hostname -I`', "this head node's IP"),
  s('RAY_NODE_IP_ADDRESS', 'cluster', 'host', '${CURRENT_NODE_IP}', 'IP the Ray head binds'),
  s('RAY_PORT', 'cluster', 'port', '6379', 'Ray GCS port on the head'),
  s('RAY_DASHBOARD_PORT', 'cluster', 'port', String(RAY_DASHBOARD_PORT), 'Ray dashboard / job API port'),
  s('RAY_DASHBOARD_HOST', 'cluster', 'host', '0.0.0.0', 'Ray dashboard bind address'),
  s('RAY_JOIN_TIMEOUT_SEC', 'cluster', 'posint', '600', 'how long the launcher waits for all nodes to join Ray'),
  s('RAY_TEMP_DIR', 'cluster', 'path', '${REPO_ROOT}/outputs/logs/ray', "Ray's temp/log directory"),
  s('HOSTFILE', 'cluster', 'path', '(unset)', 'file whose first column lists node IPs; with RAY_SSH_USER the launcher starts workers over ssh'),
  s('RAY_SSH_USER', 'cluster', 'text', '(unset)', 'ssh user for starting Ray workers listed in HOSTFILE'),
  s('MLP_SOCKET_IFNAME', 'cluster', 'text', '(unset)', 'interface name from the cluster scheduler; the default of SOCKET_IFNAME'),
  s('SOCKET_IFNAME', 'cluster', 'text', '${MLP_SOCKET_IFNAME:-eth0}', 'network interface for NCCL/Gloo'),
  s('GLOO_SOCKET_IFNAME', 'cluster', 'text', '${SOCKET_IFNAME}', 'Gloo network interface'),
  s('TP_SOCKET_IFNAME', 'cluster', 'text', '${SOCKET_IFNAME}', 'TensorPipe network interface'),
  s('NCCL_SOCKET_IFNAME', 'cluster', 'text', '${SOCKET_IFNAME}', 'NCCL network interface'),
  s('NCCL_IB_DISABLE', 'cluster', 'text', '0', 'NCCL: 1 disables InfiniBand'),
  s('NCCL_IB_GID_INDEX', 'cluster', 'text', '3', 'NCCL InfiniBand GID index'),
  s('NCCL_SOCKET_TIMEOUT_MS', 'cluster', 'text', '3600000', 'NCCL socket timeout (ms)'),
  s('NCCL_TIMEOUT_MS', 'cluster', 'text', '3600000', 'NCCL timeout (ms)'),
  s('NCCL_DEBUG', 'cluster', 'text', 'WARN', 'NCCL log level'),
  s('NCCL_NVLS_ENABLE', 'cluster', 'text', '0', 'NCCL NVLink SHARP (multicast)'),
  s('NCCL_CUMEM_ENABLE', 'cluster', 'text', '0', 'NCCL cuMem allocations'),
  s('TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC', 'cluster', 'text', '1800', 'PyTorch NCCL watchdog heartbeat (s)'),
  s('CUDA_DEVICE_MAX_CONNECTIONS', 'cluster', 'text', '1', 'CUDA hardware work queues (Megatron wants 1)'),
  // Keys of the launcher's Ray runtime-env list that no shell line of it reads: forwarded to the job as inherited.
  s('TMPDIR', 'cluster', 'path', '(inherited)', 'temporary directory; forwarded to the Ray job (runtime env)'),
  s('RAY_TMPDIR', 'cluster', 'path', '(inherited)', "Ray's temporary directory for the job; forwarded to the Ray job (runtime env)"),
  // The launcher exports its own value just before `ray start`, so a value set here is replaced (checks.ts warns).
  s('no_proxy', 'cluster', 'text', NO_PROXY_DEFAULT, 'hosts reached without an HTTP proxy; the launcher sets it itself and forwards it to the Ray job'),
  s('NO_PROXY', 'cluster', 'text', '${no_proxy}', 'upper-case twin of no_proxy; the launcher sets it itself and forwards it to the Ray job'),
  // Topology
  s('TP_SIZE', 'topology', 'posint', '2', 'Megatron tensor parallel size'),
  s('CP_SIZE', 'topology', 'posint', '4', 'Megatron context parallel size (PP fixed at 1)'),
  s('MAX_TOKENS_PER_GPU', 'topology', 'posint', '16384', 'dynamic batch token budget per GPU; × CP_SIZE = context window'),
  s('CONTEXT_WINDOW', 'topology', 'posint', '${MAX_TOKENS_PER_GPU} × ${CP_SIZE}', 'longest sequence (prompt + response) the trainer accepts'),
  s('ROLLOUT_MAX_CONTEXT_LEN', 'topology', 'posint', '${CONTEXT_WINDOW}', 'SGLang context limit per request'),
  s('ROLLOUT_MAX_RESPONSE_LEN', 'topology', 'posint', '16000', 'max tokens generated per LLM call'),
  s('COMPACT_RESERVE_TOKENS', 'topology', 'posint', '${ROLLOUT_MAX_RESPONSE_LEN} / 2', 'tokens kept free before Claude Code compacts its context'),
  s('ROLLOUT_NUM_GPUS_PER_ENGINE', 'topology', 'posint', '2', 'GPUs per SGLang engine (engine TP)'),
  s('SGLANG_SERVER_CONCURRENCY', 'topology', 'posint', '4', 'concurrent samples per SGLang engine'),
  s('SGLANG_MEM_FRACTION_STATIC', 'topology', 'fraction', '0.5', 'GPU memory fraction SGLang reserves'),
  s('LOG_PROBS_CHUNK_SIZE', 'topology', 'posint', '1024', 'chunk size for log-prob computation'),
  // Batch
  s('NUM_ROLLOUT', 'batch', 'posint', '500', 'rollout steps in the run'),
  s('ROLLOUT_BATCH_SIZE', 'batch', 'posint', '8', 'prompts (tasks) per rollout'),
  s('N_SAMPLES_PER_PROMPT', 'batch', 'posint', '16', 'Claude Code sessions per task (GRPO group size)'),
  s('GLOBAL_BATCH_SIZE', 'batch', 'posint', '128', 'samples per optimizer step'),
  s('NUM_STEPS_PER_ROLLOUT', 'batch', 'posint', '1', 'optimizer steps per rollout'),
  s('ROLLOUT_TEMPERATURE', 'batch', 'number', '1.0', 'sampling temperature (also the proxy default)'),
  // Algorithm
  s('NORMALIZE_ADVANTAGES', 'algorithm', 'toggle', '1', 'normalise GRPO advantages'),
  s('USE_TIS', 'algorithm', 'toggle', '1', 'truncated importance sampling, clip [0, 2]'),
  s('USE_KL_LOSS', 'algorithm', 'toggle', '1', 'KL loss against the reference model'),
  s('KL_COEF', 'algorithm', 'number', '0.0', 'reward KL; only one of KL_COEF / KL_LOSS_COEF may be non-zero'),
  s('KL_LOSS_COEF', 'algorithm', 'number', '0.001', 'KL loss weight'),
  // Checked against slime's choices only when USE_KL_LOSS=1 (otherwise the launcher does not pass it): see checks.ts.
  s('KL_LOSS_TYPE', 'algorithm', 'text', 'low_var_kl', 'KL estimator (slime: k1, k2, k3, low_var_kl)', { options: [...SLIME_KL_LOSS_TYPES] }),
  s('ENTROPY_COEF', 'algorithm', 'number', '0.0', 'entropy bonus'),
  s('EPS_CLIP', 'algorithm', 'number', '0.2', 'PPO clip (low)'),
  s('EPS_CLIP_HIGH', 'algorithm', 'number', '0.28', 'PPO clip (high)'),
  s('LR', 'algorithm', 'number', '1e-6', 'learning rate (constant)'),
  s('WEIGHT_DECAY', 'algorithm', 'number', '0.1', 'Adam weight decay'),
  s('ADAM_BETA1', 'algorithm', 'number', '0.9', 'Adam beta1'),
  s('ADAM_BETA2', 'algorithm', 'number', '0.98', 'Adam beta2'),
  // Sandbox / proxy
  // Checked in checks.ts (the launcher knows e2b and custom, Dressage's factory e2b and local_bwrap).
  s('DRESSAGE_SANDBOX_PROVIDER', 'sandbox', 'text', 'e2b', 'sandbox provider for rollouts', { options: ['e2b', 'local_bwrap', 'custom'] }),
  s('DRESSAGE_SANDBOX_PREWARM', 'sandbox', 'text', '1 for e2b, else 0', 'create sandboxes ahead of the rollouts'),
  s('DRESSAGE_SANDBOX_PREWARM_AHEAD', 'sandbox', 'text', '8', 'sandboxes created ahead'),
  s('DRESSAGE_LOCAL_BWRAP_POOL_MODE', 'sandbox', 'text', 'blackbox', 'local_bwrap pool mode (command_only for whitebox)'),
  s('DRESSAGE_E2B_API_KEY', 'sandbox', 'secret', '(required for e2b)', 'E2B key for training (not E2B_API_KEY, which only the template tools read)', { secret: true }),
  s('DRESSAGE_E2B_BLACKBOX_PORT', 'sandbox', 'port', String(BLACKBOX_PORT), `BBS port inside templates; the E2B provider accepts only ${BLACKBOX_PORT}`),
  s('DRESSAGE_E2B_TIMEOUT_SEC', 'sandbox', 'posint', '3600', 'sandbox lifetime (the JSONL row value wins)'),
  s('DRESSAGE_SANDBOX_DEFAULT_IMAGE', 'sandbox', 'text', '(empty)', 'fallback template for rows without sandbox_image'),
  s('DRESSAGE_PADDOCK_CLASS', 'sandbox', 'text', '(empty)', 'provider class; required for DRESSAGE_SANDBOX_PROVIDER=custom'),
  s('DRESSAGE_PADDOCK_MODE', 'sandbox', 'text', 'blackbox', 'paddock mode'),
  // dressage_env_defaults.sh sets 100 before the launcher's own `:-80` is evaluated, so 100 is what runs.
  s('DRESSAGE_BLACKBOX_MAX_STEPS', 'sandbox', 'int0', '100', 'LLM calls per Claude Code session (0 = no limit)'),
  s('DRESSAGE_BLACKBOX_COMPACT_THRESHOLD', 'sandbox', 'text', '${CONTEXT_WINDOW} − ${COMPACT_RESERVE_TOKENS}', 'tokens at which Claude Code compacts its context (must be positive)'),
  s('DRESSAGE_PROXY_MAX_STEPS_PER_SESSION', 'sandbox', 'posint', '100', 'the proxy answers HTTP 400 past this many steps'),
  s('DRESSAGE_ROLLOUT_MAX_RETRIES', 'sandbox', 'int0', '0', 'retries of a failed rollout group (0: one aborted sample fails its group)'),
  s('DRESSAGE_ALLOW_EMPTY_TRAIN_BATCH', 'sandbox', 'toggle', '0', 'train even when no group is trainable'),
  s('DRESSAGE_REWARD_MODULES', 'sandbox', 'text', 'dressage.recipes.swegym.reward', 'modules registering reward functions'),
  s('PROXY_HOST', 'sandbox', 'host', '0.0.0.0', 'Dressage proxy bind address'),
  s('PROXY_PORT', 'sandbox', 'port', '8800', 'Dressage proxy port'),
  s('PROXY_PUBLIC_HOST', 'sandbox', 'host', '${CURRENT_NODE_IP:-${MASTER_ADDR}}', 'host in the default proxy URL'),
  s('DRESSAGE_PROXY_URL', 'sandbox', 'url', 'http://${PROXY_PUBLIC_HOST}:${PROXY_PORT}', 'proxy URL sandboxes call: must be reachable FROM E2B (ingress or tunnel), and from this head'),
  s('DRESSAGE_PROXY_PUBLIC_URL', 'sandbox', 'url', '${DRESSAGE_PROXY_URL}', 'public proxy URL forwarded to rollouts'),
  s('DRESSAGE_SKIP_PROXY_HEALTHCHECK', 'sandbox', 'toggle', '0', 'skip the launcher (and console) /health check of the proxy URL'),
  s('SGLANG_ROUTER_HOST', 'sandbox', 'host', '$(hostname -i)', 'SGLang router host the proxy targets'),
  s('SGLANG_ROUTER_PORT', 'sandbox', 'port', '8000', 'SGLang router port'),
  s('SGLANG_ROUTER_URL', 'sandbox', 'url', 'http://${SGLANG_ROUTER_HOST}:${SGLANG_ROUTER_PORT}', 'router URL for the proxy'),
  s('TOKEN_BUILD_MODE', 'sandbox', 'text', 'tito', 'proxy token build mode'),
  s('TOKEN_BUILD_MODEL', 'sandbox', 'text', 'qwen3_5', 'proxy token build model'),
  s('CLAUDE_CODE_VERSION', 'sandbox', 'text', '2.1.207', 'Claude Code version in the templates (only echoed)'),
  s('CLAUDE_CODE_BBS_VERSION', 'sandbox', 'text', '1.1.0', 'BBS version in the templates (only echoed)'),
  s('CLAUDE_CODE_PORTABLE_PYTHON_VERSION', 'sandbox', 'text', '3.10.20', 'portable Python in the templates (only echoed)'),
  s('DRESSAGE_ENABLE_TRANSFER_QUEUE', 'sandbox', 'text', '0', 'transfer queue (1|true|yes|on): trains with dressage.training.tq_train'),
  s('DRESSAGE_TRANSFER_QUEUE_CONFIG', 'sandbox', 'path', '${REPO_ROOT}/examples/scripts/default/dressage_transfer_queue.yaml', 'transfer queue config'),
  s('DRESSAGE_TRANSFER_QUEUE_RETENTION_SECONDS', 'sandbox', 'text', '86400', 'transfer queue retention (s)'),
  s('DRESSAGE_TRANSFER_PARAMS', 'sandbox', 'text', 'logprobs (when the queue is on)', 'what the transfer queue carries (routed_experts adds routing replay)'),
  s('DRESSAGE_TRANSFER_QUEUE_STORE_ID', 'sandbox', 'text', '${RUN_NAME}', 'transfer queue store id'),
  s('DRESSAGE_EXTRA_RUNTIME_ENV_KEYS', 'sandbox', 'envlist', '(empty)', 'extra env names forwarded to the Ray job (e.g. DRESSAGE_SWEGYM_BLOCKED_REPOS)'),
  s('SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT', 'sandbox', 'posint', settingDefault('SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT'), 'console: concurrent sandboxes your E2B plan allows (Hobby 20, Pro 100, add-on up to 1100)', { consoleOnly: true }),
  s('SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR', 'sandbox', 'number', settingDefault('SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR'), 'console: USD per sandbox-hour, for the cost estimate', { consoleOnly: true }),
  s('SWEGYM_CONSOLE_AGENT_MINUTES', 'sandbox', 'number', settingDefault('SWEGYM_CONSOLE_AGENT_MINUTES'), 'console: assumed Claude Code minutes per sample (max 30), for the estimate', { consoleOnly: true }),
  s('SWEGYM_CONSOLE_EVAL_MINUTES', 'sandbox', 'number', settingDefault('SWEGYM_CONSOLE_EVAL_MINUTES'), 'console: assumed evaluation minutes per sample (max 21), for the estimate', { consoleOnly: true }),
  // Run / checkpoints
  s('RUN_NAME', 'run', 'text', 'swegym-${MODEL_NAME,,}-claude-code-grpo-sync', 'names outputs/logs/<RUN_NAME> and the checkpoint dir'),
  s('SAVE_ROOT', 'run', 'path', '${REPO_ROOT}/outputs/checkpoints/${RUN_NAME}', 'checkpoint directory'),
  s('SAVE_INTERVAL', 'run', 'posint', '10', 'save every N rollouts (and at the last)'),
  s('RESUME_FROM_CKPT', 'run', 'toggle', '0', 'resume from RESUME_CKPT_ROOT'),
  s('RESUME_CKPT_ROOT', 'run', 'path', '(unset)', 'checkpoint root to resume from (required when resuming)'),
  s('RESUME_CKPT_STEP', 'run', 'int0', '(latest)', 'checkpoint iteration to resume; default the latest'),
  s('RESUME_LOAD_OPTIM', 'run', 'toggle', '1', 'also load optimizer state when resuming'),
  s('DEBUG_ROLLOUT_ONLY', 'run', 'toggle', '0', 'rollouts only, no training (saves rollout data)'),
  s('SAVE_DEBUG_ROLLOUT_DATA', 'run', 'path', '${SAVE_ROOT}/rollout_data/{rollout_id}.pt', 'with DEBUG_ROLLOUT_ONLY=1: where rollout data is saved (slime fills {rollout_id})'),
  s('DRESSAGE_RAY_STOP_ON_EXIT', 'run', 'toggle', '0', 'run `ray stop --force` when the launcher exits'),
  // Logging
  s('LOG_DIR', 'logging', 'path', '${REPO_ROOT}/outputs/logs/${RUN_NAME}', 'proxy log, trajectory payloads and errors'),
  s('DRESSAGE_CLEAR_TRAJECTORY_LOGS', 'logging', 'toggle', '0', 'empty the trajectory log dirs first'),
  s('DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR', 'logging', 'path', '${LOG_DIR}/traj_payload/${RUN_NAME}', 'per-sample trajectories'),
  s('DRESSAGE_TRAJECTORY_ERROR_LOG_DIR', 'logging', 'path', '${LOG_DIR}/traj_err/${RUN_NAME}', 'per-sample error records'),
  s('PROXY_LOG_FILE', 'logging', 'path', '${LOG_DIR}/proxy/${RUN_NAME}.log', 'Dressage proxy log'),
  s('PROXY_PID_FILE', 'logging', 'path', '${LOG_DIR}/proxy/${RUN_NAME}.pid', 'Dressage proxy pid file'),
  s('USE_WANDB', 'logging', 'toggle', '0', 'log metrics to Weights & Biases'),
  s('WANDB_PROJECT', 'logging', 'text', 'dressage-swegym', 'W&B project'),
  s('WANDB_GROUP', 'logging', 'text', '${RUN_NAME}', 'W&B group'),
  s('WANDB_TEAM', 'logging', 'text', '(unset)', 'W&B entity'),
  s('WANDB_API_KEY', 'logging', 'secret', '(unset)', 'W&B key (needed when USE_WANDB=1)', { secret: true }),
  s('WANDB_KEY', 'logging', 'secret', '(unset)', 'W&B key; wins over WANDB_API_KEY on the trainer argv', { secret: true }),
  s('WANDB_KEY_IN_COMMAND_LINE', 'logging', 'toggle', '0', 'put the W&B key on the trainer argv (visible in ps)'),
  s('WANDB_RUN_ID', 'logging', 'text', '(unset)', 'W&B run id (resume a W&B run)'),
  s('WANDB_MODE', 'logging', 'text', '(inherited)', 'W&B mode (online, offline, disabled); forwarded to the Ray job (runtime env)'),
  s('WANDB_DISABLE_RANDOM_SUFFIX', 'logging', 'toggle', '0', 'no random suffix on the W&B run name'),
];

export const SETTING_BY_KEY: ReadonlyMap<string, SettingDef> = new Map(SETTINGS.map((d) => [d.key, d]));

/** Variables Dressage's launcher forwards to the Ray job (§6.1); anything else needs DRESSAGE_EXTRA_RUNTIME_ENV_KEYS. */
export const FORWARDED_TO_RAY = new Set([
  'no_proxy', 'NO_PROXY', 'MASTER_ADDR', 'PYTHONPATH', 'TMPDIR', 'RAY_TMPDIR', 'CUDA_DEVICE_MAX_CONNECTIONS', 'NCCL_NVLS_ENABLE',
  'WANDB_KEY', 'WANDB_API_KEY', 'WANDB_MODE', 'DRESSAGE_PROXY_URL', 'DRESSAGE_PROXY_PUBLIC_URL', 'DRESSAGE_PADDOCK_MODE',
  'DRESSAGE_PADDOCK_CLASS', 'DRESSAGE_SANDBOX_PROVIDER', 'DRESSAGE_SANDBOX_DEFAULT_IMAGE', 'DRESSAGE_E2B_API_KEY',
  'DRESSAGE_E2B_BLACKBOX_PORT', 'DRESSAGE_E2B_TIMEOUT_SEC', 'DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR', 'DRESSAGE_TRAJECTORY_ERROR_LOG_DIR',
  'DRESSAGE_REWARD_MODULES', 'DRESSAGE_BLACKBOX_MAX_STEPS', 'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD', 'DRESSAGE_PROXY_MAX_STEPS_PER_SESSION',
  'DRESSAGE_ROLLOUT_MAX_RETRIES', 'DRESSAGE_ALLOW_EMPTY_TRAIN_BATCH', 'DRESSAGE_ENABLE_TRANSFER_QUEUE', 'DRESSAGE_TRANSFER_QUEUE_CONFIG',
  'DRESSAGE_TRANSFER_PARAMS', 'DRESSAGE_TRANSFER_QUEUE_STORE_ID',
]);

/** Converter bootstrap variables (custom provider only); left in the environment they signal a mixed-up setup (§1.5, §8.4). */
export const BOOTSTRAP_VARS = ['CLAUDE_CODE_BBS_WHEEL_URL', 'CLAUDE_CODE_BINARY_URL', 'CLAUDE_CODE_RUNTIME_URL'] as const;

/** The effective settings as a store may hold them: a secret setting only as whether it is set ("set (N chars)"). */
export function describeSecretSettings(effective: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(effective).map(([k, v]) => [k, isSecretSetting(k) ? describeSecret(v) : v]));
}

export function isSecretSetting(key: string): boolean {
  return SETTING_BY_KEY.get(key)?.secret === true || isSecretName(key);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validates one value against its setting; returns the problem (launcher wording where it has one) or undefined. */
export function validateSetting(key: string, value: string): string | undefined {
  if (!ENV_NAME.test(key)) return own(`"${key}" is not a valid environment variable name`);
  const def = SETTING_BY_KEY.get(key);
  if (!def) return undefined;
  if (value === '') return def.required ? own(`${key} is required`) : undefined;
  if (key === 'DRESSAGE_PROXY_URL') {
    const refusal = proxyUrlRefusal(value);
    return refusal ? `Dressage (dressage/paddock/blackbox/common/utils.py) fails the first rollout: ${refusal}` : undefined;
  }
  if (JUDGED_BY_DRESSAGE.has(key)) return undefined;
  if (key === 'DRESSAGE_BLACKBOX_MAX_STEPS') {
    // defaults.py strips and lower-cases it and takes int(): " 50 " and "+50" are 50, "0" disables the limit.
    const v = maxStepsVerdict(value);
    return 'error' in v ? `Dressage (dressage/paddock/blackbox/common/defaults.py) fails the first rollout: ${v.error}` : undefined;
  }
  const num = Number(value);
  switch (def.kind) {
    case 'toggle':
      if (value === '0' || value === '1') return undefined;
      // The launcher's own words for the toggles it checks; for the others it treats anything but 1 as off.
      return LAUNCHER_CHECKED_TOGGLES.has(key) ? `${key} must be 0 or 1; got ${value}` : own(`${key} must be 0 or 1 (the launcher treats anything but 1 as 0); got ${value}`);
    case 'posint':
      return /^\d+$/.test(value) && num >= 1 ? undefined : own(`${key} must be a positive integer; got ${value}`);
    case 'int0':
      return /^\d+$/.test(value) ? undefined : own(`${key} must be a non-negative integer; got ${value}`);
    case 'number':
      return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value) && Number.isFinite(num) ? undefined : own(`${key} must be a number; got ${value}`);
    case 'fraction':
      return Number.isFinite(num) && num > 0 && num <= 1 ? undefined : own(`${key} must be a number in (0, 1]; got ${value}`);
    case 'port':
      return /^\d+$/.test(value) && num >= 1 && num <= 65535 ? undefined : own(`${key} must be a port (1-65535); got ${value}`);
    case 'url': {
      let u: URL | undefined;
      try {
        u = new URL(value);
      } catch {}
      return u && (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname ? undefined : own(`${key} must be an http(s) URL with a host, got: ${value}`);
    }
    case 'host':
      return /^[A-Za-z0-9._:[\]-]+$/.test(value) ? undefined : own(`${key} must be a host name or IP address; got ${value}`);
    case 'enum':
      return def.options?.includes(value) ? undefined : own(`${key} must be one of ${def.options?.join('|')}; got ${value}`);
    case 'envlist':
      return value.split(',').map((v) => v.trim()).filter(Boolean).every((v) => ENV_NAME.test(v))
        ? undefined
        : own(`${key} must be a comma list of environment variable names; got ${value}`);
    case 'path':
      return value.includes('\n') || value.includes('\0') ? own(`${key} must be a single-line path`) : undefined;
    default:
      return value.includes('\n') || value.includes('\0') ? own(`${key} must be a single line`) : undefined;
  }
}

const own = (problem: string) => OWN_CHECK + problem;

/** Parses `KEY=VALUE` (from --set or an env file); surrounding quotes are removed. */
export function parseAssignment(text: string, where: string): [string, string] {
  const eq = text.indexOf('=');
  const key = (eq > 0 ? text.slice(0, eq) : '').trim().replace(/^export\s+/, '');
  if (!key || !ENV_NAME.test(key)) {
    throw new ConsoleError({
      what: `${where}: expected KEY=VALUE, got "${text.length > 60 ? text.slice(0, 60) + '…' : text}"`,
      fix: 'write one setting as NAME=value, e.g. ACTOR_NUM_NODES=4',
      exitCode: ExitCode.usage,
    });
  }
  let value = text.slice(eq + 1).trim();
  if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
    value = value.slice(1, -1);
  }
  return [key, value];
}

/** Reads a KEY=VALUE file (blank lines, # comments and `export ` prefixes allowed). */
export async function readEnvFile(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConsoleError({
      what: `cannot read the env file ${file}`,
      cause: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (err as Error).message,
      fix: 'pass an existing KEY=VALUE file to --env-file',
      exitCode: ExitCode.usage,
    });
  }
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const [k, v] = parseAssignment(line, `${file}:${i + 1}`);
    out[k] = v;
  });
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Persistence

export interface SavedTrainSettings {
  /** Non-secret values the operator set. */
  values: Record<string, string>;
  /** Whether secrets are kept in the 0600 secrets file. */
  storeSecrets: boolean;
}

export function secretsFile(paths: RecipePaths): string {
  return path.join(paths.consoleDir, 'train-secrets.env');
}

/** Loads the saved train settings (and, when opted in, secrets from the 0600 file). Other sections of settings.json are left alone. */
export async function loadTrainSettings(paths: RecipePaths): Promise<SavedTrainSettings & { secrets: Record<string, string> }> {
  const doc = await readJsonFile<{ train?: Partial<SavedTrainSettings> }>(paths.settingsFile);
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc?.train?.values ?? {})) {
    if (typeof v === 'string' && !isSecretSetting(k)) values[k] = v;
  }
  const storeSecrets = doc?.train?.storeSecrets === true;
  let secrets: Record<string, string> = {};
  if (storeSecrets) {
    const file = secretsFile(paths);
    try {
      const st = await stat(file);
      if ((st.mode & 0o077) !== 0) {
        throw new ConsoleError({
          what: `${file} is readable by other users (mode ${(st.mode & 0o777).toString(8)})`,
          cause: 'the file holds API keys',
          fix: `chmod 600 ${file}`,
          exitCode: ExitCode.precondition,
        });
      }
      secrets = await readEnvFile(file);
      rememberSecrets(Object.values(secrets));
    } catch (err) {
      if (err instanceof ConsoleError && err.exitCode === ExitCode.precondition) throw err;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof ConsoleError)) throw err;
    }
  }
  return { values, storeSecrets, secrets };
}

/** Saves non-secret values to settings.json (merging with other sections) and, only when opted in, secrets to a 0600 file. */
export async function saveTrainSettings(paths: RecipePaths, values: Record<string, string>, opts: { storeSecrets?: boolean } = {}): Promise<void> {
  const doc = ((await readJsonFile<Record<string, unknown>>(paths.settingsFile)) ?? {}) as Record<string, unknown>;
  const plain: Record<string, string> = {};
  const secret: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) (isSecretSetting(k) ? secret : plain)[k] = v;
  const storeSecrets = opts.storeSecrets ?? (doc.train as SavedTrainSettings | undefined)?.storeSecrets ?? false;
  doc.train = { values: plain, storeSecrets } satisfies SavedTrainSettings;
  await writeJsonAtomic(paths.settingsFile, doc);
  if (storeSecrets) {
    const file = secretsFile(paths);
    const body = Object.entries(secret)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${v}`)
      .join('\n');
    await writeFileAtomic(file, body ? body + '\n' : '', { mode: 0o600 });
    await chmod(file, 0o600);
  }
}
