// A Clock (services/util/clock.ts) that time does not pass on by itself: a sleep moves it forward at once and is
// written down, so a test runs a 30 s grace period in microseconds and asserts the schedule that was kept.
import type { Clock } from '../../src/services/util/clock.js';

export interface VirtualClock extends Clock {
  /** Every sleep asked for: when (virtual ms since the start) and how long. */
  readonly sleeps: { at: number; ms: number }[];
  /** Virtual ms since the start. */
  elapsed(): number;
  /** Runs `f` once the clock reaches `at` ms since the start (inside the sleep that crosses it). */
  at(ms: number, f: () => unknown): void;
  /** From now on a sleep also waits its length in real time: for a wait on something real (a killed process being reaped). */
  paceReal(): void;
}

export function virtualClock(start = Date.parse('2026-12-02T00:00:00Z')): VirtualClock {
  let t = start;
  const sleeps: { at: number; ms: number }[] = [];
  const pending: { at: number; f: () => unknown }[] = [];
  let real = false;
  return {
    sleeps,
    now: () => t,
    elapsed: () => t - start,
    at: (ms, f) => void pending.push({ at: start + ms, f }),
    paceReal: () => void (real = true),
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push({ at: t - start, ms });
      t += ms;
      for (const p of pending.filter((x) => x.at <= t)) {
        pending.splice(pending.indexOf(p), 1);
        await p.f();
      }
      // Let real I/O (the child processes the code watches) get a turn.
      await new Promise((r) => (real ? setTimeout(r, ms) : setImmediate(r)));
    },
  };
}
