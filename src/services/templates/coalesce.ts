// Coalesced atomic rewrites: many workers ask for "a write that includes my change"; one write runs at a time and
// every request made while it runs is served by the single next write. With 20 builds finishing together this is
// one or two file rewrites instead of twenty queued ones, and nobody waits on writes older than their change.
export class CoalescingWriter {
  private running = false;
  private pending?: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void };
  writes = 0;

  constructor(private readonly write: () => Promise<void>) {}

  /** Resolves once a write that started after this call has completed. */
  request(): Promise<void> {
    if (!this.pending) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.pending = { promise, resolve, reject };
      if (!this.running) this.kick();
      return promise;
    }
    return this.pending.promise;
  }

  private kick(): void {
    const job = this.pending;
    if (!job) return;
    this.pending = undefined;
    this.running = true;
    this.writes++;
    this.write().then(
      () => job.resolve(),
      (e) => job.reject(e),
    ).finally(() => {
      this.running = false;
      this.kick();
    });
  }
}
