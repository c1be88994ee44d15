// Runs child processes for services: streaming lines, explicit timeouts, abort, no unbounded buffers, and a
// command-log entry for each. Long-lived children use buffer:false and stdin 'ignore' (DESIGN.md).
import { commandLog, type CommandLog } from './commandLog.js';
import type { ChildProcess } from 'node:child_process';
import { redact } from '../secrets.js';

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Start from an empty environment plus `env` instead of inheriting process.env. */
  extendEnv?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called once per complete line (without the newline), already redacted. */
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  /** Lines kept per stream for the result (tail). */
  keepLines?: number;
  log?: CommandLog;
  note?: string;
  input?: string;
  /** How long a child asked to stop (timeout, cancel) has before SIGKILL; 3 s unless a test says otherwise. */
  forceKillAfterMs?: number;
}

export interface RunResult {
  exitCode: number | undefined;
  signal: string | undefined;
  timedOut: boolean;
  cancelled: boolean;
  stdout: string[];
  stderr: string[];
  durationMs: number;
  /** Set when the program could not be started at all (ENOENT etc.). */
  spawnError?: string;
}

const FORCE_KILL_AFTER_MS = 3000;

/**
 * Children still running, killed when the console's process exits, so that a quit, an error or a handled signal
 * leaves none behind (a training run is not started through here: it is detached by its own launcher).
 */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('close', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of live) {
      try {
        c.kill('SIGTERM');
      } catch {
        // already gone
      }
    }
  });
}

/** The number of children started through runProcess that have not closed yet (for tests). */
export function liveChildCount(): number {
  return live.size;
}

/** Reads a child's stream line by line (CR of CRLF dropped, a last line without a newline kept), each redacted. */
async function pumpLines(source: NodeJS.ReadableStream | null, tail: string[], keep: number, onLine: (line: string) => void): Promise<void> {
  if (!source) return;
  let partial = '';
  source.setEncoding('utf8');
  const emit = (raw: string) => {
    const line = redact(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    tail.push(line);
    if (tail.length > keep) tail.shift();
    onLine(line);
  };
  for await (const chunk of source as AsyncIterable<string>) {
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      emit(partial.slice(0, nl));
      partial = partial.slice(nl + 1);
    }
  }
  if (partial) emit(partial);
}

/**
 * The ways a child is asked to stop: its timeout and the caller's abort, each a SIGTERM, then SIGKILL if it is still
 * there `forceKillAfterMs` later; a timeout after the child itself ended stops reading what it left behind. `release` clears the timers and the listener once it ended.
 */
function stopRules(child: ChildProcess, opts: RunOptions) {
  const state = { timedOut: false, cancelled: false };
  let forceKill: NodeJS.Timeout | undefined;
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = () => {
    if (!running()) return;
    child.kill('SIGTERM');
    forceKill ??= setTimeout(() => {
      if (running()) child.kill('SIGKILL');
    }, opts.forceKillAfterMs ?? FORCE_KILL_AFTER_MS);
    forceKill.unref();
  };
  const timer =
    opts.timeoutMs !== undefined && opts.timeoutMs > 0
      ? setTimeout(() => {
          if (running()) {
            state.timedOut = true;
            stop();
          } else {
            // The program ended in time; something it left running holds its output open (`cmd &`). Stop reading, so
            // the deadline bounds the wait, without calling the program's own end a timeout.
            child.stdout?.destroy();
            child.stderr?.destroy();
          }
        }, opts.timeoutMs)
      : undefined;
  const onAbort = () => {
    if (state.timedOut) return;
    state.cancelled = true;
    stop();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    state,
    release: () => {
      if (timer) clearTimeout(timer);
      if (forceKill) clearTimeout(forceKill);
      opts.signal?.removeEventListener('abort', onAbort);
    },
  };
}

export async function runProcess(file: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  // node:child_process directly: execa cost ≈ 20 ms of the main thread to import (between the home screen's first
  // frame and its doctor's answers) and ≈ 3 ms a spawn; what it did for us here is this file.
  const { spawn } = process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
  const log = opts.log ?? commandLog;
  const entry = log.start([file, ...args], opts.cwd, opts.note);
  const keep = opts.keepLines ?? 200;
  const tails = { stdout: [] as string[], stderr: [] as string[] };
  const started = Date.now();
  const finish = (o: Partial<RunResult>, code?: string): RunResult => {
    const out: RunResult = { exitCode: undefined, signal: undefined, timedOut: false, cancelled: false, stdout: tails.stdout, stderr: tails.stderr, durationMs: Date.now() - started, ...o };
    log.finish(entry, {
      exitCode: out.exitCode,
      signal: out.signal,
      // Cancelled by the caller: an expected end. Missing program (ENOENT): say so instead of `exit ?`.
      status: out.cancelled ? 'stopped' : out.timedOut || out.signal ? 'killed' : code === 'ENOENT' ? 'not-found' : out.exitCode === 0 ? 'ok' : 'failed',
    });
    return out;
  };
  if (opts.signal?.aborted) return finish({ cancelled: true });

  const env = opts.extendEnv === false ? { ...opts.env } : { ...process.env, ...opts.env };
  let child: ChildProcess;
  try {
    child = spawn(file, [...args], { cwd: opts.cwd, env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  } catch (err) {
    // Synchronous refusals (an argument with a NUL byte, a bad option): the program was not started.
    const e = err as NodeJS.ErrnoException;
    return finish({ spawnError: redact(e.message) }, e.code);
  }
  track(child);
  const rules = stopRules(child, opts);
  if (opts.input !== undefined && child.stdin) {
    // A child that exits without reading its input closes the pipe: that is its answer, not ours to fail on.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input);
  }
  // 'close' comes after the process ended and its output streams closed; 'error' alone when it never started.
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) resolve({ code: null, signal: null, error });
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const lines = (stream: 'stdout' | 'stderr') => pumpLines(child[stream], tails[stream], keep, (line) => opts.onLine?.(stream, line)).catch(() => {});
  const [end] = await Promise.all([ended, lines('stdout'), lines('stderr')]);
  rules.release();
  if (end.error) return finish({ spawnError: redact(end.error.message) }, end.error.code);
  return finish({ exitCode: end.code ?? undefined, signal: end.signal ?? undefined, timedOut: rules.state.timedOut, cancelled: rules.state.cancelled });
}
