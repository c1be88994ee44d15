// Progress as people read it, one formatter for every long job and both faces: a bar, the count, and an ETA from
// the rate observed so far, shown only while the job runs (nothing is left to do once done reaches total).
import type { JobProgress } from '../../state/types/jobs.js';
import { formatEta } from '../util/format.js';
export type { JobProgress } from '../../state/types/jobs.js';

export function progressBar(done: number, total: number, width: number): string {
  const w = Math.max(1, width);
  const frac = total > 0 ? Math.max(0, Math.min(1, done / total)) : 0;
  const full = Math.round(frac * w);
  return '█'.repeat(full) + '░'.repeat(w - full);
}

/** Remaining time at the rate seen since `startedAt` (undefined until something finished). */
export function etaMs(startedAt: number | undefined, doneSinceStart: number, remaining: number, now: number): number | undefined {
  if (startedAt === undefined || doneSinceStart <= 0 || remaining <= 0) return undefined;
  return ((now - startedAt) / doneSinceStart) * remaining;
}

/** The ETA of a job's progress: its own estimate, else the observed rate; undefined once nothing remains. */
export function progressEta(p: JobProgress, now: number): number | undefined {
  const remaining = p.total - p.done;
  if (remaining <= 0) return undefined;
  if (p.ownEstimate || p.etaMs !== undefined) return p.etaMs;
  return etaMs(p.startedAt, p.done - (p.baseline ?? 0), remaining, now);
}

/** `12/293 · ETA 1h02m` (the ETA once there is a rate and while something remains). */
export function progressCount(done: number, total: number, eta: number | undefined): string {
  return `${done}/${total}${eta !== undefined && done < total ? ` · ETA ${formatEta(eta)}` : ''}`;
}

/** `[████░░░░] 12/293 · ETA 1h02m`. */
export function progressLine(done: number, total: number, eta: number | undefined, barWidth = 20): string {
  return `[${progressBar(done, total, barWidth)}] ${progressCount(done, total, eta)}`;
}

/** The line of a job's progress at `now`. */
export function jobProgressLine(p: JobProgress, now: number, barWidth = 20): string {
  return progressLine(p.done, p.total, progressEta(p, now), barWidth);
}
