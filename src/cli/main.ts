// Entry of the bundle: runs the command line (run.ts) and sets the exit code.
import { runCli } from './run.js';
import { ExitCode, formatError } from '../services/errors.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(formatError(err, process.argv.includes('--debug')) + '\n');
    process.exitCode = ExitCode.failed;
  },
);
