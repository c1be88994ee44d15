// The request rules of the fake Blackbox Server, from upstream's blackbox_server source: the ApiError body, the
// adapter-error mapping of core/server.py `_run_turn`, router normalisation and fingerprints (core/hashing.py), and
// the backend_options checks (ProxyOptions, ClaudeCodeBackendOptions: pydantic extra="forbid").
import { createHash } from 'node:crypto';

export type AdapterError = 'backend_timeout' | 'context_overflow' | 'max_steps_exceeded' | 'backend_error' | 'internal_error';
export const DEFAULT_PROXY_MAX_STEPS = 100;

/** `_run_turn`'s mapping of adapter exceptions: HTTP status and the message when the exception carries none. */
export const ADAPTER_ERRORS: Record<AdapterError, { status: number; message: (m?: string) => string }> = {
  backend_timeout: { status: 504, message: () => 'Backend call exceeded backend_timeout.' },
  context_overflow: { status: 413, message: (m) => m ?? 'Context window exceeded.' },
  max_steps_exceeded: { status: 429, message: (m) => m ?? 'Turn exceeded max_steps.' },
  backend_error: { status: 502, message: (m) => `Backend request failed: ${m ?? 'upstream error'}` },
  internal_error: { status: 500, message: (m) => `Unexpected backend failure: ${m ?? 'boom'}` },
};
export const POST_AGENT_COMMAND_ERRORS = new Set(['context_overflow', 'max_steps_exceeded']);

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** FastAPI's RequestValidationError handler: 400 request_error with pydantic's errors. */
export function validation(loc: (string | number)[], msg: string): ApiError {
  return new ApiError(400, 'request_error', 'Request validation failed.', { errors: [{ type: 'value_error', loc, msg }] });
}

/** hashing.canonicalize + stable_json + sha256 (None values dropped, keys sorted). */
export function fingerprint(value: unknown): string {
  const canon = (v: unknown): unknown => (Array.isArray(v) ? v.map(canon) : isObject(v) ? Object.fromEntries(Object.keys(v).sort().filter((k) => v[k] !== null && v[k] !== undefined).map((k) => [k, canon(v[k])])) : v);
  return createHash('sha256').update(JSON.stringify(canon(value))).digest('hex');
}

/** hashing.normalize_router. */
export function normalizeRouter(router: string, apiPath: string): [string, string] {
  let raw = router.trim();
  if (!raw.includes('://')) raw = `http://${raw}`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ApiError(400, 'request_error', `Invalid router value: ${router}`);
  }
  let p = u.pathname && u.pathname !== '/' ? u.pathname : apiPath || '/v1';
  if (!p.startsWith('/')) p = `/${p}`;
  return [`${u.protocol}//${u.host}${p}`.replace(/\/+$/, ''), p];
}

/** The keys pydantic accepts in ClaudeCodeBackendOptions (extra="forbid" at every level). */
const CLAUDE_CODE_KEYS: Record<string, readonly string[] | null> = {
  executable: null,
  working_directory: null,
  model: ['id', 'name', 'supported_capabilities'],
  max_turns: null,
  permission_mode: null,
  setting_sources: null,
  system_prompt_mode: null,
  gateway: ['auth_token'],
  thinking: ['enabled', 'interleaved', 'budget_tokens'],
  compaction: ['auto', 'auto_compact_pct_override'],
  compat: ['disable_prompt_caching', 'disable_nonessential_traffic'],
  subagents: ['enabled'],
  proxy: ['sticky_header_name', 'max_steps', 'default_temperature'],
};
const PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'default', 'dontAsk', 'plan'];
const PROMPT_MODES = ['append', 'replace', 'claude_md', 'none'];

export function claudeCodeOptionProblem(o: Record<string, unknown>): string | undefined {
  for (const [k, v] of Object.entries(o)) {
    if (!(k in CLAUDE_CODE_KEYS)) return `${k}: Extra inputs are not permitted`;
    const nested = CLAUDE_CODE_KEYS[k];
    if (nested && isObject(v)) for (const nk of Object.keys(v)) if (!nested.includes(nk)) return `${k}.${nk}: Extra inputs are not permitted`;
    if (nested && !isObject(v)) return `${k}: Input should be a valid dictionary or instance`;
  }
  if (o.max_turns !== undefined && !(Number.isInteger(o.max_turns) && (o.max_turns as number) > 0)) return 'max_turns: Input should be greater than 0';
  if (o.permission_mode !== undefined && !PERMISSION_MODES.includes(o.permission_mode as string)) return 'permission_mode: Input should be one of the allowed values';
  if (o.system_prompt_mode !== undefined && !PROMPT_MODES.includes(o.system_prompt_mode as string)) return 'system_prompt_mode: Input should be one of the allowed values';
  const pct = isObject(o.compaction) ? o.compaction.auto_compact_pct_override : undefined;
  if (pct !== undefined && pct !== null && !(Number.isInteger(pct) && (pct as number) >= 1 && (pct as number) <= 100)) return 'compaction.auto_compact_pct_override: Input should be between 1 and 100';
  return undefined;
}

/** `_parse_proxy_options`: backend_options.proxy as ProxyOptions (max_steps default 100, > 0 or null). */
export function proxyOptions(backendOptions: Record<string, unknown>): { max_steps: number | null; default_temperature: number | null } {
  const p = backendOptions.proxy ?? {};
  if (!isObject(p)) throw new ApiError(400, 'request_error', 'backend_options.proxy must be an object.');
  for (const k of Object.keys(p)) if (!CLAUDE_CODE_KEYS.proxy?.includes(k)) throw new ApiError(400, 'request_error', `Invalid proxy config: ${k}: Extra inputs are not permitted`);
  const ms = 'max_steps' in p ? p.max_steps : DEFAULT_PROXY_MAX_STEPS;
  if (ms !== null && !(typeof ms === 'number' && Number.isInteger(ms) && ms > 0)) throw new ApiError(400, 'request_error', 'Invalid proxy config: max_steps: Input should be greater than 0');
  const t = p.default_temperature ?? null;
  if (t !== null && !(typeof t === 'number' && t >= 0)) throw new ApiError(400, 'request_error', 'Invalid proxy config: default_temperature: Input should be greater than or equal to 0');
  return { max_steps: ms as number | null, default_temperature: t as number | null };
}

