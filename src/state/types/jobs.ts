// How far a long job is, as its events report it; the stores hold it and the progress line is drawn from it.

export interface JobProgress {
  done: number;
  total: number;
  /** When this run's work began (ms since the epoch): the ETA's rate is measured from here. */
  startedAt: number;
  /** Items already done when the run began (skipped, resumed): not part of the observed rate. */
  baseline?: number;
  /** The job's own estimate (the factory knows its concurrency and skips). */
  etaMs?: number;
  /** The job estimates itself (etaMs, none until it can): the observed rate is not used. */
  ownEstimate?: boolean;
}
