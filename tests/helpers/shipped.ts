// The shipped tier runs the product as users run it: bin/swegym-console over the built dist/ (npm test builds it
// first), never the TypeScript source. One spawn for the whole suite (builtCli.ts); this adds a time bound and a
// hook for sending signals at chosen moments. Children are spawned asynchronously so that fakes served from this
// test process keep answering.
import type { ChildProcess } from 'node:child_process';
import { BIN, builtMissing, startConsole } from './builtCli.js';

export { BIN };

export interface ShippedResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

export interface ShippedOptions {
  env?: NodeJS.ProcessEnv;
  /** Kills the child (SIGKILL) after this long; the test then sees signal SIGKILL. Default 120 s. */
  timeoutMs?: number;
  /** Called once the child is spawned (to send signals at chosen moments). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Runs the built console with `args`; NO_COLOR is set, stdin is closed, as in a script. */
export async function runShipped(args: string[], opts: ShippedOptions = {}): Promise<ShippedResult> {
  const missing = builtMissing();
  if (missing) throw new Error(`dist/ is missing: the shipped tier runs the built console; ${missing} (npm test does)`);
  const c = startConsole(args, opts.env);
  opts.onSpawn?.(c.child);
  const timer = setTimeout(() => c.child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  const { code, signal } = await c.exited;
  clearTimeout(timer);
  return { code, signal, out: c.out(), err: c.err() };
}

/** Shows a failed run's output in an assertion message. */
export function explain(r: ShippedResult): string {
  return `exit ${r.code ?? r.signal}\n--- stdout\n${r.out}\n--- stderr\n${r.err}`;
}
