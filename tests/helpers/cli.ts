// The headless entry (src/cli/main.ts) in a child process, as a user runs it: exit code, stdout and stderr.
import { spawn } from 'node:child_process';
import path from 'node:path';

export function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/cli/main.ts'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}
