// One-shot ingestion of a run log into a RunModel (the `monitor --once` path and the dashboard's first read).
import { stat } from 'node:fs/promises';
import { RunModel } from './runModel.js';
import { LineScanner, modelLineScanner, scanFile } from './tail.js';
import { ConsoleError, ExitCode } from '../errors.js';

export interface IngestResult {
  model: RunModel;
  scanner: LineScanner;
  /** Offset after the last byte read (where a follower continues). */
  offset: number;
  startOffset: number;
}

/** Size of a run log; a ConsoleError (what/cause/fix) when it is missing or not a regular file. */
export async function statLogFile(file: string): Promise<number> {
  let size: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    size = st.size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConsoleError({
      what: `Cannot read the run log ${file}.`,
      cause: code === 'ENOENT' ? 'The file does not exist (yet): the run may not have started writing it.' : (err as Error).message,
      fix: code === 'ENOENT' ? 'Check the path, or wait until the launcher has started and try again.' : 'Check the path and its permissions.',
      exitCode: ExitCode.precondition,
      inner: err,
    });
  }
  return size;
}

/**
 * Reads `file` into a new model. `tailBytes` starts that many bytes before the end (at the next line start)
 * instead of at 0; `final` treats a trailing partial line as complete (a finished log).
 */
export async function ingestFile(file: string, opts: { name?: string; tailBytes?: number; final?: boolean; signal?: AbortSignal; model?: RunModel } = {}): Promise<IngestResult> {
  const size = await statLogFile(file);
  const model = opts.model ?? new RunModel({ name: opts.name });
  const scanner = modelLineScanner(model);
  let start = 0;
  if (opts.tailBytes !== undefined && size > opts.tailBytes) {
    // Start mid-file; the partial line at the cut is skipped (SkipFirstLine).
    start = size - opts.tailBytes;
  }
  const skipFirst = start > 0;
  const scanned = await scanFile(file, skipFirst ? new SkipFirstLine(scanner) : scanner, { offset: start, final: opts.final, signal: opts.signal });
  return { model, scanner, offset: scanned.offset, startOffset: start };
}

/** Drops bytes up to and including the first newline, then forwards to the real scanner. */
export class SkipFirstLine extends LineScanner {
  private skipping = true;
  constructor(private readonly inner: LineScanner) {
    super(() => {});
  }

  override push(chunk: Buffer): void {
    if (this.skipping) {
      const nl = chunk.indexOf(10);
      if (nl < 0) return;
      this.skipping = false;
      this.inner.push(chunk.subarray(nl + 1));
      return;
    }
    this.inner.push(chunk);
  }

  override end(): void {
    this.inner.end();
  }
}
