// Bounded retries with jittered exponential backoff for the failures worth retrying (rate limits, a busy service,
// transport errors). A Retry-After from the service wins over the computed delay. Abort stops the wait at once.
import { SandboxError } from './types.js';
import { sleep as abortableSleep } from '../util/sleep.js';
import { SANDBOX_RETRY, retrying, type RetryPolicy } from '../util/retry.js';

// The policy, its presets and the backoff are the one retry module's (util/retry.ts); this file adds what sandbox
// calls need: failures as SandboxError, a cancelled error on abort, and the one line a retry prints.
export { backoffDelay, retryTimingFromEnv, type RetryPolicy } from '../util/retry.js';

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

/** The one sleep (util/sleep), failing as a `cancelled` SandboxError when the signal aborts. */
async function sleepOrCancelled(ms: number, signal?: AbortSignal): Promise<void> {
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
  const policy: RetryPolicy = { ...SANDBOX_RETRY, ...opts.policy, ...(opts.random ? { random: opts.random } : {}) };
  return retrying(fn, {
    policy,
    before: () => {
      if (opts.signal?.aborted) throw cancelledError(opts.signal);
    },
    retryable: (err) => {
      if (!(err instanceof SandboxError) || !err.retryable) return undefined;
      if (opts.signal?.aborted) throw cancelledError(opts.signal);
      return { retryAfterSec: err.retryAfterSec };
    },
    onRetry: (f) => opts.onRetry?.({ ...f, error: f.error as SandboxError }),
    wait: (ms) => sleepOrCancelled(ms, opts.signal),
  });
}
