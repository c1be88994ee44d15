// The `validate agent` job on the local provider, written once for both faces: `validate agent --provider local`
// prints its events, the Validate screen's controller (and the demo inside the console) puts them in the validate
// store. The composition root hands the job to the controller (validate does not import demo: demo imports
// validate). The real Claude Code CLI runs in a local sandbox of the task (agentStep.ts); its progress is the
// stream-json reader's (agent-log's counts); the graded result is kept beside its log (validate/agentRecord.ts).
import type { RecipePaths } from '../workspace/paths.js';
import type { SandboxProvider } from '../sandbox/types.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { redact } from '../secrets.js';
import { writeFileAtomic } from '../workspace/atomic.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import type { AgentRunRecord, ValidateAgentEvent } from '../../state/types/validate.js';
import { agentProgressSummary, agentProgressText, agentRunRecordFile } from '../validate/agentRecord.js';
import { runSampleAgent, SCRIPTED_MODEL_LABEL, type SampleAgentRun } from './agentStep.js';

export type { ValidateAgentEvent } from '../../state/types/validate.js';

export const VALIDATE_AGENT_JOB = 'validate agent';

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
