// `swegym-console convert [--split S] [--limit N] [converter flags…] [--verify-only] [--json]`: runs Dressage's
// converter with checked flags, streams its output to stderr, verifies the JSONL and previews a row.
// Exit: 0 verified, 1 converter failed or verification found problems, 2 usage, 3 preconditions.
import path from 'node:path';
import type { CommandContext } from '../context.js';
import { note, optFlag, optInt, optString, registryOf, say, writeJson } from '../context.js';
import { ExitCode, usageError } from '../../services/errors.js';
import { redact } from '../../services/secrets.js';
import { defaultConvertOptions, type ConvertOptions } from '../../services/convert/options.js';
import type { VerifyReport } from '../../services/convert/verify.js';
import { previewLines } from '../../services/convert/jsonlRows.js';
import type { Split } from '../../services/workspace/paths.js';

function resolve(ctx: CommandContext, p: string | undefined): string | undefined {
  return p === undefined ? undefined : path.resolve(ctx.paths.root, p);
}

export function convertOptionsFrom(ctx: CommandContext): ConvertOptions {
  const split = (optString(ctx, 'split') ?? 'train') as Split;
  if (split !== 'train' && split !== 'validation') throw usageError(`--split must be train or validation, got "${split}"`);
  const limitRaw = optString(ctx, 'limit');
  const o = defaultConvertOptions(ctx.paths, {
    split,
    provider: ctx.global.provider === 'local' ? 'custom' : 'e2b',
  });
  if (limitRaw !== undefined) o.limit = optInt(ctx, 'limit', 0, 1);
  o.output = resolve(ctx, optString(ctx, 'output')) ?? o.output;
  o.input = resolve(ctx, optString(ctx, 'input')) ?? ctx.paths.parquet(split);
  o.sandboxImageMap = resolve(ctx, optString(ctx, 'sandbox-image-map')) ?? o.sandboxImageMap;
  o.swegymPackageRoot = resolve(ctx, optString(ctx, 'swegym-package-root'));
  o.maxTurns = optInt(ctx, 'max-turns', o.maxTurns);
  o.permissionMode = optString(ctx, 'permission-mode') ?? o.permissionMode;
  o.testTimeout = optInt(ctx, 'test-timeout', o.testTimeout);
  o.commandTimeout = optInt(ctx, 'command-timeout', o.commandTimeout);
  o.sandboxTimeout = optInt(ctx, 'sandbox-timeout', o.sandboxTimeout);
  o.gitSanitizeTimeout = optInt(ctx, 'git-sanitize-timeout', o.gitSanitizeTimeout);
  return o;
}

function printReport(ctx: CommandContext, v: VerifyReport): void {
  const mark = v.ok ? 'ok  ' : 'FAIL';
  say(ctx, `${mark} ${v.rows} rows${v.expectedRows !== undefined ? ` (expected ${v.expectedRows})` : ''} in ${v.file}`);
  const counts = Object.entries(v.counts);
  if (counts.length) say(ctx, `     problems: ${counts.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  for (const p of v.problems.slice(0, 20)) say(ctx, `     - ${p.line !== undefined ? `line ${p.line}` : 'file'}${p.instanceId ? ` (${p.instanceId})` : ''}: [${p.check}] ${p.message}`);
  if (v.problems.length > 20) say(ctx, `     … ${v.problems.length - 20} more (--json lists up to 200)`);
  for (const w of v.warnings) say(ctx, `warn ${w}`);
}

export async function convertCommand(ctx: CommandContext): Promise<number> {
  const options = convertOptionsFrom(ctx);
  const previewCount = optInt(ctx, 'preview', 1, 0);
  const verifyOnly = optFlag(ctx, 'verify-only');
  const { result, verify, preview } = await (await registryOf(ctx).jobs('convert')).convert({
    options,
    verifyOnly,
    previewRows: previewCount,
    signal: ctx.signal,
    onEvent: (e) => {
      if (e.type === 'line') note(ctx, `  | ${e.line}`);
      else if (e.type === 'notice') note(ctx, `${e.notice.level === 'warn' ? 'warn' : 'note'}: ${e.notice.text}`);
      else if (e.type === 'phase' && !verifyOnly && (e.phase === 'preflight' || e.phase === 'converting' || e.phase === 'verifying')) note(ctx, `== ${e.phase}`);
    },
  });
  if (ctx.global.json) {
    writeJson(ctx, {
      ok: verify.ok,
      output: options.output,
      command: result?.command,
      removedEnv: result?.removedEnv ?? [],
      wrote: result?.wrote,
      durationMs: result?.durationMs,
      notices: result?.notices ?? [],
      verify,
      preview,
    });
  } else {
    if (result) note(ctx, `manual equivalent: ${redact(result.command, ctx.env)}`);
    printReport(ctx, verify);
    for (const p of preview) {
      say(ctx, '');
      for (const l of previewLines(p)) say(ctx, l);
    }
  }
  return verify.ok ? ExitCode.ok : ExitCode.failed;
}
