// The convert types that the stores hold; src/services/convert builds them and re-exports them.

export type VerifyCheck =
  | 'row_count'
  | 'parse'
  | 'prompt'
  | 'metadata'
  | 'gold_patch'
  | 'template_map'
  | 'smoke'
  | 'commands'
  | 'backend_options'
  | 'duplicate';

export interface VerifyProblem {
  check: VerifyCheck;
  /** 1-based line number; undefined for file-level problems. */
  line?: number;
  instanceId?: string;
  message: string;
}

export interface VerifyReport {
  file: string;
  ok: boolean;
  rows: number;
  expectedRows?: number;
  instanceIds: string[];
  problems: VerifyProblem[];
  /** Problems per check (problems beyond the kept ones are still counted). */
  counts: Partial<Record<VerifyCheck, number>>;
  /** Rows whose template has no smoke result yet. */
  notSmokeTested: number;
  warnings: string[];
  /** What the rows' options were held against when it is not the options asked for (the sample workspace's own). */
  checkedAgainst?: string;
}

export interface RowPreview {
  instanceId: string;
  repo: string;
  template: string;
  dockerImage?: string;
  baseCommit: string;
  problem: string[];
  integrityRules: boolean;
  failToPass: string[];
  passToPass: string[];
  sanitizer: string;
  harness: string;
  backend: string;
}

export type ConvertPhase = 'preflight' | 'converting' | 'verifying' | 'done' | 'failed';
