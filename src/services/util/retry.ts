// The one retry policy: bounded attempts, a delay that doubles from a base up to a cap, jitter, and what a Retry-After
// does. Every retry layer (sandbox calls, template builds, the dataset download, the Blackbox Server client) takes its
// numbers from a preset below and its waits from `backoffDelay`; a loop that retries goes through `retrying`.
// tests/architecture/oneOfEach.test.ts fails when a backoff or a policy is written anywhere else.
import { sleep } from './sleep.js';
import { setting } from '../config/envSettings.js';

export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  /** The first backoff delay; each retry doubles it. */
  baseMs: number;
  /** Cap for one delay (Retry-After included). */
  maxMs: number;
  /** The delay is drawn from [raw × low, raw × high] (raw: the doubled, capped delay); [1, 1] is none. */
  jitter: readonly [low: number, high: number];
  /**
   * What a Retry-After from the service does: 'exact' waits it; 'spread' (many workers told the same Retry-After)
   * waits at least it, spread over an extra 0–25 % and up to the backoff's own delay when that is longer (≤ 2×).
   */
  retryAfter: 'exact' | 'spread';
  /** Random source in [0,1) for the jitter (tests pass a fixed one). */
  random?: () => number;
}

/** Sandbox API calls (create, connect, kill, list): one call, one caller; ±20 % jitter. */
export const SANDBOX_RETRY: RetryPolicy = { attempts: 6, baseMs: 1000, maxMs: 20_000, jitter: [0.8, 1.2], retryAfter: 'exact' };

/** Template builds: many workers against one rate limit, so the waits spread ([50 %, 100 %] of the delay). */
export const TEMPLATE_BUILD_RETRY: RetryPolicy = { attempts: 6, baseMs: 2000, maxMs: 60_000, jitter: [0.5, 1], retryAfter: 'spread' };

/** The Hugging Face download: four more attempts after the first, 0.5 s doubling, no jitter, no cap. */
export const HUB_DOWNLOAD_RETRY: RetryPolicy = { attempts: 5, baseMs: 500, maxMs: Number.POSITIVE_INFINITY, jitter: [1, 1], retryAfter: 'exact' };

/** The Blackbox Server client, with Dressage's client numbers (paddock/blackbox/client.py's defaults). */
export const BLACKBOX_RETRY: RetryPolicy = { attempts: 6, baseMs: 1000, maxMs: 10_000, jitter: [0.8, 1.2], retryAfter: 'exact' };

/** The evaluator's patch extraction, as Dressage's swegym evaluator retries it (5 attempts, 2 s doubling, no jitter). */
export const PATCH_EXTRACT_RETRY: RetryPolicy = { attempts: 5, baseMs: 2000, maxMs: Number.POSITIVE_INFINITY, jitter: [1, 1], retryAfter: 'exact' };

/**
 * The backoff an operator (or a test of the built binary) sets: SWEGYM_RETRY_BASE_MS is the first delay,
 * SWEGYM_RETRY_MAX_MS caps one delay, Retry-After included. Applies to the sandbox calls and the template builds.
 */
export function retryTimingFromEnv(env: NodeJS.ProcessEnv): { baseMs?: number; maxMs?: number } {
  const baseMs = setting(env, 'SWEGYM_RETRY_BASE_MS');
  const maxMs = setting(env, 'SWEGYM_RETRY_MAX_MS');
  return { ...(baseMs !== undefined ? { baseMs } : {}), ...(maxMs !== undefined ? { maxMs } : {}) };
}

/** The delay before retry number `attempt` (1-based), in whole ms: jittered, capped, Retry-After as the policy says. */
export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfterSec?: number, random: () => number = policy.random ?? Math.random): number {
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  const [low, high] = policy.jitter;
  const jittered = Math.min(policy.maxMs, Math.max(0, raw * (low + (high - low) * random())));
  if (policy.retryAfter === 'exact' && retryAfterSec !== undefined && retryAfterSec >= 0) return Math.round(Math.min(policy.maxMs, retryAfterSec * 1000));
  if (policy.retryAfter === 'spread' && retryAfterSec !== undefined && retryAfterSec > 0) {
    const ra = retryAfterSec * 1000;
    return Math.round(Math.min(policy.maxMs, Math.max(ra * (1 + 0.25 * random()), Math.min(jittered, ra * 2))));
  }
  return Math.round(jittered);
}

export interface RetryFailure<E = unknown> {
  /** The attempt that failed (1-based). */
  attempt: number;
  /** Attempts in all (the first included). */
  attempts: number;
  delayMs: number;
  error: E;
}

export interface RetryingOptions {
  policy: RetryPolicy;
  /** Whether a failure is worth another attempt (and the Retry-After it carries); a failure that is not is thrown as it is. */
  retryable: (err: unknown) => { retryAfterSec?: number } | undefined;
  /** Before each attempt (a shared gate, an abort check): may wait, or throw to stop. */
  before?: (attempt: number) => Promise<void> | void;
  onRetry?: (failure: RetryFailure) => void;
  /** The wait between attempts (default: the one sleep, ended by `signal`). */
  wait?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
}

/** Runs `fn` until it succeeds, fails with a failure `retryable` refuses, or the policy's attempts are used up. */
export async function retrying<T>(fn: (attempt: number) => Promise<T>, o: RetryingOptions): Promise<T> {
  const wait = o.wait ?? ((ms: number) => sleep(ms, o.signal));
  for (let attempt = 1; ; attempt++) {
    await o.before?.(attempt);
    try {
      return await fn(attempt);
    } catch (err) {
      const again = attempt < o.policy.attempts ? o.retryable(err) : undefined;
      if (!again) throw err;
      const delayMs = backoffDelay(o.policy, attempt, again.retryAfterSec);
      o.onRetry?.({ attempt, attempts: o.policy.attempts, delayMs, error: err });
      await wait(delayMs);
    }
  }
}
