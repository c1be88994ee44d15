// A poller: a source asked every few seconds must not be asked again while its last answer is still coming (a slow
// E2B list would pile up requests), and a failed poll is only a missed sample: the next one tries again.

/** Calls `f` every `ms` (first at once with `immediate`), never two calls at once; the timer does not hold the process. */
export function pollEvery(ms: number, f: () => unknown, opts: { immediate?: boolean } = {}): ReturnType<typeof setInterval> {
  let busy = false;
  const run = async () => {
    if (busy) return;
    busy = true;
    try {
      await f();
    } catch {
      // a missed sample; the next poll tries again
    } finally {
      busy = false;
    }
  };
  if (opts.immediate) void run();
  const t = setInterval(() => void run(), ms);
  t.unref?.();
  return t;
}
