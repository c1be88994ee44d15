// Streamed output arrives in arbitrary chunks (a line may be split across chunks, several lines may share one).
// LineSplitter turns chunks into complete lines and flushes the remainder at the end; OutputTail keeps a bounded
// tail of the raw text for the command result.

export class LineSplitter {
  private partial = '';
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): void {
    if (!chunk) return;
    this.partial += chunk;
    let nl: number;
    while ((nl = this.partial.indexOf('\n')) >= 0) {
      const raw = this.partial.slice(0, nl);
      this.partial = this.partial.slice(nl + 1);
      this.onLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    }
  }

  /** Emits the last line when the stream did not end with a newline. Idempotent. */
  flush(): void {
    if (this.partial) {
      const raw = this.partial;
      this.partial = '';
      this.onLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    }
  }
}

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Keeps at most `maxBytes` (UTF-16 code units, close enough for a cap) of the most recent text. */
export class OutputTail {
  private parts: string[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly maxBytes: number = DEFAULT_MAX_OUTPUT_BYTES) {}

  push(chunk: string): void {
    if (!chunk) return;
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.size > this.maxBytes * 2) this.compact();
  }

  private compact(): void {
    const all = this.parts.join('');
    const kept = all.length > this.maxBytes ? all.slice(all.length - this.maxBytes) : all;
    if (kept.length < all.length) this.truncated = true;
    this.parts = [kept];
    this.size = kept.length;
  }

  text(): string {
    this.compact();
    return this.parts[0] ?? '';
  }
}

/** One stream of a running command: tail for the result, lines for the caller. */
export class StreamCollector {
  readonly tail: OutputTail;
  private readonly splitter: LineSplitter;
  constructor(maxBytes: number | undefined, onLine: ((line: string) => void) | undefined) {
    this.tail = new OutputTail(maxBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
    this.splitter = new LineSplitter((line) => onLine?.(line));
  }
  push(chunk: string): void {
    this.tail.push(chunk);
    this.splitter.push(chunk);
  }
  finish(): string {
    this.splitter.flush();
    return this.tail.text();
  }
}
