// The BUILT console (bin/swegym-console over dist/) as a child process, the way a user runs it: streams, exit code
// and signal. SWEGYM_TEST_ENTRY=source runs src/cli/main.ts through tsx instead (same arguments, same
// environment), for checking a test before `npm run build` can produce a working bundle.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const BIN = path.resolve('bin/swegym-console');

export function builtMissing(): string | false {
  if (process.env.SWEGYM_TEST_ENTRY === 'source') return false;
  return existsSync(path.resolve('dist/swegym-console.mjs')) ? false : 'run npm run build first';
}

export interface ConsoleChild {
  child: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// The doctor's per-check deadline (3 s) is for a real network; against a loopback fake on a loaded machine it only
// measures the load. A test of the deadline itself sets SWEGYM_DOCTOR_TIMEOUT_MS.
const DOCTOR_DEADLINE_MS = '60000';

export function startConsole(args: string[], env: NodeJS.ProcessEnv = {}): ConsoleChild {
  const argv = process.env.SWEGYM_TEST_ENTRY === 'source' ? ['--import', 'tsx', path.resolve('src/cli/main.ts'), ...args] : [BIN, ...args];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', SWEGYM_DOCTOR_TIMEOUT_MS: DOCTOR_DEADLINE_MS, ...env } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, out: () => out, err: () => err, exited };
}

export async function runConsole(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  const c = startConsole(args, env);
  const { code } = await c.exited;
  return { code, out: c.out(), err: c.err() };
}
