// A fake Blackbox Server (dressage-blackbox-server 1.1.0) on 127.0.0.1, written from the reference
// (dressage-swegym-recipe.md §4.2 endpoints, §4.3 states and errors, §4.4 how Dressage drives it), not from the
// console's client. One server = one backend = one bound session.
//
//   const bbs = await startFakeBbs({ backend: async (turn) => ({ status: 'committed', outputs: [...] }) });
//   ... client talks to bbs.url ...
//   await bbs.close();
//
// The backend is a script per turn: an async function receiving the turn (messages, an abort signal that fires
// on cancel/abort, `progress(usage)` to publish mid-turn usage) and returning the terminal outcome:
// `committed` (outputs, usage), `failed` with an error code (backend_timeout 504, context_overflow 413,
// max_steps_exceeded 429, backend_error 502, internal_error 500) or `unknown` (the session becomes `desynced`).
// A slow turn is a backend that awaits something the test controls. `execute_cmd` runs through `executeCmd`.
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

export const BBS_VERSION = '1.1.0';
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const KNOWN_BACKENDS = ['opencode', 'openclaw', 'claude_code', 'codex'];
const IMPLEMENTED = ['claude_code'];
const ERROR_STATUS: Record<string, number> = { backend_timeout: 504, context_overflow: 413, max_steps_exceeded: 429, backend_error: 502, internal_error: 500 };
const ERROR_MESSAGE: Record<string, string> = {
  backend_timeout: 'Backend call exceeded backend_timeout.',
  context_overflow: 'Context window exceeded.',
  max_steps_exceeded: 'Maximum number of steps exceeded.',
  backend_error: 'Backend request failed: upstream error',
  internal_error: 'Internal server error.',
};

export type ServerState = 'idle' | 'initializing' | 'ready' | 'error' | 'shutting_down';
export type SessionState = 'active' | 'desynced' | 'aborted';
export type TurnStatus = 'queued' | 'inflight' | 'committed' | 'failed' | 'cancelled' | 'unknown';

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
  content?: string;
  reasoning_content?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface FakeTurn {
  turnId: string;
  sessionId: string;
  messages: Message[];
  /** Fires when the turn is cancelled or the session aborted. */
  signal: AbortSignal;
  /** Publishes usage while the turn runs (what GET turns shows mid-turn). */
  progress(usage: Partial<Usage>): void;
}

export type TurnOutcome =
  | { status: 'committed'; outputs?: Message[]; usage?: Partial<Usage> }
  | { status: 'failed'; code: keyof typeof ERROR_STATUS | string; message?: string; usage?: Partial<Usage> }
  | { status: 'unknown'; code?: string; message?: string };

export interface ExecResult {
  stdout: string;
  stderr: string;
  returncode: number;
  timed_out?: boolean;
}

export interface FakeBbsOptions {
  backend?: (turn: FakeTurn) => Promise<TurnOutcome>;
  executeCmd?: (cmd: string, timeout: number | undefined) => Promise<ExecResult> | ExecResult;
  /** How long registration stays `initializing` (ms). */
  initDelayMs?: number;
  /** Registration fails with 502 `Failed to initialize backend: <message>`. */
  failInit?: string;
}

interface TurnRec {
  turn_id: string;
  status: TurnStatus;
  hash: string;
  outputs?: Message[];
  usage?: Usage;
  error?: { code: string; message: string; http_status: number };
  created_at: string;
  updated_at: string;
  ctl: AbortController;
  done: Promise<void>;
  cancelRequested: boolean;
}

interface SessionRec {
  id: string;
  instance_id: string;
  state: SessionState;
  turns: Map<string, TurnRec>;
  active?: string;
  lastErrorCode?: string;
  created_at: string;
  updated_at: string;
  history: Message[];
  backend_session_id: string;
}

export interface FakeBbs {
  url: string;
  port: number;
  state(): ServerState;
  setState(s: ServerState): void;
  binding(): Record<string, unknown> | null;
  session(id: string): SessionRec | undefined;
  /** Every request as "METHOD path" with the response status. */
  requests: { method: string; path: string; status: number; body?: unknown }[];
  executed: string[];
  close(): Promise<void>;
}

const now = () => new Date().toISOString();
const zeroUsage = (): Usage => ({ total_tokens: 0, input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, steps: 0, tool_calls: 0 });

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
  }
}

function validation(details: unknown): HttpError {
  return new HttpError(400, 'request_error', 'Request validation failed.', details);
}

function isMessage(m: unknown): m is Message {
  if (!m || typeof m !== 'object') return false;
  const r = (m as { role?: unknown }).role;
  return r === 'system' || r === 'user' || r === 'assistant' || r === 'tool';
}

export async function startFakeBbs(opts: FakeBbsOptions = {}): Promise<FakeBbs> {
  let state: ServerState = 'idle';
  let binding: Record<string, unknown> | null = null;
  let bindingKey = '';
  const sessions = new Map<string, SessionRec>();
  const requests: FakeBbs['requests'] = [];
  const executed: string[] = [];
  let paused = false;
  let pauseVersion = 0;
  const backend = opts.backend ?? (async () => ({ status: 'committed' as const, outputs: [{ role: 'assistant' as const, content: 'done' }] }));
  const config = { host: '127.0.0.1', port: 0, runtime_root: '/tmp/blackbox_server', max_sessions: 1, max_turns: 200, backend_timeout: 960, execute_cmd_timeout: 600, router_timeout: 600000 };

  const bound = (id: string): SessionRec => {
    if (!ID_RE.test(id)) throw validation([{ loc: ['path', 'session_id'], msg: 'invalid identifier' }]);
    const s = sessions.get(id);
    if (!s) {
      if (binding) throw new HttpError(409, 'bound_session_mismatch', `Session ${id} is not the bound session.`);
      throw new HttpError(404, 'session_not_found', `Session ${id} not found.`);
    }
    return s;
  };

  const turnView = (s: SessionRec, t: TurnRec) => ({
    session_id: s.id,
    instance_id: s.instance_id,
    turn_id: t.turn_id,
    status: t.status,
    state: s.state,
    ...(t.outputs ? { outputs: t.outputs } : {}),
    ...(t.usage ? { usage: t.usage } : {}),
    backend: { type: 'claude_code', backend_session_id: s.backend_session_id },
    ...(t.error ? { error: t.error } : {}),
    created_at: t.created_at,
    updated_at: t.updated_at,
  });

  const terminal = (t: TurnRec) => t.status === 'committed' || t.status === 'failed' || t.status === 'cancelled' || t.status === 'unknown';

  const startTurn = (s: SessionRec, turnId: string, messages: Message[], hash: string): TurnRec => {
    const ctl = new AbortController();
    const t: TurnRec = { turn_id: turnId, status: 'queued', hash, created_at: now(), updated_at: now(), ctl, done: Promise.resolve(), cancelRequested: false };
    s.turns.set(turnId, t);
    s.active = turnId;
    s.history.push(...messages);
    const finish = (status: TurnStatus, extra: Partial<TurnRec> = {}) => {
      Object.assign(t, extra, { status, updated_at: now() });
      if (s.active === turnId) s.active = undefined;
      s.updated_at = now();
    };
    t.done = (async () => {
      await new Promise((r) => setImmediate(r));
      if (t.status === 'cancelled') return;
      t.status = 'inflight';
      t.updated_at = now();
      let outcome: TurnOutcome;
      try {
        outcome = await backend({
          turnId,
          sessionId: s.id,
          messages,
          signal: ctl.signal,
          progress: (u) => {
            t.usage = { ...(t.usage ?? zeroUsage()), ...u };
            t.updated_at = now();
          },
        });
      } catch (err) {
        if (ctl.signal.aborted) {
          const aborted = s.state === 'aborted';
          finish('cancelled', { error: aborted ? { code: 'aborted', message: 'Session aborted.', http_status: 409 } : { code: 'cancelled', message: 'Turn cancelled.', http_status: 499 } });
          return;
        }
        outcome = { status: 'failed', code: 'internal_error', message: (err as Error).message };
      }
      if (ctl.signal.aborted) {
        const aborted = s.state === 'aborted';
        finish('cancelled', { error: aborted ? { code: 'aborted', message: 'Session aborted.', http_status: 409 } : { code: 'cancelled', message: 'Turn cancelled.', http_status: 499 } });
        return;
      }
      if (outcome.status === 'committed') {
        s.history.push(...(outcome.outputs ?? []));
        finish('committed', { outputs: outcome.outputs ?? [], usage: { ...(t.usage ?? zeroUsage()), ...(outcome.usage ?? {}) } });
        s.lastErrorCode = undefined;
      } else {
        const code = outcome.code ?? 'backend_error';
        const error = { code, message: outcome.message ?? ERROR_MESSAGE[code] ?? 'Backend failure.', http_status: ERROR_STATUS[code] ?? 500 };
        finish(outcome.status, { error, ...(outcome.status === 'failed' && outcome.usage ? { usage: { ...(t.usage ?? zeroUsage()), ...outcome.usage } } : {}) });
        s.lastErrorCode = code;
        if (s.state === 'active') s.state = 'desynced';
      }
    })();
    return t;
  };

  const waitTurn = async (t: TurnRec, seconds: number) => {
    if (terminal(t) || seconds <= 0) return;
    await Promise.race([t.done, new Promise((r) => setTimeout(r, seconds * 1000).unref())]);
  };

  async function handle(method: string, url: URL, body: any): Promise<{ status: number; json: unknown }> {
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if (method === 'GET' && p === '/health') return { status: 200, json: { healthy: true, version: BBS_VERSION } };
    if (state === 'shutting_down' && method === 'POST') throw new HttpError(503, 'shutting_down', 'Server is shutting down.');
    if (method === 'GET' && p === '/v1/status') {
      const count = (st: SessionState) => [...sessions.values()].filter((s) => s.state === st).length;
      return {
        status: 200,
        json: {
          status: state,
          binding,
          sessions: { active_count: count('active'), desynced_count: count('desynced'), aborted_count: count('aborted'), total_count: sessions.size, max_sessions: 1 },
          capabilities: binding ? { chat: true, abort: true, pause_resume: true, stream: false, multi_message_input: true, system_message: true, history_injection: false } : null,
          config,
          implemented_backends: IMPLEMENTED,
          known_backends: KNOWN_BACKENDS,
        },
      };
    }
    if (method === 'POST' && p === '/v1/rollout/register') {
      const b = body ?? {};
      const problems: unknown[] = [];
      if (typeof b.blackbox_type !== 'string') problems.push({ loc: ['body', 'blackbox_type'], msg: 'field required' });
      if (typeof b.router !== 'string' || !b.router) problems.push({ loc: ['body', 'router'], msg: 'field required' });
      if (typeof b.bound_session_id !== 'string' || !ID_RE.test(b.bound_session_id)) problems.push({ loc: ['body', 'bound_session_id'], msg: 'invalid identifier' });
      if (typeof b.bound_instance_id !== 'string' || !ID_RE.test(b.bound_instance_id)) problems.push({ loc: ['body', 'bound_instance_id'], msg: 'invalid identifier' });
      if (problems.length) throw validation(problems);
      if (!KNOWN_BACKENDS.includes(b.blackbox_type)) throw validation([{ loc: ['body', 'blackbox_type'], msg: `unknown backend ${b.blackbox_type}` }]);
      if (!IMPLEMENTED.includes(b.blackbox_type)) throw new HttpError(400, 'backend_not_implemented', `Backend ${b.blackbox_type} is not implemented.`);
      if (state === 'initializing') throw new HttpError(409, 'initializing', 'Server is initializing.');
      const key = JSON.stringify([b.blackbox_type, b.router, b.router_api_path ?? '/v1', b.bound_session_id, b.bound_instance_id, b.backend_options ?? {}, b.server_config ?? null]);
      const caps = { chat: true, abort: true, pause_resume: true, stream: false, multi_message_input: true, system_message: true, history_injection: false };
      if (state === 'ready' && key === bindingKey) return { status: 200, json: { status: state, binding, capabilities: caps, config } };
      const open = [...sessions.values()].some((s) => s.state === 'active' || s.state === 'desynced');
      if (state === 'ready' && open) throw new HttpError(409, 'rebind_conflict', 'Cannot rebind while active or desynced sessions still exist.');
      state = 'initializing';
      if (opts.initDelayMs) await new Promise((r) => setTimeout(r, opts.initDelayMs));
      if (opts.failInit) {
        state = 'error';
        throw new HttpError(502, 'backend_init_failed', `Failed to initialize backend: ${opts.failInit}`);
      }
      const runtimeRoot = (b.server_config?.runtime_root as string | undefined) ?? config.runtime_root;
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      binding = {
        runtime_id: `rt-${randomBytes(4).toString('hex')}`,
        blackbox_type: b.blackbox_type,
        router_raw: b.router,
        router_base_url: String(b.router).replace(/\/+$/, '') + (b.router_api_path ?? '/v1'),
        router_api_path: b.router_api_path ?? '/v1',
        bound_session_id: b.bound_session_id,
        bound_instance_id: b.bound_instance_id,
        system_prompt: null,
        runtime_dir: `${runtimeRoot}/bbs-${stamp}-${randomBytes(2).toString('hex')}`,
        registered_at: now(),
        backend_options: b.backend_options ?? {},
      };
      bindingKey = key;
      sessions.clear();
      sessions.set(b.bound_session_id, {
        id: b.bound_session_id,
        instance_id: b.bound_instance_id,
        state: 'active',
        turns: new Map(),
        created_at: now(),
        updated_at: now(),
        history: [],
        backend_session_id: randomBytes(16).toString('hex'),
      });
      state = 'ready';
      return { status: 200, json: { status: state, binding, capabilities: caps, config } };
    }
    if (method === 'POST' && p === '/v1/rollout/pause') {
      paused = true;
      return { status: 200, json: { status: 'paused', reason: body?.reason ?? 'weight_update', quiesced: true, version: pauseVersion, http_inflight_requests: 0, active_sglang_generations: 0, suspended_generations: 0, details: {} } };
    }
    if (method === 'POST' && p === '/v1/rollout/resume') {
      paused = false;
      pauseVersion = typeof body?.version === 'number' ? body.version : pauseVersion + 1;
      return { status: 200, json: { status: 'resumed', reason: body?.reason ?? 'weight_update', version: pauseVersion, details: {} } };
    }
    if (method === 'GET' && p === '/v1/rollout/pause_state') return { status: 200, json: { paused, pause_reason: paused ? 'weight_update' : null, version: pauseVersion, adapter: {} } };

    if ((m = /^\/v1\/sessions\/([^/]+)\/messages$/.exec(p)) && method === 'POST') {
      const s = bound(decodeURIComponent(m[1] as string));
      const b = body ?? {};
      const mode = b.mode ?? 'sync';
      if (!Array.isArray(b.messages) || b.messages.length === 0 || !b.messages.every(isMessage) || (mode !== 'sync' && mode !== 'async')) {
        throw validation([{ loc: ['body', 'messages'], msg: 'a non-empty list of messages is required' }]);
      }
      if (b.turn_id !== undefined && (typeof b.turn_id !== 'string' || !ID_RE.test(b.turn_id))) throw validation([{ loc: ['body', 'turn_id'], msg: 'invalid identifier' }]);
      if (mode === 'async' && !b.turn_id) throw new HttpError(400, 'request_error', 'turn_id is required for async submissions.');
      const turnId: string = b.turn_id ?? `turn-${randomBytes(8).toString('hex')}`;
      const hash = createHash('sha256').update(JSON.stringify(b.messages)).digest('hex');
      const existing = s.turns.get(turnId);
      let t: TurnRec;
      let replay = false;
      if (existing) {
        if (existing.hash !== hash) throw new HttpError(409, 'turn_conflict', 'Same turn_id was already used with a different request body.');
        t = existing;
        replay = true;
      } else {
        if (s.state === 'aborted') throw new HttpError(409, 'session_aborted', 'Session was aborted.');
        if (s.state === 'desynced') throw new HttpError(409, 'session_desynced', 'Session is desynced and rejects new turns.');
        if (s.active) throw new HttpError(409, 'turn_in_progress', 'Session already has an active turn in progress.');
        if (s.turns.size >= config.max_turns) throw new HttpError(409, 'max_turns', 'Session reached max_turns.');
        t = startTurn(s, turnId, b.messages, hash);
      }
      if (mode === 'async') return { status: 202, json: { session_id: s.id, instance_id: s.instance_id, turn_id: t.turn_id, status: t.status, idempotent_replay: replay } };
      await t.done;
      if (t.status !== 'committed' && t.error) throw new HttpError(t.error.http_status, t.error.code, t.error.message, { turn_id: t.turn_id, status: t.status, state: s.state });
      return { status: 200, json: { session_id: s.id, instance_id: s.instance_id, turn_id: t.turn_id, state: s.state, idempotent_replay: replay, outputs: t.outputs ?? [], backend: { type: 'claude_code', backend_session_id: s.backend_session_id }, usage: t.usage ?? zeroUsage() } };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/turns\/([^/]+)$/.exec(p)) && method === 'GET') {
      const s = bound(decodeURIComponent(m[1] as string));
      const t = s.turns.get(decodeURIComponent(m[2] as string));
      if (!t) throw new HttpError(404, 'turn_not_found', `Turn ${m[2]} not found.`);
      const raw = url.searchParams.get('wait');
      const wait = raw === null ? 0 : Number(raw);
      if (!Number.isFinite(wait) || wait < 0) throw validation([{ loc: ['query', 'wait'], msg: 'must be >= 0' }]);
      await waitTurn(t, Math.min(60, wait));
      return { status: 200, json: turnView(s, t) };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/turns\/([^/]+)\/cancel$/.exec(p)) && method === 'POST') {
      const s = bound(decodeURIComponent(m[1] as string));
      const t = s.turns.get(decodeURIComponent(m[2] as string));
      if (!t) throw new HttpError(404, 'turn_not_found', `Turn ${m[2]} not found.`);
      let status: string = t.status;
      if (t.status === 'queued') {
        t.status = 'cancelled';
        t.error = { code: 'cancelled', message: 'Turn cancelled before start.', http_status: 499 };
        if (s.active === t.turn_id) s.active = undefined;
        t.ctl.abort();
        status = 'cancelled';
      } else if (t.status === 'inflight') {
        t.cancelRequested = true;
        t.ctl.abort();
        status = 'cancel_requested';
      }
      return { status: 200, json: { session_id: s.id, instance_id: s.instance_id, turn_id: t.turn_id, status, state: s.state } };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/execute_cmd$/.exec(p)) && method === 'POST') {
      const s = bound(decodeURIComponent(m[1] as string));
      const b = body ?? {};
      if (typeof b.cmd !== 'string' || !b.cmd || b.cmd.includes('\n') || b.cmd.includes('\0')) throw validation([{ loc: ['body', 'cmd'], msg: 'a single-line command is required' }]);
      if (b.timeout !== undefined && (typeof b.timeout !== 'number' || b.timeout <= 0)) throw validation([{ loc: ['body', 'timeout'], msg: 'must be > 0' }]);
      if (s.active) throw new HttpError(409, 'turn_in_progress', 'Session has an active turn in progress and cannot execute commands.');
      if (s.state === 'aborted') throw new HttpError(409, 'session_aborted', 'Session was aborted.');
      if (s.state === 'desynced' && s.lastErrorCode !== 'context_overflow' && s.lastErrorCode !== 'max_steps_exceeded') {
        throw new HttpError(409, 'session_desynced', 'Session is desynced and cannot execute commands.');
      }
      const started = Date.now();
      const startedAt = now();
      executed.push(b.cmd);
      const r = opts.executeCmd ? await opts.executeCmd(b.cmd, b.timeout) : { stdout: '', stderr: '', returncode: 0 };
      return {
        status: 200,
        json: { session_id: s.id, instance_id: s.instance_id, cmd: b.cmd, stdout: r.stdout, stderr: r.stderr, returncode: r.returncode, timed_out: Boolean(r.timed_out), duration_seconds: (Date.now() - started) / 1000, started_at: startedAt, finished_at: now() },
      };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)\/abort$/.exec(p)) && method === 'POST') {
      const s = bound(decodeURIComponent(m[1] as string));
      const mode = s.state === 'aborted' ? 'noop' : 'best_effort';
      s.state = 'aborted';
      const active = s.active ? s.turns.get(s.active) : undefined;
      if (active) active.ctl.abort();
      s.updated_at = now();
      return { status: 200, json: { session_id: s.id, instance_id: s.instance_id, action: 'abort', state: s.state, mode } };
    }
    if ((m = /^\/v1\/sessions\/([^/]+)$/.exec(p)) && method === 'GET') {
      const s = bound(decodeURIComponent(m[1] as string));
      const flag = (k: string) => ['1', 'true', 'yes'].includes(url.searchParams.get(k) ?? '');
      return {
        status: 200,
        json: {
          session_id: s.id,
          instance_id: s.instance_id,
          state: s.state,
          blackbox_type: 'claude_code',
          backend_session_id: s.backend_session_id,
          message_count: s.history.length,
          turn_count: s.turns.size,
          created_at: s.created_at,
          updated_at: s.updated_at,
          ...(flag('include_history') ? { conversation_history: s.history } : {}),
          ...(flag('include_trace') ? { trace_events: [] } : {}),
          ...(flag('include_turns') ? { turn_ledger: [...s.turns.values()].map((t) => ({ turn_id: t.turn_id, status: t.status })) } : {}),
        },
      };
    }
    throw new HttpError(404, 'not_found', `No route for ${method} ${p}.`);
  }

  const server = http.createServer((req, res) => {
    const requestId = `req-${randomBytes(4).toString('hex')}`;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let body: unknown;
      const send = (status: number, json: unknown) => {
        requests.push({ method: req.method ?? '', path: url.pathname + url.search, status, body });
        res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
        res.end(JSON.stringify(json && typeof json === 'object' && !Array.isArray(json) ? { request_id: requestId, ...json } : json));
      };
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        body = text ? JSON.parse(text) : undefined;
      } catch {
        return send(400, { error: 'request_error', message: 'Request validation failed.', details: [{ msg: 'invalid JSON body' }] });
      }
      handle(req.method ?? 'GET', url, body).then(
        (r) => send(r.status, r.json),
        (err: unknown) => {
          if (err instanceof HttpError) send(err.status, { error: err.code, message: err.message, details: err.details });
          else send(500, { error: 'internal_error', message: String((err as Error)?.message ?? err), details: null });
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  config.port = port;
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
