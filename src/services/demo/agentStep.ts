// The real Claude Code CLI on a SAMPLE task (local provider): `validate agent --provider local` and the demo's
// agent step. The model is SCRIPTED unless a URL is given: the task's gold patch replayed as tool calls (labelled
// everywhere as a replay, never as a model). Claude Code, its tools, the sandbox, patch extraction and grading are
// real. The log is kept in the workspace (.swegym-console/agent-runs/<instance>/claude_code.stdout.log) so that
// `swegym-console agent-log` reads it afterwards.
import { ConsoleError, ExitCode } from '../errors.js';
import type { RecipePaths } from '../workspace/paths.js';
import { writeFileAtomic } from '../workspace/atomic.js';
import type { SandboxProvider } from '../sandbox/types.js';
import { readRows } from '../convert/jsonlRows.js';
import { findClaudeCodeCli, runClaudeCodeLocally, type LocalAgentResult, type ModelSource } from './localAgent.js';
import { replaySolution } from '../agent/replay.js';
import type { StreamJsonProgress } from '../agent/streamJson.js';
import { findSamplesDir, readManifest } from './samples.js';
import { agentRunLogFile } from '../validate/agentRecord.js';
import { TASK_WORKDIR } from '../recipe.js';

export const SCRIPTED_MODEL_LABEL = 'SCRIPTED model: a replay of the task\'s gold patch as tool calls (not a language model)';

export interface SampleAgentOptions {
  provider: SandboxProvider;
  paths: RecipePaths;
  instanceId: string;
  /** An Anthropic-compatible endpoint instead of the scripted replay. */
  router?: string;
  apiKey?: string;
  samplesDir?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onPhase?: (phase: string) => void;
  onProgress?: (p: StreamJsonProgress) => void;
}

export interface SampleAgentRun extends LocalAgentResult {
  cliVersion: string;
  logFile: string;
}

export { agentRunLogFile } from '../validate/agentRecord.js';

export async function runSampleAgent(o: SampleAgentOptions): Promise<SampleAgentRun> {
  const cli = findClaudeCodeCli(o.env);
  if (!cli.ok) throw new ConsoleError({ what: 'the real Claude Code CLI is needed to run the agent locally', cause: cli.reason, fix: cli.fix, exitCode: ExitCode.precondition });
  const [row] = await readRows(o.paths.trainJsonl, { ids: [o.instanceId] });
  if (!row) throw new ConsoleError({ what: `instance ${o.instanceId} is not in ${o.paths.trainJsonl}`, fix: 'run swegym-console demo to build the sample workspace, or pick an instance of its JSONL', exitCode: ExitCode.usage });
  let model: ModelSource;
  if (o.router) model = { kind: 'url', url: o.router, apiKey: o.apiKey };
  else {
    const dir = o.samplesDir ?? findSamplesDir();
    const inst = dir ? (await readManifest(dir)).find((i) => i.instance_id === o.instanceId) : undefined;
    if (!inst) {
      throw new ConsoleError({
        what: `no scripted model for ${o.instanceId}`,
        cause: 'the scripted replay exists only for the sample tasks (samples/tasks), whose solutions ship with the console',
        fix: 'pass --router URL (an Anthropic-compatible endpoint: a Dressage proxy, a vLLM/SGLang server)',
        exitCode: ExitCode.usage,
      });
    }
    model = { kind: 'scripted', steps: replaySolution(inst.patch, { workdir: row.metadata.workdir || TASK_WORKDIR, testCommand: inst.local.test_command }), label: `replay of the gold patch of ${inst.instance_id}` };
  }
  const r = await runClaudeCodeLocally({ provider: o.provider, row, cli: cli.path, model, signal: o.signal, onPhase: o.onPhase, onProgress: o.onProgress });
  const logFile = agentRunLogFile(o.paths, o.instanceId);
  if (r.log) await writeFileAtomic(logFile, r.log);
  return { ...r, cliVersion: cli.version, logFile };
}
