// Waiting on conditions with a deadline; tests never sleep a fixed time to let things happen. The deadline only
// bounds a test that is going to fail: it is generous (20 s), so a loaded machine is slow, not red.
export const DEFAULT_WAIT_MS = 20_000;

// intervalMs: how often the condition is asked (10 ms unless asking costs a process, as a tmux capture does).
export async function waitFor(pred: () => boolean | Promise<boolean>, opts: { timeoutMs?: number; message?: () => string; intervalMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_WAIT_MS);
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting${opts.message ? `:\n${opts.message()}` : ''}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10));
  }
}
