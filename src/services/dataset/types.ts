// Typed SWE-Gym task rows and the problems found while reading a split.
import type { DataProblem } from '../../state/types/dataset.js';
export type { SweGymTask, SplitData, TestListEncoding, DataProblem } from '../../state/types/dataset.js';


/** Renders a problem as one line: `row 12 (getmoto__moto-1): FAIL_TO_PASS: must be a list`. */
export function formatProblem(p: DataProblem): string {
  const where = p.row === undefined ? 'file' : `row ${p.row}${p.instanceId ? ` (${p.instanceId})` : ''}`;
  return `${where}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}
