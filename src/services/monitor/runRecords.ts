// A run's rollout and step records, as the run model keeps them (as objects, or packed: packedHistory.ts); apart from runModel.ts so that packedHistory.ts needs none of it.
import type { PyDict } from './pyReprParse.js';
import type { GroupTally, SampleStats } from '../../state/types/monitor.js';

/** Failures that happen while a rollout generates, counted for that rollout. */
export interface RolloutFailures {
  /** `blackbox rollout failed` (sample aborted). */
  aborted_samples: number;
  /** `rollout group exhausted retries and will be marked failed`. */
  failed_groups: number;
  group_retries: number;
  eval_failures: number;
  early_stops: Record<string, number>;
  transient_retries: number;
}

export interface RolloutRecord {
  rollout: number;
  metrics: PyDict;
  samples: SampleStats;
  failures: RolloutFailures;
  /** Log time (or ingest time) of its first summary line. */
  at: number | undefined;
  /** Log time of its first sample line, when known. */
  startedAt: number | undefined;
  /** Its GRPO groups (one prompt = one instance, n samples each): per-sample rewards tallied per group. */
  groups: GroupTally[];
}

export interface StepRecord {
  step: number;
  metrics: PyDict;
  at: number | undefined;
}
