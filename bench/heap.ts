// Heap snapshots of the dashboard under load (`npm run bench -- --only dashboard --dashboard-heap`): the console
// runs with `--heapsnapshot-signal=SIGUSR2`, a snapshot is taken early in the window and one at its end, and the
// object kinds whose retained self size grew the most are listed. This is how RSS growth is traced to its owner.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: (string | string[])[] } };
  nodes: number[];
  strings: string[];
}

export interface HeapSummary {
  totalBytes: number;
  /** Self size and count per "type:name" (constructor name for objects, the type for strings and code). */
  byKind: Map<string, { bytes: number; count: number }>;
}

export async function summarizeHeapSnapshot(file: string): Promise<HeapSummary> {
  const snap = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0] as string[];
  const stride = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const byKind = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += stride) {
    const type = types[snap.nodes[i + iType] as number] ?? '?';
    const size = snap.nodes[i + iSize] as number;
    total += size;
    // Strings and code are grouped by type; objects by their constructor.
    const name = type === 'object' || type === 'closure' || type === 'native' ? `${type}:${snap.strings[snap.nodes[i + iName] as number] ?? '?'}` : type;
    const e = byKind.get(name) ?? { bytes: 0, count: 0 };
    e.bytes += size;
    e.count++;
    byKind.set(name, e);
  }
  return { totalBytes: total, byKind };
}

/** The kinds that grew most between two snapshots, largest growth first. */
export function heapGrowth(a: HeapSummary, b: HeapSummary, top = 12): { kind: string; fromBytes: number; toBytes: number; fromCount: number; toCount: number }[] {
  const kinds = new Set([...a.byKind.keys(), ...b.byKind.keys()]);
  return [...kinds]
    .map((kind) => {
      const x = a.byKind.get(kind) ?? { bytes: 0, count: 0 };
      const y = b.byKind.get(kind) ?? { bytes: 0, count: 0 };
      return { kind, fromBytes: x.bytes, toBytes: y.bytes, fromCount: x.count, toCount: y.count };
    })
    .sort((p, q) => q.toBytes - q.fromBytes - (p.toBytes - p.fromBytes))
    .slice(0, top);
}

/** The .heapsnapshot files Node wrote into `dir`, oldest first (their names carry a sequence number). */
export async function heapSnapshotFiles(dir: string): Promise<string[]> {
  return (await readdir(dir))
    .filter((f) => f.endsWith('.heapsnapshot'))
    .sort()
    .map((f) => path.join(dir, f));
}
