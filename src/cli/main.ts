// Entry of the bundle: parses the command line, then runs a headless command or the interactive console.
import { parseCommandLine, helpText } from './args.js';
import { VERSION } from './version.js';
import { ConsoleError, ExitCode, formatError } from '../services/errors.js';
import { recipePaths } from '../services/workspace/paths.js';
import type { CommandContext } from './context.js';

// A reader that went away (`swegym-console doctor | head -3`) ends the command quietly, as with any Unix tool: no
// stack trace for an unhandled EPIPE.
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok);
    throw err;
  });
}

async function main(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  const parsed = parseCommandLine(argv);
  switch (parsed.kind) {
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return ExitCode.ok;
    case 'help':
      process.stdout.write(helpText(VERSION, parsed.topic, parsed.group));
      return ExitCode.ok;
    case 'error':
      process.stderr.write(`swegym-console: ${parsed.message}\n${parsed.hint ? `  ${parsed.hint}\n` : ''}`);
      return ExitCode.usage;
    case 'interactive': {
      const { startInteractive } = await import('./interactive.js');
      return startInteractive(parsed.global);
    }
    case 'command': {
      const { spec } = parsed;
      if (!spec.load) {
        process.stderr.write(`swegym-console: "${spec.words.join(' ')}" is not implemented yet in this version\n`);
        return ExitCode.usage;
      }
      const controller = new AbortController();
      let interrupts = 0;
      const onSigint = () => {
        interrupts++;
        if (interrupts === 1) {
          process.stderr.write('\ninterrupted: stopping (Ctrl-C again to exit at once)\n');
          controller.abort(new ConsoleError({ what: 'interrupted', exitCode: ExitCode.failed }));
        } else {
          process.exit(130);
        }
      };
      process.on('SIGINT', onSigint);
      const ctx: CommandContext = {
        command: spec.words,
        positionals: parsed.positionals,
        options: parsed.options,
        global: parsed.global,
        paths: recipePaths(parsed.global.workspace),
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
        signal: controller.signal,
      };
      try {
        const handler = await spec.load();
        return await handler(ctx);
      } catch (err) {
        if ((err as { usage?: boolean }).usage) {
          process.stderr.write(`swegym-console: ${(err as Error).message}\n`);
          return ExitCode.usage;
        }
        process.stderr.write(formatError(err, parsed.global.debug) + '\n');
        return err instanceof ConsoleError ? err.exitCode : ExitCode.failed;
      } finally {
        process.off('SIGINT', onSigint);
      }
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(formatError(err, process.argv.includes('--debug')) + '\n');
    process.exitCode = ExitCode.failed;
  },
);
