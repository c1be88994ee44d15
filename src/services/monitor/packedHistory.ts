// The live run model's older rollouts and steps, packed. A rollout record as objects costs ≈ 2.4 KB of heap (its 35
// metrics each a boxed double, its groups, reasons and failure counts each an object), and the dashboard keeps the
// whole run's history for its curves: that was its RSS growing with the run. Past the newest few hundred, a record's
// numbers move into chunked typed arrays (doubles for metrics and times, 32-bit integers for counts), its key lists
// and names are interned, and what is left per record is one small object. The packed records answer the same
// RolloutRecord / StepRecord fields (each read builds the value anew, so hot loops use metricOf / hasMetric).
import type { PyDict, PyValue } from './pyReprParse.js';
import type { GroupTally, SampleStats } from '../../state/types/monitor.js';
import type { RolloutFailures, RolloutRecord, StepRecord } from './runRecords.js';

/** Elements per chunk; a record larger than that gets a chunk of its own. Addresses are chunk × CHUNK + offset. */
const CHUNK = 16_384;

class ChunkedNumbers<A extends Float64Array | Int32Array> {
  private readonly chunks: A[] = [];
  private used = CHUNK;

  constructor(private readonly make: (n: number) => A) {}

  /** Room for `n` consecutive elements: their address. */
  alloc(n: number): number {
    if (n > CHUNK) {
      this.chunks.push(this.make(n));
      // A chunk of its own is full at once: the next record starts a new one.
      this.used = CHUNK;
      return (this.chunks.length - 1) * CHUNK;
    }
    if (this.used + n > CHUNK) {
      this.chunks.push(this.make(CHUNK));
      this.used = 0;
    }
    const at = (this.chunks.length - 1) * CHUNK + this.used;
    this.used += n;
    return at;
  }

  /** The chunk holding `address` (offsetOf gives its place there). */
  chunk(address: number): A {
    return this.chunks[Math.floor(address / CHUNK)] as A;
  }

  /** Bytes allocated (for tests and the benchmark). */
  get bytes(): number {
    let b = 0;
    for (const c of this.chunks) b += c.byteLength;
    return b;
  }
}

const offsetOf = (address: number): number => address % CHUNK;

/** An ordered key list shared by every record whose metrics have those keys in that order. */
interface Schema {
  readonly id: number;
  readonly keys: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

const fitsInt32 = (x: number): boolean => (x | 0) === x;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `o[k] = v` where a `__proto__` key is data, as the log's dict reader makes it (pyjson.ts), not the prototype. */
function put<V>(o: Record<string, V>, k: string, v: V): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

export class PackedHistory {
  private readonly doubles = new ChunkedNumbers((n) => new Float64Array(n));
  private readonly ints = new ChunkedNumbers((n) => new Int32Array(n));
  private readonly schemas: Schema[] = [];
  private readonly schemaByKeys = new Map<string, Schema>();
  /** The last few key lists packed, newest first. */
  private readonly recentSchemas: Schema[] = [];
  private readonly names: string[] = [];
  private readonly nameIds = new Map<string, number>();
  /** Metric values that are not numbers (strings, booleans, None, lists, dicts), by the record's double address. */
  private readonly others = new Map<number, PyDict>();

  private schemaOf(keys: string[]): Schema {
    // Records come with a few key lists over and over (a rollout's, a step's): those are compared key by key first.
    for (const s of this.recentSchemas) if (sameKeys(s.keys, keys)) return s;
    const s = this.schemaByText(keys);
    this.recentSchemas.unshift(s);
    if (this.recentSchemas.length > 4) this.recentSchemas.pop();
    return s;
  }

  private schemaByText(keys: string[]): Schema {
    const text = JSON.stringify(keys);
    let s = this.schemaByKeys.get(text);
    if (!s) {
      s = { id: this.schemas.length, keys, index: new Map(keys.map((k, i) => [k, i])) };
      this.schemas.push(s);
      this.schemaByKeys.set(text, s);
    }
    return s;
  }

  private nameId(name: string): number {
    let id = this.nameIds.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.nameIds.set(name, id);
    }
    return id;
  }

  /** A record's times and metric values written at a new double address (non-numbers kept aside). */
  private packMetrics(metrics: PyDict, times: number[]): { schema: Schema; at: number } {
    const schema = this.schemaOf(Object.keys(metrics));
    const at = this.doubles.alloc(times.length + schema.keys.length);
    const a = this.doubles.chunk(at);
    let o = offsetOf(at);
    for (const t of times) a[o++] = t;
    let other: PyDict | undefined;
    for (const k of schema.keys) {
      const v = metrics[k] as PyValue;
      if (typeof v === 'number') a[o++] = v;
      else {
        a[o++] = NaN;
        put((other ??= {}), k, v);
      }
    }
    if (other) this.others.set(at, other);
    return { schema, at };
  }

  /** The metric `key` of the record at double address `at` (after `skip` times), or undefined. */
  metricAt(schemaId: number, at: number, skip: number, key: string): PyValue | undefined {
    const s = this.schemas[schemaId] as Schema;
    const i = s.index.get(key);
    if (i === undefined) return undefined;
    // Most runs log numbers only: no lookup then.
    const other = this.others.size > 0 ? this.others.get(at) : undefined;
    if (other && Object.hasOwn(other, key)) return other[key];
    return this.doubles.chunk(at)[offsetOf(at) + skip + i] as number;
  }

  hasMetric(schemaId: number, key: string): boolean {
    return (this.schemas[schemaId] as Schema).index.has(key);
  }

  metricsAt(schemaId: number, at: number, skip: number): PyDict {
    const s = this.schemas[schemaId] as Schema;
    const a = this.doubles.chunk(at);
    const o = offsetOf(at) + skip;
    const other = this.others.get(at);
    const out: PyDict = {};
    s.keys.forEach((k, i) => put(out, k, other && Object.hasOwn(other, k) ? (other[k] as PyValue) : (a[o + i] as number)));
    return out;
  }

  timeAt(at: number, i: number): number | undefined {
    const t = this.doubles.chunk(at)[offsetOf(at) + i] as number;
    return Number.isNaN(t) ? undefined : t;
  }

  /** A packed copy of `r`, or undefined where a count is not a 32-bit integer (the record then stays as it is). */
  packRollout(r: RolloutRecord): PackedRollout | undefined {
    const s = r.samples;
    const f = r.failures;
    const reasons = Object.entries(s.by_reason);
    const stops = Object.entries(f.early_stops);
    const counts: number[] = [s.total, s.reward_one, s.raw_one, s.integrity_violations, reasons.length];
    for (const [k, n] of reasons) counts.push(this.nameId(k), n);
    counts.push(f.aborted_samples, f.failed_groups, f.group_retries, f.eval_failures, f.transient_retries, stops.length);
    for (const [k, n] of stops) counts.push(this.nameId(k), n);
    counts.push(r.groups.length);
    for (const g of r.groups) counts.push(this.nameId(g.instance), g.n, g.solved, g.raw);
    if (!counts.every(fitsInt32)) return undefined;
    const { schema, at } = this.packMetrics(r.metrics, [r.at ?? NaN, r.startedAt ?? NaN]);
    const ci = this.ints.alloc(counts.length);
    const ints = this.ints.chunk(ci);
    ints.set(counts, offsetOf(ci));
    return new PackedRollout(this, r.rollout, schema.id, at, ci);
  }

  packStep(r: StepRecord): PackedStep {
    const { schema, at } = this.packMetrics(r.metrics, [r.at ?? NaN]);
    return new PackedStep(this, r.step, schema.id, at);
  }

  /** The counts of a packed rollout, read in the order packRollout wrote them. */
  countsAt(ci: number): { samples: SampleStats; failures: RolloutFailures; groups: GroupTally[] } {
    const a = this.ints.chunk(ci);
    let o = offsetOf(ci);
    const next = (): number => a[o++] as number;
    const samples: SampleStats = { total: next(), reward_one: next(), raw_one: next(), integrity_violations: next(), by_reason: {} };
    for (let n = next(); n > 0; n--) put(samples.by_reason, this.names[next()] as string, next());
    const [aborted, failedGroups, groupRetries, evalFailures, transient] = [next(), next(), next(), next(), next()];
    // In the key order of the run model's own records.
    const failures: RolloutFailures = { aborted_samples: aborted, failed_groups: failedGroups, group_retries: groupRetries, eval_failures: evalFailures, early_stops: {}, transient_retries: transient };
    for (let n = next(); n > 0; n--) put(failures.early_stops, this.names[next()] as string, next());
    const groups: GroupTally[] = [];
    for (let n = next(); n > 0; n--) groups.push({ instance: this.names[next()] as string, n: next(), solved: next(), raw: next() });
    return { samples, failures, groups };
  }

  /** Typed-array bytes held (the records' objects aside). */
  get bytes(): number {
    return this.doubles.bytes + this.ints.bytes;
  }
}

/** What a packed rollout and a packed step share: metrics after `skip` leading times, the first time its `at`. */
abstract class PackedRecord {
  constructor(
    protected readonly store: PackedHistory,
    private readonly schema: number,
    protected readonly doublesAt: number,
    private readonly skip: number,
  ) {}

  get metrics(): PyDict {
    return this.store.metricsAt(this.schema, this.doublesAt, this.skip);
  }

  get at(): number | undefined {
    return this.store.timeAt(this.doublesAt, 0);
  }

  metric(key: string): PyValue | undefined {
    return this.store.metricAt(this.schema, this.doublesAt, this.skip, key);
  }

  hasMetric(key: string): boolean {
    return this.store.hasMetric(this.schema, key);
  }
}

/** A rollout record packed by PackedHistory: each field read is built from the packed numbers. */
export class PackedRollout extends PackedRecord implements RolloutRecord {
  constructor(
    store: PackedHistory,
    readonly rollout: number,
    schema: number,
    doublesAt: number,
    private readonly intsAt: number,
  ) {
    // Its doubles: at, startedAt, then the metrics.
    super(store, schema, doublesAt, 2);
  }

  get startedAt(): number | undefined {
    return this.store.timeAt(this.doublesAt, 1);
  }

  get samples(): SampleStats {
    return this.store.countsAt(this.intsAt).samples;
  }

  get failures(): RolloutFailures {
    return this.store.countsAt(this.intsAt).failures;
  }

  get groups(): GroupTally[] {
    return this.store.countsAt(this.intsAt).groups;
  }

  /** The record as objects again (a later summary line of it merges into those). */
  unpacked(): RolloutRecord {
    const { samples, failures, groups } = this.store.countsAt(this.intsAt);
    return { rollout: this.rollout, metrics: this.metrics, samples, failures, at: this.at, startedAt: this.startedAt, groups };
  }
}

/** A train step's record packed by PackedHistory. */
export class PackedStep extends PackedRecord implements StepRecord {
  constructor(
    store: PackedHistory,
    readonly step: number,
    schema: number,
    doublesAt: number,
  ) {
    // Its doubles: at, then the metrics.
    super(store, schema, doublesAt, 1);
  }

  unpacked(): StepRecord {
    return { step: this.step, metrics: this.metrics, at: this.at };
  }
}

/** A record's metric `key` without building its metrics object when it is packed. */
export function metricOf(r: RolloutRecord | StepRecord, key: string): PyValue | undefined {
  return r instanceof PackedRecord ? r.metric(key) : r.metrics[key];
}

export function hasMetric(r: RolloutRecord | StepRecord, key: string): boolean {
  return r instanceof PackedRecord ? r.hasMetric(key) : key in r.metrics;
}
