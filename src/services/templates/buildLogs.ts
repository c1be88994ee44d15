// Build logs kept per template image in <workspace>/.swegym-console/build-logs/, so a build's whole output can be
// read after the console that ran it has exited (the journal keeps only a tail). One file per image, rewritten by
// each new build of it; lines arrive redacted.
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureDirSync, fileModeFor } from '../workspace/atomic.js';

export const TEMPLATE_LOG_DIR = '.swegym-console/build-logs';

/** The file name of an image's build log: the image reference with path and tag separators made safe. */
export function logFileName(image: string): string {
  return `${image.replace(/[^A-Za-z0-9._-]+/g, '_')}.log`;
}

export function buildLogPath(consoleDir: string, image: string): string {
  return path.join(consoleDir, 'build-logs', logFileName(image));
}

export class BuildLogs {
  private readonly open = new Map<string, WriteStream>();

  constructor(private readonly consoleDir: string) {}

  /** Starts a new log for `image` (truncating the previous build's). */
  start(image: string): void {
    this.end(image);
    ensureDirSync(path.join(this.consoleDir, 'build-logs'));
    const file = buildLogPath(this.consoleDir, image);
    // Removed, not truncated: a log an older console left 0644 is made anew with the private mode.
    rmSync(file, { force: true });
    const stream = createWriteStream(file, { flags: 'w', mode: fileModeFor(file) });
    // A log that cannot be written must not fail the build: the in-memory ring still has the lines.
    stream.on('error', () => this.open.delete(image));
    this.open.set(image, stream);
  }

  append(image: string, line: string): void {
    this.open.get(image)?.write(line + '\n');
  }

  end(image: string): void {
    const s = this.open.get(image);
    if (!s) return;
    this.open.delete(image);
    s.end();
  }

  endAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    return Promise.all(all.map((s) => new Promise<void>((resolve) => s.end(() => resolve())))).then(() => undefined);
  }
}

/** The last `max` lines of an image's persisted build log, or undefined when none was written. */
export async function readBuildLog(consoleDir: string, image: string, max = 500): Promise<string[] | undefined> {
  try {
    const text = await readFile(buildLogPath(consoleDir, image), 'utf8');
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-max);
  } catch {
    return undefined;
  }
}
