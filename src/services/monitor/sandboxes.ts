// The sandboxes panel (recipe reference §7 live sources 2–3): Dressage tags each E2B sandbox with metadata
// trajectory_id (bbs-<uuid> = agent, swegym-eval-<hex> = evaluation) and paddock_mode=blackbox; the template
// alias tells the task. Inside an agent sandbox the Claude Code stream-json log and the tool_summary files show
// progress. Coded against the provider interface (services/sandbox/types.ts).
import type { Sandbox, SandboxInfo, SandboxProvider } from '../sandbox/types.js';

export const RUNTIME_ROOT = '/workspace_sandbox/blackbox_server_runtime';

export interface SandboxRow {
  id: string;
  kind: 'agent' | 'eval' | 'other';
  trajectoryId: string;
  template: string;
  startedAt: number | undefined;
  ageMs: number | undefined;
  endAt: number | undefined;
  /** Filled by `readAgentProgress` when asked (drill-in or a slow refresh). */
  steps?: number;
  lastTool?: string;
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

export interface SandboxSnapshot {
  ok: boolean;
  at: number;
  rows: SandboxRow[];
  agents: number;
  evals: number;
  /** Concurrent sandboxes vs the plan's limit (E2B Hobby 20, Pro 100 by default). */
  limit: number;
  error?: string;
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

export interface StreamEventView {
  type: string;
  text: string;
  /** Tool calls of an assistant event, as `Name(short input)`. */
  tools?: string[];
}

/** One line of Claude Code's `--output-format stream-json` log, summarised; undefined when not JSON. */
export function summarizeStreamEvent(line: string): StreamEventView | undefined {
  let e: any;
  try {
    e = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!e || typeof e !== 'object') return undefined;
  const type = String(e.type ?? '?');
  if (type === 'assistant') {
    const blocks: any[] = Array.isArray(e.message?.content) ? e.message.content : [];
    const tools: string[] = [];
    const parts = blocks.map((b) => {
      if (b?.type === 'tool_use') {
        const t = `${b.name}(${shortInput(b.input)})`;
        tools.push(t);
        return t;
      }
      if (b?.type === 'text') return String(b.text ?? '').replace(/\s+/g, ' ');
      if (b?.type === 'thinking') return '(thinking)';
      return '';
    });
    return { type, text: parts.filter(Boolean).join(' · '), tools };
  }
  if (type === 'user') {
    const blocks: any[] = Array.isArray(e.message?.content) ? e.message.content : [];
    const r = blocks.find((b) => b?.type === 'tool_result');
    if (r) {
      const content = typeof r.content === 'string' ? r.content : Array.isArray(r.content) ? r.content.map((c: any) => c?.text ?? '').join(' ') : '';
      return { type: 'tool_result', text: `${r.is_error ? 'error: ' : ''}${content.replace(/\s+/g, ' ').slice(0, 200)}` };
    }
    return { type, text: '' };
  }
  if (type === 'result') return { type, text: `num_turns=${e.num_turns ?? '?'} is_error=${e.is_error ?? '?'} ${e.subtype ?? ''}`.trim() };
  if (type === 'system') return { type, text: String(e.subtype ?? '') };
  return { type, text: '' };
}

function shortInput(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const o = input as Record<string, unknown>;
  // Grep and Glob: the pattern says more than the folder searched.
  const v = o['command'] ?? o['file_path'] ?? o['pattern'] ?? o['path'] ?? Object.values(o)[0];
  return String(v ?? '').replace(/\s+/g, ' ').slice(0, 80);
}

export interface AgentProgress {
  steps: number | undefined;
  lastTool: string | undefined;
  events: StreamEventView[];
  error?: string;
}

/** Reads steps (tool_summary file count) and the tail of the Claude Code log in an agent sandbox (E2B commands, not BBS). */
export async function readAgentProgress(sandbox: Sandbox, opts: { tailBytes?: number; signal?: AbortSignal } = {}): Promise<AgentProgress> {
  const tail = opts.tailBytes ?? 65536;
  const script = `d=$(ls -dt ${RUNTIME_ROOT}/bbs-* 2>/dev/null | head -n 1); if [ -z "$d" ]; then echo NO_RUNTIME; exit 0; fi; echo STEPS=$(ls "$d/logs" 2>/dev/null | grep -c '^tool_summary\\.'); tail -c ${tail} "$d/logs/claude_code.stdout.log" 2>/dev/null`;
  try {
    const r = await sandbox.run(script, { timeoutMs: 15_000, signal: opts.signal, maxOutputBytes: tail + 4096 });
    return parseAgentProgress(r.stdout);
  } catch (err) {
    return { steps: undefined, lastTool: undefined, events: [], error: (err as Error).message };
  }
}

export function parseAgentProgress(stdout: string): AgentProgress {
  if (stdout.startsWith('NO_RUNTIME')) return { steps: 0, lastTool: undefined, events: [], error: 'no Blackbox Server runtime yet' };
  const lines = stdout.split('\n');
  const m = /^STEPS=(\d+)/.exec(lines[0] ?? '');
  const events: StreamEventView[] = [];
  let lastTool: string | undefined;
  // The first log line may be cut by `tail -c`; summarizeStreamEvent skips it.
  for (const l of lines.slice(1)) {
    const ev = summarizeStreamEvent(l);
    if (!ev) continue;
    events.push(ev);
    if (ev.tools?.length) lastTool = ev.tools[ev.tools.length - 1];
  }
  return { steps: m ? Number(m[1]) : undefined, lastTool, events: events.slice(-500) };
}
