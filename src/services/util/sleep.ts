// The one sleep. tests/architecture/oneOfEach.test.ts fails on a `new Promise(… setTimeout …)` written elsewhere.

/**
 * Waits `ms`; rejects with the signal's reason as soon as it aborts (so callers unwind on Ctrl-C at once).
 * `unref`: the wait does not hold the process open (a bound on a wait that should end sooner by itself).
 */
export function sleep(ms: number, signal?: AbortSignal, opts: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (opts.unref) t.unref();
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
