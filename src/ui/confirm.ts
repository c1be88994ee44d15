// "Press it again to confirm" for destructive keys that have no question dialog of their own.

export const CONFIRM_WINDOW_MS = 5000;

/** Returns a handler: the first press calls `ask` (which says what the second press will do), a second press within the window runs `act`. */
export function confirmTwice(ask: () => void, act: () => void, now: () => number = Date.now): () => void {
  let armedAt: number | undefined;
  return () => {
    const t = now();
    if (armedAt !== undefined && t - armedAt <= CONFIRM_WINDOW_MS) {
      armedAt = undefined;
      act();
    } else {
      armedAt = t;
      ask();
    }
  };
}
