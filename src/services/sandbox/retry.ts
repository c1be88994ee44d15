// Bounded retries with jittered exponential backoff for the failures worth retrying (rate limits, a busy service,
// transport errors). A Retry-After from the service wins over the computed delay. Abort stops the wait at once.
import { SandboxError } from './types.js';
import { sleep as abortableSleep } from '../util/sleep.js';
import { setting } from '../config/settings.js';

export interface RetryPolicy {
  /** Total attempts, including the first. */
  attempts: number;
  /** First backoff delay. */
  baseMs: number;
  /** Cap for one delay (also caps Retry-After). */
  maxMs: number;
  /** Jitter as a fraction of the delay (0.2 = ±20 %). */
  jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 1000, maxMs: 20_000, jitter: 0.2 };

/**
 * The backoff an operator (or a test of the built binary) sets: SWEGYM_RETRY_BASE_MS is the first delay,
 * SWEGYM_RETRY_MAX_MS caps one delay, Retry-After included. Applies to every retry layer (sandboxes, template builds).
 */
export function retryTimingFromEnv(env: NodeJS.ProcessEnv): { baseMs?: number; maxMs?: number } {
  const baseMs = setting(env, 'SWEGYM_RETRY_BASE_MS');
  const maxMs = setting(env, 'SWEGYM_RETRY_MAX_MS');
  return { ...(baseMs !== undefined ? { baseMs } : {}), ...(maxMs !== undefined ? { maxMs } : {}) };
}

export interface RetryEvent {
  attempt: number;
  /** Attempts in all (the first included). */
  attempts: number;
  delayMs: number;
  error: SandboxError;
}

/** One line for headless output: what failed, which retry, when. */
export function describeRetry(e: RetryEvent): string {
  return `retry ${e.attempt}/${e.attempts - 1} in ${(e.delayMs / 1000).toFixed(1)}s after: ${e.error.message}`;
}

/** The delay before retry number `attempt` (1-based), jittered and capped. */
export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfterSec: number | undefined, random: () => number = Math.random): number {
  if (retryAfterSec !== undefined && retryAfterSec >= 0) return Math.min(policy.maxMs, retryAfterSec * 1000);
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  const spread = raw * policy.jitter;
  return Math.min(policy.maxMs, Math.max(0, Math.round(raw - spread + random() * 2 * spread)));
}

/** The one abortable sleep (util/sleep), failing as a `cancelled` SandboxError when the signal aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await abortableSleep(ms, signal);
  } catch {
    throw cancelledError(signal);
  }
}

export function cancelledError(signal?: AbortSignal, what = 'operation'): SandboxError {
  const reason = signal?.reason;
  const detail = reason instanceof Error && reason.message && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
  return new SandboxError('cancelled', `${what} cancelled${detail}`, { cause: reason });
}

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, or the attempts are used up.
 * `fn` must throw SandboxError (map provider errors first); anything else is not retried.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: { policy?: Partial<RetryPolicy>; signal?: AbortSignal; onRetry?: (e: RetryEvent) => void; random?: () => number } = {},
): Promise<T> {
  const policy = { ...DEFAULT_RETRY, ...opts.policy };
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw cancelledError(opts.signal);
    try {
      return await fn(attempt);
    } catch (err) {
      if (!(err instanceof SandboxError) || !err.retryable || attempt >= policy.attempts) throw err;
      if (opts.signal?.aborted) throw cancelledError(opts.signal);
      const delayMs = backoffDelay(policy, attempt, err.retryAfterSec, opts.random);
      opts.onRetry?.({ attempt, attempts: policy.attempts, delayMs, error: err });
      await sleep(delayMs, opts.signal);
    }
  }
}
