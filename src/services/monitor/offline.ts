// Offline view of a run directory (recipe reference §7): the trajectory files Dressage writes after each sample.
//   traj_payload/<RUN_NAME>/<instance_id>/<session_id>/session.json + samples/<segment_index>.json  (success)
//   traj_err/<RUN_NAME>/<instance_id>/<session_id>/error.json                                    (aborted sample)
// The sample file is written before slime runs the reward, so the reward is recomputed here from the marker in
// metadata.execute_cmds and the integrity flags, exactly as the reward function does.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { MonitorTarget } from './resolve.js';
import type { RunModel } from './model.js';
import { redact } from '../secrets.js';
import { TrajectoryIndex } from './trajIndex.js';

export const MARKER = 'DRESSAGE_SWEGYM_REWARD_JSON=';

export interface TrajectoryEntry {
  instance: string;
  session: string;
  kind: 'payload' | 'error';
  /** Directory of the session (payload) or the error.json path's directory. */
  dir: string;
  mtimeMs: number;
}

export interface ToolCallView {
  name: string;
  args: string;
}

export interface MessageView {
  role: string;
  text: string;
  toolCalls: ToolCallView[];
}

export interface TrajectoryView {
  entry: TrajectoryEntry;
  messages: MessageView[];
  patch: string | undefined;
  marker: Record<string, unknown> | undefined;
  markerError: string | undefined;
  reward: number | undefined;
  integrityViolations: Record<string, unknown>[];
  earlyStop: string | undefined;
  error: { type?: string; message?: string; summary?: string; httpStatus?: number } | undefined;
  evalInfo: Record<string, unknown> | undefined;
  /** Problems reading the files (missing, bad JSON). */
  problems: string[];
}

/** Lists trajectories, newest first, keeping the newest `limit` (one listing; TrajectoryIndex keeps one current). */
export async function listTrajectories(runDir: string, runName: string | undefined, limit = 20_000): Promise<TrajectoryEntry[]> {
  return new TrajectoryIndex(runDir, runName).refresh(limit);
}

async function readJson(file: string, problems: string[]): Promise<any> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    problems.push(`${path.basename(file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    problems.push(`${path.basename(file)}: not valid JSON (${(err as Error).message})`);
    return undefined;
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((c) => (typeof c === 'string' ? c : c && typeof c === 'object' && typeof (c as any).text === 'string' ? (c as any).text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

export function messageViews(messages: unknown): MessageView[] {
  if (!Array.isArray(messages)) return [];
  return messages.map((m: any) => ({
    role: typeof m?.role === 'string' ? m.role : '?',
    text: redact(contentText(m?.content)),
    toolCalls: Array.isArray(m?.tool_calls)
      ? m.tool_calls.map((t: any) => ({
          name: String(t?.function?.name ?? t?.name ?? '?'),
          args: redact(typeof t?.function?.arguments === 'string' ? t.function.arguments : JSON.stringify(t?.function?.arguments ?? t?.input ?? '')),
        }))
      : [],
  }));
}

/** Finds the reward marker in execute_cmds (stage after_agent, name swegym_harness), as the reward function does. */
export function findMarker(executeCmds: unknown): { marker?: Record<string, unknown>; error?: string } {
  if (!Array.isArray(executeCmds)) return { error: 'missing_reward_marker' };
  for (const rec of executeCmds as any[]) {
    if (rec?.stage !== 'after_agent' || rec?.name !== 'swegym_harness') continue;
    const r = rec.cmd_result ?? {};
    for (const stream of [r.stdout, r.stderr]) {
      if (typeof stream !== 'string') continue;
      for (const line of stream.split('\n')) {
        const t = line.trim();
        if (!t.startsWith(MARKER)) continue;
        try {
          const v = JSON.parse(t.slice(MARKER.length));
          if (v && typeof v === 'object') return { marker: v as Record<string, unknown> };
        } catch {
          return { error: 'invalid_reward_marker' };
        }
      }
    }
  }
  return { error: 'missing_reward_marker' };
}

function findPatch(executeCmds: unknown): string | undefined {
  if (!Array.isArray(executeCmds)) return undefined;
  for (const rec of executeCmds as any[]) {
    const cmd = typeof rec?.cmd === 'string' ? rec.cmd : '';
    if (cmd.includes('git diff --cached') && typeof rec?.cmd_result?.stdout === 'string') return rec.cmd_result.stdout;
  }
  return undefined;
}

export async function loadTrajectory(entry: TrajectoryEntry): Promise<TrajectoryView> {
  const problems: string[] = [];
  const view: TrajectoryView = {
    entry,
    messages: [],
    patch: undefined,
    marker: undefined,
    markerError: undefined,
    reward: undefined,
    integrityViolations: [],
    earlyStop: undefined,
    error: undefined,
    evalInfo: undefined,
    problems,
  };
  if (entry.kind === 'error') {
    const e = await readJson(path.join(entry.dir, 'error.json'), problems);
    if (e) {
      view.error = {
        type: e.error?.type,
        message: typeof e.error?.message === 'string' ? redact(e.error.message) : undefined,
        summary: typeof e.error?.summary === 'string' ? redact(e.error.summary) : undefined,
        httpStatus: typeof e.http?.response?.status_code === 'number' ? e.http.response.status_code : undefined,
      };
      const md = e.sample?.metadata ?? {};
      view.messages = messageViews(md.messages ?? e.agent_response?.outputs);
      view.reward = 0;
    }
    return view;
  }
  const session = await readJson(path.join(entry.dir, 'session.json'), problems);
  const segments: any[] = Array.isArray(session?.data) ? session.data : [];
  const lastSeg = segments[segments.length - 1];
  view.messages = messageViews(lastSeg?.messages);
  // Sample metadata: the anchor (last) segment file.
  let names: string[] = [];
  try {
    names = (await readdir(path.join(entry.dir, 'samples'))).filter((n) => /^\d+\.json$/.test(n));
  } catch {}
  names.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  const last = names[names.length - 1];
  if (last) {
    const sample = await readJson(path.join(entry.dir, 'samples', last), problems);
    const md = sample?.metadata ?? {};
    if (!view.messages.length) view.messages = messageViews(md.messages);
    const { marker, error } = findMarker(md.execute_cmds);
    view.marker = marker;
    view.markerError = error;
    const patch = findPatch(md.execute_cmds);
    view.patch = patch === undefined ? undefined : redact(patch);
    view.evalInfo = md.swegym_eval && typeof md.swegym_eval === 'object' ? md.swegym_eval : undefined;
    const integ = md.swegym_integrity;
    view.integrityViolations = Array.isArray(integ?.violations) ? integ.violations : [];
    view.earlyStop = md.blackbox_agent_early_stop ? String(md.blackbox_agent_early_stop_kind ?? 'early stop') : undefined;
    const invalid = Boolean(md.swegym_invalid_tool_call) || Boolean(md.swegym_invalid_pytest_write);
    view.reward = marker?.['resolved'] === true && !invalid ? 1 : 0;
  } else {
    problems.push('samples/: no sample file');
  }
  return view;
}

export interface OfflineSummary {
  model: RunModel;
  trajectories: number;
  errors: number;
  tasks: number;
  entries: TrajectoryEntry[];
}

/** Lists the trajectory files of a run directory (for a run without a log, and for the browser). */
export async function summarizeOffline(target: MonitorTarget, model: RunModel): Promise<OfflineSummary> {
  const entries = target.runDir ? await listTrajectories(target.runDir, target.runName) : [];
  const tasks = new Set(entries.map((e) => e.instance));
  return { model, trajectories: entries.filter((e) => e.kind === 'payload').length, errors: entries.filter((e) => e.kind === 'error').length, tasks: tasks.size, entries };
}
