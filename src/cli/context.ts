// What every headless command handler receives: parsed options, resolved workspace paths and output helpers.
import type { RecipePaths } from '../services/workspace/paths.js';
import type { GlobalOptions } from '../state/types/options.js';
import { createCommandRegistry, createDomainDeps, type CommandRegistry, type DepsOptions } from '../app/registry.js';
import { describeRetry } from '../services/sandbox/withRetry.js';
import { redact } from '../services/secrets.js';

export type OptionValue = string | boolean | string[] | undefined;

// The options every face shares; defined with the types both faces use, re-exported for the commands.
export type { GlobalOptions } from '../state/types/options.js';

export interface CommandContext {
  /** The command words, e.g. ['templates', 'build']. */
  command: string[];
  /** Positional arguments after the command words. */
  positionals: string[];
  /** Command-specific options by their long name (camelCase not applied: 'only', 'dry-run'). */
  options: Record<string, OptionValue>;
  global: GlobalOptions;
  paths: RecipePaths;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Aborted on the first Ctrl-C (SIGINT) while a headless command runs. */
  signal: AbortSignal;
  /**
   * The registry the command takes its jobs and providers from (run.ts builds it; a test hands its own, with a
   * scripted provider in its dependencies). Read it through registryOf(ctx).
   */
  registry?: CommandRegistry;
}

/**
 * A registry for the command's options, paths and env; every retry of the provider's one retry layer is said on
 * stderr (secrets masked). `overrides`: a test's providers, command log or clock.
 */
export function commandRegistry(ctx: CommandContext, overrides: Omit<DepsOptions, 'env' | 'paths'> = {}): CommandRegistry {
  return createCommandRegistry(createDomainDeps(ctx.global, { onProviderRetry: (e) => note(ctx, redact(describeRetry(e))), ...overrides, env: ctx.env, paths: ctx.paths }));
}

/** The command's registry: the one it was given, else one made from its context. */
export function registryOf(ctx: CommandContext): CommandRegistry {
  return (ctx.registry ??= commandRegistry(ctx));
}

export function optString(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.options[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? v[v.length - 1] : undefined;
}

export function optList(ctx: CommandContext, name: string): string[] {
  const v = ctx.options[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export function optFlag(ctx: CommandContext, name: string): boolean {
  return ctx.options[name] === true;
}

function usage(message: string): Error {
  return Object.assign(new Error(message), { usage: true });
}

/** A plain decimal integer: `Number()` alone also reads "1e3", "0x10", " 8" and "" as numbers. */
export function optInt(ctx: CommandContext, name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const raw = optString(ctx, name);
  if (raw === undefined) return fallback;
  const n = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw usage(`--${name} must be a whole number >= ${min}, got "${raw}"`);
  if (n > max) throw usage(`--${name} ${raw} is above the limit of ${max}`);
  return n;
}

/** A positive decimal number of minutes ("90", "0.5"), returned in ms. */
export function optMinutes(ctx: CommandContext, name: string): number | undefined {
  const raw = optString(ctx, name);
  if (raw === undefined) return undefined;
  const n = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(n > 0)) throw usage(`--${name} must be a positive number of minutes (like 90 or 0.5), got "${raw}"`);
  return Math.round(n * 60_000);
}

/**
 * --json's one convention for every command: one document on stdout, indented for a person on a terminal, compact
 * (one line) when piped to a program, a file or `jq`; `--pretty` indents it anyway.
 */
export function jsonIndented(ctx: Pick<CommandContext, 'stdout' | 'global'>): boolean {
  return ctx.global.pretty === true || (ctx.stdout as NodeJS.WriteStream).isTTY === true;
}

export function writeJson(ctx: CommandContext, value: unknown): void {
  ctx.stdout.write(JSON.stringify(value, null, jsonIndented(ctx) ? 2 : undefined) + '\n');
}

/** A document already written as compact JSON text (the monitor builds its large one itself), by the same convention. */
export function writeJsonText(ctx: CommandContext, text: string): void {
  ctx.stdout.write((jsonIndented(ctx) ? JSON.stringify(JSON.parse(text), null, 2) : text) + '\n');
}

/** The one shape of a failed --json command, whatever the command: what, cause and fix as the person reads them. */
export interface ErrorDocument {
  ok: false;
  error: { what: string; cause: string | null; fix: string | null };
  exitCode: number;
}

export function errorDocument(error: { what: string; cause?: string; fix?: string }, exitCode: number): ErrorDocument {
  return { ok: false, error: { what: error.what, cause: error.cause ?? null, fix: error.fix ?? null }, exitCode };
}

export function say(ctx: CommandContext, text: string): void {
  ctx.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

export function note(ctx: CommandContext, text: string): void {
  ctx.stderr.write(text.endsWith('\n') ? text : text + '\n');
}
