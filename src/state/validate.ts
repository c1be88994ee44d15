// Validate screen state: one row per task of the JSONL with its last harness-validation result (from the journal)
// or its live phases. The validate controller publishes here at most 10 times a second.
import { createStore } from 'zustand/vanilla';
import type { HarnessValidationResult, ArmPhase, AgentRunRecord, ValidateAgentView } from './types/validate.js';
import type { JobProgress } from './types/jobs.js';

export type ValidateRowStatus = 'untested' | 'queued' | 'running' | 'ok' | 'failed';

export interface ValidateRow {
  instance_id: string;
  template: string;
  status: ValidateRowStatus;
  gold?: ArmPhase;
  control?: ArmPhase;
  result?: HarnessValidationResult;
}

export interface ValidateState {
  rows: ValidateRow[];
  loading: boolean;
  running: boolean;
  /** The running validation's count and rate (set while it runs). */
  progress?: JobProgress;
  selected: number;
  onlyFailures: boolean;
  /** Where the rows come from (the JSONL) and the provider. */
  source: string;
  /** The workspace is the demo's sample workspace (its label, shown on screen), when it is one. */
  sampleLabel?: string;
  message?: { text: string; tone: 'info' | 'warn' | 'error' };
  /** The `validate agent` run started here (live), or the last one that ended here. */
  agent?: ValidateAgentView;
  /** The last `validate agent` record of each task, read from the workspace (agent-runs/<instance>/result.json). */
  agentRuns: Record<string, AgentRunRecord>;
  set(partial: Partial<Omit<ValidateState, 'set'>>): void;
}

export function createValidateStore() {
  return createStore<ValidateState>()((set) => ({
    rows: [],
    loading: true,
    running: false,
    selected: 0,
    onlyFailures: false,
    source: '',
    agentRuns: {},
    set(partial) {
      set(partial);
    },
  }));
}

export type ValidateStore = ReturnType<typeof createValidateStore>;

export function visibleValidateRows(s: Pick<ValidateState, 'rows' | 'onlyFailures'>): ValidateRow[] {
  return s.onlyFailures ? s.rows.filter((r) => r.status === 'failed') : s.rows;
}

export function validateCounts(rows: readonly ValidateRow[]): Record<ValidateRowStatus, number> {
  const c: Record<ValidateRowStatus, number> = { untested: 0, queued: 0, running: 0, ok: 0, failed: 0 };
  for (const r of rows) c[r.status]++;
  return c;
}
