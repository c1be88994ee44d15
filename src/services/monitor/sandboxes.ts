// The sandboxes panel (recipe reference §7 live sources 2–3): Dressage tags each E2B sandbox with metadata
// trajectory_id (bbs-<uuid> = agent, swegym-eval-<hex> = evaluation) and paddock_mode=blackbox; the template
// alias tells the task. Inside an agent sandbox the Claude Code stream-json log and the tool_summary files show
// progress. Coded against the provider interface (services/sandbox/types.ts).
import { StreamJsonReader, type StreamEventView, type StreamJsonProgress } from '../agent/streamJson.js';
import { StreamJsonCursor } from '../agent/logCursor.js';
import type { Sandbox, SandboxInfo, SandboxProvider } from '../sandbox/types.js';
import type { SandboxSnapshot, SandboxRow } from '../../state/types/monitor.js';
export type { SandboxSnapshot, SandboxRow } from '../../state/types/monitor.js';

export const RUNTIME_ROOT = '/workspace_sandbox/blackbox_server_runtime';

/** The row's word for a bad ending; undefined while it runs and after a success (the last tool call says more). */
export function endingOf(p: StreamJsonProgress | undefined): string | undefined {
  if (!p || p.status === 'running' || p.status === 'success') return undefined;
  if (p.status === 'max_turns') return '✗ max turns';
  if (p.status === 'api_error') return `✗ API error${p.apiErrorStatus !== null ? ` ${p.apiErrorStatus}` : ''}${p.apiRetries.length ? ` after ${p.apiRetries.length} ${p.apiRetries.length === 1 ? 'retry' : 'retries'}` : ''}`;
  return `✗ ${(p.cause ?? 'error').split(' ')[0]}`;
}

export function classifyTrajectory(trajectoryId: string | undefined): SandboxRow['kind'] {
  if (!trajectoryId) return 'other';
  if (trajectoryId.startsWith('bbs-')) return 'agent';
  if (trajectoryId.startsWith('swegym-eval-')) return 'eval';
  return 'other';
}

export function toRows(list: SandboxInfo[], now: number): SandboxRow[] {
  return list
    .map((s) => {
      const started = Date.parse(s.startedAt);
      const end = s.endAt ? Date.parse(s.endAt) : NaN;
      const tid = s.metadata['trajectory_id'] ?? '';
      return {
        id: s.id,
        kind: classifyTrajectory(tid),
        trajectoryId: tid,
        template: s.template,
        startedAt: Number.isFinite(started) ? started : undefined,
        ageMs: Number.isFinite(started) ? Math.max(0, now - started) : undefined,
        endAt: Number.isFinite(end) ? end : undefined,
      };
    })
    .sort((a, b) => (b.ageMs ?? 0) - (a.ageMs ?? 0));
}

/** Lists Dressage's sandboxes (paddock_mode=blackbox). */
export async function listDressageSandboxes(provider: SandboxProvider, opts: { limit: number; clock?: () => number; signal?: AbortSignal }): Promise<SandboxSnapshot> {
  const now = (opts.clock ?? Date.now)();
  try {
    const list = await provider.list({ metadata: { paddock_mode: 'blackbox' }, signal: opts.signal });
    const rows = toRows(list, now);
    return { ok: true, at: now, rows, agents: rows.filter((r) => r.kind === 'agent').length, evals: rows.filter((r) => r.kind === 'eval').length, limit: opts.limit };
  } catch (err) {
    return { ok: false, at: now, rows: [], agents: 0, evals: 0, limit: opts.limit, error: (err as Error).message };
  }
}

// The Claude Code log is read by the one stream-json reader (services/agent/streamJson.ts).
export type { StreamEventView } from '../agent/streamJson.js';
export { summarizeStreamEvent } from '../agent/streamJson.js';

export interface SandboxAgentProgress {
  steps: number | undefined;
  lastTool: string | undefined;
  events: StreamEventView[];
  error?: string;
  /** What the log says so far: status, model turns, tool calls, retries, the ending's cause. */
  agent?: StreamJsonProgress;
}

/** Where one sandbox's Claude Code log was read to: its runtime folder and the cursor (offset + folded state). */
export interface AgentLogReadState {
  runtime: string;
  cursor: StreamJsonCursor;
}

/** Bytes asked for per sandbox command (base64 on the way back: 4/3 of it). */
const READ_CHUNK = 1 << 20;

/**
 * Reads steps (tool_summary file count) and the Claude Code log of an agent sandbox (E2B commands, not BBS) from
 * where the last read ended (`state`), up to `maxBytes` new bytes this time: the whole log over a few reads, never
 * a tail window. A newer runtime folder (BBS makes one per binding) or a log shorter than the offset (rewritten)
 * starts the read again from its first byte.
 */
export async function readAgentLogIncrement(
  sandbox: Sandbox,
  opts: { state?: AgentLogReadState; maxBytes?: number; keepViews?: number; signal?: AbortSignal } = {},
): Promise<{ progress: SandboxAgentProgress; state: AgentLogReadState | undefined; caughtUp: boolean }> {
  let state = opts.state;
  let steps: number | undefined;
  let read = 0;
  const max = opts.maxBytes ?? 4 * READ_CHUNK;
  try {
    for (;;) {
      const offset = state?.cursor.offset ?? 0;
      const want = Math.min(READ_CHUNK, Math.max(1, max - read));
      const script = `d=$(ls -dt ${RUNTIME_ROOT}/bbs-* 2>/dev/null | head -n 1); if [ -z "$d" ]; then echo NO_RUNTIME; exit 0; fi; f="$d/logs/claude_code.stdout.log"; echo STEPS=$(ls "$d/logs" 2>/dev/null | grep -c '^tool_summary\\.'); echo "RUNTIME=$d"; echo SIZE=$(stat -c %s "$f" 2>/dev/null || echo -1); o=${offset}; if [ "$d" != ${shellQuote(state?.runtime ?? '')} ] || [ "$(stat -c %s "$f" 2>/dev/null || echo 0)" -lt "$o" ]; then o=0; fi; echo FROM=$o; if [ -f "$f" ]; then tail -c +$((o + 1)) "$f" | head -c ${want} | base64 -w0; fi`;
      const r = await sandbox.run(script, { timeoutMs: 30_000, signal: opts.signal, maxOutputBytes: Math.ceil(want * 1.4) + 4096 });
      if (r.stdout.startsWith('NO_RUNTIME')) return { progress: { steps: 0, lastTool: undefined, events: [], error: 'no Blackbox Server runtime yet' }, state, caughtUp: true };
      const lines = r.stdout.split('\n');
      const field = (k: string) => lines.find((l) => l.startsWith(`${k}=`))?.slice(k.length + 1);
      const stepsText = field('STEPS');
      steps = stepsText !== undefined && /^\d+$/.test(stepsText) ? Number(stepsText) : undefined;
      const runtime = field('RUNTIME') ?? '';
      const from = Number(field('FROM') ?? '0');
      const size = Number(field('SIZE') ?? '-1');
      if (!state || state.runtime !== runtime || from !== state.cursor.offset) state = { runtime, cursor: new StreamJsonCursor({ keepViews: opts.keepViews ?? 500 }) };
      const bodyAt = lines.findIndex((l) => l.startsWith('FROM='));
      const buf = Buffer.from((lines[bodyAt + 1] ?? '').trim(), 'base64');
      state.cursor.feed(buf);
      read += buf.length;
      const caughtUp = size < 0 || state.cursor.offset >= size || buf.length === 0;
      if (caughtUp || read >= max) return { progress: progressOf(state, steps), state, caughtUp };
    }
  } catch (err) {
    return { progress: { ...(state ? progressOf(state, steps) : { steps: undefined, lastTool: undefined, events: [] }), error: (err as Error).message }, state, caughtUp: false };
  }
}

function progressOf(state: AgentLogReadState, steps: number | undefined): SandboxAgentProgress {
  const agent = state.cursor.progress();
  const last = agent.toolCalls.at(-1);
  return { steps, lastTool: last ? `${last.name}(${last.arg.slice(0, 80)})` : undefined, events: state.cursor.reader.views.slice(-500), agent };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Reads steps (tool_summary file count) and the whole Claude Code log of an agent sandbox, once. */
export async function readAgentProgress(sandbox: Sandbox, opts: { maxBytes?: number; signal?: AbortSignal } = {}): Promise<SandboxAgentProgress> {
  return (await readAgentLogIncrement(sandbox, { maxBytes: opts.maxBytes ?? 64 << 20, signal: opts.signal })).progress;
}

export function parseAgentProgress(stdout: string): SandboxAgentProgress {
  if (stdout.startsWith('NO_RUNTIME')) return { steps: 0, lastTool: undefined, events: [], error: 'no Blackbox Server runtime yet' };
  const nl = stdout.indexOf('\n');
  const m = /^STEPS=(\d+)/.exec(nl < 0 ? stdout : stdout.slice(0, nl));
  // The first log line may be cut by `tail -c`.
  const reader = new StreamJsonReader({ cutStart: true, keepViews: 500 }).push(nl < 0 ? '' : stdout.slice(nl + 1));
  const agent = reader.progress();
  const last = agent.toolCalls.at(-1);
  return { steps: m ? Number(m[1]) : undefined, lastTool: last ? `${last.name}(${last.arg.slice(0, 80)})` : undefined, events: reader.views.slice(-500), agent };
}
