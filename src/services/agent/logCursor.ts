// One Claude Code log read incrementally, from where the last read ended: the byte offset, the bytes of a line not
// yet ended by its newline, and the reader's folded state (counts, tool calls, usage; never the lines). `agent-log`,
// the sandboxes panel's rows and the drill-in all read through it, so the same file gives the same numbers
// whatever its size and however its reads were cut (a 300 KB last line, a 2 MB log, a line cut by kill -9).
import { StreamJsonReader, type StreamJsonProgress } from './streamJson.js';

/** A line longer than this is skipped (counted as not JSON), so a runaway line cannot hold unbounded memory. */
export const MAX_LINE_BYTES = 64 << 20;

export class StreamJsonCursor {
  /** Bytes consumed so far: the next read starts here. */
  offset = 0;
  readonly reader: StreamJsonReader;
  private tail: Buffer = Buffer.alloc(0);
  private discarding = false;

  constructor(o: { keepViews?: number } = {}) {
    this.reader = new StreamJsonReader({ keepViews: o.keepViews ?? 500 });
  }

  /** The bytes that follow `offset` in the log. */
  feed(buf: Buffer): this {
    if (buf.length === 0) return this;
    this.offset += buf.length;
    let all = this.tail.length ? Buffer.concat([this.tail, buf]) : buf;
    if (this.discarding) {
      const nl = all.indexOf(0x0a);
      if (nl < 0) {
        this.tail = Buffer.alloc(0);
        return this;
      }
      this.discarding = false;
      all = all.subarray(nl + 1);
    }
    // Split at the last newline in bytes, so neither a line nor a UTF-8 character is cut between reads.
    const nl = all.lastIndexOf(0x0a);
    if (nl >= 0) this.reader.push(all.subarray(0, nl + 1).toString('utf8'));
    this.tail = Buffer.from(nl < 0 ? all : all.subarray(nl + 1));
    if (this.tail.length > MAX_LINE_BYTES) {
      this.reader.skip();
      this.tail = Buffer.alloc(0);
      this.discarding = true;
    }
    return this;
  }

  /** Bytes of a last line still waiting for its newline. */
  get pendingBytes(): number {
    return this.tail.length;
  }

  /** The progress so far: a last line without its newline counts once it is complete JSON (and only once). */
  progress(): StreamJsonProgress {
    if (this.tail.length && this.tail[this.tail.length - 1] === 0x7d /* } */) {
      const text = this.tail.toString('utf8');
      if (completeJson(text)) {
        this.reader.push(`${text}\n`);
        this.tail = Buffer.alloc(0);
      }
    }
    return this.reader.progress();
  }
}

function completeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
