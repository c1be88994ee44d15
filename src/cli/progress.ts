// A long job's progress on stderr, never on stdout (where --json prints its one document). On a terminal: one
// bar line (`[████░░░░] 12/293 · ETA 1h02m`) kept under everything else written to stderr and redrawn as it moves.
// Otherwise (logs, CI, a pipe): a plain `label 12/293 · ETA 1h02m` line at the first result, then every `everyMs`.
import type { CommandContext } from './context.js';
import { jobProgressLine, progressCount, progressEta, type JobProgress } from '../services/jobs/progress.js';
import { setting } from '../services/config/envSettings.js';

export interface ProgressReporter {
  /** A line of the job's own output (stderr), printed above the bar. */
  note(text: string): void;
  update(progress: JobProgress, extra?: string): void;
  /** Clears the bar and stops the ticker; call it before the summary. Idempotent. */
  end(): void;
}

const DEFAULT_EVERY_MS = 10_000;
const CLEAR_LINE = '\r\u001b[2K';

export function progressReporter(ctx: CommandContext, label: string, opts: { everyMs?: number } = {}): ProgressReporter {
  const stream = ctx.stderr as NodeJS.WriteStream;
  const tty = Boolean(stream.isTTY);
  const everyMs = opts.everyMs ?? (setting(ctx.env, 'SWEGYM_CONSOLE_PROGRESS_EVERY_MS') ?? DEFAULT_EVERY_MS);
  let current: { progress: JobProgress; extra: string } | undefined;
  let drawn = false;
  let lastPlain = 0;
  let ended = false;
  const running = () => !ended && current !== undefined && current.progress.done < current.progress.total;

  // On a terminal every other write to stderr (a retry note, a warning) first clears the bar and then redraws it
  // below, so no line is ever appended to the bar's.
  const hadOwnWrite = Object.prototype.hasOwnProperty.call(stream, 'write');
  const ownWrite = stream.write;
  const raw = ownWrite.bind(stream) as (chunk: string) => boolean;
  const clear = () => {
    if (drawn) raw(CLEAR_LINE);
    drawn = false;
  };
  const draw = () => {
    if (!current || !running()) return clear();
    const width = stream.columns || 100;
    const text = `${label} ${jobProgressLine(current.progress, Date.now(), Math.max(5, Math.min(30, width - label.length - 30)))}${current.extra}`;
    raw(`${CLEAR_LINE}${text.slice(0, Math.max(10, width - 1))}`);
    drawn = true;
  };
  if (tty) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      clear();
      const ok = (ownWrite as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
      if (String(chunk).endsWith('\n')) draw();
      return ok;
    }) as typeof stream.write;
  }
  const plain = (force: boolean) => {
    if (!current || !running()) return;
    const now = Date.now();
    if (!force && now - lastPlain < everyMs) return;
    lastPlain = now;
    const p = current.progress;
    raw(`${label} ${progressCount(p.done, p.total, progressEta(p, now))}${current.extra}\n`);
  };
  // A terminal's bar refreshes its ETA once a second; a log gets a line every `everyMs` while nothing else moves.
  const ticker = setInterval(() => (tty ? draw() : plain(false)), tty ? 1000 : everyMs);
  ticker.unref();
  return {
    note(text) {
      stream.write(text.endsWith('\n') ? text : text + '\n');
    },
    update(progress, extra = '') {
      current = { progress, extra };
      if (tty) draw();
      else if (progress.done > (progress.baseline ?? 0)) plain(lastPlain === 0);
    },
    end() {
      if (ended) return;
      ended = true;
      clearInterval(ticker);
      clear();
      if (!tty) return;
      if (hadOwnWrite) stream.write = ownWrite;
      else delete (stream as { write?: unknown }).write;
    },
  };
}
