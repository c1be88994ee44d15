// Harness validation: proves, per task and before any GPU is allocated, that the template, the row's sanitizer,
// the embedded official eval script and the log parser grade correctly. Gold arm: sanitizer → gold patch applied as
// Dressage's fresh evaluator applies patches → the row's after_agent command → marker must say resolved:true.
// Control arm: sanitizer → untouched repo → after_agent → marker must say resolved:false (the FAIL_TO_PASS tests
// really fail without the fix). Each arm runs in its own fresh sandbox, killed (awaited) whatever happens.
import type { SandboxProvider, Sandbox } from '../sandbox/types.js';
import { SandboxError } from '../sandbox/types.js';
import type { DressageRow } from '../convert/schema.js';
import { describeMarker, findRewardMarker, type MarkerParse } from '../marker/marker.js';
import { Journal } from '../workspace/journal.js';
import { withLock } from '../workspace/lock.js';
import type { RecipePaths } from '../workspace/paths.js';
import { redact } from '../secrets.js';
import { applyPatch, patchTimeoutSec, runBeforeAgent, runHarness } from './evaluator.js';
import type { HarnessValidationResult, ArmPhase, MarkerJson, ArmOutcome } from '../../state/types/validate.js';
export type { HarnessValidationResult, ArmPhase, MarkerJson, ArmOutcome } from '../../state/types/validate.js';

export const VALIDATE_HARNESS_JOURNAL = 'validate-harness';

export interface HarnessTask {
  row: DressageRow;
  /** The gold patch from the parquet (never in the JSONL). */
  goldPatch?: string;
}

export type Arm = 'gold' | 'control';

export interface ValidateHarnessOptions {
  provider: SandboxProvider;
  tasks: HarnessTask[];
  concurrency?: number;
  /** Journal to record each finished task in (validate-harness). */
  journal?: Journal<HarnessValidationResult>;
  signal?: AbortSignal;
  /** The workspace lock to hold while validating (journals are rewritten whole: one writer at a time). */
  lockFile?: string;
  /** background+polling (E2B, as Dressage) or foreground (providers whose commands cannot outlive the call). */
  harnessMode?: 'background' | 'foreground';
  pollIntervalMs?: number;
  /** Where DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  onPhase?: (instanceId: string, arm: Arm, phase: ArmPhase) => void;
  onResult?: (r: HarnessValidationResult) => void;
}

export function validateHarnessJournal(paths: RecipePaths): Journal<HarnessValidationResult> {
  return new Journal<HarnessValidationResult>(paths.journalsDir, VALIDATE_HARNESS_JOURNAL);
}

function markerJson(m: MarkerParse): MarkerJson {
  if (m.ok) return m.payload;
  return { resolved: false, parse_failure: true, failure_reason: m.reason, ...(m.error ? { error: m.error } : {}) };
}

function tail(s: string, n = 2000): string {
  return redact(s.length > n ? s.slice(-n) : s);
}

function errorText(err: unknown): string {
  if (err instanceof SandboxError) return `${err.kind}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

interface ArmRun extends ArmOutcome {
  parse?: MarkerParse;
}

async function runArm(task: HarnessTask, arm: Arm, o: ValidateHarnessOptions): Promise<ArmRun> {
  const { row } = task;
  const m = row.metadata;
  const id = m.instance_id;
  const started = Date.now();
  const phase = (p: ArmPhase) => o.onPhase?.(id, arm, p);
  const harnessCmd = m.blackbox_execute_cmds?.after_agent?.[0];
  if (!harnessCmd) {
    phase('failed');
    return { marker: null, error: 'the row has no after_agent harness command', durationMs: 0 };
  }
  const before = (m.blackbox_execute_cmds.before_agent ?? []).reduce((s, c) => s + c.timeout, 0);
  const lifetimeSec = Math.min(m.sandbox_timeout_sec || 3600, before + 120 + harnessCmd.timeout + 300);
  let sandbox: Sandbox | undefined;
  try {
    phase('creating');
    sandbox = await o.provider.create({
      template: m.sandbox_image,
      timeoutMs: lifetimeSec * 1000,
      metadata: { purpose: `validate-${arm}`, instance: id.replace(/[^A-Za-z0-9._-]/g, '_') },
      signal: o.signal,
    });
    phase('sanitizing');
    const san = await runBeforeAgent(sandbox, row, o.signal);
    if (!san.ok) {
      phase('failed');
      const f = san.failed;
      return {
        marker: null,
        error: `sanitizer ${f?.step ?? ''} failed (${f?.timedOut ? 'timed out' : `exit ${f?.exitCode}`}): ${(f?.stderrTail || f?.stdoutTail || '').trim().split('\n').at(-1) ?? ''}`,
        outputTail: tail(`${f?.stdoutTail ?? ''}${f?.stderrTail ?? ''}`),
        durationMs: Date.now() - started,
      };
    }
    if (arm === 'gold') {
      phase('applying');
      const applied = await applyPatch(sandbox, row, task.goldPatch ?? '', o.signal, patchTimeoutSec(m as unknown as Record<string, unknown>, o.env));
      if (!applied.ok) {
        phase('done');
        const parse = findRewardMarker({ stdout: applied.markerLine ?? '' });
        const why = applied.prohibited ? `the gold patch touches test or harness paths (${applied.prohibited.slice(0, 3).join(', ')}), so Dressage would zero it` : undefined;
        return { marker: markerJson(parse), parse, error: why, outputTail: applied.step ? tail(applied.step.stdoutTail + applied.step.stderrTail) : undefined, durationMs: Date.now() - started };
      }
    }
    phase('evaluating');
    const h = await runHarness(sandbox, harnessCmd, { mode: o.harnessMode ?? (o.provider.name === 'e2b' ? 'background' : 'foreground'), pollIntervalMs: o.pollIntervalMs, signal: o.signal });
    phase('done');
    return { marker: markerJson(h.marker), parse: h.marker, outputTail: tail(h.output), durationMs: Date.now() - started };
  } catch (err) {
    if (o.signal?.aborted) throw err;
    phase('failed');
    return { marker: null, error: `${sandbox ? 'sandbox command failed' : `could not start a sandbox from template ${m.sandbox_image}`}: ${errorText(err)}`, durationMs: Date.now() - started };
  } finally {
    if (sandbox) await sandbox.kill().catch(() => false);
  }
}

/** Judges the two arms: gold must resolve, control must not, both through a real harness marker. */
export function judge(gold: ArmRun, control: ArmRun): { ok: boolean; error?: string } {
  const errors: string[] = [];
  if (gold.error && !gold.parse) errors.push(`gold: ${gold.error}`);
  else if (gold.parse && !gold.parse.ok) errors.push(`gold: ${describeMarker(gold.parse)} (the harness printed no usable marker)`);
  else if (gold.parse?.ok && gold.parse.payload.resolved !== true) errors.push(`gold patch not resolved: ${describeMarker(gold.parse)}${gold.error ? ` — ${gold.error}` : ''}`);
  if (control.error && !control.parse) errors.push(`control: ${control.error}`);
  else if (control.parse && !control.parse.ok) errors.push(`control: ${describeMarker(control.parse)} (the harness printed no usable marker)`);
  else if (control.parse?.ok && control.parse.payload.resolved === true) errors.push('control resolved without the fix: the FAIL_TO_PASS tests already pass on the untouched repo (wrong test lists or a broken eval script)');
  return errors.length ? { ok: false, error: errors.join('; ') } : { ok: true };
}

export async function validateOne(task: HarnessTask, o: ValidateHarnessOptions): Promise<HarnessValidationResult> {
  const started = Date.now();
  const m = task.row.metadata;
  const base = { instance_id: m.instance_id, template: m.sandbox_image };
  if (!task.goldPatch || task.goldPatch.trim() === '') {
    return { ...base, ok: false, gold: null, control: null, error: 'no gold patch for this instance in the parquet (the `patch` field is empty)', durationMs: 0, validatedAt: new Date().toISOString() };
  }
  const [gold, control] = await Promise.all([runArm(task, 'gold', o), runArm(task, 'control', o)]);
  const verdict = judge(gold, control);
  const strip = (a: ArmRun): Omit<ArmOutcome, 'marker'> => ({ durationMs: a.durationMs, ...(a.error ? { error: a.error } : {}), ...(a.outputTail ? { outputTail: a.outputTail } : {}) });
  return {
    ...base,
    ok: verdict.ok,
    gold: gold.marker,
    control: control.marker,
    ...(verdict.error ? { error: redact(verdict.error) } : {}),
    durationMs: Date.now() - started,
    validatedAt: new Date().toISOString(),
    goldDetail: strip(gold),
    controlDetail: strip(control),
  };
}

/** Validates tasks with a bounded worker pool; each finished task is journaled at once (resumable, visible live). */
export async function validateHarness(o: ValidateHarnessOptions): Promise<HarnessValidationResult[]> {
  if (o.lockFile) return withLock(o.lockFile, 'validate harness', () => validateHarness({ ...o, lockFile: undefined }));
  // A bad patch timeout is refused before any sandbox starts (Dressage refuses the sample).
  for (const t of o.tasks) patchTimeoutSec(t.row.metadata as unknown as Record<string, unknown>, o.env);
  const results: HarnessValidationResult[] = [];
  const queue = [...o.tasks];
  for (const t of queue) {
    o.onPhase?.(t.row.metadata.instance_id, 'gold', 'queued');
    o.onPhase?.(t.row.metadata.instance_id, 'control', 'queued');
  }
  const workers = Math.max(1, Math.min(o.concurrency ?? 4, queue.length || 1));
  const worker = async () => {
    for (;;) {
      if (o.signal?.aborted) return;
      const task = queue.shift();
      if (!task) return;
      const r = await validateOne(task, o);
      results.push(r);
      if (o.journal) await o.journal.set(r.instance_id, r);
      o.onResult?.(r);
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: workers }, worker));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure && !o.signal?.aborted) throw failure.reason;
  const order = new Map(o.tasks.map((t, i) => [t.row.metadata.instance_id, i]));
  return results.sort((a, b) => (order.get(a.instance_id) ?? 0) - (order.get(b.instance_id) ?? 0));
}

/** The `--json` shape shared by `validate harness` and `demo`. */
export interface HarnessResultJson {
  instance_id: string;
  gold: MarkerJson;
  control: MarkerJson;
  ok: boolean;
  error: string | null;
  template: string;
  durationMs: number;
}

export function harnessResultsJson(results: readonly HarnessValidationResult[]): { results: HarnessResultJson[] } {
  return { results: results.map((r) => ({ instance_id: r.instance_id, gold: r.gold, control: r.control, ok: r.ok, error: r.error ?? null, template: r.template, durationMs: r.durationMs })) };
}
