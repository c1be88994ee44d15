// Waiting on conditions with a deadline; tests never sleep a fixed time to let things happen.
export async function waitFor(pred: () => boolean | Promise<boolean>, opts: { timeoutMs?: number; message?: () => string } = {}): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5000);
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting${opts.message ? `:\n${opts.message()}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
