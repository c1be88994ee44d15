// The backend options Dressage registers on a Blackbox Server, computed as its `merge_backend_options`
// (dressage/paddock/blackbox/common/defaults.py) computes them: static per-backend defaults, then
// DRESSAGE_BLACKBOX_MAX_STEPS as proxy.max_steps, then defaults derived from the rollout arguments (context window,
// DRESSAGE_BLACKBOX_COMPACT_THRESHOLD as a percentage, temperature), then the row's own options on top, deep-merged.
// A SWE-Gym rollout merges twice: once with the rollout arguments (blackbox_dispatch_swegym) and once more without
// them when the paddock registers the agent. Checked against the real function in tests/validate/backendOptions.upstream.test.ts.
import { ConsoleError, ExitCode } from '../errors.js';
import { pyFloat, pyInt, pyRepr } from '../util/python.js';

export const DEFAULT_BLACKBOX_TYPE = 'opencode';
export const MAX_STEPS_ENV = 'DRESSAGE_BLACKBOX_MAX_STEPS';
export const COMPACT_THRESHOLD_ENV = 'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD';

/** The Blackbox Server config Dressage registers with (E2B; local_bwrap drops runtime_root). */
export const DEFAULT_SERVER_CONFIG = { runtime_root: '/workspace_sandbox/blackbox_server_runtime', backend_timeout: 1800 } as const;

type Json = Record<string, unknown>;

const STATIC_DEFAULTS: Record<string, Json> = {
  opencode: { provider_id: 'sglang', provider_name: 'Dressage Proxy', provider_package: '@ai-sdk/openai-compatible', model_id: 'proxy-model', model_name: 'Dressage Proxy' },
  openclaw: { agent_id: 'default', provider_id: 'sglang', model_id: 'proxy-model', model_name: 'Dressage Proxy', api_key: 'sglang-local' },
  claude_code: {
    model: { id: 'proxy-model', name: 'Dressage Proxy', supported_capabilities: ['thinking', 'adaptive_thinking', 'interleaved_thinking'] },
    max_turns: 20,
    permission_mode: 'default',
    setting_sources: 'user',
    system_prompt_mode: 'append',
    gateway: { auth_token: 'blackbox-local' },
    thinking: { enabled: true, interleaved: true, budget_tokens: null },
    compaction: { auto: true },
    compat: { disable_prompt_caching: true, disable_nonessential_traffic: true },
    subagents: { enabled: false },
  },
  codex: { model: { id: 'proxy-model', name: 'Dressage Proxy' }, model_provider_id: 'dressage_proxy', sandbox_mode: 'danger-full-access', approval_policy: 'never', skip_git_repo_check: true, ignore_rules: true, web_search: 'disabled' },
};

/** The keys whose defaults come from the rollout arguments, per backend. */
const DYNAMIC_KEYS: Record<string, readonly string[]> = {
  opencode: ['model_limit', 'compaction', 'proxy'],
  openclaw: ['context_window', 'max_tokens', 'request', 'compaction', 'proxy'],
  claude_code: ['compaction', 'proxy'],
  codex: ['proxy'],
};

/** The rollout arguments the defaults read (slime's parsed args; names as slime spells them). */
export interface RolloutArgs {
  max_tokens_per_gpu?: unknown;
  context_parallel_size?: unknown;
  cp_size?: unknown;
  rollout_max_response_len?: unknown;
  rollout_temperature?: unknown;
}

export interface MergeContext {
  /** Absent: no rollout-derived defaults (the paddock's second merge). */
  args?: RolloutArgs;
  env?: NodeJS.ProcessEnv;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

function deepMerge(defaults: Json, overrides: Json): Json {
  const merged = clone(defaults);
  for (const [k, v] of Object.entries(overrides)) {
    const cur = merged[k];
    merged[k] = isObject(v) && isObject(cur) ? deepMerge(cur, v) : clone(v);
  }
  return merged;
}

function refuse(what: string): never {
  throw new ConsoleError({ what, cause: 'Dressage raises the same ValueError when it registers the agent', fix: 'fix the setting (see the training launcher) and retry', exitCode: ExitCode.usage });
}

export function normalizeBlackboxType(t: unknown): string {
  const v = String(t === undefined || t === null || t === '' ? DEFAULT_BLACKBOX_TYPE : t)
    .trim()
    .toLowerCase();
  return v || DEFAULT_BLACKBOX_TYPE;
}

function environmentDefaults(backend: string, env: NodeJS.ProcessEnv): Json {
  if (!(backend in DYNAMIC_KEYS)) return {};
  const raw = env[MAX_STEPS_ENV];
  if (raw === undefined || !raw.trim()) return {};
  const normalized = raw.trim().toLowerCase();
  let maxSteps: number | null;
  if (normalized === '0') maxSteps = null;
  else {
    const v = pyInt(normalized);
    if (v === undefined || v <= 0) refuse(`${MAX_STEPS_ENV} must be a positive integer or 0 to disable the limit, got ${pyRepr(raw)}`);
    maxSteps = v;
  }
  return { proxy: { max_steps: maxSteps } };
}

function positiveIntArg(args: RolloutArgs, attr: keyof RolloutArgs, flag: string, backend: string): number {
  const value = args[attr];
  if (value === undefined || value === null) refuse(`${backend} backend_options require ${flag}; adjust the training script to provide --max-tokens-per-gpu, --context-parallel-size, and --rollout-max-response-len`);
  const parsed = pyInt(value);
  if (parsed === undefined || parsed <= 0) refuse(`${flag} must be a positive integer, got ${pyRepr(value)}`);
  return parsed;
}

function temperatureArg(args: RolloutArgs): number {
  const value = args.rollout_temperature;
  if (value === undefined || value === null) return 1.0;
  const parsed = pyFloat(value);
  if (parsed === undefined || Number.isNaN(parsed) || parsed < 0) refuse(`--rollout-temperature must be a non-negative float, got ${pyRepr(value)}`);
  return parsed;
}

function contextParallelSize(args: RolloutArgs): number {
  const value = args.context_parallel_size ?? args.cp_size ?? 1;
  const parsed = pyInt(value);
  if (parsed === undefined || parsed <= 0) refuse(`--context-parallel-size must be a positive integer, got ${pyRepr(value)}`);
  return parsed;
}

function compactThreshold(context: number, backend: string, env: NodeJS.ProcessEnv): number | undefined {
  if (!['opencode', 'openclaw', 'claude_code'].includes(backend)) return undefined;
  const raw = env[COMPACT_THRESHOLD_ENV];
  if (raw === undefined || !raw.trim()) return undefined;
  const v = pyInt(raw);
  if (v === undefined) refuse(`${COMPACT_THRESHOLD_ENV} must be a positive integer no greater than the context window, got ${pyRepr(raw)}`);
  if (v <= 0 || v > context) refuse(`${COMPACT_THRESHOLD_ENV} must be a positive integer no greater than the context window (${context}), got ${pyRepr(raw)}`);
  return v;
}

function tokenDefaults(args: RolloutArgs, backend: string, env: NodeJS.ProcessEnv) {
  const perGpu = positiveIntArg(args, 'max_tokens_per_gpu', '--max-tokens-per-gpu', backend);
  const cp = contextParallelSize(args);
  const output = positiveIntArg(args, 'rollout_max_response_len', '--rollout-max-response-len', backend);
  const context = perGpu * cp;
  const legacyInput = context - output;
  if (legacyInput <= 0) {
    refuse(`${backend} backend_options require --max-tokens-per-gpu * --context-parallel-size to be greater than --rollout-max-response-len; got ${perGpu} * ${cp} = ${context} and --rollout-max-response-len=${output}`);
  }
  const threshold = compactThreshold(context, backend, env);
  if (threshold === undefined) {
    return { context, output, input: legacyInput, reserved: Math.min(Math.max(1, Math.floor(legacyInput / 4)), 8192, legacyInput - 1) };
  }
  return { context, output, input: context, reserved: context - threshold };
}

function dynamicDefaults(backend: string, args: RolloutArgs, env: NodeJS.ProcessEnv): Json {
  if (backend === 'codex') return { proxy: { default_temperature: temperatureArg(args) } };
  const limits = tokenDefaults(args, backend, env);
  if (backend === 'opencode') {
    return {
      model_limit: { context: limits.context, output: limits.output, input: limits.input },
      proxy: { default_temperature: temperatureArg(args) },
      compaction: { auto: true, prune: true, reserved: limits.reserved },
    };
  }
  if (backend === 'openclaw') {
    return {
      context_window: limits.context,
      max_tokens: limits.output,
      request: { max_tokens: limits.output },
      proxy: { default_temperature: temperatureArg(args) },
      compaction: { reserve_tokens: limits.reserved, reserve_tokens_floor: limits.reserved },
    };
  }
  if (backend === 'claude_code') {
    const compaction: Json = { auto: true };
    const threshold = compactThreshold(limits.context, backend, env);
    if (threshold !== undefined) compaction.auto_compact_pct_override = Math.max(1, Math.min(100, Math.trunc((threshold * 100) / limits.context)));
    return { proxy: { default_temperature: temperatureArg(args) }, compaction };
  }
  return {};
}

function shouldAddDynamic(backend: string, options: Json | null | undefined, args: RolloutArgs | undefined): boolean {
  if (!args || !(backend in DYNAMIC_KEYS)) return false;
  if (options === undefined || options === null) return true;
  return (DYNAMIC_KEYS[backend] as readonly string[]).some((k) => !(k in options) || isObject(options[k]));
}

/** `merge_backend_options(blackbox_type, backend_options, args=…)`: the row's options over the defaults. */
export function mergeBackendOptions(blackboxType: unknown, options: unknown, ctx: MergeContext = {}): unknown {
  const backend = normalizeBlackboxType(blackboxType);
  const env = ctx.env ?? process.env;
  if (options !== undefined && options !== null && !isObject(options)) return options;
  let defaults = clone(STATIC_DEFAULTS[backend] ?? {});
  defaults = deepMerge(defaults, environmentDefaults(backend, env));
  if (shouldAddDynamic(backend, options as Json | null | undefined, ctx.args)) defaults = deepMerge(defaults, dynamicDefaults(backend, ctx.args as RolloutArgs, env));
  if (options === undefined || options === null) return defaults;
  if (Object.keys(defaults).length === 0) return clone(options);
  return deepMerge(defaults, options as Json);
}

/** What a SWE-Gym rollout registers: merged with the rollout arguments, then again when the paddock registers. */
export function registeredBackendOptions(blackboxType: unknown, rowOptions: unknown, args: RolloutArgs, env: NodeJS.ProcessEnv = process.env): unknown {
  const first = mergeBackendOptions(blackboxType, rowOptions, { args, env });
  return mergeBackendOptions(blackboxType, first, { env });
}

/**
 * The rollout arguments and the environment a training run gives Dressage, from launcher settings (`values`: the
 * saved train settings and the environment), with the launcher's defaults: MAX_TOKENS_PER_GPU 16384, CP_SIZE 4,
 * ROLLOUT_MAX_RESPONSE_LEN 16000, ROLLOUT_TEMPERATURE 1.0, DRESSAGE_BLACKBOX_MAX_STEPS 100 (the defaults file sets it
 * before the launcher's 80), DRESSAGE_BLACKBOX_COMPACT_THRESHOLD = CONTEXT_WINDOW − COMPACT_RESERVE_TOKENS
 * (ROLLOUT_MAX_RESPONSE_LEN / 2).
 */
export function launcherRolloutContext(values: Record<string, string | undefined>): { args: RolloutArgs; env: NodeJS.ProcessEnv } {
  const get = (k: string, d: string) => (values[k] !== undefined && values[k] !== '' ? (values[k] as string) : d);
  const perGpu = get('MAX_TOKENS_PER_GPU', '16384');
  const cp = get('CP_SIZE', '4');
  const response = get('ROLLOUT_MAX_RESPONSE_LEN', '16000');
  const context = get('CONTEXT_WINDOW', String(Number(perGpu) * Number(cp)));
  const reserve = get('COMPACT_RESERVE_TOKENS', String(Math.floor(Number(response) / 2)));
  return {
    args: { max_tokens_per_gpu: perGpu, context_parallel_size: cp, rollout_max_response_len: response, rollout_temperature: get('ROLLOUT_TEMPERATURE', '1.0') },
    env: {
      [MAX_STEPS_ENV]: values[MAX_STEPS_ENV] ?? '100',
      [COMPACT_THRESHOLD_ENV]: get(COMPACT_THRESHOLD_ENV, String(Number(context) - Number(reserve))),
    },
  };
}
