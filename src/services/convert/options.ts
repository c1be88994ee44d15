// Flags of Dressage's examples/data/swegym/prepare_swegym_data.py (reference §1.5), with its defaults, validated
// before the converter runs so that a mistake is reported in the console's words with a fix, not as an argparse
// usage dump.
import path from 'node:path';
import type { RecipePaths, Split } from '../workspace/paths.js';
import { SPLIT_ROWS } from '../workspace/paths.js';
import { OWN_CHECK, usageError } from '../errors.js';
import { PERMISSION_MODES } from './schema.js';
import { TASK_WORKDIR } from '../recipe.js';

export type ConverterProvider = 'e2b' | 'custom';

export interface ConvertOptions {
  output: string;
  input: string;
  split: Split;
  provider: ConverterProvider;
  /** Required for e2b. */
  sandboxImageMap?: string;
  blackboxType: string;
  workdir: string;
  maxTurns: number;
  permissionMode: string;
  testTimeout: number;
  commandTimeout: number;
  sandboxTimeout: number;
  gitSanitizeTimeout: number;
  limit?: number;
  swegymPackageRoot?: string;
  /** custom provider only. */
  bbsWheelUrl?: string;
  binaryUrl?: string;
  runtimeUrl?: string;
}

export const CONVERT_DEFAULTS = {
  split: 'train' as Split,
  provider: 'e2b' as ConverterProvider,
  blackboxType: 'claude_code',
  workdir: TASK_WORKDIR,
  maxTurns: 80,
  permissionMode: 'acceptEdits',
  testTimeout: 1200,
  commandTimeout: 1260,
  sandboxTimeout: 3600,
  gitSanitizeTimeout: 120,
};

/** The quickstart's conversion: default paths inside the checkout. */
export function defaultConvertOptions(paths: RecipePaths, overrides: Partial<ConvertOptions> = {}): ConvertOptions {
  const split = overrides.split ?? CONVERT_DEFAULTS.split;
  return {
    output: paths.trainJsonl,
    input: paths.parquet(split),
    sandboxImageMap: paths.templateMap,
    ...CONVERT_DEFAULTS,
    ...overrides,
    split,
  };
}

function positiveInt(name: string, v: number, allowZero = false): void {
  if (!Number.isInteger(v) || v < (allowZero ? 0 : 1)) throw usageError(`${OWN_CHECK}${name} must be a positive integer, got ${v}`);
}

/**
 * Checks the same rules as the converter's argparse (exit 2), in its words, plus sanity rules of ours, which say so
 * (tests/convert/convertOptions.upstream.test.ts runs the real parse_args). Throws usage errors.
 */
export function validateConvertOptions(o: ConvertOptions): void {
  if (!o.output) throw usageError('the output JSONL path is required');
  if (!o.input) throw usageError('--input is required (the converter cannot read a split without it)', 'pass --input data/swegym-source/train.parquet or run `swegym-console data download` first');
  if (!(o.split in SPLIT_ROWS)) throw usageError(`--split must be train or validation, got "${o.split}"`);
  if (o.provider !== 'e2b' && o.provider !== 'custom') throw usageError(`--provider must be e2b or custom, got "${o.provider}"`);
  if (o.provider === 'e2b' && !o.sandboxImageMap) throw usageError('--sandbox-image-map is required for --provider e2b', 'build templates first (swegym-console templates build) or pass the map path');
  if (o.provider === 'e2b' && (o.bbsWheelUrl || o.binaryUrl || o.runtimeUrl)) {
    throw usageError('--provider e2b expects Claude Code and BBS in the prebuilt template; do not pass runtime bootstrap URLs', 'drop --bbs-wheel-url/--binary-url/--runtime-url for e2b');
  }
  if (Boolean(o.binaryUrl) !== Boolean(o.runtimeUrl)) throw usageError('--binary-url and --runtime-url must be set together');
  if ((o.bbsWheelUrl || o.binaryUrl || o.runtimeUrl) && o.blackboxType !== 'claude_code') throw usageError('Claude Code bootstrap URLs require --blackbox-type claude_code');
  if (!Number.isInteger(o.maxTurns) || o.maxTurns <= 0) throw usageError('--max-turns must be positive');
  if (!(PERMISSION_MODES as readonly string[]).includes(o.permissionMode)) {
    throw usageError(`argument --permission-mode: invalid choice: '${o.permissionMode}' (choose from ${PERMISSION_MODES.join(', ')})`);
  }
  if (o.permissionMode === 'bypassPermissions') {
    // Accepted by the converter, but BBS refuses it as root and the template runs as root (reference §4.5, §8.15).
    throw usageError(`${OWN_CHECK}--permission-mode bypassPermissions cannot run: the template runs Claude Code as root, which refuses it`, 'use acceptEdits (the recipe default)');
  }
  positiveInt('--test-timeout', o.testTimeout);
  positiveInt('--command-timeout', o.commandTimeout);
  positiveInt('--sandbox-timeout', o.sandboxTimeout);
  positiveInt('--git-sanitize-timeout', o.gitSanitizeTimeout);
  if (o.commandTimeout <= o.testTimeout) {
    throw usageError(`${OWN_CHECK}--command-timeout (${o.commandTimeout}s) must exceed --test-timeout (${o.testTimeout}s)`, 'the evaluator polls until the command timeout; the recipe uses 1200/1260');
  }
  if (o.limit !== undefined) positiveInt('--limit', o.limit);
  if (!o.workdir.startsWith('/')) throw usageError(`${OWN_CHECK}--workdir must be an absolute path inside the sandbox, got "${o.workdir}"`);
}

/** The converter's argv after `python3 <script>`. */
export function converterArgs(o: ConvertOptions): string[] {
  const a = [o.output, '--input', o.input, '--split', o.split, '--provider', o.provider];
  if (o.sandboxImageMap) a.push('--sandbox-image-map', o.sandboxImageMap);
  a.push('--blackbox-type', o.blackboxType, '--workdir', o.workdir);
  a.push('--max-turns', String(o.maxTurns), '--permission-mode', o.permissionMode);
  a.push('--test-timeout', String(o.testTimeout), '--command-timeout', String(o.commandTimeout));
  a.push('--sandbox-timeout', String(o.sandboxTimeout), '--git-sanitize-timeout', String(o.gitSanitizeTimeout));
  if (o.limit !== undefined) a.push('--limit', String(o.limit));
  if (o.swegymPackageRoot) a.push('--swegym-package-root', o.swegymPackageRoot);
  if (o.provider === 'custom') {
    if (o.bbsWheelUrl) a.push('--bbs-wheel-url', o.bbsWheelUrl);
    if (o.binaryUrl) a.push('--binary-url', o.binaryUrl);
    if (o.runtimeUrl) a.push('--runtime-url', o.runtimeUrl);
  }
  return a;
}

/** The equivalent manual command, relative to the checkout, for the screen and --dry-run. */
export function manualCommand(paths: RecipePaths, o: ConvertOptions): string {
  const rel = (p: string) => {
    const r = path.relative(paths.root, p);
    return r && !r.startsWith('..') && !path.isAbsolute(r) ? r : p;
  };
  const args = converterArgs({ ...o, output: rel(o.output), input: rel(o.input), sandboxImageMap: o.sandboxImageMap ? rel(o.sandboxImageMap) : undefined });
  const unset = o.provider === 'e2b' ? 'unset CLAUDE_CODE_BBS_WHEEL_URL CLAUDE_CODE_BINARY_URL CLAUDE_CODE_RUNTIME_URL; ' : '';
  return `${unset}python3 ${rel(paths.prepareDataScript)} ${args.map(shellQuote).join(' ')}`;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function expectedRowCount(o: Pick<ConvertOptions, 'split' | 'limit'>): number {
  const total = SPLIT_ROWS[o.split];
  return o.limit !== undefined ? Math.min(o.limit, total) : total;
}
