// The `validate agent` job on the local provider, written once for both faces: `validate agent --provider local`
// prints its events, the Validate screen's controller (and the demo inside the console) puts them in the validate
// store. The real Claude Code CLI runs in a local sandbox of the task (services/demo/agentStep.ts); its progress is
// the stream-json reader's (agent-log's counts); the graded result is kept beside its log, so that the screen shows
// it after the run, and after a restart.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { RecipePaths } from '../workspace/paths.js';
import type { SandboxProvider } from '../sandbox/types.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { redact } from '../secrets.js';
import { writeFileAtomic } from '../workspace/atomic.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import type { StreamJsonProgress } from '../agent/streamJson.js';
import type { AgentProgressSummary, AgentRunRecord } from '../../state/types/validate.js';
import { agentRunLogFile, runSampleAgent, SCRIPTED_MODEL_LABEL, type SampleAgentRun } from '../demo/agentStep.js';

export type { AgentProgressSummary, AgentRunRecord } from '../../state/types/validate.js';

export const VALIDATE_AGENT_JOB = 'validate agent';

export type ValidateAgentEvent =
  | { type: 'started'; instanceId: string; provider: string; scripted: boolean; modelLabel: string }
  | { type: 'phase'; instanceId: string; phase: string }
  | { type: 'progress'; instanceId: string; progress: AgentProgressSummary }
  | { type: 'finished'; instanceId: string; record: AgentRunRecord };

export interface ValidateAgentJobOptions {
  paths: RecipePaths;
  instanceId: string;
  /** An Anthropic-compatible endpoint instead of the scripted replay of a sample task's gold patch. */
  router?: string;
  apiKey?: string;
  openProvider: () => Promise<SandboxProvider>;
  samplesDir?: string;
  /** Where CLAUDE_CODE_BIN is looked up. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onEvent?: JobListener<ValidateAgentEvent>;
}

/** The counts of one reading of Claude Code's log. */
export function agentProgressSummary(p: StreamJsonProgress): AgentProgressSummary {
  return { status: p.status, modelTurns: p.modelTurns, toolCalls: p.toolCalls.length, failedToolCalls: p.toolCalls.filter((c) => c.is_error).length, apiRetries: p.apiRetries.length, ...(p.lastTool ? { lastTool: p.lastTool } : {}) };
}

/** The progress line both faces say: `Claude Code running: 3 model turns, 4 tool calls, last: Edit calc.py`. */
export function agentProgressText(p: AgentProgressSummary): string {
  return `Claude Code ${p.status}: ${p.modelTurns} model turns, ${p.toolCalls} tool calls${p.failedToolCalls ? ` (${p.failedToolCalls} failed)` : ''}${p.apiRetries ? `, ${p.apiRetries} API retries` : ''}${p.lastTool ? `, last: ${p.lastTool}` : ''}`;
}

/** The graded result in one line: `resolved F2P 1/1 P2P 3/3 → reward 1`, or the failure. */
export function agentResultText(r: AgentRunRecord): string {
  const graded = r.summary ? `${r.summary}${r.reward !== null ? ` → reward ${r.reward}` : ''}` : 'not graded';
  return `${r.resolved ? '✓' : '✗'} ${graded}${r.error ? ` — ${r.error}` : ''}`;
}

export function agentRunRecordFile(paths: RecipePaths, instanceId: string): string {
  return path.join(path.dirname(agentRunLogFile(paths, instanceId)), 'result.json');
}

/** The last record of a task, or undefined when it has none (or it cannot be read: the screen then shows none). */
export async function readAgentRunRecord(paths: RecipePaths, instanceId: string): Promise<AgentRunRecord | undefined> {
  try {
    const r = JSON.parse(await readFile(agentRunRecordFile(paths, instanceId), 'utf8')) as AgentRunRecord;
    return r && r.instance_id === instanceId ? r : undefined;
  } catch {
    return undefined;
  }
}

export function agentRunRecord(r: SampleAgentRun): AgentRunRecord {
  const cc = r.claudeCode;
  return {
    instance_id: r.instance_id,
    ok: r.ok,
    model: r.model,
    scripted: r.scripted,
    cliVersion: r.cliVersion,
    claudeCode: { status: cc.status, modelTurns: cc.model_turns, toolCalls: cc.tool_calls.length, failedToolCalls: cc.tool_calls.filter((c) => c.is_error).length, apiRetries: cc.api_retries, ...(cc.last_tool ? { lastTool: cc.last_tool } : {}), cause: cc.cause },
    summary: r.summary ?? null,
    reward: r.reward?.reward ?? null,
    resolved: r.reward ? r.reward.resolved : null,
    error: r.error ?? null,
    logFile: r.logFile,
    durationMs: r.durationMs,
    finishedAt: new Date().toISOString(),
  };
}

export async function runValidateAgentJob(o: ValidateAgentJobOptions): Promise<{ run: SampleAgentRun; record: AgentRunRecord }> {
  const emit = jobEmitter<ValidateAgentEvent>(VALIDATE_AGENT_JOB, o.onEvent);
  const provider = await o.openProvider();
  if (provider.name !== 'local') {
    throw new ConsoleError({
      what: `validate agent runs the Claude Code CLI in a local sandbox here; the provider is ${provider.name}`,
      cause: 'on E2B the agent runs behind the sandbox\'s Blackbox Server and needs the model\'s URL',
      fix: `swegym-console validate agent --instance ${o.instanceId} --router URL (E2B), or open the console with --provider local`,
      exitCode: ExitCode.usage,
    });
  }
  const id = o.instanceId;
  emit({ type: 'started', instanceId: id, provider: provider.name, scripted: !o.router, modelLabel: o.router ? redact(o.router) : SCRIPTED_MODEL_LABEL });
  let last = '';
  const run = await runSampleAgent({
    provider,
    paths: o.paths,
    instanceId: id,
    router: o.router,
    apiKey: o.apiKey,
    samplesDir: o.samplesDir,
    env: o.env,
    signal: o.signal,
    onPhase: (phase) => emit({ type: 'phase', instanceId: id, phase }),
    onProgress: (p) => {
      const progress = agentProgressSummary(p);
      // One event per change of what is said: the reader reports every line.
      const said = agentProgressText(progress);
      if (said !== last) emit({ type: 'progress', instanceId: id, progress });
      last = said;
    },
  });
  const record = agentRunRecord(run);
  await writeFileAtomic(agentRunRecordFile(o.paths, id), JSON.stringify(record, null, 2) + '\n');
  emit({ type: 'finished', instanceId: id, record });
  return { run, record };
}
