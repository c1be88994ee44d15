// The headless console in a child process, as a user runs it: the built bin/swegym-console (see shipped.ts), with
// its exit code, stdout and stderr.
import { runShipped } from './shipped.js';

export async function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runShipped(args);
  return { code: r.code, out: r.out, err: r.err };
}
