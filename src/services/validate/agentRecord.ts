// What a `validate agent` run says and leaves, shared by its job (services/demo/agentJob.ts), the CLI and the
// Validate screen: the progress line from the stream-json reader's counts (agent-log's), the graded result in one
// line, and the run's record, kept beside its Claude Code log so the screen shows it after the run and after a
// restart.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { RecipePaths } from '../workspace/paths.js';
import type { StreamJsonProgress } from '../agent/streamJson.js';
import type { AgentProgressSummary, AgentRunRecord } from '../../state/types/validate.js';
import { count } from '../util/format.js';

export type { AgentProgressSummary, AgentRunRecord, ValidateAgentEvent } from '../../state/types/validate.js';

/** The agent-run log file of an instance in the workspace. */
export function agentRunLogFile(paths: RecipePaths, instanceId: string): string {
  return path.join(paths.consoleDir, 'agent-runs', instanceId.replace(/[^A-Za-z0-9._-]/g, '_'), 'claude_code.stdout.log');
}

/** The counts of one reading of Claude Code's log. */
export function agentProgressSummary(p: StreamJsonProgress): AgentProgressSummary {
  return { status: p.status, modelTurns: p.modelTurns, toolCalls: p.toolCalls.length, failedToolCalls: p.toolCalls.filter((c) => c.is_error).length, apiRetries: p.apiRetries.length, ...(p.lastTool ? { lastTool: p.lastTool } : {}) };
}

/** The progress line both faces say: `Claude Code running: 3 model turns, 4 tool calls, last: Edit calc.py`. */
export function agentProgressText(p: AgentProgressSummary): string {
  return `Claude Code ${p.status}: ${count(p.modelTurns, 'model turn')}, ${count(p.toolCalls, 'tool call')}${p.failedToolCalls ? ` (${p.failedToolCalls} failed)` : ''}${p.apiRetries ? `, ${count(p.apiRetries, 'API retry', 'API retries')}` : ''}${p.lastTool ? `, last: ${p.lastTool}` : ''}`;
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
