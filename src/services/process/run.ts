// Runs child processes for services: streaming lines, explicit timeouts, abort, no unbounded buffers, and a
// command-log entry for each. Long-lived children use buffer:false and stdin 'ignore' (DESIGN.md).
import { commandLog, type CommandLog } from './commandLog.js';
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

export async function runProcess(file: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  // execa is loaded on the first run, not with the interactive console's first frame.
  const { execa } = await import('execa');
  const log = opts.log ?? commandLog;
  const entry = log.start([file, ...args], opts.cwd, opts.note);
  const keep = opts.keepLines ?? 200;
  const tails = { stdout: [] as string[], stderr: [] as string[] };
  const started = Date.now();
  const child = execa(file, [...args], {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: opts.extendEnv ?? true,
    buffer: false,
    stdin: opts.input === undefined ? 'ignore' : 'pipe',
    input: opts.input,
    timeout: opts.timeoutMs,
    cancelSignal: opts.signal,
    forceKillAfterDelay: 3000,
    reject: false,
    stripFinalNewline: false,
    lines: false,
    encoding: 'utf8',
  } as any);

  const pump = async (stream: 'stdout' | 'stderr') => {
    const source = child[stream] as unknown as NodeJS.ReadableStream | null;
    if (!source) return;
    let partial = '';
    source.setEncoding('utf8');
    const emit = (raw: string) => {
      const line = redact(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
      const tail = tails[stream];
      tail.push(line);
      if (tail.length > keep) tail.shift();
      opts.onLine?.(stream, line);
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
  };

  const [result] = await Promise.all([child, pump('stdout'), pump('stderr')]);
  const r = result as any;
  const spawnError = r.failed && r.exitCode === undefined && !r.signal && !r.timedOut && !r.isCanceled ? String(r.originalMessage ?? r.shortMessage ?? 'failed to start') : undefined;
  const out: RunResult = {
    exitCode: r.exitCode ?? undefined,
    signal: r.signal ?? undefined,
    timedOut: Boolean(r.timedOut),
    cancelled: Boolean(r.isCanceled),
    stdout: tails.stdout,
    stderr: tails.stderr,
    durationMs: Date.now() - started,
    spawnError: spawnError ? redact(spawnError) : undefined,
  };
  log.finish(entry, {
    exitCode: out.exitCode,
    signal: out.signal,
    // Cancelled by the caller: an expected end. Missing program (ENOENT): say so instead of `exit ?`.
    status: out.cancelled ? 'stopped' : out.timedOut || out.signal ? 'killed' : r.code === 'ENOENT' ? 'not-found' : out.exitCode === 0 ? 'ok' : 'failed',
  });
  return out;
}
