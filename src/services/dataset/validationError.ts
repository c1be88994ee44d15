// A split that failed validation, in a module of its own: the Data controller (created with the app's services,
// before the first frame) tells it apart by class, and importing it from read.ts loaded the whole reader (and its
// imports) before the first frame.
import { ConsoleError, ExitCode } from '../errors.js';
import { formatProblem, type DataProblem } from './types.js';

const SHOWN_PROBLEMS = 25;

/** A split that failed validation: every problem, with row, instance and field. */
export class DataValidationError extends ConsoleError {
  readonly problems: DataProblem[];
  readonly file: string;
  constructor(file: string, problems: DataProblem[], fix: string) {
    const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => `  - ${formatProblem(p)}`);
    if (problems.length > SHOWN_PROBLEMS) shown.push(`  … and ${problems.length - SHOWN_PROBLEMS} more (--json lists all)`);
    super({
      what: `${file} failed validation: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
      cause: '\n' + shown.join('\n'),
      fix,
      exitCode: ExitCode.failed,
    });
    this.name = 'DataValidationError';
    this.problems = problems;
    this.file = file;
  }
}
