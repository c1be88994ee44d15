// A job's typed events, delivered to its listeners: the headless command prints them, the screen's controller puts
// them in the domain's store. Both faces run the same job, so they cannot drift apart.

export type JobListener<E> = (event: E) => void;

/** Every job event of the process, with the job's name: tests check that the two faces see the same sequence. */
type JobTap = (job: string, event: unknown) => void;
const taps = new Set<JobTap>();

/** Observes every job's events until the returned function is called (tests only). */
export function tapJobEvents(tap: JobTap): () => void {
  taps.add(tap);
  return () => taps.delete(tap);
}

/** Emits one job's events to its listener (and to the taps). */
export function jobEmitter<E>(job: string, listener: JobListener<E> | undefined): (event: E) => void {
  return (event) => {
    for (const tap of taps) tap(job, event);
    listener?.(event);
  };
}
