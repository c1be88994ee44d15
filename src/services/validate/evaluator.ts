// The evaluation steps of Dressage's fresh-sandbox evaluator (reference §5.1), on the console's Sandbox interface:
// the prohibited-path rule for patches, applying a patch (`git reset --hard <base> && git clean -fd && git apply
// --binary -v`), and running the row's `after_agent` harness command either in the background with polling (as
// Dressage does on E2B, so no HTTP request lasts 20 minutes) or in the foreground (providers whose commands cannot
// outlive the call). Evaluator-side failures become the synthesized marker Dressage writes.
import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../sandbox/types.js';
import { MARKER_PREFIX, findRewardMarker, type MarkerParse } from '../marker/marker.js';
import type { DressageRow, ExecuteCmd } from '../convert/schema.js';
import { sleep } from '../util/sleep.js';
import { pyFloat, pyRepr, pyShlexQuote, pySplitLines, shlexSplit, ShlexError } from '../util/python.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { TASK_WORKDIR } from '../recipe.js';

export const MODEL_PATCH_PATH = '/tmp/dressage_swegym_model.patch';
export const EVAL_OUTPUT_LIMIT = 16_384;
export const PENDING = '__DRESSAGE_SWEGYM_EVAL_PENDING__';
export const DONE = '__DRESSAGE_SWEGYM_EVAL_DONE__=';
export const TRUNCATED = '__DRESSAGE_SWEGYM_EVAL_TRUNCATED__';

const PROHIBITED_PARTS = new Set(['test', 'tests', 'testing', 'r2e_tests']);
const PROHIBITED_BASENAMES = new Set(['conftest.py', 'pytest.ini', 'tox.ini']);

/**
 * The paths Dressage's evaluator checks: of each `diff --git` line (split as `shlex.split` does), the 4th word, the
 * new side, without its `b/`. The old side of a rename and `---`/`+++` lines are not checked there, so not here.
 */
export function patchPaths(patch: string): string[] {
  const out = new Set<string>();
  for (const line of pySplitLines(patch)) {
    if (!line.startsWith('diff --git ')) continue;
    let fields: string[];
    try {
      fields = shlexSplit(line);
    } catch (err) {
      if (err instanceof ShlexError) continue;
      throw err;
    }
    const p = fields[3];
    if (p === undefined) continue;
    out.add(p.startsWith('b/') ? p.slice(2) : p);
  }
  return [...out];
}

/** The last parts of a POSIX path as `PurePosixPath(p).parts` has them ('' and '.' parts dropped). */
function posixParts(p: string): string[] {
  return p.split('/').filter((x) => x !== '' && x !== '.');
}

/**
 * Dressage's rule (case-insensitive): a path part test/tests/testing/r2e_tests, a basename starting `test_` or ending
 * `_test.py`, or conftest.py/pytest.ini/tox.ini. setup.cfg and pyproject.toml are allowed (gold patches edit them).
 */
export function isProhibitedPath(p: string): boolean {
  const parts = posixParts(p.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '')).map((x) => x.toLowerCase());
  const base = parts.at(-1) ?? '';
  return parts.some((x) => PROHIBITED_PARTS.has(x)) || base.startsWith('test_') || base.endsWith('_test.py') || PROHIBITED_BASENAMES.has(base);
}

/** The prohibited paths of a patch, sorted (code-point order, as Python's `sorted`). */
export function prohibitedPaths(patch: string): string[] {
  return patchPaths(patch)
    .filter(isProhibitedPath)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export const PATCH_TIMEOUT_ENV = 'DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC';
export const DEFAULT_PATCH_TIMEOUT_SEC = 120;

/**
 * The timeout of patch extraction and `git apply`, read as Dressage reads it: the row's `swegym_patch_timeout_sec`,
 * else DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC, else 120 s; a value that is not a positive number is refused.
 */
export function patchTimeoutSec(metadata: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): number {
  const own = metadata['swegym_patch_timeout_sec'];
  const raw: unknown = own !== undefined && own !== null && own !== '' ? own : (env[PATCH_TIMEOUT_ENV] ?? DEFAULT_PATCH_TIMEOUT_SEC);
  const v = pyFloat(raw);
  const from = own !== undefined && own !== null && own !== '' ? 'the row\'s swegym_patch_timeout_sec' : PATCH_TIMEOUT_ENV;
  if (v === undefined || Number.isNaN(v)) {
    throw new ConsoleError({ what: `${from} must be a positive number; got ${pyRepr(raw)}`, cause: 'Dressage reads it with float() and refuses the sample', fix: `set ${PATCH_TIMEOUT_ENV} to seconds, e.g. 120, or unset it`, exitCode: ExitCode.usage });
  }
  if (v <= 0) {
    throw new ConsoleError({ what: `${from} must be positive; got ${pyRepr(raw)}`, cause: 'Dressage refuses a zero or negative patch timeout', fix: `set ${PATCH_TIMEOUT_ENV} to seconds, e.g. 120, or unset it`, exitCode: ExitCode.usage });
  }
  return v;
}

/**
 * Dressage's patch extraction in the source sandbox: staged, unstaged and untracked changes, relative to the row's
 * base commit when it has one (agent commits included); quoted as shlex.quote quotes.
 */
export function extractPatchCommand(workdir: string, baseCommit = ''): string {
  const base = baseCommit.trim();
  return `cd ${pyShlexQuote(workdir)} && git add -A && git diff --cached --binary --submodule=diff${base ? ` ${pyShlexQuote(base)} --` : ''}`;
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The marker Dressage's evaluator synthesizes for its own failures. */
export function evaluatorMarkerLine(failure: string, extra: Record<string, unknown> = {}): string {
  return MARKER_PREFIX + JSON.stringify({ resolved: false, failure_reason: failure, harness: 'swegym', fresh_sandbox: true, ...extra });
}

export interface StepLog {
  step: string;
  cmd: string;
  exitCode: number;
  timedOut: boolean;
  durationMs: number;
  stdoutTail: string;
  stderrTail: string;
}

function tail(s: string, n: number): string {
  return s.length > n ? s.slice(-n) : s;
}

export async function runStep(sandbox: Sandbox, step: string, cmd: string, timeoutSec: number, signal?: AbortSignal, cwd?: string): Promise<StepLog> {
  const started = Date.now();
  const r = await sandbox.run(cmd, { timeoutMs: Math.round(timeoutSec * 1000), signal, cwd, maxOutputBytes: 256 * 1024 });
  return { step, cmd, exitCode: r.exitCode, timedOut: r.timedOut, durationMs: Date.now() - started, stdoutTail: tail(r.stdout, 4000), stderrTail: tail(r.stderr, 4000) };
}

/** Runs the row's before_agent commands; a failing required one stops (Dressage aborts the sample). */
export async function runBeforeAgent(sandbox: Sandbox, row: DressageRow, signal?: AbortSignal): Promise<{ ok: boolean; steps: StepLog[]; failed?: StepLog }> {
  const steps: StepLog[] = [];
  for (const c of row.metadata.blackbox_execute_cmds.before_agent ?? []) {
    const s = await runStep(sandbox, c.name, c.cmd, c.timeout, signal);
    steps.push(s);
    if ((s.exitCode !== 0 || s.timedOut) && c.required) return { ok: false, steps, failed: s };
  }
  return { ok: true, steps };
}

export interface ApplyResult {
  ok: boolean;
  /** The synthesized marker line when the evaluator would stop here. */
  markerLine?: string;
  step?: StepLog;
  prohibited?: string[];
}

/** Applies a patch exactly as the fresh evaluator does; empty → empty_generation, test paths → prohibited_test_modification. */
export async function applyPatch(sandbox: Sandbox, row: DressageRow, patch: string, signal?: AbortSignal, timeoutSec?: number): Promise<ApplyResult> {
  if (patch.trim() === '') return { ok: false, markerLine: evaluatorMarkerLine('empty_generation') };
  const prohibited = prohibitedPaths(patch);
  if (prohibited.length) return { ok: false, prohibited, markerLine: evaluatorMarkerLine('prohibited_test_modification') };
  // Like Dressage, the patch travels through commands (the only channel BBS offers in the evaluation sandbox):
  // base64, in chunks that stay far below the kernel's 128 KiB limit for one argument.
  const b64 = Buffer.from(patch, 'utf8').toString('base64');
  const CHUNK = 60_000;
  for (let i = 0; i < b64.length || i === 0; i += CHUNK) {
    const redirect = i === 0 ? '>' : '>>';
    const w = await runStep(sandbox, 'write_patch', `printf '%s' '${b64.slice(i, i + CHUNK)}' ${redirect} ${MODEL_PATCH_PATH}.b64`, 60, signal);
    if (w.exitCode !== 0) return { ok: false, step: w, markerLine: evaluatorMarkerLine('fresh_eval_exception', { error: { type: 'RuntimeError', message: `could not write the patch: ${w.stderrTail.trim()}` } }) };
  }
  const decode = await runStep(sandbox, 'decode_patch', `base64 -d ${MODEL_PATCH_PATH}.b64 > ${MODEL_PATCH_PATH} && rm -f ${MODEL_PATCH_PATH}.b64`, 60, signal);
  if (decode.exitCode !== 0) return { ok: false, step: decode, markerLine: evaluatorMarkerLine('fresh_eval_exception', { error: { type: 'RuntimeError', message: `could not decode the patch: ${decode.stderrTail.trim()}` } }) };
  const workdir = row.metadata.workdir || TASK_WORKDIR;
  const base = String(row.metadata.base_commit ?? '').trim();
  // As Dressage: reset to the task's baseline only when the row names one.
  const prepare = `cd ${shellQuote(workdir)}${base ? ` && git reset --hard ${shellQuote(base)} && git clean -fd` : ''}`;
  const cmd = `${prepare} && git apply --binary -v ${MODEL_PATCH_PATH}`;
  const step = await runStep(sandbox, 'apply_patch', cmd, timeoutSec ?? patchTimeoutSec(row.metadata as unknown as Record<string, unknown>), signal);
  if (step.exitCode !== 0 || step.timedOut) {
    return { ok: false, step, markerLine: evaluatorMarkerLine('failed_apply_patch', { returncode: step.exitCode, timed_out: step.timedOut, ...(step.stderrTail ? { stderr_tail: tail(step.stderrTail, 2000) } : {}) }) };
  }
  return { ok: true, step };
}

export interface HarnessRunOptions {
  mode: 'background' | 'foreground';
  /** Poll interval for background mode (Dressage: 15 s). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  /** Called with each poll (attempt number) in background mode. */
  onPoll?: (attempt: number) => void;
}

export interface HarnessRun {
  /** The harness output (stdout+stderr, last 16 KiB) with the marker, or the synthesized marker line. */
  output: string;
  marker: MarkerParse;
  exitCode?: number;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
  pollAttempts: number;
}

/** Runs the row's after_agent harness command within its timeout and reads the marker from its output. */
export async function runHarness(sandbox: Sandbox, cmd: ExecuteCmd, opts: HarnessRunOptions): Promise<HarnessRun> {
  const started = Date.now();
  const deadlineMs = cmd.timeout * 1000;
  if (opts.mode === 'foreground') {
    const r = await sandbox.run(cmd.cmd, { timeoutMs: deadlineMs, signal: opts.signal, maxOutputBytes: EVAL_OUTPUT_LIMIT * 4 });
    const combined = r.stdout + (r.stderr ? (r.stdout.endsWith('\n') || !r.stdout ? '' : '\n') + r.stderr : '');
    const truncated = combined.length > EVAL_OUTPUT_LIMIT;
    if (r.timedOut) {
      const line = evaluatorMarkerLine('fresh_eval_exception', { error: { type: 'TimeoutError', message: `SWE-Gym evaluator did not finish within ${cmd.timeout.toFixed(1)}s` } });
      return { output: line, marker: findRewardMarker({ stdout: line }), timedOut: true, truncated, durationMs: Date.now() - started, pollAttempts: 0 };
    }
    return { output: tail(combined, EVAL_OUTPUT_LIMIT), marker: findRewardMarker({ stdout: r.stdout, stderr: r.stderr }), exitCode: r.exitCode, timedOut: false, truncated, durationMs: Date.now() - started, pollAttempts: 0 };
  }

  const token = randomBytes(16).toString('hex');
  const out = `/tmp/dressage_swegym_eval_${token}.out`;
  const done = `/tmp/dressage_swegym_eval_${token}.done`;
  const inner = `${cmd.cmd}; rc=$?; printf "%s\\n" "$rc" > ${done}; exit "$rc"`;
  const start = await sandbox.run(`nohup bash -lc ${shellQuote(inner)} > ${out} 2>&1 < /dev/null & echo $!`, { timeoutMs: 60_000, signal: opts.signal });
  if (start.exitCode !== 0 || !/^\d+\s*$/.test(start.stdout.trim().split('\n').at(-1) ?? '')) {
    throw new Error(`failed to start background SWE-Gym evaluator: result=${JSON.stringify({ exit: start.exitCode, stdout: tail(start.stdout, 500), stderr: tail(start.stderr, 500) })}`);
  }
  const poll = [
    `if [ -f ${done} ]; then`,
    `printf '${DONE}%s\\n' "$(cat ${done})";`,
    `if [ "$(wc -c < ${out})" -gt ${EVAL_OUTPUT_LIMIT} ]; then echo ${TRUNCATED}; fi;`,
    `tail -c ${EVAL_OUTPUT_LIMIT} ${out};`,
    `else echo ${PENDING}; fi`,
  ].join(' ');
  const interval = opts.pollIntervalMs ?? 15_000;
  let attempts = 0;
  const errors: string[] = [];
  for (;;) {
    if (Date.now() - started > deadlineMs) {
      const message = `background SWE-Gym evaluator did not finish within ${cmd.timeout.toFixed(1)}s; poll_attempts=${attempts} poll_errors=[${errors.slice(-3).join('; ')}]`;
      const line = evaluatorMarkerLine('fresh_eval_exception', { error: { type: 'TimeoutError', message } });
      return { output: line, marker: findRewardMarker({ stdout: line }), timedOut: true, truncated: false, durationMs: Date.now() - started, pollAttempts: attempts };
    }
    await sleep(attempts === 0 ? Math.min(interval, 250) : interval, opts.signal);
    attempts++;
    opts.onPoll?.(attempts);
    let r;
    try {
      r = await sandbox.run(poll, { timeoutMs: 60_000, signal: opts.signal, maxOutputBytes: EVAL_OUTPUT_LIMIT * 2 });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      errors.push((err as Error).message);
      continue;
    }
    const first = r.stdout.split('\n', 1)[0] ?? '';
    if (first.startsWith(PENDING)) continue;
    if (first.startsWith(DONE)) {
      const rc = Number(first.slice(DONE.length).trim());
      let body = r.stdout.slice(first.length + 1);
      let truncated = false;
      if (body.startsWith(TRUNCATED + '\n')) {
        truncated = true;
        body = body.slice(TRUNCATED.length + 1);
      }
      return { output: body, marker: findRewardMarker({ stdout: body }), exitCode: Number.isFinite(rc) ? rc : undefined, timedOut: false, truncated, durationMs: Date.now() - started, pollAttempts: attempts };
    }
    throw new Error(`unexpected background evaluator poll response: ${tail(r.stdout + r.stderr, 300)}`);
  }
}
