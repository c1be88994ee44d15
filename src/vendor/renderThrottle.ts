// The throttle Ink draws frames through (scripts/build.mjs puts it in place of es-toolkit/compat's in ink/build/ink.js).
// es-toolkit's compat throttle is a debounce whose maxWait is only checked when a call comes: after a burst of
// updates the last frame is drawn one full period after the burst *ended* (67 ms at the console's 15 fps), so the
// home screen's doctor answers, arriving over ≈ 50 ms, reached the screen ≈ 120 ms after the first of them. This one
// keeps lodash's contract: the first call of a quiet spell runs at once, later ones are folded into one trailing call
// (with the latest arguments) at most `waitMs` after the last run. `flush` runs a pending call now, `cancel` drops it.
// For a short spell after its first run (the first frame) the period is shorter: the home screen's doctor answers come
// 10–30 ms after the first frame, and 15 fps held them back to one full period after it (bench/README.md, start-up).
// A steady stream of updates (a live run, held keys) comes later and keeps the full period.

export interface Throttled<A extends unknown[]> {
  (...args: A): void;
  flush(): void;
  cancel(): void;
}

/** The start-up spell: for `spellMs` after the first run, runs are at most `waitMs` apart (when that is shorter). */
export interface StartSpell {
  spellMs: number;
  waitMs: number;
}

/** One second at 60 fps: the first screen's answers, not a run's steady updates. */
export const START_SPELL: StartSpell = { spellMs: 1000, waitMs: 16 };

/** Ink's signature; `edges` is always leading and trailing there (the build's patch checks it), which is what this does. */
export function throttle<A extends unknown[]>(
  func: (...args: A) => unknown,
  waitMs = 0,
  _edges?: { leading?: boolean; trailing?: boolean },
  clock: { now: () => number } = Date,
  spell: StartSpell = START_SPELL,
): Throttled<A> {
  let firstRunAt: number | undefined;
  let lastRunAt = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: { self: unknown; args: A } | undefined;
  const run = () => {
    const call = pending;
    pending = undefined;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!call) return;
    lastRunAt = clock.now();
    firstRunAt ??= lastRunAt;
    func.apply(call.self, call.args);
  };
  // Before the first run lastRunAt is -Infinity: any period leaves the call due.
  const periodAt = (now: number) => (firstRunAt !== undefined && now - firstRunAt < spell.spellMs ? Math.min(waitMs, spell.waitMs) : waitMs);
  const throttled = function (this: unknown, ...args: A) {
    pending = { self: this, args };
    const now = clock.now();
    const remaining = lastRunAt + periodAt(now) - now;
    // Due (a quiet spell, or a trailing timer held up by a busy main thread): run now.
    if (remaining <= 0) run();
    else timer ??= setTimeout(run, remaining);
  } as Throttled<A>;
  throttled.flush = run;
  throttled.cancel = () => {
    pending = undefined;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return throttled;
}
