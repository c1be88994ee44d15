// A long job's progress on stderr, never on stdout (where --json prints its one document). On a terminal: one
// bar line (`[████░░░░] 12/293 · ETA 1h02m`) kept under the job's own lines and redrawn as it moves. Otherwise
// (logs, CI, a pipe): a plain `label 12/293 · ETA 1h02m` line at the first result and then every `everyMs`.
import type { CommandContext } from './context.js';
import { jobProgressLine, progressCount, progressEta, type JobProgress } from '../services/jobs/progress.js';

export interface ProgressReporter {
  /** A line of the job's own output (stderr), printed above the bar. */
  note(text: string): void;
  update(progress: JobProgress, extra?: string): void;
  /** Clears the bar and stops the ticker; call it before the summary. */
  end(): void;
}

const DEFAULT_EVERY_MS = 10_000;

export function progressReporter(ctx: CommandContext, label: string, opts: { everyMs?: number } = {}): ProgressReporter {
  const stream = ctx.stderr as NodeJS.WriteStream;
  const tty = Boolean(stream.isTTY);
  const everyMs = opts.everyMs ?? (Number(ctx.env.SWEGYM_CONSOLE_PROGRESS_EVERY_MS) || DEFAULT_EVERY_MS);
  let current: { progress: JobProgress; extra: string } | undefined;
  let drawn = false;
  let lastPlain = 0;
  let ended = false;
  const running = () => current !== undefined && current.progress.done < current.progress.total;
  const clear = () => {
    if (drawn) stream.write('\r\u001b[2K');
    drawn = false;
  };
  const draw = () => {
    if (!current || !running() || ended) return clear();
    const width = stream.columns || 100;
    const text = `${label} ${jobProgressLine(current.progress, Date.now(), Math.max(5, Math.min(30, width - label.length - 30)))}${current.extra}`;
    stream.write(`\r\u001b[2K${text.slice(0, Math.max(10, width - 1))}`);
    drawn = true;
  };
  const plain = (force: boolean) => {
    if (!current || !running() || ended) return;
    const now = Date.now();
    if (!force && now - lastPlain < everyMs) return;
    lastPlain = now;
    const p = current.progress;
    stream.write(`${label} ${progressCount(p.done, p.total, progressEta(p, now))}${current.extra}\n`);
  };
  // A terminal's bar refreshes its ETA once a second; a log gets a line every `everyMs` while nothing else moves.
  const ticker = setInterval(() => (tty ? draw() : plain(false)), tty ? 1000 : everyMs);
  ticker.unref();
  return {
    note(text) {
      clear();
      stream.write(text.endsWith('\n') ? text : text + '\n');
      if (tty) draw();
    },
    update(progress, extra = '') {
      current = { progress, extra };
      if (tty) draw();
      else if (progress.done > (progress.baseline ?? 0)) plain(lastPlain === 0);
    },
    end() {
      ended = true;
      clearInterval(ticker);
      clear();
    },
  };
}
