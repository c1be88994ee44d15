// The dataset types that the stores hold; src/services/dataset builds them and re-exports them.
import type { Split } from './workspace.js';

/** One task of the split, normalised: test lists are always string arrays, whatever the file stored. */
export interface SweGymTask {
  /** 0-based row in the parquet. */
  row: number;
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  version: string;
  test_patch: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  /** The gold patch (not required by Dressage; needed to validate grading). */
  patch?: string;
  hints_text?: string;
  created_at?: string;
  /** Docker image per Dressage's naming rule. */
  image: string;
}

export type TestListEncoding = 'list' | 'json' | 'mixed' | 'none';

export interface DataProblem {
  /** 0-based row, or undefined for file-level problems (schema, row count). */
  row?: number;
  instanceId?: string;
  field?: string;
  message: string;
}

export interface SplitData {
  file: string;
  split?: Split;
  fileBytes: number;
  rows: SweGymTask[];
  /** Top-level columns of the file. */
  columns: string[];
  /** Fields of the `instance` struct. */
  instanceFields: string[];
  encoding: { FAIL_TO_PASS: TestListEncoding; PASS_TO_PASS: TestListEncoding };
  /** Things worth knowing that do not stop the recipe (empty FAIL_TO_PASS, no gold patch). */
  warnings: DataProblem[];
}

export interface Distribution {
  min: number;
  median: number;
  max: number;
  total: number;
}

export interface SplitSummary {
  file: string;
  split: string | null;
  rows: number;
  fileBytes: number;
  repos: { repo: string; count: number }[];
  images: number;
  legacyImages: number;
  failToPass: Distribution;
  passToPass: Distribution;
  problemStatementChars: Distribution;
  encoding: SplitData['encoding'];
  warnings: number;
}

export type DownloadPhase = 'probing' | 'downloading' | 'verifying' | 'done' | 'retrying';

export interface DownloadProgress {
  phase: DownloadPhase;
  /** Bytes of the target present so far (including a resumed part). */
  received: number;
  total?: number;
  /** Bytes that were already in the `.part` file when this run started. */
  resumedFrom: number;
  bytesPerSecond: number;
  etaSeconds?: number;
  attempt: number;
  /** Host the bytes come from (the CDN after the hub's redirect). */
  host?: string;
  /** Last transient error, while retrying. */
  note?: string;
}

export interface ImageListStatus {
  state: 'missing' | 'current' | 'differs';
  /** Lines in the file on disk. */
  lines: number;
}
