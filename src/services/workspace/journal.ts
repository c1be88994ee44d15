// A journal keeps per-item records in .swegym-console/journals/: <name>.json, a snapshot (version, updatedAt, items),
// and <name>.json.log, one JSON line per change since that snapshot. A change appends one line, so a job over
// thousands of items writes in proportion to its changes (rewriting the whole map on every change wrote hundreds of
// MB for 2,344 template builds). Once the log outgrows the snapshot (and 256 KiB) the snapshot is rewritten
// atomically and the log removed: replaying a log over a snapshot that already holds it gives the same items, so a
// crash between the two steps loses nothing. An interrupted append leaves at most one partial last line, which
// readers skip. Read journals with readJournalItems, never the snapshot alone.
import { appendFile, chmod, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { redact } from '../secrets.js';
import { ensureDir, fileModeFor, notWritableError, readJsonFile, writeFileAtomic, WriteQueue } from './atomic.js';

// Journals hold process text (errors, log tails): every string is redacted on its way to disk, whoever wrote it.
const redactStrings = (_key: string, value: unknown): unknown => (typeof value === 'string' ? redact(value) : value);

interface JournalFile<T> {
  version: 1;
  updatedAt: string;
  items: Record<string, T>;
}

/** One log line: a record set (`v`) or deleted (`d`). */
type LogLine<T> = { k: string; v: T } | { k: string; d: 1 };

/** The log beside a journal snapshot. */
export function journalLogFile(snapshot: string): string {
  return `${snapshot}.log`;
}

/** Bytes the log may reach before compaction, at least (otherwise: the snapshot's size). */
const COMPACT_MIN_BYTES = 256 * 1024;

async function readLog<T>(file: string, items: Map<string, T>): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    let rec: LogLine<T>;
    try {
      rec = JSON.parse(line) as LogLine<T>;
    } catch {
      continue; // the partial last line of an interrupted append
    }
    if (!rec || typeof rec.k !== 'string') continue;
    if ('d' in rec) items.delete(rec.k);
    else items.set(rec.k, rec.v);
  }
  return Buffer.byteLength(text);
}

/** A journal's items as they are now (snapshot + log); undefined when it has neither. */
export async function readJournalItems<T>(snapshot: string): Promise<Record<string, T> | undefined> {
  const data = await readJsonFile<JournalFile<T>>(snapshot);
  const items = new Map(Object.entries(data?.items ?? {}));
  const logBytes = await readLog(journalLogFile(snapshot), items);
  if (!data && logBytes === 0) return undefined;
  return Object.fromEntries(items);
}

export class Journal<T extends object> {
  readonly file: string;
  readonly logFile: string;
  private items = new Map<string, T>();
  private readonly queue = new WriteQueue();
  private loaded = false;
  private logBytes = 0;
  private dirReady = false;
  private snapshotBytes = 0;
  /** Bytes this journal wrote (appends and snapshots), for the benchmarks. */
  bytesWritten = 0;

  constructor(journalsDir: string, name: string) {
    this.file = path.join(journalsDir, `${name}.json`);
    this.logFile = journalLogFile(this.file);
  }

  async load(): Promise<this> {
    const data = await readJsonFile<JournalFile<T>>(this.file);
    this.items = new Map(Object.entries(data?.items ?? {}));
    this.snapshotBytes = await stat(this.file).then((s) => s.size, () => 0);
    this.logBytes = await readLog(this.logFile, this.items);
    this.loaded = true;
    return this;
  }

  private assertLoaded(): void {
    if (!this.loaded) throw new Error(`journal ${this.file} used before load()`);
  }

  get(key: string): T | undefined {
    this.assertLoaded();
    return this.items.get(key);
  }

  entries(): [string, T][] {
    this.assertLoaded();
    return [...this.items.entries()];
  }

  /** Replaces a record and appends it to the log. */
  async set(key: string, value: T): Promise<void> {
    await this.putMany([[key, value]]);
  }

  /** Replaces several records with one append. */
  async putMany(records: Iterable<readonly [string, T]>): Promise<void> {
    this.assertLoaded();
    const lines: LogLine<T>[] = [];
    for (const [k, v] of records) {
      this.items.set(k, v);
      lines.push({ k, v });
    }
    await this.append(lines);
  }

  async update(key: string, patch: Partial<T>, base?: T): Promise<T> {
    this.assertLoaded();
    const current = this.items.get(key) ?? base ?? ({} as T);
    const next = { ...current, ...patch } as T;
    this.items.set(key, next);
    await this.append([{ k: key, v: next }]);
    return next;
  }

  async delete(key: string): Promise<void> {
    this.assertLoaded();
    this.items.delete(key);
    await this.append([{ k: key, d: 1 }]);
  }

  private append(lines: LogLine<T>[]): Promise<void> {
    if (lines.length === 0) return this.queue.idle();
    const text = lines.map((l) => JSON.stringify(l, redactStrings)).join('\n') + '\n';
    return this.queue.run(async () => {
      if (!this.dirReady) {
        await ensureDir(path.dirname(this.logFile));
        // A log an older console left 0644 becomes private before anything more is appended to it.
        await chmod(this.logFile, fileModeFor(this.logFile)).catch(() => undefined);
        this.dirReady = true;
      }
      await appendFile(this.logFile, text, { mode: fileModeFor(this.logFile) }).catch((err: unknown) => {
        throw notWritableError(this.logFile, err);
      });
      const n = Buffer.byteLength(text);
      this.logBytes += n;
      this.bytesWritten += n;
      if (this.logBytes > Math.max(COMPACT_MIN_BYTES, this.snapshotBytes)) await this.compactNow();
    });
  }

  /** Rewrites the snapshot with every item and removes the log (also when nothing changed: a fresh snapshot). */
  flush(): Promise<void> {
    this.assertLoaded();
    return this.queue.run(() => this.compactNow());
  }

  private async compactNow(): Promise<void> {
    const body: JournalFile<T> = { version: 1, updatedAt: new Date().toISOString(), items: Object.fromEntries(this.items) };
    const text = JSON.stringify(body, redactStrings, 2) + '\n';
    await writeFileAtomic(this.file, text);
    await rm(this.logFile, { force: true });
    this.snapshotBytes = Buffer.byteLength(text);
    this.bytesWritten += this.snapshotBytes;
    this.logBytes = 0;
  }
}
