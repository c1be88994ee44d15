// The terminal's input as Ink should see it: one key per read, the way a person types.
//
// Why: over SSH (and from a fast typist, or a paste the terminal does not bracket) several keys arrive in one read,
// e.g. `abc\r`. Ink hands such a chunk to every `useInput` handler as ONE input: a text field inserts `abc` and drops
// the `\r`, so the Enter is lost; a list sees `jjj` and moves nowhere. And even split, keys delivered in one go all
// reach the handlers of the frame before the first key's effect (a field that closed still owns the keyboard).
// So this stream sits between the terminal and Ink: it splits each chunk into keys (a character, a control byte, an
// escape sequence, a bracketed paste kept whole) and hands Ink the next key only after React has handled the last
// one (a macrotask later, after the effects the key caused), so a chunk is handled exactly as if typed slowly.
import { EventEmitter } from 'node:events';
import { graphemes } from '../ui/text.js';

const ESC = '\u001B';
const PASTE_START = `${ESC}[200~`;
const PASTE_END = `${ESC}[201~`;
/** A bracketed paste whose end never comes is handed on as it is past this size (Ink then decides). */
const MAX_HELD = 4 * 1024 * 1024;
/**
 * Ink holds a lone Esc for 20 ms in case more of a sequence follows (components/App.js); the key after an Esc waits
 * longer than that, or Ink would read the two as Alt + key.
 */
export const AFTER_ESC_MS = 30;

/** Length of the escape sequence at `i` (ESC already seen), or `undefined` when the chunk ends inside it. */
function escapeLength(text: string, i: number): number | undefined {
  let j = i + 1;
  // ESC ESC [ A is Alt + an arrow; ESC ESC otherwise is two presses of Esc.
  if (text[j] === ESC) {
    if (j + 1 >= text.length) return 1;
    if (text[j + 1] !== '[' && text[j + 1] !== 'O') return 1;
    j++;
  }
  const kind = text[j];
  if (kind === undefined) return 1; // a lone Esc (Ink waits briefly for more itself)
  if (kind === '[') {
    j++;
    if (text[j] === '[') j++; // legacy ESC [ [ A
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) return j + 1 - i;
      if (c < 0x20 || c > 0x3f) return j - i; // not a CSI after all: hand on what there is
    }
    return undefined;
  }
  if (kind === 'O') {
    for (j++; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) return j + 1 - i;
      if (c !== 0x3b && (c < 0x30 || c > 0x39)) return j - i;
    }
    return undefined;
  }
  // Alt + a character (one code point).
  const cp = text.codePointAt(j) ?? 0;
  return j + (cp > 0xffff ? 2 : 1) - i;
}

/**
 * Splits terminal input into the keys it holds, in order; `rest` is an unfinished escape sequence or bracketed paste
 * to keep for the next read. A line feed is Enter (`\r`, what the Enter key sends; `\r\n` is one Enter): pasted text
 * with line breaks submits a field as typing it would. A bracketed paste stays one piece: it is text, not keys.
 */
export function splitKeys(text: string): { keys: string[]; rest: string } {
  const keys: string[] = [];
  let run = '';
  const flushRun = () => {
    if (run) keys.push(...graphemes(run));
    run = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === ESC) {
      flushRun();
      if (text.startsWith(PASTE_START, i)) {
        const end = text.indexOf(PASTE_END, i + PASTE_START.length);
        if (end === -1) return { keys, rest: text.slice(i) };
        keys.push(text.slice(i, end + PASTE_END.length));
        i = end + PASTE_END.length;
        continue;
      }
      const n = escapeLength(text, i);
      if (n === undefined) return { keys, rest: text.slice(i) };
      keys.push(text.slice(i, i + n));
      i += n;
      continue;
    }
    if (ch === '\r' || ch === '\n') {
      flushRun();
      keys.push('\r');
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) {
      flushRun();
      keys.push(ch);
      i++;
      continue;
    }
    run += ch;
    i++;
  }
  flushRun();
  return { keys, rest: '' };
}

/** What Ink needs of its stdin (a TTY in raw mode, read on 'readable'). */
export interface TerminalInput {
  isTTY?: boolean;
  setRawMode(mode: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  on(event: 'data', listener: (chunk: string | Buffer) => void): unknown;
  removeListener(event: 'data', listener: (chunk: string | Buffer) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  ref?(): unknown;
  unref?(): unknown;
}

/**
 * Ink's stdin, one key per read (see the top of this file). Reads `terminal` only while Ink has it in raw mode, so
 * that nothing is taken from a program that gets the terminal after the console (the demo's second start).
 * `defer` waits until what the last key caused has run (a macrotask by default; tests may pass their own).
 */
export class PacedStdin extends EventEmitter {
  readonly isTTY = true;
  private readonly queue: string[] = [];
  private held = '';
  private current: string | null = null;
  private scheduled = false;
  private reading = false;

  private lastWasEsc = false;

  constructor(
    private readonly terminal: TerminalInput,
    private readonly defer: (fn: () => void, afterEsc: boolean) => void = (fn, afterEsc) => (afterEsc ? setTimeout(fn, AFTER_ESC_MS) : setImmediate(fn)),
  ) {
    super();
    this.terminal.setEncoding('utf8');
  }

  private readonly onData = (chunk: string | Buffer) => {
    const { keys, rest } = splitKeys(this.held + String(chunk));
    this.queue.push(...keys);
    this.held = rest;
    if (this.held.length > MAX_HELD) {
      this.queue.push(this.held);
      this.held = '';
    }
    this.schedule();
  };

  private schedule(): void {
    if (this.scheduled || this.current !== null || this.queue.length === 0) return;
    this.scheduled = true;
    this.defer(() => {
      this.scheduled = false;
      if (this.current !== null || this.queue.length === 0) return;
      // Only while Ink listens: keys typed while it does not wait for it.
      if (this.listenerCount('readable') === 0) return;
      this.current = this.queue.shift() as string;
      this.lastWasEsc = this.current === ESC;
      this.emit('readable');
    }, this.lastWasEsc);
  }

  /**
   * Ink reads until null: one key, then null. The next key is scheduled at that null, after Ink has handled this
   * one, so React's own follow-up work (effects that move the keyboard to another handler) is queued before it.
   */
  read(): string | null {
    const key = this.current;
    this.current = null;
    if (key === null) this.schedule();
    return key;
  }

  setEncoding(): this {
    return this;
  }

  setRawMode(mode: boolean): this {
    this.terminal.setRawMode(mode);
    if (mode && !this.reading) {
      this.reading = true;
      this.terminal.on('data', this.onData);
      this.terminal.resume();
    } else if (!mode && this.reading) {
      this.reading = false;
      this.terminal.removeListener('data', this.onData);
      this.terminal.pause();
    }
    return this;
  }

  override addListener(event: string | symbol, listener: (...args: unknown[]) => void): this {
    super.addListener(event, listener);
    if (event === 'readable') this.schedule();
    return this;
  }

  override on(event: string | symbol, listener: (...args: unknown[]) => void): this {
    return this.addListener(event, listener);
  }

  ref(): this {
    this.terminal.ref?.();
    return this;
  }

  unref(): this {
    this.terminal.unref?.();
    return this;
  }
}
