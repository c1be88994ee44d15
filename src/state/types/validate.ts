// The validate types that the stores hold; src/services/validate builds them and re-exports them.

export type ArmPhase = 'queued' | 'creating' | 'sanitizing' | 'applying' | 'evaluating' | 'done' | 'failed';

/** The marker as printed (payload), or the reward function's parse failure; null when the arm never got that far. */
export type MarkerJson = Record<string, unknown> | null;

export interface ArmOutcome {
  marker: MarkerJson;
  /** Why this arm could not produce a marker (sandbox, sanitizer), when it could not. */
  error?: string;
  /** Last part of the harness output or of the failing step, redacted, for diagnosis. */
  outputTail?: string;
  durationMs: number;
}

export interface HarnessValidationResult {
  instance_id: string;
  template: string;
  ok: boolean;
  gold: MarkerJson;
  control: MarkerJson;
  error?: string;
  durationMs: number;
  validatedAt: string;
  goldDetail?: Omit<ArmOutcome, 'marker'>;
  controlDetail?: Omit<ArmOutcome, 'marker'>;
}
