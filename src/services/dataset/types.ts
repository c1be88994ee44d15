// Typed SWE-Gym task rows and the problems found while reading a split.
import type { Split } from '../workspace/paths.js';


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

/** Renders a problem as one line: `row 12 (getmoto__moto-1): FAIL_TO_PASS: must be a list`. */
export function formatProblem(p: DataProblem): string {
  const where = p.row === undefined ? 'file' : `row ${p.row}${p.instanceId ? ` (${p.instanceId})` : ''}`;
  return `${where}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}
