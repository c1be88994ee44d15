// Fixed-capacity ring buffers: every buffer the monitor keeps is capped so that a multi-day log costs bounded memory.

export class Ring<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private count = 0;
  /** Items ever pushed (including those overwritten). */
  pushed = 0;

  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new Error('ring capacity must be positive');
    this.buf = new Array(Math.min(capacity, 1024));
  }

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    this.pushed++;
    if (this.count < this.capacity) {
      const idx = (this.head + this.count) % this.capacity;
      if (idx >= this.buf.length) this.buf.length = Math.min(this.capacity, Math.max(idx + 1, this.buf.length * 2));
      this.buf[idx] = item;
      this.count++;
      return;
    }
    this.buf[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
  }

  /** i = 0 is the oldest kept item. */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.count) return undefined;
    return this.buf[(this.head + i) % this.capacity];
  }

  last(): T | undefined {
    return this.at(this.count - 1);
  }

  /** The newest `n` items, oldest first. */
  tail(n: number): T[] {
    const k = Math.max(0, Math.min(n, this.count));
    const out: T[] = new Array(k);
    for (let i = 0; i < k; i++) out[i] = this.at(this.count - k + i) as T;
    return out;
  }

  toArray(): T[] {
    return this.tail(this.count);
  }

  clear(): void {
    this.buf = new Array(Math.min(this.capacity, 1024));
    this.head = 0;
    this.count = 0;
  }
}

/** A ring of numbers in a Float64Array (chart histories). */
export class NumberRing {
  private buf: Float64Array;
  private head = 0;
  private count = 0;
  /** Values ever pushed (including those overwritten). */
  pushed = 0;

  constructor(readonly capacity: number) {
    this.buf = new Float64Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(v: number): void {
    this.pushed++;
    if (this.count < this.capacity) {
      this.buf[(this.head + this.count) % this.capacity] = v;
      this.count++;
    } else {
      this.buf[this.head] = v;
      this.head = (this.head + 1) % this.capacity;
    }
  }

  toArray(): number[] {
    const out: number[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.buf[(this.head + i) % this.capacity] as number;
    return out;
  }

  last(): number | undefined {
    return this.count ? this.buf[(this.head + this.count - 1) % this.capacity] : undefined;
  }

  /**
   * Means of buckets of `size` consecutive pushes, oldest first, aligned to the push count (push k falls in bucket
   * floor(k / size)) so that a bucket's mean never moves once it is full. The newest bucket may be partial (it
   * grows); an oldest one cut short by the ring is left out. NaN values are skipped (an all-NaN bucket is NaN).
   */
  bucketMeans(size: number): number[] {
    const n = Math.max(1, Math.floor(size));
    const firstAbs = this.pushed - this.count;
    const firstBucket = Math.ceil(firstAbs / n);
    const out: number[] = [];
    for (let b = firstBucket; b * n < this.pushed; b++) {
      let sum = 0;
      let finite = 0;
      for (let abs = b * n; abs < Math.min((b + 1) * n, this.pushed); abs++) {
        const v = this.buf[(this.head + abs - firstAbs) % this.capacity] as number;
        if (Number.isFinite(v)) {
          sum += v;
          finite++;
        }
      }
      out.push(finite ? sum / finite : NaN);
    }
    return out;
  }
}

/**
 * A Map that forgets its oldest-inserted keys beyond `capacity`. Eviction keeps one long-lived key iterator: a fresh
 * `keys().next()` walks V8's hash table from its start past every deleted slot, which made each insert at the cap
 * cost time proportional to the evictions so far (quadratic over a long log). A Map iterator stays valid across
 * inserts, deletes and rehashes and yields live keys in insertion order, so the one it is parked at is the oldest.
 */
export class CappedMap<K, V> extends Map<K, V> {
  private oldest: MapIterator<K> | undefined;

  constructor(readonly capacity: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (super.size >= this.capacity && !super.has(key)) {
      this.oldest ??= super.keys();
      let next = this.oldest.next();
      // An iterator that ran off the end is spent for good (only when every key it passed was deleted elsewhere).
      if (next.done) next = (this.oldest = super.keys()).next();
      if (!next.done) super.delete(next.value);
    }
    return super.set(key, value);
  }

  override clear(): void {
    super.clear();
    this.oldest = undefined;
  }
}

/** Keys below this are remembered in a bitset (2^26 bits = 8 MiB at most); larger ones, unusual, in a Set. */
const SEEN_BITS_MAX = 1 << 26;

/**
 * Records under non-negative integer keys (steps, rollouts) that keeps at most about `capacity` of them without
 * losing count: past the cap it thins the series, keeping the keys divisible by `every` (doubled each time it fills)
 * and always the newest key. `count` is the exact number of distinct keys ever set; `seen(key)` answers for dropped
 * ones too (a second summary line of a dropped rollout must not count as a new rollout).
 */
/**
 * A task's outcomes in its newest rollouts, one byte each (none / some / all of its samples solved), oldest first.
 * Kept for every task of the run: as [rollout, attempts, solved] tuples it cost ≈ 70 B a rollout a task, growing
 * until each ring filled, hours into a run.
 */
export class OutcomeStrip {
  private readonly codes: Uint8Array;
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new Error('strip capacity must be positive');
    this.codes = new Uint8Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(attempts: number, solved: number): void {
    const code = solved === 0 ? 0 : solved >= attempts ? 2 : 1;
    if (this.count < this.capacity) this.codes[(this.head + this.count++) % this.capacity] = code;
    else {
      this.codes[this.head] = code;
      this.head = (this.head + 1) % this.capacity;
    }
  }

  /** `·` none solved, `▄` some, `█` all, oldest first. */
  text(): string {
    let out = '';
    for (let i = 0; i < this.count; i++) out += OUTCOME_MARKS[this.codes[(this.head + i) % this.capacity] as number];
    return out;
  }
}

const OUTCOME_MARKS = ['·', '▄', '█'] as const;

export class ThinnedSeries<V> {
  private readonly kept = new Map<number, V>();
  private latestKey = -1;
  private latest: V | undefined;
  private bits = new Uint8Array(1024);
  private bigKeys: Set<number> | undefined;
  /** Distinct keys ever set. */
  count = 0;
  /** Kept keys are the multiples of this (1 until the cap is first reached). */
  every = 1;

  constructor(readonly capacity: number) {}

  seen(key: number): boolean {
    if (key >= 0 && key < SEEN_BITS_MAX && Number.isInteger(key)) {
      const byte = key >>> 3;
      return byte < this.bits.length && ((this.bits[byte] as number) & (1 << (key & 7))) !== 0;
    }
    return this.bigKeys?.has(key) ?? false;
  }

  private markSeen(key: number): void {
    if (key >= 0 && key < SEEN_BITS_MAX && Number.isInteger(key)) {
      const byte = key >>> 3;
      if (byte >= this.bits.length) {
        const grown = new Uint8Array(Math.min(SEEN_BITS_MAX >>> 3, Math.max(byte + 1, this.bits.length * 2)));
        grown.set(this.bits);
        this.bits = grown;
      }
      this.bits[byte] = (this.bits[byte] as number) | (1 << (key & 7));
      return;
    }
    (this.bigKeys ??= new Set()).add(key);
  }

  get(key: number): V | undefined {
    return key === this.latestKey ? this.latest : this.kept.get(key);
  }

  set(key: number, value: V): void {
    if (!this.seen(key)) {
      this.markSeen(key);
      this.count++;
    }
    if (key >= this.latestKey) {
      this.latestKey = key;
      this.latest = value;
    }
    if (key % this.every !== 0) {
      this.kept.delete(key);
      return;
    }
    this.kept.set(key, value);
    if (this.kept.size > this.capacity) {
      this.every *= 2;
      for (const k of this.kept.keys()) if (k % this.every !== 0) this.kept.delete(k);
    }
  }

  /** Kept records and the newest one (unordered). */
  *values(): IterableIterator<V> {
    yield* this.kept.values();
    if (this.latest !== undefined && !this.kept.has(this.latestKey)) yield this.latest;
  }

  /** Keys of the records held now (unordered). */
  *keys(): IterableIterator<number> {
    yield* this.kept.keys();
    if (this.latest !== undefined && !this.kept.has(this.latestKey)) yield this.latestKey;
  }

  /** Records held now (kept + the newest). */
  get size(): number {
    return this.kept.size + (this.latest !== undefined && !this.kept.has(this.latestKey) ? 1 : 0);
  }
}
