// Every child process the console starts is recorded here (argv, cwd, exit code, duration), secrets redacted.
// A capped ring: the console runs for days.
import { redactArgv } from '../secrets.js';

/** `stopped`: the console ended it on purpose (a sandbox torn down, a job cancelled): a signal is expected. */
export type CommandStatus = 'running' | 'ok' | 'failed' | 'killed' | 'stopped' | 'detached' | 'not-found';

export interface CommandLogEntry {
  id: number;
  argv: string[];
  cwd: string;
  startedAt: number;
  endedAt?: number;
  exitCode?: number;
  signal?: string;
  status: CommandStatus;
  note?: string;
}

type Listener = () => void;

export class CommandLog {
  private readonly cap: number;
  private items: CommandLogEntry[] = [];
  private nextId = 1;
  private listeners = new Set<Listener>();
  /** Bumped on every change; UIs poll it at their frame rate instead of re-rendering per event. */
  version = 0;

  constructor(cap = 500) {
    this.cap = cap;
  }

  start(argv: readonly string[], cwd: string, note?: string): CommandLogEntry {
    const entry: CommandLogEntry = { id: this.nextId++, argv: redactArgv(argv), cwd, startedAt: Date.now(), status: 'running', note };
    this.items.push(entry);
    if (this.items.length > this.cap) this.items.splice(0, this.items.length - this.cap);
    this.changed();
    return entry;
  }

  finish(entry: CommandLogEntry, result: { exitCode?: number; signal?: string; status?: CommandStatus }): void {
    entry.endedAt = Date.now();
    entry.exitCode = result.exitCode;
    entry.signal = result.signal;
    entry.status = result.status ?? (result.exitCode === 0 ? 'ok' : result.signal ? 'killed' : 'failed');
    this.changed();
  }

  entries(): readonly CommandLogEntry[] {
    return this.items;
  }

  running(): number {
    return this.items.filter((e) => e.status === 'running').length;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }
}

/** The process-wide command log shown in the console's command-log panel. */
export const commandLog = new CommandLog();

/** The outcome column of the command log: says what happened, not only a code. */
export function describeOutcome(e: CommandLogEntry): string {
  switch (e.status) {
    case 'running':
    case 'detached':
      return e.status;
    case 'not-found':
      return 'not found';
    case 'stopped':
      return 'stopped';
    case 'ok':
      return 'exit 0';
    default:
      return e.signal ? e.signal : e.exitCode !== undefined ? `exit ${e.exitCode}` : 'failed';
  }
}

/** argv on one line: line breaks inside an argument (a `python3 -c` script) shown as ⏎. */
export function formatArgvLine(argv: readonly string[]): string {
  return argv.map((a) => a.replace(/\r?\n\s*/g, ' ⏎ ')).join(' ');
}
