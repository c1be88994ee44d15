// What every headless command handler receives: parsed options, resolved workspace paths and output helpers.
import type { RecipePaths } from '../services/workspace/paths.js';

export type OptionValue = string | boolean | string[] | undefined;

export interface GlobalOptions {
  workspace: string;
  provider: 'e2b' | 'local';
  debug: boolean;
  color: boolean;
  json: boolean;
}

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

export function optInt(ctx: CommandContext, name: string, fallback: number, min = 1): number {
  const raw = optString(ctx, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw Object.assign(new Error(`--${name} must be an integer >= ${min}, got "${raw}"`), { usage: true });
  }
  return n;
}

export function writeJson(ctx: CommandContext, value: unknown): void {
  ctx.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function say(ctx: CommandContext, text: string): void {
  ctx.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

export function note(ctx: CommandContext, text: string): void {
  ctx.stderr.write(text.endsWith('\n') ? text : text + '\n');
}
