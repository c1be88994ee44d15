// The shipped tier runs the product as users run it: bin/swegym-console over the built dist/ (npm test builds it
// first), never the TypeScript source. Children are spawned asynchronously so that fakes served from this test
// process keep answering.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const BIN = path.resolve('bin/swegym-console');

export interface ShippedResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

export interface ShippedOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kills the child (SIGKILL) after this long; the test then sees signal SIGKILL. Default 120 s. */
  timeoutMs?: number;
  /** Called once the child is spawned (to send signals at chosen moments). */
  onSpawn?: (child: ChildProcess) => void;
}

function assertBuilt(): void {
  if (!existsSync(path.resolve('dist/swegym-console.mjs'))) {
    throw new Error('dist/ is missing: the shipped tier runs the built console; run `npm run build` first (npm test does)');
  }
}

/** Runs the built console with `args`; NO_COLOR is set, stdin is closed, as in a script. */
export function runShipped(args: string[], opts: ShippedOptions = {}): Promise<ShippedResult> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: opts.cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
  });
  opts.onSpawn?.(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err });
    }),
  );
}

/** Shows a failed run's output in an assertion message. */
export function explain(r: ShippedResult): string {
  return `exit ${r.code ?? r.signal}\n--- stdout\n${r.out}\n--- stderr\n${r.err}`;
}
