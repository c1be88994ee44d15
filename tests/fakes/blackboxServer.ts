// A fake Blackbox Server (blackbox_server 1.1.0) on 127.0.0.1, built from upstream's source
// (../shared/upstream/dressage/blackbox_server: core/models.py for the shapes and enums, core/server.py for the
// states, checks and error texts, api/*.py for the endpoints, app.py for the error body), not from the console's
// client. One server = one binding = one bound session, as upstream.
//
//   const bbs = await startFakeBbs({ backend: async (turn) => ({ status: 'committed', outputs: [...] }) });
//   ... client talks to bbs.url ...
//   await bbs.close();
//
// The backend is the adapter: an async function per turn receiving the messages, an abort signal (cancel/abort),
// and `maxSteps` (backend_options.proxy.max_steps, default 100). It returns
// `committed`, or `raise`s one of the adapter errors upstream maps in `_run_turn`: backend_timeout (504),
// context_overflow (413), max_steps_exceeded (429), backend_error (502; `processError` also puts the server in
// `error`), internal_error (500). Every raised error ends the turn `unknown` and the session `desynced`; upstream
// never sets a turn `failed`. After a context_overflow/max_steps_exceeded turn, execute_cmd still works (harvest).
// Errors are `{"request_id", "error", "message", "details"}` with the ApiError's HTTP status; a failed turn's
// record holds `{"error", "message", "details", "http_status"}`.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { ADAPTER_ERRORS, ApiError, DEFAULT_PROXY_MAX_STEPS, POST_AGENT_COMMAND_ERRORS, claudeCodeOptionProblem, fingerprint, isObject, normalizeRouter, proxyOptions, validation, type AdapterError } from './blackboxServerRules.js';

export type { AdapterError };

export const BBS_VERSION = '1.1.0';
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const BACKENDS = ['opencode', 'openclaw', 'claude_code', 'codex'];
const MAX_TURN_WAIT_SECONDS = 60;

/** The enums of core/models.py (tests/validate/blackboxFake.upstream.test.ts compares them with the source). */
export const SERVER_STATES = ['idle', 'initializing', 'ready', 'error', 'shutting_down'] as const;
export const SESSION_STATES = ['active', 'desynced', 'aborted'] as const;
export const TURN_STATUSES = ['queued', 'inflight', 'committed', 'failed', 'cancelled', 'unknown'] as const;
export type ServerState = (typeof SERVER_STATES)[number];
export type SessionState = (typeof SESSION_STATES)[number];
export type TurnStatus = (typeof TURN_STATUSES)[number];

export interface Usage {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  steps: number;
  tool_calls: number;
}

export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] | null;
  tool_call_id?: string | null;
  name?: string | null;
}

export interface FakeTurn {
  turnId: string;
  sessionId: string;
  messages: Message[];
  /** Fires when the turn is cancelled or the session aborted. */
  signal: AbortSignal;
  /** backend_options.proxy.max_steps of the binding (null: no limit). */
  maxSteps: number | null;
  /** The binding's backend_options as registered. */
  backendOptions: Record<string, unknown>;
}

export type TurnOutcome =
  | { status: 'committed'; outputs?: Message[]; usage?: Partial<Usage> }
  | { raise: AdapterError; message?: string; details?: Record<string, unknown>; processError?: boolean };

export interface ExecResult {
  stdout: string;
  stderr: string;
  returncode: number | null;
  timed_out?: boolean;
}

export interface FakeBbsOptions {
  backend?: (turn: FakeTurn) => Promise<TurnOutcome>;
  executeCmd?: (cmd: string, timeout: number) => Promise<ExecResult> | ExecResult;
  /** How long registration stays `initializing` (ms). */
  initDelayMs?: number;
  /** Registration fails with 502 `Failed to initialize backend: <message>`. */
  failInit?: string;
  /** Listen on this port (0: any). */
  port?: number;
  host?: string;
}

interface TurnRec {
  turn_id: string;
  request_fingerprint: string;
  status: TurnStatus;
  request_messages: Message[];
  response: { outputs: Message[]; usage: Usage; backend_session_id: string; trace_events: unknown[] } | null;
  error: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  ctl: AbortController;
  done: Promise<void>;
}

interface SessionRec {
  session_id: string;
  state: SessionState;
  blackbox_type: string;
  backend_session_id: string | null;
  conversation_history: Message[];
  turns: Map<string, TurnRec>;
  turn_count: number;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
}

export interface FakeBbs {
  url: string;
  port: number;
  state(): ServerState;
  setState(s: ServerState): void;
  binding(): Record<string, unknown> | null;
  session(id: string): SessionRec | undefined;
  /** Every request with the response status. */
  requests: { method: string; path: string; status: number; body?: unknown; response?: unknown }[];
  executed: string[];
  close(): Promise<void>;
}

const now = () => new Date().toISOString();
const zeroUsage = (): Usage => ({ total_tokens: 0, input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, steps: 0, tool_calls: 0 });

export async function startFakeBbs(opts: FakeBbsOptions = {}): Promise<FakeBbs> {
  let state: ServerState = 'idle';
  let binding: Record<string, unknown> | null = null;
  let bindingFingerprint: string | null = null;
  let capabilities: Record<string, boolean> | null = null;
  let maxSteps: number | null = DEFAULT_PROXY_MAX_STEPS;
  const sessions = new Map<string, SessionRec>();
  const requests: FakeBbs['requests'] = [];
  const executed: string[] = [];
  let paused = false;
  let version: string | null = null;
  const backend = opts.backend ?? (async () => ({ status: 'committed' as const, outputs: [{ role: 'assistant' as const, content: 'done' }] }));
  const base = { host: '0.0.0.0', port: 8080, runtime_root: '/tmp/blackbox_server', max_sessions: 1, max_turns: 200, backend_timeout: 960.0, execute_cmd_timeout: 600.0, router_timeout: 600000, shutdown_timeout: 30.0, health_check_interval: 2.0, health_check_timeout: 60.0, runtime_health_check_interval: 10.0, runtime_health_check_retries: 5, runtime_health_check_retry_delay: 1 };
  let config = { ...base };
  const stateName = () => `ServerState.${state.toUpperCase()}`;

  const ensureReady = () => {
    if (state !== 'ready') throw new ApiError(503, 'service_unavailable', `Server is not ready. current_state=${stateName()}`, { state });
  };
  const validateId = (field: string, value: unknown) => {
    if (typeof value !== 'string' || !ID_RE.test(value)) throw new ApiError(400, 'request_error', `${field} has invalid format.`, { [field]: value });
  };
  const requireBound = (sessionId: string): string | null => {
    if (!binding) return null;
    const expected = binding.bound_session_id as string;
    if (sessionId !== expected) throw new ApiError(409, 'bound_session_mismatch', 'This rollout binding only serves the registered session_id.', { expected_session_id: expected, actual_session_id: sessionId });
    return expected;
  };
  const activeTurnId = (s: SessionRec) => [...s.turns.values()].find((t) => t.status === 'queued' || t.status === 'inflight')?.turn_id;
  const instanceId = () => (binding ? (binding.bound_instance_id as string) : null);
  const markBackendError = () => {
    if (state === 'error') return;
    state = 'error';
    for (const s of sessions.values()) if (s.state !== 'aborted') s.state = 'desynced';
  };
  const allowsPostAgentCommands = (s: SessionRec) => {
    if (s.state !== 'desynced' || s.turns.size === 0) return false;
    const latest = [...s.turns.values()].sort((a, b) => (a.updated_at + a.created_at + a.turn_id < b.updated_at + b.created_at + b.turn_id ? -1 : 1)).at(-1) as TurnRec;
    return latest.status === 'unknown' && isObject(latest.error) && POST_AGENT_COMMAND_ERRORS.has(String(latest.error.error));
  };

  const turnStatusView = (s: SessionRec, t: TurnRec) => {
    const committed = t.status === 'committed' && t.response;
    const terminal = ['committed', 'failed', 'cancelled', 'unknown'].includes(t.status);
    return {
      session_id: s.session_id,
      instance_id: instanceId(),
      turn_id: t.turn_id,
      status: t.status,
      state: s.state,
      outputs: committed ? t.response?.outputs : null,
      // Usage only for a committed turn (mid-turn progress comes from Claude Code's own log).
      usage: committed ? t.response?.usage : null,
      backend: committed ? { type: s.blackbox_type, backend_session_id: t.response?.backend_session_id } : null,
      error: !committed && terminal ? t.error : null,
      created_at: t.created_at,
      updated_at: t.updated_at,
    };
  };

  const runTurn = (s: SessionRec, t: TurnRec) => {
    t.done = (async () => {
      await new Promise((r) => setImmediate(r));
      if (t.status !== 'queued') return;
      t.status = 'inflight';
      t.updated_at = now();
      let outcome: TurnOutcome;
      try {
        outcome = await backend({
          turnId: t.turn_id,
          sessionId: s.session_id,
          messages: t.request_messages,
          signal: t.ctl.signal,
          maxSteps,
          backendOptions: (binding?.backend_options ?? {}) as Record<string, unknown>,
        });
      } catch (err) {
        if (t.ctl.signal.aborted) outcome = { raise: 'internal_error', message: 'cancelled' };
        else outcome = { raise: 'internal_error', message: (err as Error).message };
      }
      if (t.status !== 'inflight') return; // aborted or cancelled meanwhile: not committed
      if (t.ctl.signal.aborted) {
        // `_finalize_interrupted_turn_locked` for an explicit cancel.
        t.status = 'cancelled';
        t.error = { error: 'cancelled', message: 'Turn cancelled while in flight.', http_status: 499, details: { session_id: s.session_id, turn_id: t.turn_id } };
        t.updated_at = s.updated_at = now();
        return;
      }
      if ('status' in outcome) {
        const usage = { ...zeroUsage(), ...(outcome.usage ?? {}) };
        const outputs = outcome.outputs ?? [{ role: 'assistant' as const, content: 'done' }];
        s.backend_session_id = s.backend_session_id ?? randomBytes(16).toString('hex');
        s.conversation_history.push(...t.request_messages, ...outputs);
        s.turn_count++;
        t.status = 'committed';
        t.response = { outputs, usage, backend_session_id: s.backend_session_id, trace_events: [] };
        t.updated_at = s.updated_at = now();
        return;
      }
      // `_handle_unknown_turn`.
      const kind = ADAPTER_ERRORS[outcome.raise];
      t.status = 'unknown';
      t.error = { error: outcome.raise, message: kind.message(outcome.message), details: { session_id: s.session_id, turn_id: t.turn_id, ...(outcome.details ?? {}) }, http_status: kind.status };
      t.updated_at = now();
      if (s.state !== 'aborted') s.state = 'desynced';
      s.updated_at = now();
      if (outcome.processError) markBackendError();
    })();
  };

  async function submitTurn(sessionId: string, b: Record<string, unknown>): Promise<{ s: SessionRec; t: TurnRec; replay: boolean }> {
    ensureReady();
    while (paused) await new Promise((r) => setTimeout(r, 20));
    validateId('session_id', sessionId);
    if (b.turn_id !== undefined && b.turn_id !== null) validateId('turn_id', b.turn_id);
    const messages = b.messages as Message[];
    if (messages.length === 0) throw new ApiError(400, 'request_error', 'messages must not be empty.');
    if (!capabilities?.multi_message_input && messages.length !== 1) throw new ApiError(400, 'request_error', 'Current backend accepts exactly one input message.');
    const type = binding?.blackbox_type as string;
    if (BACKENDS.includes(type)) {
      if (messages[0]?.role !== 'user') throw new ApiError(400, 'request_error', `${type} phase 1 only accepts a user message.`);
      if (typeof messages[0].content !== 'string' || !messages[0].content.trim()) throw new ApiError(400, 'request_error', `${type} phase 1 requires non-empty user content.`);
    }
    for (const m of messages) {
      if (m.role === 'system') throw new ApiError(400, 'request_error', '/messages does not support role=system in phase 1.');
      if (m.role === 'assistant' || m.role === 'tool') throw new ApiError(400, 'request_error', 'Current backend does not support assistant/tool history injection.');
    }
    const bound = requireBound(sessionId);
    if (bound === null) throw new ApiError(500, 'internal_error', 'Rollout binding is missing bound_session_id.');
    const s = sessions.get(bound) as SessionRec;
    if (s.state === 'aborted') throw new ApiError(409, 'conflict', 'Session has been aborted and cannot accept new turns.', { session_id: sessionId, state: s.state });
    if (s.state === 'desynced') throw new ApiError(409, 'conflict', 'Session is desynced and cannot accept new turns.', { session_id: sessionId, state: s.state });
    if (s.turn_count >= config.max_turns) throw new ApiError(429, 'too_many_requests', 'Session reached the max committed turn limit.', { session_id: sessionId, max_turns: config.max_turns });
    // `_resolve_turn_id`: one generated id per session, or explicit ids throughout.
    let turnId = b.turn_id as string | undefined | null;
    const mode = s.metadata.__bbs_turn_mode;
    if (turnId === undefined || turnId === null) {
      if (mode === 'explicit') throw new ApiError(400, 'request_error', 'turn_id is required after this session has used explicit turn ids.', { session_id: sessionId });
      if (mode === 'single') turnId = s.metadata.__bbs_default_turn_id as string;
      else {
        turnId = `turn-${randomBytes(16).toString('hex')}`;
        s.metadata.__bbs_turn_mode = 'single';
        s.metadata.__bbs_default_turn_id = turnId;
      }
    } else if (mode === 'single' && turnId !== s.metadata.__bbs_default_turn_id) {
      throw new ApiError(409, 'conflict', 'This session uses a generated single-turn id and cannot accept a new turn_id.', { session_id: sessionId, expected_turn_id: s.metadata.__bbs_default_turn_id, actual_turn_id: turnId });
    } else if (mode === undefined) s.metadata.__bbs_turn_mode = 'explicit';
    const fp = fingerprint(messages);
    const existing = s.turns.get(turnId);
    if (existing) {
      if (existing.request_fingerprint !== fp) throw new ApiError(409, 'conflict', 'Same turn_id was already used with a different request body.', { session_id: sessionId, turn_id: turnId });
      return { s, t: existing, replay: true };
    }
    const active = activeTurnId(s);
    if (active !== undefined) throw new ApiError(409, 'conflict', 'Session already has an active turn in progress.', { session_id: sessionId, turn_id: turnId, active_turn_id: active });
    const t: TurnRec = { turn_id: turnId, request_fingerprint: fp, status: 'queued', request_messages: messages, response: null, error: null, created_at: now(), updated_at: now(), ctl: new AbortController(), done: Promise.resolve() };
    s.turns.set(turnId, t);
    runTurn(s, t);
    return { s, t, replay: false };
  }

  function register(b: Record<string, unknown>): { replay: Record<string, unknown>; fresh?: undefined } | { replay?: undefined; fresh: { fp: string; effective: typeof base; routerBase: string; routerPath: string; backendOptions: Record<string, unknown>; proxy: ReturnType<typeof proxyOptions>; caps: Record<string, boolean> } } {
    if (state === 'shutting_down') throw new ApiError(503, 'service_unavailable', 'Server is shutting down.');
    if (typeof b.blackbox_type !== 'string') throw validation(['body', 'blackbox_type'], 'Field required');
    if (typeof b.router !== 'string') throw validation(['body', 'router'], 'Field required');
    const backendOptions = b.backend_options ?? {};
    if (!isObject(backendOptions)) throw validation(['body', 'backend_options'], 'Input should be a valid dictionary');
    const apiPath = typeof b.router_api_path === 'string' ? b.router_api_path : '/v1';
    const [routerBase, routerPath] = normalizeRouter(b.router, apiPath);
    if (!BACKENDS.includes(b.blackbox_type)) throw new ApiError(400, 'request_error', `Unsupported blackbox_type: ${b.blackbox_type}`, { blackbox_type: b.blackbox_type });
    const serverConfig = b.server_config ?? null;
    if (serverConfig !== null && !isObject(serverConfig)) throw validation(['body', 'server_config'], 'Input should be a valid dictionary');
    const effective = { ...base, ...Object.fromEntries(Object.entries(serverConfig ?? {}).filter(([, v]) => v !== null)) } as typeof base;
    const proxy = proxyOptions(backendOptions);
    if (!b.bound_session_id) throw new ApiError(400, 'request_error', 'bound_session_id is required.');
    if (!b.bound_instance_id) throw new ApiError(400, 'request_error', 'bound_instance_id is required.');
    validateId('session_id', b.bound_session_id);
    validateId('instance_id', b.bound_instance_id);
    const fp = fingerprint({ blackbox_type: b.blackbox_type, router_base_url: routerBase, bound_session_id: b.bound_session_id, bound_instance_id: b.bound_instance_id, bound_sandbox_id: b.bound_sandbox_id ?? null, system_prompt_file: null, backend_options: backendOptions, server_config: serverConfig ?? {} });
    if (state === 'initializing') throw new ApiError(409, 'conflict', 'Server is initializing.');
    const caps = { chat: true, abort: true, pause_resume: true, stream: false, multi_message_input: false, system_message: true, history_injection: false };
    if (fp === bindingFingerprint && state === 'ready' && binding) return { replay: { request_id: '', status: state, binding, capabilities: caps, config } };
    const open = [...sessions.values()].some((s) => s.state === 'active' || s.state === 'desynced');
    if (fp !== bindingFingerprint && binding && open) throw new ApiError(409, 'conflict', 'Cannot rebind while active or desynced sessions still exist.');
    return { fresh: { fp, effective, routerBase, routerPath, backendOptions, proxy, caps } };
  }

  async function handle(method: string, url: URL, body: unknown): Promise<{ status: number; json: unknown }> {
    const p = url.pathname;
    const b = (isObject(body) ? body : {}) as Record<string, any>;
    let m: RegExpExecArray | null;
    if (method === 'GET' && p === '/health') return { status: 200, json: { healthy: true, version: BBS_VERSION } };
    if (method === 'GET' && p === '/v1/status') {
      const count = (st: SessionState) => [...sessions.values()].filter((s) => s.state === st).length;
      return { status: 200, json: { request_id: '', status: state, binding, sessions: { active_count: count('active'), desynced_count: count('desynced'), aborted_count: count('aborted'), total_count: sessions.size, max_sessions: config.max_sessions }, capabilities, config, implemented_backends: BACKENDS, known_backends: BACKENDS } };
    }
    if (method === 'POST' && p === '/v1/rollout/register') {
      const reg = register(b);
      if (reg.replay) return { status: 200, json: reg.replay };
      const r = reg.fresh;
      state = 'initializing';
      bindingFingerprint = r.fp;
      if (opts.initDelayMs) await new Promise((res) => setTimeout(res, opts.initDelayMs));
      const problem = b.blackbox_type === 'claude_code' ? claudeCodeOptionProblem(r.backendOptions as Record<string, unknown>) : undefined;
      if (problem) {
        // A BackendProtocolError during initialize: back to idle, 400.
        state = 'idle';
        bindingFingerprint = null;
        binding = null;
        throw new ApiError(400, 'request_error', `Invalid claude_code backend_options: ${problem}`, { blackbox_type: b.blackbox_type });
      }
      if (opts.failInit) {
        state = 'error';
        binding = null;
        throw new ApiError(502, 'backend_error', `Failed to initialize backend: ${opts.failInit}`, { blackbox_type: b.blackbox_type });
      }
      sessions.clear();
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      const runtimeId = `bbs-${stamp}-${randomBytes(2).toString('hex')}`;
      binding = {
        runtime_id: runtimeId,
        blackbox_type: b.blackbox_type,
        router_raw: b.router,
        router_base_url: r.routerBase,
        router_api_path: r.routerPath,
        bound_session_id: b.bound_session_id,
        bound_instance_id: b.bound_instance_id,
        bound_sandbox_id: b.bound_sandbox_id || null,
        system_prompt: null,
        runtime_dir: `${String(r.effective.runtime_root).replace(/\/+$/, '')}/${runtimeId}`,
        registered_at: now(),
        backend_options: r.backendOptions,
      };
      config = r.effective;
      capabilities = r.caps;
      maxSteps = r.proxy.max_steps;
      sessions.set(b.bound_session_id, { session_id: b.bound_session_id, state: 'active', blackbox_type: b.blackbox_type, backend_session_id: null, conversation_history: [], turns: new Map(), turn_count: 0, created_at: now(), updated_at: now(), metadata: {} });
      state = 'ready';
      return { status: 200, json: { request_id: '', status: state, binding, capabilities, config } };
    }
    if (method === 'POST' && p === '/v1/rollout/pause') {
      ensureReady();
      const already = paused;
      paused = true;
      return { status: 200, json: { request_id: '', status: already ? 'already_paused' : 'paused', reason: b.reason ?? 'weight_update', quiesced: true, version, http_inflight_requests: 0, active_sglang_generations: 0, suspended_generations: 0, details: {} } };
    }
    if (method === 'POST' && p === '/v1/rollout/resume') {
      ensureReady();
      const was = paused;
      if (b.version !== undefined && b.version !== null) version = String(b.version);
      paused = false;
      return { status: 200, json: { request_id: '', status: was ? 'resumed' : 'already_running', reason: b.reason ?? 'weight_update', version, details: {} } };
    }
    if (method === 'GET' && p === '/v1/rollout/pause_state') return { status: 200, json: { paused, pause_reason: paused ? 'weight_update' : null, version, adapter: {} } };

    if ((m = /^\/v1\/sessions\/([^/]+)\/messages$/.exec(p)) && method === 'POST') {
      const sessionId = decodeURIComponent(m[1] as string);
      const mode = b.mode ?? 'sync';
      if (mode !== 'sync' && mode !== 'async') throw validation(['body', 'mode'], "Input should be 'sync' or 'async'");
      if (!Array.isArray(b.messages) || !b.messages.every((x: unknown) => isObject(x) && ['system', 'user', 'assistant', 'tool'].includes(x.role as string))) throw validation(['body', 'messages'], 'Input should be a valid list');
      if (mode === 'async' && (b.turn_id === undefined || b.turn_id === null)) throw new ApiError(400, 'request_error', 'turn_id is required for async submissions.', { session_id: sessionId });
      const { s, t, replay } = await submitTurn(sessionId, b);
      if (mode === 'async') return { status: 202, json: { request_id: '', session_id: sessionId, instance_id: instanceId(), turn_id: t.turn_id, status: t.status, idempotent_replay: replay } };
      await t.done;
      if (t.status === 'committed' && t.response) {
        return { status: 200, json: { request_id: '', session_id: sessionId, instance_id: instanceId(), turn_id: t.turn_id, state: s.state, idempotent_replay: replay, outputs: t.response.outputs, backend: { type: s.blackbox_type, backend_session_id: t.response.backend_session_id }, usage: t.response.usage } };
      }
      // `_raise_from_turn_error`.
      const e = t.error ?? {};
      throw new ApiError(Number(e.http_status) || 500, String(e.error ?? 'backend_error'), String(e.message ?? 'Turn failed.'), isObject(e.details) ? e.details : { session_id: sessionId, turn_id: t.turn_id });
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/turns\/([^/]+)$/.exec(p)) && method === 'GET') {
      const sessionId = decodeURIComponent(m[1] as string);
      const turnId = decodeURIComponent(m[2] as string);
      const raw = url.searchParams.get('wait');
      const wait = raw === null ? 0 : Number(raw);
      if (!Number.isFinite(wait) || wait < 0) throw validation(['query', 'wait'], 'Input should be greater than or equal to 0');
      validateId('session_id', sessionId);
      validateId('turn_id', turnId);
      const bound = requireBound(sessionId);
      const s = bound ? sessions.get(bound) : undefined;
      if (!s) throw new ApiError(404, 'not_found', 'Session does not exist.', { session_id: sessionId });
      const t = s.turns.get(turnId);
      if (!t) throw new ApiError(404, 'not_found', 'Turn does not exist.', { session_id: sessionId, turn_id: turnId });
      if (wait > 0 && (t.status === 'queued' || t.status === 'inflight')) await Promise.race([t.done, new Promise((r) => setTimeout(r, Math.min(wait, MAX_TURN_WAIT_SECONDS) * 1000).unref())]);
      return { status: 200, json: { request_id: '', ...turnStatusView(s, t) } };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/turns\/([^/]+)\/cancel$/.exec(p)) && method === 'POST') {
      const sessionId = decodeURIComponent(m[1] as string);
      const turnId = decodeURIComponent(m[2] as string);
      validateId('session_id', sessionId);
      validateId('turn_id', turnId);
      const bound = requireBound(sessionId);
      const s = bound ? sessions.get(bound) : undefined;
      if (!s) throw new ApiError(404, 'not_found', 'Session does not exist.', { session_id: sessionId });
      const t = s.turns.get(turnId);
      if (!t) throw new ApiError(404, 'not_found', 'Turn does not exist.', { session_id: sessionId, turn_id: turnId });
      let status: string = t.status;
      if (t.status === 'queued') {
        t.status = 'cancelled';
        t.error = { error: 'cancelled', message: 'Turn cancelled before execution.', http_status: 499, details: { session_id: sessionId, turn_id: turnId } };
        t.updated_at = s.updated_at = now();
        status = 'cancelled';
      } else if (t.status === 'inflight') {
        t.ctl.abort();
        status = 'cancel_requested';
      }
      return { status: 200, json: { request_id: '', session_id: sessionId, instance_id: instanceId(), turn_id: turnId, status, state: s.state } };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/execute_cmd$/.exec(p)) && method === 'POST') {
      const sessionId = decodeURIComponent(m[1] as string);
      if (typeof b.cmd !== 'string') throw validation(['body', 'cmd'], 'Field required');
      if (b.timeout !== undefined && b.timeout !== null && !(typeof b.timeout === 'number' && b.timeout > 0)) throw validation(['body', 'timeout'], 'Input should be greater than 0');
      ensureReady();
      validateId('session_id', sessionId);
      if (!b.cmd.trim()) throw new ApiError(400, 'request_error', 'cmd must not be empty.');
      if (/[\n\r\0]/.test(b.cmd)) throw new ApiError(400, 'request_error', 'cmd must be a single-line command.');
      const timeout = (b.timeout ?? config.execute_cmd_timeout) as number;
      const bound = requireBound(sessionId);
      if (bound === null) throw new ApiError(500, 'internal_error', 'Rollout binding is missing bound_session_id.');
      const s = sessions.get(bound);
      if (!s) throw new ApiError(404, 'not_found', 'Session does not exist.', { session_id: bound });
      if (s.state === 'aborted') throw new ApiError(409, 'conflict', 'Session has been aborted and cannot execute commands.', { session_id: sessionId, state: s.state });
      if (s.state === 'desynced' && !allowsPostAgentCommands(s)) throw new ApiError(409, 'conflict', 'Session is desynced and cannot execute commands.', { session_id: sessionId, state: s.state });
      const active = activeTurnId(s);
      if (active !== undefined) throw new ApiError(409, 'conflict', 'Session has an active turn in progress and cannot execute commands.', { session_id: sessionId, active_turn_id: active });
      const cmd = b.cmd.trim();
      const started = Date.now();
      const startedAt = now();
      executed.push(cmd);
      const r = opts.executeCmd ? await opts.executeCmd(cmd, timeout) : { stdout: '', stderr: '', returncode: 0 };
      s.updated_at = now();
      return { status: 200, json: { request_id: '', session_id: sessionId, instance_id: instanceId(), cmd, stdout: r.stdout, stderr: r.stderr, returncode: r.returncode, timed_out: Boolean(r.timed_out), duration_seconds: (Date.now() - started) / 1000, started_at: startedAt, finished_at: now() } };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/abort$/.exec(p)) && method === 'POST') {
      const sessionId = decodeURIComponent(m[1] as string);
      validateId('session_id', sessionId);
      requireBound(sessionId);
      const s = sessions.get(sessionId);
      if (!s) throw new ApiError(404, 'not_found', 'Session does not exist.', { session_id: sessionId });
      if (s.state === 'aborted') return { status: 200, json: { request_id: '', session_id: sessionId, instance_id: instanceId(), action: 'abort', state: s.state, mode: 'noop' } };
      s.state = 'aborted';
      s.updated_at = now();
      for (const t of s.turns.values()) {
        if (t.status !== 'queued' && t.status !== 'inflight') continue;
        t.status = 'unknown';
        t.error = { error: 'aborted', message: 'Session was aborted while turn was in flight.', http_status: 409, details: { session_id: sessionId, turn_id: t.turn_id } };
        t.updated_at = now();
        t.ctl.abort();
      }
      return { status: 200, json: { request_id: '', session_id: sessionId, instance_id: instanceId(), action: 'abort', state: s.state, mode: 'best_effort' } };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)$/.exec(p)) && method === 'GET') {
      const sessionId = decodeURIComponent(m[1] as string);
      validateId('session_id', sessionId);
      requireBound(sessionId);
      const s = sessions.get(sessionId);
      if (!s) throw new ApiError(404, 'not_found', 'Session does not exist.', { session_id: sessionId });
      const flag = (k: string) => ['1', 'true', 'yes', 'on'].includes((url.searchParams.get(k) ?? '').toLowerCase());
      const ledger = Object.fromEntries([...s.turns.values()].map((t) => [t.turn_id, { turn_id: t.turn_id, request_fingerprint: t.request_fingerprint, status: t.status, request_messages: t.request_messages, response: t.response, error: t.error, created_at: t.created_at, updated_at: t.updated_at }]));
      return {
        status: 200,
        json: {
          request_id: '',
          session_id: s.session_id,
          instance_id: instanceId(),
          state: s.state,
          blackbox_type: s.blackbox_type,
          backend_session_id: s.backend_session_id,
          message_count: s.conversation_history.length,
          turn_count: s.turn_count,
          created_at: s.created_at,
          updated_at: s.updated_at,
          conversation_history: flag('include_history') ? s.conversation_history : null,
          trace_events: flag('include_trace') ? [] : null,
          turn_ledger: flag('include_turns') ? ledger : null,
        },
      };
    }
    // Starlette's 404 for an unknown route.
    return { status: 404, json: { detail: 'Not Found' } };
  }

  const server = http.createServer((req, res) => {
    const requestId = `req-${randomBytes(4).toString('hex')}`;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let body: unknown;
      const send = (status: number, json: unknown) => {
        // The request id middleware stamps every model response; ErrorResponse carries it too.
        const out = isObject(json) && 'request_id' in json ? { ...json, request_id: requestId } : json;
        requests.push({ method: req.method ?? '', path: url.pathname + url.search, status, body, response: out });
        res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
        res.end(JSON.stringify(out));
      };
      const text = Buffer.concat(chunks).toString('utf8');
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          return send(400, { request_id: '', error: 'request_error', message: 'Request validation failed.', details: { errors: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error' }] } });
        }
      }
      handle(req.method ?? 'GET', url, body).then(
        (r) => send(r.status, r.json),
        (err: unknown) => {
          if (err instanceof ApiError) send(err.status, { request_id: '', error: err.error, message: err.message, details: err.details });
          else send(500, { request_id: '', error: 'internal_error', message: String((err as Error)?.message ?? err), details: {} });
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    state: () => state,
    setState: (s) => {
      state = s;
    },
    binding: () => binding,
    session: (id) => sessions.get(id),
    requests,
    executed,
    async close() {
      for (const s of sessions.values()) for (const t of s.turns.values()) t.ctl.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
