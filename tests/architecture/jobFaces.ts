// Helpers for tests/architecture/jobs*.test.ts: run a headless command in-process with captured output, and record
// the events one job emitted while a body ran (through the job-event tap both faces go through).
import { Writable } from 'node:stream';
import { commandRegistry, type CommandContext } from '../../src/cli/context.js';
import type { SandboxProvider } from '../../src/services/sandbox/types.js';
import type { RecipePaths } from '../../src/services/workspace/paths.js';
import { tapJobEvents } from '../../src/services/jobs/events.js';

export function headless(paths: RecipePaths, command: string[], options: CommandContext['options'], env: NodeJS.ProcessEnv = {}, json = false, provider: 'e2b' | 'local' = 'e2b') {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) => new Writable({ write(chunk, _enc, cb) { add(String(chunk)); cb(); } });
  const ctx: CommandContext = {
    command,
    positionals: [],
    options,
    global: { workspace: paths.root, provider, debug: false, color: false, json },
    paths,
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    env,
    signal: new AbortController().signal,
  };
  return { ctx, out: () => out, err: () => err };
}

/** The command's registry with a scripted provider in its dependencies (what a command opens comes from there). */
export function withProvider<C extends { ctx: CommandContext }>(h: C, provider: SandboxProvider): C {
  h.ctx.registry = commandRegistry(h.ctx, { providers: { open: async () => provider } });
  return h;
}

/** The events `job` emits while `body` runs. */
export async function eventsOf<T>(job: string, body: () => Promise<T>): Promise<{ events: any[]; value: T }> {
  const events: any[] = [];
  const untap = tapJobEvents((name, e) => (name === job ? events.push(e) : undefined));
  try {
    return { events, value: await body() };
  } finally {
    untap();
  }
}
