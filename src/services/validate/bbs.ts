// A client for the Blackbox Server HTTP API (reference §4.2–§4.4), driven the way Dressage drives it: health,
// register claude_code with a router, execute_cmd, one async turn with a stable turn id and long-polling, and
// retries of POSTs on connection errors and HTTP 503 (6 attempts, 1 s initial delay, 10 s max, 20 % jitter).
import { randomBytes, randomUUID } from 'node:crypto';
import { sleep } from '../util/sleep.js';
import { BLACKBOX_RETRY, backoffDelay, type RetryPolicy } from '../util/retry.js';

export class BbsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'BbsError';
  }
}

export interface TurnUsage {
  total_tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
  steps?: number;
  tool_calls?: number;
}

export interface TurnSnapshot {
  session_id: string;
  instance_id: string;
  turn_id: string;
  status: 'queued' | 'inflight' | 'committed' | 'failed' | 'cancelled' | 'unknown';
  state: string;
  outputs?: unknown[] | null;
  usage?: TurnUsage | null;
  /** A settled, uncommitted turn's record: `{error: <code>, message, details, http_status}` (core/server.py). */
  error?: TurnError | null;
}

export interface TurnError {
  error?: string;
  message?: string;
  details?: Record<string, unknown>;
  http_status?: number;
}

export interface ExecuteCmdResult {
  cmd: string;
  stdout: string;
  stderr: string;
  returncode: number;
  timed_out: boolean;
  duration_seconds: number;
}

export interface RegisterRequest {
  blackbox_type: string;
  router: string;
  router_api_path?: string;
  bound_session_id: string;
  bound_instance_id: string;
  backend_options?: Record<string, unknown>;
  server_config?: Record<string, unknown>;
}

export interface RolloutBinding {
  runtime_id: string;
  runtime_dir: string;
  bound_session_id: string;
  bound_instance_id: string;
  router_base_url: string;
  [k: string]: unknown;
}

export function newSessionId(): string {
  return `bbs-${randomUUID()}`;
}

export function newTurnId(): string {
  return `turn-${randomBytes(16).toString('hex')}`;
}

export class BbsClient {
  constructor(
    readonly baseUrl: string,
    private readonly opts: { retry?: Partial<RetryPolicy>; signal?: AbortSignal; requestTimeoutMs?: number } = {},
  ) {}

  private async request<T>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const policy = { ...BLACKBOX_RETRY, ...this.opts.retry };
    for (let attempt = 1; ; attempt++) {
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(new Error(`request timed out after ${timeoutMs ?? this.opts.requestTimeoutMs ?? 120_000} ms`)), timeoutMs ?? this.opts.requestTimeoutMs ?? 120_000);
      const outer = this.opts.signal;
      const onAbort = () => ctl.abort(outer?.reason);
      outer?.addEventListener('abort', onAbort, { once: true });
      if (outer?.aborted) onAbort();
      let retryable = false;
      let failure: Error;
      try {
        const res = await fetch(this.baseUrl.replace(/\/+$/, '') + path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: ctl.signal,
        });
        const text = await res.text();
        let json: any;
        try {
          json = text ? JSON.parse(text) : {};
        } catch {
          json = { message: text.slice(0, 300) };
        }
        if (res.ok) return json as T;
        failure = new BbsError(res.status, String(json.error ?? `http_${res.status}`), String(json.message ?? res.statusText), json.details);
        retryable = method === 'POST' && res.status === 503;
      } catch (err) {
        if (outer?.aborted) throw outer.reason ?? err;
        failure = err instanceof Error ? err : new Error(String(err));
        // Connection errors (refused, reset) are retried for POSTs, as Dressage does.
        retryable = method === 'POST' && !(failure.message.startsWith('request timed out'));
        if (method === 'GET' && !failure.message.startsWith('request timed out')) retryable = true;
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', onAbort);
      }
      if (!retryable || attempt >= policy.attempts) throw failure;
      await sleep(backoffDelay(policy, attempt), outer);
    }
  }

  health(): Promise<{ healthy: boolean; version: string }> {
    return this.request('GET', '/health', undefined, 10_000);
  }

  status(): Promise<Record<string, unknown>> {
    return this.request('GET', '/v1/status');
  }

  register(req: RegisterRequest): Promise<{ status: string; binding: RolloutBinding }> {
    return this.request('POST', '/v1/rollout/register', { router_api_path: '/v1', backend_options: {}, ...req });
  }

  executeCmd(sessionId: string, cmd: string, timeoutSec?: number): Promise<ExecuteCmdResult> {
    return this.request('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/execute_cmd`, { cmd, ...(timeoutSec ? { timeout: timeoutSec } : {}) }, ((timeoutSec ?? 600) + 30) * 1000);
  }

  submitTurn(sessionId: string, turnId: string, messages: unknown[]): Promise<{ turn_id: string; status: string; idempotent_replay: boolean }> {
    return this.request('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/messages`, { turn_id: turnId, messages, metadata: {}, mode: 'async' });
  }

  getTurn(sessionId: string, turnId: string, waitSec: number): Promise<TurnSnapshot> {
    const wait = Math.max(0, Math.min(60, waitSec));
    return this.request('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(turnId)}?wait=${wait}`, undefined, (wait + 30) * 1000);
  }

  cancelTurn(sessionId: string, turnId: string): Promise<{ status: string; state: string }> {
    return this.request('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(turnId)}/cancel`, {});
  }

  session(sessionId: string): Promise<{ state: string; message_count: number; turn_count: number }> {
    return this.request('GET', `/v1/sessions/${encodeURIComponent(sessionId)}`);
  }

  abort(sessionId: string): Promise<{ state: string; mode: string }> {
    return this.request('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/abort`, {});
  }
}

export const TERMINAL_TURN = new Set(['committed', 'failed', 'cancelled', 'unknown']);
/** Agent errors after which the patch is still harvested and evaluated (dressage/paddock/blackbox/failures.py). */
export const HARVESTABLE = new Set(['context_overflow', 'max_steps_exceeded']);
/** Errors Dressage reports as a semantic agent failure, with these labels. */
export const SEMANTIC_ERROR_LABELS: Record<string, string> = { backend_timeout: 'backend timeout', context_overflow: 'context overflow', max_steps_exceeded: 'max steps exceeded' };
/** Payload states Dressage rejects even on a committed turn. */
export const AGENT_FAILED_STATES = new Set(['desynced', 'error', 'failed']);

/**
 * How Dressage's client reads a settled turn that did not commit (`_raise_turn_error`): the code (default
 * backend_error), the HTTP status it stands for (default 502), the message and details.
 */
export function turnFailure(snap: Pick<TurnSnapshot, 'error' | 'session_id' | 'turn_id'>): { code: string; httpStatus: number; message: string; details: Record<string, unknown> } {
  const e = snap.error && typeof snap.error === 'object' ? snap.error : {};
  const details = e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? e.details : {};
  return { code: String(e.error ?? 'backend_error'), httpStatus: Number(e.http_status) || 502, message: String(e.message ?? 'blackbox turn failed'), details };
}
