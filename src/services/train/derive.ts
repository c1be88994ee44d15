// Derived launch values, computed exactly as Dressage's launcher computes them (recipe reference §1.7, §6.1, §6.4),
// so the operator sees total GPUs, DP size, context window, compaction threshold, concurrency, sandboxes at peak,
// the E2B plan fit, a cost estimate and the five `effective_*` lines before any GPU is allocated.
import { execFileSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { SETTINGS, SETTING_BY_KEY, validateSetting } from './settings.js';
import type { Derived } from '../../state/types/train.js';
import { BLACKBOX_PORT, RAY_DASHBOARD_PORT } from '../recipe.js';
import { pyInt } from './dressageRules.js';
import { settingDefault } from '../config/envSettings.js';
export type { Derived } from '../../state/types/train.js';

export interface ResolveContext {
  /** The Dressage checkout (the launcher's REPO_ROOT). */
  repoRoot: string;
  /** The environment the launcher inherits (WORLD_SIZE, MLP_SOCKET_IFNAME). */
  env: NodeJS.ProcessEnv;
  /** This node's first IP (the launcher: first word of `hostname -I`); detected when omitted. */
  hostIp?: string;
  /** `hostname -i` (the defaults file's SGLANG_ROUTER_HOST); detected when omitted. */
  routerHost?: string;
}

/** First non-internal IPv4 address, like the first word of `hostname -I`. */
export function detectHostIp(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

const hostnameCache = new Map<string, { out?: string; error?: string }>();

function runHostname(flag: '-I' | '-i', env: NodeJS.ProcessEnv): { out?: string; error?: string } {
  const key = `${flag}\0${env.PATH ?? ''}`;
  const hit = hostnameCache.get(key);
  if (hit) return hit;
  let r: { out?: string; error?: string };
  try {
    r = { out: execFileSync('hostname', [flag], { env: { PATH: env.PATH ?? '' }, encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'pipe'] }).replace(/\n+$/, '') };
  } catch (err) {
    const e = err as { stderr?: string; code?: string; status?: number };
    const said = (e.stderr ?? '').trim().split('\n')[0];
    r = { error: said || (e.code === 'ENOENT' ? 'hostname: command not found' : `exit ${e.status ?? '?'}`) };
  }
  hostnameCache.set(key, r);
  return r;
}

/** The output of `hostname <flag>` as bash's `$(…)` leaves it (trailing newlines dropped); once per PATH and flag. */
export function hostnameOutput(flag: '-I' | '-i', env: NodeJS.ProcessEnv = process.env): string | undefined {
  return runHostname(flag, env).out;
}

/** Why `hostname <flag>` fails here (its first stderr line), or undefined when it works. */
export function hostnameFailure(flag: '-I' | '-i', env: NodeJS.ProcessEnv = process.env): string | undefined {
  return runHostname(flag, env).error;
}

/**
 * The launcher's `hostname -I | awk '{print $1}'`. Where `hostname` fails (no -I on this system, not installed) the
 * launcher gets an empty value too and refuses ("MASTER_ADDR is required and could not be inferred.").
 */
export function launcherHostIp(env: NodeJS.ProcessEnv = process.env): string {
  return (hostnameOutput('-I', env) ?? '').trim().split(/\s+/)[0] ?? '';
}

/** The defaults file's `$(hostname -i)` (SGLANG_ROUTER_HOST); empty where `hostname` fails, as in bash. */
export function launcherRouterHost(env: NodeJS.ProcessEnv = process.env): string {
  return hostnameOutput('-i', env) ?? '';
}

const isSet = (v: string | undefined): v is string => v !== undefined && v !== '';

/**
 * The value of every setting as the launcher will see it, given the explicitly set values (bash `${VAR:-default}`
 * semantics: empty means unset). Console-only settings resolve to their console defaults.
 */
export function resolveSettings(values: Record<string, string>, ctx: ResolveContext): Record<string, string> {
  const out: Record<string, string> = {};
  const hostIp = ctx.hostIp ?? launcherHostIp(ctx.env);
  const routerHost = ctx.routerHost ?? (ctx.hostIp !== undefined ? ctx.hostIp : launcherRouterHost(ctx.env));
  const get = (k: string) => out[k] ?? '';
  const pick = (k: string, dflt: () => string) => {
    out[k] = isSet(values[k]) ? (values[k] as string) : dflt();
  };
  pick('REPO_ROOT', () => ctx.repoRoot);
  const repo = get('REPO_ROOT');
  pick('SLIME_ROOT', () => `${repo}/slime`);
  pick('DEFAULT_ENV_FILE', () => `${repo}/examples/scripts/default/dressage_env_defaults.sh`);
  pick('MODEL_ROOT', () => '');
  pick('MODEL_NAME', () => 'Qwen3.5-4B');
  pick('MODEL_CONFIG', () => 'qwen3.5-4B.sh');
  pick('MODEL_CONFIG_PATH', () => `${get('SLIME_ROOT')}/scripts/models/${get('MODEL_CONFIG')}`);
  pick('TOKENIZER_PATH', () => `${get('MODEL_ROOT')}/${get('MODEL_NAME')}`);
  pick('HF_CHECKPOINT', () => `${get('MODEL_ROOT')}/${get('MODEL_NAME')}`);
  pick('REF_LOAD', () => `${get('MODEL_ROOT')}/${get('MODEL_NAME')}_torch_dist/`);
  pick('MEGATRON_ROOT', () => '');
  pick('PROMPT_DATA', () => '');
  pick('WORLD_SIZE', () => ctx.env.WORLD_SIZE ?? '');
  pick('ACTOR_NUM_NODES', () => (isSet(get('WORLD_SIZE')) ? get('WORLD_SIZE') : '1'));
  pick('ACTOR_NUM_GPUS_PER_NODE', () => '8');
  pick('RAY_NUM_GPUS_PER_NODE', () => get('ACTOR_NUM_GPUS_PER_NODE'));
  pick('MASTER_ADDR', () => hostIp);
  pick('CURRENT_NODE_IP', () => hostIp);
  pick('RAY_NODE_IP_ADDRESS', () => get('CURRENT_NODE_IP'));
  pick('RAY_PORT', () => '6379');
  pick('RAY_DASHBOARD_PORT', () => String(RAY_DASHBOARD_PORT));
  pick('RAY_DASHBOARD_HOST', () => '0.0.0.0');
  pick('RAY_JOIN_TIMEOUT_SEC', () => '600');
  // Evaluated before LOG_DIR is set, so normally ${REPO_ROOT}/outputs/logs/ray (§6.1).
  pick('RAY_TEMP_DIR', () => `${isSet(values.LOG_DIR) ? values.LOG_DIR : `${repo}/outputs/logs`}/ray`);
  pick('HOSTFILE', () => '');
  pick('RAY_SSH_USER', () => '');
  pick('MLP_SOCKET_IFNAME', () => ctx.env.MLP_SOCKET_IFNAME ?? '');
  pick('SOCKET_IFNAME', () => (isSet(get('MLP_SOCKET_IFNAME')) ? get('MLP_SOCKET_IFNAME') : 'eth0'));
  pick('CUDA_DEVICE_MAX_CONNECTIONS', () => '1');
  for (const k of ['GLOO_SOCKET_IFNAME', 'TP_SOCKET_IFNAME', 'NCCL_SOCKET_IFNAME']) pick(k, () => get('SOCKET_IFNAME'));
  pick('NCCL_IB_DISABLE', () => '0');
  pick('NCCL_IB_GID_INDEX', () => '3');
  pick('NCCL_SOCKET_TIMEOUT_MS', () => '3600000');
  pick('NCCL_TIMEOUT_MS', () => '3600000');
  pick('NCCL_DEBUG', () => 'WARN');
  pick('NCCL_NVLS_ENABLE', () => '0');
  pick('NCCL_CUMEM_ENABLE', () => '0');
  pick('TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC', () => '1800');
  pick('TP_SIZE', () => '2');
  pick('CP_SIZE', () => '4');
  pick('MAX_TOKENS_PER_GPU', () => '16384');
  pick('CONTEXT_WINDOW', () => String(int(get('MAX_TOKENS_PER_GPU')) * int(get('CP_SIZE'))));
  pick('ROLLOUT_MAX_CONTEXT_LEN', () => get('CONTEXT_WINDOW'));
  pick('ROLLOUT_MAX_RESPONSE_LEN', () => '16000');
  pick('COMPACT_RESERVE_TOKENS', () => String(Math.trunc(int(get('ROLLOUT_MAX_RESPONSE_LEN')) / 2)));
  pick('DRESSAGE_BLACKBOX_COMPACT_THRESHOLD', () => String(int(get('CONTEXT_WINDOW')) - int(get('COMPACT_RESERVE_TOKENS'))));
  pick('ROLLOUT_NUM_GPUS_PER_ENGINE', () => '2');
  pick('SGLANG_SERVER_CONCURRENCY', () => '4');
  pick('SGLANG_MEM_FRACTION_STATIC', () => '0.5');
  pick('LOG_PROBS_CHUNK_SIZE', () => '1024');
  pick('NUM_ROLLOUT', () => '500');
  pick('ROLLOUT_BATCH_SIZE', () => '8');
  pick('N_SAMPLES_PER_PROMPT', () => '16');
  pick('GLOBAL_BATCH_SIZE', () => '128');
  pick('NUM_STEPS_PER_ROLLOUT', () => '1');
  pick('ROLLOUT_TEMPERATURE', () => '1.0');
  pick('NORMALIZE_ADVANTAGES', () => '1');
  pick('USE_TIS', () => '1');
  pick('USE_KL_LOSS', () => '1');
  pick('KL_COEF', () => '0.0');
  pick('KL_LOSS_COEF', () => '0.001');
  pick('KL_LOSS_TYPE', () => 'low_var_kl');
  pick('ENTROPY_COEF', () => '0.0');
  pick('EPS_CLIP', () => '0.2');
  pick('EPS_CLIP_HIGH', () => '0.28');
  pick('LR', () => '1e-6');
  pick('WEIGHT_DECAY', () => '0.1');
  pick('ADAM_BETA1', () => '0.9');
  pick('ADAM_BETA2', () => '0.98');
  pick('DRESSAGE_SANDBOX_PROVIDER', () => 'e2b');
  pick('DRESSAGE_E2B_API_KEY', () => '');
  pick('DRESSAGE_E2B_BLACKBOX_PORT', () => String(BLACKBOX_PORT));
  pick('DRESSAGE_E2B_TIMEOUT_SEC', () => '3600');
  pick('DRESSAGE_SANDBOX_DEFAULT_IMAGE', () => '');
  pick('DRESSAGE_PADDOCK_CLASS', () => '');
  pick('DRESSAGE_PADDOCK_MODE', () => 'blackbox');
  // dressage_apply_common_defaults sets 100 before the launcher's own `:-80` runs.
  pick('DRESSAGE_BLACKBOX_MAX_STEPS', () => '100');
  pick('DRESSAGE_PROXY_MAX_STEPS_PER_SESSION', () => '100');
  pick('DRESSAGE_ROLLOUT_MAX_RETRIES', () => '0');
  pick('DRESSAGE_ALLOW_EMPTY_TRAIN_BATCH', () => '0');
  pick('DRESSAGE_REWARD_MODULES', () => 'dressage.recipes.swegym.reward');
  pick('PROXY_HOST', () => '0.0.0.0');
  pick('PROXY_PORT', () => '8800');
  pick('PROXY_PUBLIC_HOST', () => (isSet(get('CURRENT_NODE_IP')) ? get('CURRENT_NODE_IP') : get('MASTER_ADDR')));
  pick('DRESSAGE_PROXY_URL', () => `http://${get('PROXY_PUBLIC_HOST')}:${get('PROXY_PORT')}`);
  pick('DRESSAGE_PROXY_PUBLIC_URL', () => get('DRESSAGE_PROXY_URL'));
  pick('DRESSAGE_SKIP_PROXY_HEALTHCHECK', () => '0');
  pick('SGLANG_ROUTER_HOST', () => routerHost);
  pick('SGLANG_ROUTER_PORT', () => '8000');
  pick('SGLANG_ROUTER_URL', () => `http://${get('SGLANG_ROUTER_HOST')}:${get('SGLANG_ROUTER_PORT')}`);
  pick('TOKEN_BUILD_MODE', () => 'tito');
  pick('TOKEN_BUILD_MODEL', () => 'qwen3_5');
  pick('CLAUDE_CODE_VERSION', () => '2.1.207');
  pick('CLAUDE_CODE_BBS_VERSION', () => '1.1.0');
  pick('CLAUDE_CODE_PORTABLE_PYTHON_VERSION', () => '3.10.20');
  pick('DRESSAGE_EXTRA_RUNTIME_ENV_KEYS', () => '');
  pick('SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT', () => settingDefault('SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT'));
  pick('SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR', () => settingDefault('SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR'));
  pick('SWEGYM_CONSOLE_AGENT_MINUTES', () => settingDefault('SWEGYM_CONSOLE_AGENT_MINUTES'));
  pick('SWEGYM_CONSOLE_EVAL_MINUTES', () => settingDefault('SWEGYM_CONSOLE_EVAL_MINUTES'));
  pick('RUN_NAME', () => `swegym-${get('MODEL_NAME').toLowerCase()}-claude-code-grpo-sync`);
  pick('SAVE_ROOT', () => `${repo}/outputs/checkpoints/${get('RUN_NAME')}`);
  pick('SAVE_INTERVAL', () => '10');
  pick('RESUME_FROM_CKPT', () => '0');
  pick('RESUME_CKPT_ROOT', () => '');
  pick('RESUME_CKPT_STEP', () => '');
  pick('RESUME_LOAD_OPTIM', () => '1');
  pick('DEBUG_ROLLOUT_ONLY', () => '0');
  pick('SAVE_DEBUG_ROLLOUT_DATA', () => `${get('SAVE_ROOT')}/rollout_data/{rollout_id}.pt`);
  pick('DRESSAGE_RAY_STOP_ON_EXIT', () => '0');
  pick('LOG_DIR', () => `${repo}/outputs/logs/${get('RUN_NAME')}`);
  pick('DRESSAGE_CLEAR_TRAJECTORY_LOGS', () => '0');
  pick('DRESSAGE_SANDBOX_PREWARM', () => (get('DRESSAGE_SANDBOX_PROVIDER') === 'e2b' ? '1' : '0'));
  pick('DRESSAGE_SANDBOX_PREWARM_AHEAD', () => '8');
  pick('DRESSAGE_LOCAL_BWRAP_POOL_MODE', () => (get('DRESSAGE_PADDOCK_MODE') === 'whitebox' ? 'command_only' : 'blackbox'));
  const tq = transferQueueEnabled(values.DRESSAGE_ENABLE_TRANSFER_QUEUE);
  pick('DRESSAGE_ENABLE_TRANSFER_QUEUE', () => '0');
  pick('DRESSAGE_TRANSFER_QUEUE_CONFIG', () => `${repo}/examples/scripts/default/dressage_transfer_queue.yaml`);
  pick('DRESSAGE_TRANSFER_QUEUE_RETENTION_SECONDS', () => '86400');
  // The launcher fills "logprobs" before the defaults file's "logprobs routed_experts" can apply.
  pick('DRESSAGE_TRANSFER_PARAMS', () => (tq ? 'logprobs' : ''));
  pick('DRESSAGE_TRANSFER_QUEUE_STORE_ID', () => get('RUN_NAME'));
  pick('DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR', () => `${get('LOG_DIR')}/traj_payload/${get('RUN_NAME')}`);
  pick('DRESSAGE_TRAJECTORY_ERROR_LOG_DIR', () => `${get('LOG_DIR')}/traj_err/${get('RUN_NAME')}`);
  pick('PROXY_LOG_FILE', () => `${get('LOG_DIR')}/proxy/${get('RUN_NAME')}.log`);
  pick('PROXY_PID_FILE', () => `${get('LOG_DIR')}/proxy/${get('RUN_NAME')}.pid`);
  pick('USE_WANDB', () => '0');
  pick('WANDB_PROJECT', () => 'dressage-swegym');
  pick('WANDB_GROUP', () => get('RUN_NAME'));
  pick('WANDB_TEAM', () => '');
  pick('WANDB_API_KEY', () => '');
  pick('WANDB_KEY_IN_COMMAND_LINE', () => '0');
  pick('WANDB_RUN_ID', () => '');
  pick('WANDB_DISABLE_RANDOM_SUFFIX', () => '0');
  // Exported by the launcher just before `ray start`, over any value it inherited.
  out.no_proxy = `127.0.0.1,localhost,${get('MASTER_ADDR')},${get('PROXY_PUBLIC_HOST')},${get('SGLANG_ROUTER_HOST')}`;
  out.NO_PROXY = out.no_proxy;
  for (const def of SETTINGS) if (!(def.key in out)) out[def.key] = values[def.key] ?? '';
  return out;
}

/** The defaults file's dressage_transfer_queue_enabled. */
export function transferQueueEnabled(v: string | undefined): boolean {
  return ['1', 'true', 'TRUE', 'yes', 'YES', 'on', 'ON'].includes(v ?? '0');
}

function int(v: string | undefined): number {
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : NaN;
}

function num(v: string | undefined): number {
  return v !== undefined && v.trim() !== '' ? Number(v) : NaN;
}

const finite = (n: number): number | undefined => (Number.isFinite(n) ? n : undefined);

/** Everything derived from the resolved settings. Invalid inputs yield undefined fields (the checks report why). */
export function deriveValues(eff: Record<string, string>): Derived {
  const nodes = int(eff.ACTOR_NUM_NODES);
  const gpn = int(eff.ACTOR_NUM_GPUS_PER_NODE);
  const total = nodes * gpn;
  const tp = int(eff.TP_SIZE);
  const cp = int(eff.CP_SIZE);
  const dpRaw = total / (tp * cp);
  const dpDivisible = Number.isInteger(dpRaw) && dpRaw > 0;
  const context = int(eff.CONTEXT_WINDOW);
  const rolloutCtx = int(eff.ROLLOUT_MAX_CONTEXT_LEN);
  const resp = int(eff.ROLLOUT_MAX_RESPONSE_LEN);
  const reserve = int(eff.COMPACT_RESERVE_TOKENS);
  // The threshold Dressage uses (int() of the text, defaults.py); the launcher's own reading is in checks.ts.
  const threshold = pyInt(eff.DRESSAGE_BLACKBOX_COMPACT_THRESHOLD ?? '') ?? NaN;
  const dressageContext = int(eff.MAX_TOKENS_PER_GPU) * cp;
  const perEngineGpus = int(eff.ROLLOUT_NUM_GPUS_PER_ENGINE);
  const engines = Math.floor(total / perEngineGpus);
  const perEngine = int(eff.SGLANG_SERVER_CONCURRENCY);
  const concurrent = engines * perEngine;
  const samples = int(eff.ROLLOUT_BATCH_SIZE) * int(eff.N_SAMPLES_PER_PROMPT);
  const active = Math.min(concurrent, samples);
  const peak = active * 2;
  const limit = int(eff.SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT);
  const agentMin = num(eff.SWEGYM_CONSOLE_AGENT_MINUTES);
  const evalMin = num(eff.SWEGYM_CONSOLE_EVAL_MINUTES);
  const price = num(eff.SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR);
  // The agent sandbox stays alive while its fresh evaluation sandbox runs: two sandboxes per sample during eval (§8.24).
  const hours = (samples * (agentMin + 2 * evalMin)) / 60;
  const hoursMax = (samples * (30 + 2 * 21)) / 60;
  let e2bFit: Derived['e2bFit'] = 'unknown';
  if (Number.isFinite(limit) && Number.isFinite(peak)) e2bFit = peak <= limit ? 'ok' : active <= limit ? 'peak' : 'agents';
  const d: Derived = {
    nodes: finite(nodes),
    gpusPerNode: finite(gpn),
    totalGpus: finite(total),
    tp: finite(tp),
    cp: finite(cp),
    dpSize: dpDivisible ? dpRaw : undefined,
    dpDivisible,
    contextWindow: finite(context),
    rolloutMaxContextLen: finite(rolloutCtx),
    responseLen: finite(resp),
    compactReserve: finite(reserve),
    compactThreshold: finite(threshold),
    // Dressage's claude_code backend options: max(1, min(100, int(threshold×100 / (MAX_TOKENS_PER_GPU × CP_SIZE)))).
    autoCompactPct: Number.isFinite(threshold) && dressageContext > 0 ? Math.max(1, Math.min(100, Math.trunc((threshold * 100) / dressageContext))) : undefined,
    engines: finite(engines),
    perEngineConcurrency: finite(perEngine),
    concurrentSamples: finite(concurrent),
    samplesPerRollout: finite(samples),
    activeSamples: finite(active),
    sandboxesAtPeak: finite(peak),
    e2bLimit: finite(limit),
    e2bFit,
    sandboxHoursPerRollout: finite(hours),
    sandboxHoursPerRolloutMax: finite(hoursMax),
    costPerRolloutUsd: finite(hours * price),
    costPerRolloutUsdMax: finite(hoursMax * price),
    costPerRunUsd: finite(hours * price * int(eff.NUM_ROLLOUT)),
    effectiveLines: [],
  };
  const show = (n: number | undefined) => (n === undefined ? '?' : String(n));
  d.effectiveLines = [
    `effective_parallelism: total_actor_gpus=${show(d.totalGpus)} TP_SIZE=${eff.TP_SIZE} CP_SIZE=${eff.CP_SIZE} DP_SIZE=${show(d.dpSize)} CONTEXT_WINDOW=${eff.CONTEXT_WINDOW} ROLLOUT_MAX_CONTEXT_LEN=${eff.ROLLOUT_MAX_CONTEXT_LEN}`,
    `effective_blackbox: provider=${eff.DRESSAGE_SANDBOX_PROVIDER} proxy=${eff.DRESSAGE_PROXY_URL} max_steps=${eff.DRESSAGE_BLACKBOX_MAX_STEPS} compact_threshold=${eff.DRESSAGE_BLACKBOX_COMPACT_THRESHOLD}`,
    `effective_claude_code: version=${eff.CLAUDE_CODE_VERSION} bbs_version=${eff.CLAUDE_CODE_BBS_VERSION} portable_python=${eff.CLAUDE_CODE_PORTABLE_PYTHON_VERSION}`,
    `effective_batch: num_rollout=${eff.NUM_ROLLOUT} rollout_batch_size=${eff.ROLLOUT_BATCH_SIZE} n_samples_per_prompt=${eff.N_SAMPLES_PER_PROMPT} global_batch_size=${eff.GLOBAL_BATCH_SIZE}`,
    `effective_grpo: normalize_advantages=${eff.NORMALIZE_ADVANTAGES} use_tis=${eff.USE_TIS} use_kl_loss=${eff.USE_KL_LOSS} kl_coef=${eff.KL_COEF} entropy_coef=${eff.ENTROPY_COEF} eps_clip=${eff.EPS_CLIP} eps_clip_high=${eff.EPS_CLIP_HIGH} kl_loss_coef=${eff.KL_LOSS_COEF} kl_loss_type=${eff.KL_LOSS_TYPE}`,
  ];
  return d;
}

/** Human-readable derived values for the form and `--dry-run` (one `label: value` per line; estimates say so). */
export function describeDerived(d: Derived): { label: string; value: string; tone?: 'ok' | 'warn' | 'fail' }[] {
  const n = (v: number | undefined) => (v === undefined ? '?' : v.toLocaleString('en-US'));
  const usd = (v: number | undefined) => (v === undefined ? '?' : `$${v.toFixed(2)}`);
  return [
    { label: 'total GPUs', value: `${n(d.totalGpus)} (${n(d.nodes)} ${d.nodes === 1 ? 'node' : 'nodes'} × ${n(d.gpusPerNode)})` },
    {
      label: 'DP size',
      value: d.dpDivisible ? `${n(d.dpSize)} (= GPUs / (TP ${n(d.tp)} × CP ${n(d.cp)}))` : `not an integer: ${n(d.totalGpus)} GPUs / (TP×CP ${n((d.tp ?? NaN) * (d.cp ?? NaN))})`,
      tone: d.dpDivisible ? 'ok' : 'fail',
    },
    { label: 'context window', value: `${n(d.contextWindow)} tokens (rollout max ${n(d.rolloutMaxContextLen)}, response ${n(d.responseLen)})` },
    {
      label: 'compaction threshold',
      value: `${n(d.compactThreshold)} tokens (= context − reserve ${n(d.compactReserve)}; auto-compact at ${n(d.autoCompactPct)}%)`,
      tone: d.compactThreshold !== undefined && d.compactThreshold > 0 ? 'ok' : 'fail',
    },
    { label: 'concurrent samples', value: `${n(d.concurrentSamples)} (= ${n(d.engines)} engines × ${n(d.perEngineConcurrency)}); ${n(d.samplesPerRollout)} samples per rollout` },
    { label: 'sandboxes at peak', value: `${n(d.sandboxesAtPeak)} (${n(d.activeSamples)} agent + ${n(d.activeSamples)} evaluation)` },
    {
      label: 'E2B concurrency',
      value:
        d.e2bFit === 'ok'
          ? `${n(d.sandboxesAtPeak)} needed ≤ plan limit ${n(d.e2bLimit)}`
          : d.e2bFit === 'peak'
            ? `${n(d.sandboxesAtPeak)} at peak > plan limit ${n(d.e2bLimit)}: evaluation sandboxes may hit 429`
            : d.e2bFit === 'agents'
              ? `${n(d.activeSamples)} agent sandboxes alone > plan limit ${n(d.e2bLimit)}`
              : 'unknown',
      tone: d.e2bFit === 'ok' ? 'ok' : d.e2bFit === 'peak' ? 'warn' : d.e2bFit === 'agents' ? 'fail' : undefined,
    },
    {
      label: 'E2B cost per rollout (estimate)',
      value: `~${usd(d.costPerRolloutUsd)} (${d.sandboxHoursPerRollout?.toFixed(1) ?? '?'} sandbox-h; at most ${usd(d.costPerRolloutUsdMax)}); whole run ~${usd(d.costPerRunUsd)}`,
    },
  ];
}

/** Setting keys whose explicit value fails validation, with the problem. */
export function validateValues(values: Record<string, string>): { key: string; problem: string }[] {
  const out: { key: string; problem: string }[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (!SETTING_BY_KEY.has(key) && value === '') continue;
    const problem = validateSetting(key, value);
    if (problem) out.push({ key, problem });
  }
  return out;
}
