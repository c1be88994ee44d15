// Time as a dependency: code that waits, polls or keeps deadlines asks a Clock, so a test can run a 30 s grace
// period in microseconds on a virtual clock and assert the schedule it kept.
import { sleep } from './sleep.js';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep };
