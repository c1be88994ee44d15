// Errors are for people: every failure the console reports says what happened, the likely cause and the fix.

/** Prefix of every rule that is the console's own, not one of the tool it guards (launcher, converter, slime). */
export const OWN_CHECK = "swegym-console's own check: ";

export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  precondition: 3,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * What kind of failure it is, for callers that decide by it (the data screen shows a missing split differently
 * from a broken one). Callers read this, never the wording of `what`.
 */
export type ConsoleErrorKind = 'missing_file' | 'other';

export interface ConsoleErrorInit {
  /** What happened, one line. */
  what: string;
  /** The likely cause, when known. */
  cause?: string;
  /** What the operator should do. */
  fix?: string;
  /** Exit code for headless commands. */
  exitCode?: ExitCodeValue;
  /** The underlying error, shown only with --debug. */
  inner?: unknown;
  /** 'other' unless given. */
  kind?: ConsoleErrorKind;
}

export class ConsoleError extends Error {
  readonly what: string;
  readonly causeText: string | undefined;
  readonly fix: string | undefined;
  readonly exitCode: ExitCodeValue;
  readonly inner: unknown;
  readonly kind: ConsoleErrorKind;

  constructor(init: ConsoleErrorInit) {
    super(init.what);
    this.name = 'ConsoleError';
    this.what = init.what;
    this.causeText = init.cause;
    this.fix = init.fix;
    this.exitCode = init.exitCode ?? ExitCode.failed;
    this.inner = init.inner;
    this.kind = init.kind ?? 'other';
  }
}

export function usageError(what: string, fix?: string): ConsoleError {
  return new ConsoleError({ what, fix, exitCode: ExitCode.usage });
}

export function preconditionError(what: string, cause?: string, fix?: string): ConsoleError {
  return new ConsoleError({ what, cause, fix, exitCode: ExitCode.precondition });
}

/** Renders an error for a person: what / cause / fix, stack only when debugging. */
export function formatError(err: unknown, debug = false): string {
  const lines: string[] = [];
  if (err instanceof ConsoleError) {
    lines.push(`error: ${err.what}`);
    if (err.causeText) lines.push(`  cause: ${err.causeText}`);
    if (err.fix) lines.push(`  fix:   ${err.fix}`);
    if (debug && err.inner) lines.push(String((err.inner as Error)?.stack ?? err.inner));
    if (debug && !err.inner && err.stack) lines.push(err.stack);
  } else if (err instanceof Error) {
    lines.push(`error: ${err.message}`);
    if (debug && err.stack) lines.push(err.stack);
    else lines.push('  (run with --debug for details)');
  } else {
    lines.push(`error: ${String(err)}`);
  }
  return lines.join('\n');
}
