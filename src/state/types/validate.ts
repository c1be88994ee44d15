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

/** Claude Code's progress in a `validate agent` run, as its stream-json reader counts it (agent-log's counts). */
export interface AgentProgressSummary {
  status: string;
  modelTurns: number;
  toolCalls: number;
  failedToolCalls: number;
  apiRetries: number;
  lastTool?: string;
}

/** What a finished `validate agent` run left (agent-runs/<instance>/result.json beside its Claude Code log). */
export interface AgentRunRecord {
  instance_id: string;
  ok: boolean;
  /** What answered as the model: `scripted: …` (a replay, not a model) or the URL. */
  model: string;
  scripted: boolean;
  cliVersion: string;
  claudeCode: AgentProgressSummary & { cause: string | null };
  /** One line: `resolved F2P 1/1 P2P 3/3`, or the failure. */
  summary: string | null;
  reward: number | null;
  resolved: boolean | null;
  error: string | null;
  logFile: string;
  durationMs: number;
  finishedAt: string;
}

/** The Validate screen's view of one `validate agent` run: live while it runs, its record once it ended. */
export interface ValidateAgentView {
  instanceId: string;
  running: boolean;
  phase: string;
  model?: string;
  scripted?: boolean;
  progress?: AgentProgressSummary;
  record?: AgentRunRecord;
  error?: string;
}

/** The `validate agent` job's events (services/demo/agentJob.ts): the CLI prints them, the Validate screen's
 * controller puts them in the validate store. */
export type ValidateAgentEvent =
  | { type: 'started'; instanceId: string; provider: string; scripted: boolean; modelLabel: string }
  | { type: 'phase'; instanceId: string; phase: string }
  | { type: 'progress'; instanceId: string; progress: AgentProgressSummary }
  | { type: 'finished'; instanceId: string; record: AgentRunRecord };
