// Agent validation: the real path for one task, as Dressage runs a sample (reference §4.4, §5.1): a sandbox from
// the task's template, claude_code registered on its Blackbox Server with the given router, the row's sanitizer,
// one async turn with long-polling and live progress (BBS usage + Claude Code's stream-json log), the patch
// extracted exactly as Dressage does, then evaluated in a FRESH sandbox from the same template.
import type { Sandbox, SandboxProvider } from '../sandbox/types.js';
import type { DressageRow } from '../convert/schema.js';
import { computeReward, describeMarker, findRewardMarker, type MarkerParse, type RewardOutcome } from '../marker/marker.js';
import { redact } from '../secrets.js';
import { AGENT_FAILED_STATES, BbsClient, BbsError, HARVESTABLE, SEMANTIC_ERROR_LABELS, TERMINAL_TURN, newSessionId, newTurnId, turnFailure, type TurnSnapshot } from './bbs.js';
import { PATCH_EXTRACT_RETRY, backoffDelay, type RetryPolicy } from '../util/retry.js';
import { applyPatch, evaluatorMarkerLine, extractPatchCommand, patchTimeoutSec, prohibitedPaths, runHarness } from './evaluator.js';
import { DEFAULT_SERVER_CONFIG, launcherRolloutContext, normalizeBlackboxType, registeredBackendOptions, type RolloutArgs } from './backendOptions.js';
import { scanTrajectoryIntegrity, trajectoryFromStreamJson, usesSwegymIntegrity, type IntegrityResult } from './integrity.js';
import { sleep } from '../util/sleep.js';
import { BLACKBOX_PORT, TASK_WORKDIR } from '../recipe.js';
import { readStreamJson, type AgentStatus, type StreamJsonProgress } from '../agent/streamJson.js';

export const E2B_RUNTIME_ROOT = DEFAULT_SERVER_CONFIG.runtime_root;

export interface AgentProgress {
  phase: 'creating' | 'registering' | 'sanitizing' | 'running' | 'extracting' | 'evaluating' | 'done' | 'failed';
  turnStatus?: string;
  steps: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  lastTool?: string;
  elapsedMs: number;
}

export interface AgentValidationOptions {
  provider: SandboxProvider;
  row: DressageRow;
  router: string;
  /** The BBS base URL of a sandbox (E2B: its public host for port 31000). */
  endpointFor: (sandbox: Sandbox, port: number) => string;
  signal?: AbortSignal;
  /** Long-poll wait per request (Dressage: 30 s). */
  pollWaitSec?: number;
  /** Overall budget for the turn (0 = unbounded, Dressage's default). */
  turnTimeoutSec?: number;
  retry?: Partial<RetryPolicy>;
  /** Delay base for patch-extraction retries (Dressage: 2 s × 2^(n-1)). */
  extractRetryDelayMs?: number;
  harnessMode?: 'background' | 'foreground';
  pollIntervalMs?: number;
  /**
   * The training run's rollout arguments and environment, from which Dressage derives the backend options it
   * registers (default: the launcher's defaults with the process environment, `launcherRolloutContext`).
   */
  rollout?: { args: RolloutArgs; env: NodeJS.ProcessEnv };
  /** Where DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC and DRESSAGE_SWEGYM_BLOCKED_REPOS(_FILE) are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  onProgress?: (p: AgentProgress) => void;
}

export interface AgentValidationResult {
  instance_id: string;
  ok: boolean;
  error?: string;
  agent: { turnStatus?: string; errorCode?: string; httpStatus?: number; earlyStop?: string; steps: number; toolCalls: number; inputTokens: number; outputTokens: number; lastTool?: string; claudeCode?: { status: AgentStatus; apiErrorStatus: number | null; apiRetries: number; permissionDenials: number; cause?: string } };
  /** The backend options registered (Dressage's merge of the row's over its defaults). */
  backendOptions?: unknown;
  /** The trajectory integrity scan of the agent's tool calls (Claude Code's log); `checked: false` when unreadable. */
  integrity?: (IntegrityResult & { checked: true }) | { checked: false; reason: string };
  patch: string;
  patchFiles: string[];
  marker: Record<string, unknown> | null;
  /** One line: `resolved F2P 1/1 P2P 3/3` or the failure. */
  summary?: string;
  reward?: RewardOutcome;
  durationMs: number;
}

/**
 * Progress from Claude Code's stream-json log, by the one reader: model turns (distinct responses, the synthetic
 * error message excluded), tool calls, tokens (the result's totals once it is there), the last tool call.
 */
export function progressFromStreamJson(text: string): Pick<AgentProgress, 'steps' | 'toolCalls' | 'inputTokens' | 'outputTokens' | 'lastTool'> & { claudeCode: StreamJsonProgress } {
  const p = readStreamJson(text);
  return { steps: p.modelTurns, toolCalls: p.toolCalls.length, inputTokens: p.usage.input_tokens, outputTokens: p.usage.output_tokens, lastTool: p.lastTool, claudeCode: p };
}

export async function validateAgent(o: AgentValidationOptions): Promise<AgentValidationResult> {
  const started = Date.now();
  const m = o.row.metadata;
  const result: AgentValidationResult = {
    instance_id: m.instance_id,
    ok: false,
    agent: { steps: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 },
    patch: '',
    patchFiles: [],
    marker: null,
    durationMs: 0,
  };
  const progress: AgentProgress = { phase: 'creating', steps: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, elapsedMs: 0 };
  const emit = (patch: Partial<AgentProgress>) => {
    Object.assign(progress, patch, { elapsedMs: Date.now() - started });
    o.onProgress?.({ ...progress });
  };
  const fail = (error: string) => {
    emit({ phase: 'failed' });
    result.error = redact(error);
    result.durationMs = Date.now() - started;
    return result;
  };
  let source: Sandbox | undefined;
  try {
    emit({ phase: 'creating' });
    source = await o.provider.create({ template: m.sandbox_image, timeoutMs: (m.sandbox_timeout_sec || 3600) * 1000, metadata: { purpose: 'validate-agent' }, signal: o.signal });
    const bbs = new BbsClient(o.endpointFor(source, BLACKBOX_PORT), { retry: o.retry, signal: o.signal });
    const health = await bbs.health().catch((err: Error) => ({ healthy: false, version: '', error: err.message }));
    if (!health.healthy) return fail(`the Blackbox Server in sandbox ${source.id} is not healthy on port ${BLACKBOX_PORT}: ${(health as { error?: string }).error ?? 'unhealthy'}`);

    emit({ phase: 'registering' });
    const sessionId = newSessionId();
    const blackboxType = normalizeBlackboxType(m.blackbox_type);
    const rollout = o.rollout ?? launcherRolloutContext({ ...(o.env ?? process.env) });
    const backendOptions = registeredBackendOptions(blackboxType, m.backend_options, rollout.args, rollout.env);
    result.backendOptions = backendOptions;
    const reg = await bbs.register({
      blackbox_type: blackboxType,
      router: o.router,
      bound_session_id: sessionId,
      bound_instance_id: m.instance_id,
      backend_options: backendOptions as Record<string, unknown>,
      server_config: { ...DEFAULT_SERVER_CONFIG },
    });
    const logFile = `${reg.binding.runtime_dir}/logs/claude_code.stdout.log`;

    emit({ phase: 'sanitizing' });
    for (const c of m.blackbox_execute_cmds.before_agent ?? []) {
      const r = await bbs.executeCmd(sessionId, c.cmd, c.timeout);
      if ((r.returncode !== 0 || r.timed_out) && c.required) {
        return fail(`required execute_cmd failed: name=${c.name} returncode=${r.returncode} timed_out=${r.timed_out ? 'True' : 'False'}: ${(r.stderr || r.stdout).trim().split('\n').at(-1) ?? ''}`);
      }
    }

    emit({ phase: 'running' });
    const turnId = newTurnId();
    await bbs.submitTurn(sessionId, turnId, o.row.prompt);
    const budgetMs = (o.turnTimeoutSec ?? 0) * 1000;
    let snap: TurnSnapshot;
    let claudeCode: StreamJsonProgress | undefined;
    for (;;) {
      snap = await bbs.getTurn(sessionId, turnId, o.pollWaitSec ?? 30);
      const fromLog = await source.readFile(logFile, { signal: o.signal }).then(progressFromStreamJson, () => undefined);
      const u = snap.usage ?? {};
      // The log, read exactly, wins over the server's usage (which counts per content block); the server's
      // numbers stand in only while the log is not readable or holds no event yet.
      const exact = fromLog && fromLog.claudeCode.events > 0 ? fromLog : undefined;
      if (exact) claudeCode = exact.claudeCode;
      emit({
        turnStatus: snap.status,
        steps: exact ? exact.steps : (u.steps ?? 0),
        toolCalls: exact ? exact.toolCalls : (u.tool_calls ?? 0),
        inputTokens: exact ? exact.inputTokens : (u.input_tokens ?? 0),
        outputTokens: exact ? exact.outputTokens : (u.output_tokens ?? 0),
        lastTool: exact?.lastTool ?? progress.lastTool,
      });
      if (TERMINAL_TURN.has(snap.status)) break;
      if (budgetMs > 0 && Date.now() - started > budgetMs) {
        await bbs.cancelTurn(sessionId, turnId).catch(() => undefined);
        return fail(`the agent turn did not finish within ${o.turnTimeoutSec}s (cancelled)`);
      }
    }
    Object.assign(result.agent, { turnStatus: snap.status, steps: progress.steps, toolCalls: progress.toolCalls, inputTokens: progress.inputTokens, outputTokens: progress.outputTokens, lastTool: progress.lastTool });
    if (claudeCode) result.agent.claudeCode = { status: claudeCode.status, apiErrorStatus: claudeCode.apiErrorStatus, apiRetries: claudeCode.apiRetries.length, permissionDenials: claudeCode.permissionDenials.length, ...(claudeCode.cause ? { cause: claudeCode.cause } : {}) };
    // As Dressage's client and rollout read the settled turn (paddock/blackbox/client.py, failures.py): an
    // uncommitted turn is the HTTP error its record names; context_overflow / max_steps_exceeded are an early stop
    // whose sandbox is still harvested and graded; backend_timeout is a semantic failure; anything else aborts.
    if (snap.status !== 'committed') {
      const f = turnFailure(snap);
      result.agent.errorCode = f.code;
      result.agent.httpStatus = f.httpStatus;
      const label = SEMANTIC_ERROR_LABELS[f.code];
      if (HARVESTABLE.has(f.code)) result.agent.earlyStop = f.code;
      else if (label) return fail(`blackbox agent ${label} (HTTP ${f.httpStatus}): ${f.message}`);
      else return fail(`blackbox turn ${f.code} (HTTP ${f.httpStatus}): ${f.message}`);
    } else if (AGENT_FAILED_STATES.has(String(snap.state ?? '').toLowerCase())) {
      return fail(`blackbox agent returned failed state '${snap.state}'`);
    }
    // The integrity scan reads the agent's tool calls before its sandbox goes away.
    const agentLog = usesSwegymIntegrity(m) ? await source.readFile(logFile, { signal: o.signal }).then((t) => ({ text: t }), (err: Error) => ({ error: err.message })) : undefined;

    emit({ phase: 'extracting' });
    const extract = extractPatchCommand(String(m.workdir || TASK_WORKDIR), String(m.base_commit ?? ''));
    const timeoutSec = patchTimeoutSec(m, o.env);
    let patch: string | undefined;
    let failedMarker: string | undefined;
    let lastErr = '';
    const extractRetry: RetryPolicy = { ...PATCH_EXTRACT_RETRY, baseMs: o.extractRetryDelayMs ?? PATCH_EXTRACT_RETRY.baseMs };
    for (let attempt = 1; attempt <= extractRetry.attempts && patch === undefined && failedMarker === undefined; attempt++) {
      try {
        const r = await bbs.executeCmd(sessionId, extract, timeoutSec);
        if (r.returncode !== 0 || r.timed_out) {
          // Dressage records the command's result: patch_extract_failed with returncode, timed_out, stderr tail.
          lastErr = `returncode=${r.returncode}: ${r.stderr.trim().split('\n').at(-1) ?? ''}`;
          failedMarker = evaluatorMarkerLine('patch_extract_failed', { returncode: r.returncode, timed_out: Boolean(r.timed_out), ...(r.stderr ? { stderr_tail: redact(r.stderr.slice(-2000)) } : {}) });
          break;
        }
        patch = r.stdout;
      } catch (err) {
        lastErr = (err as Error).message;
        const retry = err instanceof BbsError ? [409, 502, 503, 504].includes(err.status) : true;
        if (!retry || attempt === extractRetry.attempts || o.signal?.aborted) {
          // The request error leaves the evaluator: fresh_eval_exception.
          failedMarker = evaluatorMarkerLine('fresh_eval_exception', { error: { type: err instanceof BbsError ? 'httpx.HTTPStatusError' : 'httpx.TransportError', message: redact(lastErr) } });
          break;
        }
        await sleep(backoffDelay(extractRetry, attempt), o.signal);
      }
    }
    await source.kill().catch(() => false);
    source = undefined;
    if (patch === undefined) {
      const parse = findRewardMarker({ stdout: failedMarker ?? evaluatorMarkerLine('patch_extract_failed') });
      result.marker = parse.ok ? parse.payload : null;
      result.summary = describeMarker(parse);
      result.reward = computeReward(parse);
      return fail(`patch extraction failed: ${lastErr}`);
    }
    result.patch = patch;
    result.patchFiles = [...new Set([...patch.matchAll(/^diff --git a\/(.+?) b\//gm)].map((x) => x[1] as string))];

    emit({ phase: 'evaluating' });
    const evalRun = await evaluateInFreshSandbox({ ...o, timeoutSec }, patch);
    result.marker = evalRun.parse.ok ? evalRun.parse.payload : { resolved: false, parse_failure: true, failure_reason: evalRun.parse.reason };
    // Dressage zeroes the reward of a trajectory with an integrity violation (reward.py), so the scan comes first.
    if (agentLog && 'text' in agentLog) {
      const scan = scanTrajectoryIntegrity(trajectoryFromStreamJson(agentLog.text), m, o.env);
      result.integrity = { checked: true, ...scan };
      result.reward = computeReward(evalRun.parse, scan);
    } else {
      if (agentLog) result.integrity = { checked: false, reason: `Claude Code's log ${logFile} could not be read: ${redact(agentLog.error)}` };
      result.reward = computeReward(evalRun.parse);
    }
    result.summary = describeMarker(evalRun.parse);
    // The pipeline worked end to end when the fresh evaluation produced a real marker (the reward may be 0).
    result.ok = evalRun.parse.ok;
    if (evalRun.error) result.error = evalRun.error;
    emit({ phase: 'done' });
    result.durationMs = Date.now() - started;
    return result;
  } catch (err) {
    if (o.signal?.aborted) throw err;
    return fail(err instanceof BbsError ? `Blackbox Server answered ${err.status} ${err.code}: ${err.message}` : (err as Error).message);
  } finally {
    if (source) await source.kill().catch(() => false);
  }
}

/** The fresh evaluation sandbox: empty/prohibited checks, apply, harness, marker. Always killed. */
export async function evaluateInFreshSandbox(o: Pick<AgentValidationOptions, 'provider' | 'row' | 'signal' | 'harnessMode' | 'pollIntervalMs'> & { timeoutSec?: number }, patch: string): Promise<{ parse: MarkerParse; error?: string }> {
  const m = o.row.metadata;
  if (patch.trim() === '') return { parse: findRewardMarker({ stdout: evaluatorMarkerLine('empty_generation') }), error: 'the agent produced an empty patch' };
  const prohibited = prohibitedPaths(patch);
  if (prohibited.length) return { parse: findRewardMarker({ stdout: evaluatorMarkerLine('prohibited_test_modification') }), error: `the patch touches test or harness paths (Dressage: prohibited_test_modification): ${prohibited.join(', ')}` };
  const sandbox = await o.provider.create({ template: m.sandbox_image, timeoutMs: (m.sandbox_timeout_sec || 3600) * 1000, metadata: { purpose: 'validate-eval' }, signal: o.signal });
  try {
    const applied = await applyPatch(sandbox, o.row, patch, o.signal, o.timeoutSec);
    if (!applied.ok) return { parse: findRewardMarker({ stdout: applied.markerLine ?? '' }), error: applied.step ? applied.step.stderrTail.trim().split('\n').at(-1) : undefined };
    const cmd = m.blackbox_execute_cmds.after_agent[0];
    if (!cmd) return { parse: { ok: false, reason: 'missing_reward_marker' }, error: 'the row has no after_agent command' };
    const h = await runHarness(sandbox, cmd, { mode: o.harnessMode ?? (o.provider.name === 'e2b' ? 'background' : 'foreground'), pollIntervalMs: o.pollIntervalMs, signal: o.signal });
    return { parse: h.marker };
  } finally {
    await sandbox.kill().catch(() => false);
  }
}
