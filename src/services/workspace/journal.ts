// A journal is a JSON map of per-item records in .swegym-console/journals/<name>.json, written atomically after
// every change so that an interrupted job (Ctrl-C, kill -9) resumes from what is on disk.
import path from 'node:path';
import { readJsonFile, writeJsonAtomic, WriteQueue } from './atomic.js';

interface JournalFile<T> {
  version: 1;
  updatedAt: string;
  items: Record<string, T>;
}

export class Journal<T extends object> {
  readonly file: string;
  private items = new Map<string, T>();
  private readonly queue = new WriteQueue();
  private loaded = false;

  constructor(journalsDir: string, name: string) {
    this.file = path.join(journalsDir, `${name}.json`);
  }

  async load(): Promise<this> {
    const data = await readJsonFile<JournalFile<T>>(this.file);
    this.items = new Map(Object.entries(data?.items ?? {}));
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

  /** Replaces or merges a record and persists the whole journal atomically. */
  async set(key: string, value: T): Promise<void> {
    this.assertLoaded();
    this.items.set(key, value);
    await this.flush();
  }

  async update(key: string, patch: Partial<T>, base?: T): Promise<T> {
    this.assertLoaded();
    const current = this.items.get(key) ?? base ?? ({} as T);
    const next = { ...current, ...patch } as T;
    this.items.set(key, next);
    await this.flush();
    return next;
  }

  async delete(key: string): Promise<void> {
    this.assertLoaded();
    this.items.delete(key);
    await this.flush();
  }

  flush(): Promise<void> {
    return this.queue.run(async () => {
      const body: JournalFile<T> = { version: 1, updatedAt: new Date().toISOString(), items: Object.fromEntries(this.items) };
      await writeJsonAtomic(this.file, body);
    });
  }
}
