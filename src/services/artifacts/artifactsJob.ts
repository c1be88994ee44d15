// The artifacts build as a job, written once for both faces: `artifacts build` prints its lines and result, the
// Templates screen's controller (A) shows the lines in its log view and the result as its message.
import { jobEmitter, type JobListener } from '../jobs/events.js';
import { buildArtifacts, type BuildArtifactsOptions, type BuildArtifactsResult } from './artifacts.js';

export const ARTIFACTS_BUILD_JOB = 'artifacts build';

export type ArtifactsBuildEvent =
  | { type: 'started'; force: boolean }
  /** A line of the wheel build or of Dressage's artifacts script. */
  | { type: 'line'; stream: 'stdout' | 'stderr'; line: string }
  /** `skipped`: present and current, nothing ran; `current`: what the template builds will find. */
  | { type: 'finished'; skipped: boolean; current: boolean; durationMs: number };

export interface ArtifactsBuildJobOptions extends Omit<BuildArtifactsOptions, 'onLine'> {
  onEvent?: JobListener<ArtifactsBuildEvent>;
}

export async function runArtifactsBuildJob(o: ArtifactsBuildJobOptions): Promise<BuildArtifactsResult> {
  const emit = jobEmitter<ArtifactsBuildEvent>(ARTIFACTS_BUILD_JOB, o.onEvent);
  emit({ type: 'started', force: Boolean(o.force) });
  const { onEvent: _listener, ...options } = o;
  const r = await buildArtifacts({ ...options, onLine: (stream, line) => emit({ type: 'line', stream, line }) });
  emit({ type: 'finished', skipped: r.skipped, current: r.status.current, durationMs: r.durationMs });
  return r;
}
