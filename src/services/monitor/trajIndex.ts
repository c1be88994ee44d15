// The trajectory listing of a run directory, kept up to date incrementally (recipe reference §7 layout:
// traj_payload|traj_err/<RUN_NAME>/<instance>/<session>/session.json|error.json). A 500-rollout run writes 64,000
// sessions; listing them all again on every refresh (one stat at a time) made the work of a run grow with the
// square of its length. The index remembers what it listed: a refresh reads the instance directories (a new
// session changes its instance directory's mtime), lists only the changed ones, and stats only sessions it has not
// listed yet (and those whose file was not there last time), several at a time.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TrajectoryEntry } from '../../state/types/monitor.js';

const KINDS = [
  ['traj_payload', 'payload', 'session.json'],
  ['traj_err', 'error', 'error.json'],
] as const;

/** Stats in flight at once. */
const CONCURRENCY = 32;
/** An instance directory changed this close to the last listing may change again within the same mtime tick. */
const MTIME_SLACK_MS = 2000;

interface InstanceState {
  mtimeMs: number;
  sessions: Set<string>;
  /** Session directories whose file did not exist yet (being written). */
  waiting: Set<string>;
}

async function subdirs(p: string): Promise<string[] | undefined> {
  try {
    return (await readdir(p, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return undefined;
  }
}

async function pool<T>(items: T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

export class TrajectoryIndex {
  private readonly instances = new Map<string, InstanceState>();
  private readonly entries = new Map<string, TrajectoryEntry>();
  private sorted: TrajectoryEntry[] = [];
  private listedAt = -Infinity;
  /** Work done by the last refresh (tests and benchmarks). */
  lastWork = { readdirs: 0, stats: 0 };

  constructor(
    readonly runDir: string,
    readonly runName: string | undefined,
  ) {}

  /** The directory holding <instance>/<session>/…: <base>/<RUN_NAME> when present, else <base>. */
  private async root(base: string): Promise<string | undefined> {
    // Dressage joins RUN_NAME into the path as it is (only instance and session ids are made file-safe).
    for (const name of this.runName ? new Set([this.runName, this.runName.replace(/[^A-Za-z0-9._-]/g, '_')]) : []) {
      const nested = path.join(base, name);
      if (await stat(nested).then((s) => s.isDirectory(), () => false)) return nested;
    }
    return (await stat(base).then(() => true, () => false)) ? base : undefined;
  }

  /** Lists what is new since the last refresh; returns every trajectory, newest first, at most `limit`. */
  async refresh(limit = 20_000): Promise<TrajectoryEntry[]> {
    const work = { readdirs: 0, stats: 0 };
    const started = Date.now();
    const added: TrajectoryEntry[] = [];
    let removed = false;
    for (const [sub, kind, file] of KINDS) {
      const root = await this.root(path.join(this.runDir, sub));
      if (!root) continue;
      work.readdirs++;
      const names = (await subdirs(root)) ?? [];
      const changed: [string, InstanceState][] = [];
      await pool(names, CONCURRENCY, async (instance) => {
        const dir = path.join(root, instance);
        const key = `${kind}\u0000${dir}`;
        let st = this.instances.get(key);
        work.stats++;
        const mtimeMs = await stat(dir).then((s) => s.mtimeMs, () => NaN);
        if (Number.isNaN(mtimeMs)) return;
        if (st && st.mtimeMs === mtimeMs && st.waiting.size === 0 && mtimeMs < this.listedAt - MTIME_SLACK_MS) return;
        if (!st) this.instances.set(key, (st = { mtimeMs, sessions: new Set(), waiting: new Set() }));
        st.mtimeMs = mtimeMs;
        changed.push([instance, st]);
      });
      for (const [instance, st] of changed) {
        const dir = path.join(root, instance);
        work.readdirs++;
        const sessions = (await subdirs(dir)) ?? [];
        const present = new Set(sessions);
        for (const s of st.sessions) {
          if (!present.has(s)) {
            st.sessions.delete(s);
            this.entries.delete(path.join(dir, s));
            removed = true;
          }
        }
        const todo = sessions.filter((s) => !st.sessions.has(s));
        await pool(todo, CONCURRENCY, async (session) => {
          const sdir = path.join(dir, session);
          work.stats++;
          const mtime = await stat(path.join(sdir, file)).then((s) => s.mtimeMs, () => undefined);
          if (mtime === undefined) {
            st.waiting.add(session); // still being written (atomic rename not done yet) or foreign
            return;
          }
          st.waiting.delete(session);
          st.sessions.add(session);
          const entry: TrajectoryEntry = { instance, session, kind, dir: sdir, mtimeMs: mtime };
          this.entries.set(sdir, entry);
          added.push(entry);
        });
      }
    }
    this.listedAt = started;
    if (removed) this.sorted = [...this.entries.values()].sort((a, b) => b.mtimeMs - a.mtimeMs);
    else if (added.length) this.sorted = mergeNewest(this.sorted, added.sort((a, b) => b.mtimeMs - a.mtimeMs));
    this.lastWork = work;
    return this.sorted.slice(0, limit);
  }
}

/** Two lists sorted newest first, merged. */
function mergeNewest(a: TrajectoryEntry[], b: TrajectoryEntry[]): TrajectoryEntry[] {
  const out: TrajectoryEntry[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = (a[i] as TrajectoryEntry).mtimeMs >= (b[j] as TrajectoryEntry).mtimeMs ? (a[i++] as TrajectoryEntry) : (b[j++] as TrajectoryEntry);
  while (i < a.length) out[k++] = a[i++] as TrajectoryEntry;
  while (j < b.length) out[k++] = b[j++] as TrajectoryEntry;
  return out;
}
