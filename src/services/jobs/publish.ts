// The one publisher that moves a job's state into its store: at most 10 times a second (DESIGN.md: 5–10 Hz, never per
// event), so a burst of events is one frame. Two shapes of the same bound: a ticker for work that changes all the
// time (a build, a log), and a throttle for answers that come in bursts and then stop (the doctor's).
// tests/architecture/oneOfEach.test.ts fails on a publishing setInterval written elsewhere in services.

/** The most publishes a second into a store. */
export const MAX_PUBLISH_HZ = 10;

/** The period of `hz` publishes a second, `hz` held to 1…MAX_PUBLISH_HZ. */
export function publishPeriodMs(hz = MAX_PUBLISH_HZ): number {
  return Math.round(1000 / Math.min(MAX_PUBLISH_HZ, Math.max(1, hz)));
}

export interface Ticker {
  /** Stops the ticks (the caller publishes its last state itself, as it knows it is the last). */
  stop(): void;
}

/**
 * Calls `publish` `hz` times a second (at most 10) until stopped. `publish` decides whether anything changed (a
 * version, a dirty flag) and returns early when nothing did. `unref`: the ticks do not hold the process open.
 */
export function startTicker(publish: () => void, opts: { hz?: number; unref?: boolean } = {}): Ticker {
  const timer = setInterval(publish, publishPeriodMs(opts.hz));
  if (opts.unref) timer.unref();
  return { stop: () => clearInterval(timer) };
}

export interface Throttle {
  /** Something changed: published at once (after this tick) when nothing was in the last period, else at its end. */
  mark(): void;
  /** Drops a publish that is waiting (the caller publishes the final state itself). */
  cancel(): void;
  /**
   * Counts now as a publish: the next change waits a full period. For the start of a burst that usually ends within
   * one (the doctor's answers): drawn once, at its end, rather than its first answers and then the rest.
   */
  restartPeriod(): void;
}

/** `publish` at most `hz` times a second (at most 10), the first change of a quiet spell without waiting. */
export function throttle(publish: () => void, opts: { hz?: number; now?: () => number } = {}): Throttle {
  const period = publishPeriodMs(opts.hz);
  const now = opts.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let lastAt = -Infinity;
  const fire = () => {
    timer = undefined;
    lastAt = now();
    publish();
  };
  return {
    mark() {
      if (timer) return;
      // After the other changes of this tick (e.g. checks that need no I/O answer together).
      timer = setTimeout(fire, Math.max(0, lastAt + period - now()));
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
    restartPeriod() {
      lastAt = now();
    },
  };
}
