// Claude Code's stream-json log from where it is: a file on this machine, or a live agent sandbox's
// claude_code.stdout.log (newest Blackbox Server runtime under the runtime root, read through the provider).
// Read in byte ranges up to the last newline so that a line (or a UTF-8 character) is never split between reads.
import { open, stat } from 'node:fs/promises';
import type { Sandbox, SandboxProvider } from '../sandbox/types.js';
import { ConsoleError, ExitCode } from '../errors.js';
import type { StreamEventView, StreamJsonProgress } from './streamJson.js';
import { StreamJsonCursor } from './logCursor.js';
import { sleep } from '../util/sleep.js';

export const AGENT_RUNTIME_ROOT = '/workspace_sandbox/blackbox_server_runtime';
const CHUNK = 1 << 20;

/** Reads bytes from `offset` on; empty when nothing more is there now. */
export interface LogSource {
  label: string;
  read(offset: number, signal?: AbortSignal): Promise<Buffer>;
  /** Whether the CLI process that writes the log still runs; undefined (or absent) = nothing can tell. */
  writerAlive?(signal?: AbortSignal): Promise<boolean | undefined>;
}

export function fileLogSource(file: string): LogSource {
  return {
    label: file,
    async read(offset) {
      const fh = await open(file, 'r');
      try {
        const size = (await fh.stat()).size;
        if (size <= offset) return Buffer.alloc(0);
        const buf = Buffer.alloc(Math.min(CHUNK, size - offset));
        const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
        return buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    },
  };
}

/** The newest runtime's claude_code.stdout.log in an agent sandbox, from byte `offset` (base64: bytes survive). */
export function sandboxLogSource(sandbox: Sandbox): LogSource {
  return {
    label: `sandbox ${sandbox.id}`,
    async read(offset, signal) {
      const script = `d=$(ls -dt ${AGENT_RUNTIME_ROOT}/bbs-* 2>/dev/null | head -n 1); if [ -z "$d" ]; then echo NO_RUNTIME; exit 0; fi; f="$d/logs/claude_code.stdout.log"; [ -f "$f" ] || { echo NO_LOG; exit 0; }; echo LOG; tail -c +${offset + 1} "$f" | head -c ${CHUNK} | base64 -w0`;
      const r = await sandbox.run(script, { timeoutMs: 30_000, signal, maxOutputBytes: CHUNK * 2 });
      const [head, body = ''] = r.stdout.split('\n', 2);
      if (head === 'NO_RUNTIME' || head === 'NO_LOG') return Buffer.alloc(0);
      if (head !== 'LOG') throw new Error(`unexpected answer from sandbox ${sandbox.id}: ${r.stdout.slice(0, 200)}${r.stderr ? ` ${r.stderr.slice(0, 200)}` : ''}`);
      return Buffer.from(body.trim(), 'base64');
    },
    // Blackbox Server writes the CLI's pid to <runtime>/run/claude_code.pid when it starts it.
    async writerAlive(signal) {
      const script = `d=$(ls -dt ${AGENT_RUNTIME_ROOT}/bbs-* 2>/dev/null | head -n 1); p=$(cat "$d/run/claude_code.pid" 2>/dev/null); if [ -z "$p" ]; then echo UNKNOWN; elif kill -0 "$p" 2>/dev/null; then echo ALIVE; else echo GONE; fi`;
      const r = await sandbox.run(script, { timeoutMs: 15_000, signal, maxOutputBytes: 4096 });
      const word = r.stdout.trim();
      return word === 'ALIVE' ? true : word === 'GONE' ? false : undefined;
    },
  };
}

/** A file path that exists, else a sandbox id reached through the provider. */
export async function resolveLogSource(target: string, provider: () => SandboxProvider | Promise<SandboxProvider>, signal?: AbortSignal): Promise<LogSource> {
  const st = await stat(target).catch(() => undefined);
  if (st?.isFile()) return fileLogSource(target);
  if (st) throw new ConsoleError({ what: `${target} is not a file`, fix: 'give the path of a claude_code.stdout.log, or a sandbox id', exitCode: ExitCode.usage });
  if (/[/\\]/.test(target) || /\.(jsonl|log|json)$/.test(target)) {
    throw new ConsoleError({ what: `no such file: ${target}`, cause: 'the path is wrong or the log was not written yet', fix: 'give the path of a claude_code.stdout.log, or a sandbox id', exitCode: ExitCode.usage });
  }
  let p: SandboxProvider;
  try {
    p = await provider();
  } catch (err) {
    throw err instanceof ConsoleError ? err : new ConsoleError({ what: `could not reach sandbox ${target}`, cause: (err as Error).message, exitCode: ExitCode.precondition });
  }
  try {
    return sandboxLogSource(await p.connect(target, { signal }));
  } catch (err) {
    throw new ConsoleError({
      what: `${target} is neither a file here nor a running ${p.name} sandbox`,
      cause: (err as Error).message,
      fix: `give the path of a claude_code.stdout.log, or the id of a running agent sandbox (swegym-console sandboxes list, or the dashboard's sandboxes panel)${p.name === 'e2b' ? '' : '; --provider e2b for E2B sandboxes'}`,
      exitCode: ExitCode.precondition,
    });
  }
}

export interface AgentLogUpdate {
  progress: StreamJsonProgress;
  /** Events summarised since the previous update. */
  newEvents: StreamEventView[];
}

/**
 * When a followed log's stream has ended. The writer (Dressage's Blackbox Server) reads the CLI's stdout to its end
 * and then waits for the process; the file has no end marker, and a `result` is not one: with a background subagent
 * the CLI prints a result per turn (2.1.332 in -p mode holds the first back until the task is done, then writes
 * both), and a resumed session appends another process. So the stream has ended when the CLI process is gone (a
 * sandbox's run/claude_code.pid no longer runs), or, where nothing can tell, when the last event is a result with
 * no background task left open and no queued turn, and nothing more was written for `settleMs`.
 */
export function streamEnded(p: StreamJsonProgress, o: { idleMs: number; settleMs: number; writerAlive: boolean | undefined }): boolean {
  if (o.writerAlive === false) return true;
  const quiet = p.status !== 'running' && p.openTasks === 0 && p.queuedTurns === 0;
  return quiet && (o.writerAlive === undefined ? o.idleMs >= o.settleMs : false);
}

/**
 * Reads the log once (follow=false) or until its stream ends (follow=true, see streamEnded), calling `onUpdate`
 * whenever something new was read. Resolves with the final progress.
 */
export async function readAgentLog(
  source: LogSource,
  o: { follow?: boolean; intervalMs?: number; settleMs?: number; clock?: () => number; signal?: AbortSignal; onUpdate?: (u: AgentLogUpdate) => void } = {},
): Promise<StreamJsonProgress> {
  const cursor = new StreamJsonCursor({ keepViews: 200 });
  const clock = o.clock ?? Date.now;
  let shown = 0;
  let first = true;
  let lastGrowth = clock();
  for (;;) {
    let got = false;
    for (;;) {
      const buf = await source.read(cursor.offset, o.signal);
      if (buf.length === 0) break;
      cursor.feed(buf);
      got = true;
      if (buf.length < CHUNK) break;
    }
    const progress = cursor.progress();
    if (got) lastGrowth = clock();
    if (got || first) {
      first = false;
      const views = cursor.reader.views;
      const fresh = views.slice(Math.max(0, views.length - (progress.events - shown)));
      shown = progress.events;
      o.onUpdate?.({ progress, newEvents: fresh });
    }
    if (!o.follow || o.signal?.aborted) return progress;
    const writerAlive = source.writerAlive ? await source.writerAlive(o.signal).catch(() => undefined) : undefined;
    // The writer gone: whatever it wrote before exiting is read first.
    if (writerAlive === false && !got) {
      const more = await source.read(cursor.offset, o.signal);
      if (more.length) {
        cursor.feed(more);
        continue;
      }
    }
    if (streamEnded(progress, { idleMs: clock() - lastGrowth, settleMs: o.settleMs ?? 3000, writerAlive })) return progress;
    await sleep(o.intervalMs ?? 1000, o.signal).catch(() => undefined);
    if (o.signal?.aborted) return cursor.progress();
  }
}
