// Per-task attempt and solve totals under integer ids in typed arrays, for `monitor --once`: a dense log has tens of
// thousands of instances, and the dashboard's per-task history (a Map of objects, each with a ring of recent
// rollouts) costs far more than the summary needs. Same rule as RunModel.closeTasks: a rollout's samples count for
// their task when that rollout's first summary line closes it; samples of the rollout still in progress do not.
export class TaskTally {
  private readonly ids = new Map<string, number>();
  private attempts = new Float64Array(1024);
  private solved = new Float64Array(1024);
  private pendingAttempts = new Float64Array(1024);
  private pendingSolved = new Float64Array(1024);
  /** 1 once a closed rollout attempted the task. */
  private closed = new Uint8Array(1024);
  private touched = new Int32Array(1024);
  private touchedCount = 0;
  private n = 0;

  /** The id of an instance name (new names get the next id). */
  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.n++;
      this.ids.set(name, id);
      if (id >= this.attempts.length) this.grow();
    }
    return id;
  }

  private grow(): void {
    const size = this.attempts.length * 2;
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.attempts = f64(this.attempts);
    this.solved = f64(this.solved);
    this.pendingAttempts = f64(this.pendingAttempts);
    this.pendingSolved = f64(this.pendingSolved);
    const c = new Uint8Array(size);
    c.set(this.closed);
    this.closed = c;
  }

  /** Samples of the rollout in progress. */
  add(id: number, attempts: number, solved: number): void {
    if (this.pendingAttempts[id] === 0) {
      if (this.touchedCount >= this.touched.length) {
        const t = new Int32Array(this.touched.length * 2);
        t.set(this.touched);
        this.touched = t;
      }
      this.touched[this.touchedCount++] = id;
    }
    this.pendingAttempts[id] = (this.pendingAttempts[id] as number) + attempts;
    this.pendingSolved[id] = (this.pendingSolved[id] as number) + solved;
  }

  /** The rollout in progress was closed by its first summary line. */
  closeRollout(): void {
    for (let i = 0; i < this.touchedCount; i++) {
      const id = this.touched[i] as number;
      this.attempts[id] = (this.attempts[id] as number) + (this.pendingAttempts[id] as number);
      this.solved[id] = (this.solved[id] as number) + (this.pendingSolved[id] as number);
      this.pendingAttempts[id] = 0;
      this.pendingSolved[id] = 0;
      this.closed[id] = 1;
    }
    this.touchedCount = 0;
  }

  summary(): { seen: number; always: number; sometimes: number; never: number } {
    let seen = 0;
    let always = 0;
    let sometimes = 0;
    let never = 0;
    for (let id = 0; id < this.n; id++) {
      if (!this.closed[id]) continue;
      seen++;
      const s = this.solved[id] as number;
      if (s === 0) never++;
      else if (s === this.attempts[id]) always++;
      else sometimes++;
    }
    return { seen, always, sometimes, never };
  }
}
