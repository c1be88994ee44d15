// Parses the command line, then runs a headless command or the interactive console (main.ts is the bundle's entry).
// A command's context carries the registry (src/app/registry.ts): its jobs and the providers come from there, built
// from `deps` (a test's scripted provider goes in there, never into a command).
import { parseCommandLine, helpText } from './args.js';
import { VERSION } from './version.js';
import { ConsoleError, ExitCode, formatError } from '../services/errors.js';
import { recipePaths } from '../services/workspace/paths.js';
import type { CommandContext } from './context.js';
import { sandboxLedger, describeSweep } from '../services/sandbox/ledger.js';
import { releaseHeldLocksSync } from '../services/workspace/lock.js';
import { redact } from '../services/secrets.js';
import { commandRegistry, errorDocument } from './context.js';
import type { DepsOptions } from '../app/registry.js';
import { setting } from '../services/config/envSettings.js';

const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** How long the first signal waits for the command to wind down before the console ends anyway. */
function exitGraceMs(env: NodeJS.ProcessEnv): number {
  return setting(env, 'SWEGYM_EXIT_GRACE_MS');
}

function tryWrite(stream: NodeJS.WriteStream, text: string): void {
  try {
    stream.write(text);
  } catch {
    // a closed terminal (SIGHUP): nothing to tell
  }
}

/** SWEGYM_LATE_CREATE_WAIT_MS: how long the exit waits for creates E2B has not answered (default 30 s). */
function lateCreateWaitMs(env: NodeJS.ProcessEnv): number {
  return setting(env, 'SWEGYM_LATE_CREATE_WAIT_MS');
}

/**
 * After an interrupt (or a quit) the user wants out: creates that we aborted ourselves are waited for this long at
 * most; what lands later is killed by the next console in the workspace (the on-disk ledger).
 */
const INTERRUPTED_LATE_WAIT_MS = 3_000;

/**
 * Kills what this process created and did not kill (the exit sweep), and says what it could not kill.
 * Returns true when every sandbox is known to be gone. `lateWaitMs`: how long to wait for unanswered creates.
 */
async function sweepSandboxes(callMs: number, lateWaitMs = lateCreateWaitMs(process.env)): Promise<boolean> {
  if (!sandboxLedger.touched) return true;
  const r = await sandboxLedger.sweep({
    callMs,
    final: true,
    lateWaitMs,
    onWait: (creates, ms) =>
      tryWrite(process.stderr, `swegym-console: waiting up to ${Math.ceil(ms / 1000)} s for E2B to answer ${creates} sandbox create(s) it has not answered, to kill what they made\n`),
  });
  const lines = describeSweep(r);
  if (lines.length) tryWrite(process.stderr, lines.map((l) => `swegym-console: ${l}`).join('\n') + '\n');
  return r.failed.length === 0 && !r.unanswered;
}

/** What a closed pipe does while a command runs: ask it to stop (set by the command case). */
let stopOnClosedPipe: (() => void) | undefined;
let pipeClosed = false;

// A reader that went away (`swegym-console doctor | head -3`) ends the command quietly, as with any Unix tool: no
// stack trace for an unhandled EPIPE. What is still written goes nowhere; the command is asked to stop and the
// process ends with the command's own exit code (`doctor | head -1` still says 3 when a check fails), not 0.
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (pipeClosed) return; // the writes after the first EPIPE fail too
    if (err.code !== 'EPIPE') throw err;
    pipeClosed = true;
    if (stopOnClosedPipe) stopOnClosedPipe();
    else process.exit(typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok);
  });
}

/** Whether anything reached stdout: a --json command that failed after printing its document prints no second. */
function watchWrites(stream: NodeJS.WriteStream): () => boolean {
  let wrote = false;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    wrote = true;
    return write(...args);
  }) as typeof stream.write;
  return () => wrote;
}

/** --json's failure document, the same for every command (and for a command line that did not parse). */
function printErrorDocument(err: unknown, code: number): void {
  const masked = (text: string | undefined) => (text === undefined ? undefined : redact(text, process.env));
  const doc =
    err instanceof ConsoleError
      ? errorDocument({ what: redact(err.what, process.env), cause: masked(err.causeText), fix: masked(err.fix) }, code)
      : errorDocument({ what: redact(err instanceof Error ? err.message : String(err), process.env) }, code);
  tryWrite(process.stdout, JSON.stringify(doc, null, process.stdout.isTTY || process.argv.includes('--pretty') ? 2 : undefined) + '\n');
}

/** `--json` among the options (not after `--`). */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

export async function runCli(argv: string[], deps: Omit<DepsOptions, 'env' | 'paths'> = {}): Promise<number> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
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
      if (wantsJson(argv)) printErrorDocument(new ConsoleError({ what: parsed.message, fix: parsed.hint }), ExitCode.usage);
      return ExitCode.usage;
    case 'interactive': {
      // What the sandbox ledger says while Ink owns the terminal is printed once the console has quit.
      const said: string[] = [];
      sandboxLedger.purpose = 'interactive console';
      sandboxLedger.onNotice((line) => said.push(line));
      const { startInteractive } = await import('./interactive.js');
      // Home's `d` outside a checkout quits into the offline demo (its command, loaded then).
      const runDemo = async () => (await import('./commands/demo.js')).runDemoInstead(parsed.global);
      const code = await startInteractive(parsed.global, { runDemo });
      sandboxLedger.onNotice((line) => tryWrite(process.stderr, `swegym-console: ${line}\n`));
      for (const line of said) tryWrite(process.stderr, `swegym-console: ${line}\n`);
      // Quitting cancels running jobs; whatever they had not killed yet goes here, before the process ends.
      return (await sweepSandboxes(10_000, Math.min(lateCreateWaitMs(process.env), INTERRUPTED_LATE_WAIT_MS))) ? code : Math.max(code, ExitCode.failed);
    }
    case 'command': {
      const { spec } = parsed;
      if (!spec.load) {
        process.stderr.write(`swegym-console: "${spec.words.join(' ')}" is not implemented yet in this version\n`);
        return ExitCode.usage;
      }
      sandboxLedger.purpose = spec.words.join(' ');
      sandboxLedger.onNotice((line) => tryWrite(process.stderr, `swegym-console: ${line}\n`));
      const controller = new AbortController();
      let interrupts = 0;
      let interrupted = false;
      // The first signal decides the exit code (128+N), also when the command winds down in time: a stopped
      // command did not succeed, and a supervisor reads the code.
      let firstSignal: 'SIGINT' | 'SIGTERM' | 'SIGHUP' | undefined;
      let ending = false;
      // Ends the process now, whatever the command is doing: kill its sandboxes (bounded), drop its locks.
      const endNow = (code: number) => {
        if (ending) return;
        ending = true;
        // Ending at once: no waiting for unanswered creates (the next console kills what they made).
        void sweepSandboxes(5_000, 0)
          .catch(() => false)
          .finally(() => {
            releaseHeldLocksSync();
            process.exit(code);
          });
      };
      // SIGINT (Ctrl-C), SIGTERM (kill, systemd, CI cancel) and SIGHUP (closed terminal or SSH) all mean "stop":
      // the first asks the command to wind down (it kills its sandboxes, journals what finished); a second, or
      // the grace period running out, ends the process after the exit sweep.
      const onSignal = (sig: 'SIGINT' | 'SIGTERM' | 'SIGHUP') => {
        interrupts++;
        interrupted = true;
        firstSignal ??= sig;
        if (interrupts === 1) {
          tryWrite(process.stderr, `\n${sig === 'SIGINT' ? 'interrupted' : `got ${sig}`}: stopping (Ctrl-C again to exit at once)\n`);
          controller.abort(new ConsoleError({ what: 'interrupted', exitCode: ExitCode.failed }));
          const grace = setTimeout(() => {
            tryWrite(process.stderr, `swegym-console: still stopping after ${Math.round(exitGraceMs(process.env) / 1000)} s; ending now\n`);
            endNow(SIGNAL_EXIT[sig]);
          }, exitGraceMs(process.env));
          grace.unref();
        } else {
          endNow(SIGNAL_EXIT[sig]);
        }
      };
      const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, () => onSignal(sig)] as const);
      for (const [sig, h] of handlers) process.on(sig, h);
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
      ctx.registry = commandRegistry(ctx, deps);
      stopOnClosedPipe = () => controller.abort(new ConsoleError({ what: 'the reader of the output went away (closed pipe)', exitCode: ExitCode.failed }));
      const wroteStdout = watchWrites(process.stdout);
      let code: number;
      try {
        const handler = await spec.load();
        code = await handler(ctx);
      } catch (err) {
        if ((err as { usage?: boolean }).usage) {
          process.stderr.write(`swegym-console: ${(err as Error).message}\n`);
          code = ExitCode.usage;
        } else {
          tryWrite(process.stderr, formatError(err, parsed.global.debug) + '\n');
          code = err instanceof ConsoleError ? err.exitCode : ExitCode.failed;
        }
        if (parsed.global.json && !wroteStdout()) printErrorDocument(err, code);
      }
      try {
        const lateWaitMs = interrupted ? Math.min(lateCreateWaitMs(process.env), INTERRUPTED_LATE_WAIT_MS) : lateCreateWaitMs(process.env);
        if (!(await sweepSandboxes(10_000, lateWaitMs))) code = Math.max(code, ExitCode.failed);
      } finally {
        for (const [sig, h] of handlers) process.off(sig, h);
      }
      return firstSignal ? SIGNAL_EXIT[firstSignal] : code;
    }
  }
}
