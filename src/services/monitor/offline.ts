// Offline view of a run directory (recipe reference §7): the trajectory files Dressage writes after each sample.
//   traj_payload/<RUN_NAME>/<instance_id>/<session_id>/session.json + samples/<segment_index>.json  (success)
//   traj_err/<RUN_NAME>/<instance_id>/<session_id>/error.json                                    (aborted sample)
// The sample file is usually written before slime runs the reward, so unless it holds Dressage's stored verdict
// (metadata.swegym_reward) the reward is recomputed from the marker in metadata.execute_cmds and the integrity flags
// by marker/sampleReward.ts, the parser tested side by side with reward.py.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { MonitorTarget } from './resolve.js';
import type { RunModel } from './runModel.js';
import { redact } from '../secrets.js';
import { TrajectoryIndex } from './trajIndex.js';
import { markerOfMetadata, sampleReward } from '../marker/sampleReward.js';
import type { TrajectoryEntry, TrajectoryView, MessageView } from '../../state/types/monitor.js';
export type { TrajectoryEntry, TrajectoryView, MessageView, ToolCallView } from '../../state/types/monitor.js';

export { MARKER_PREFIX as MARKER } from '../marker/marker.js';

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

/** The reward marker in execute_cmds, read as the reward function reads it (the one tested parser, marker/). */
export function findMarker(executeCmds: unknown): { marker?: Record<string, unknown>; error?: string } {
  const parse = markerOfMetadata({ execute_cmds: executeCmds });
  return parse.ok ? { marker: parse.payload } : { error: parse.reason };
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
    // Dressage's stored verdict when the reward has run, else its rule over the marker and the integrity flags.
    const judged = sampleReward(md && typeof md === 'object' ? md : {});
    view.marker = judged.marker;
    view.markerError = judged.markerError;
    const patch = findPatch(md.execute_cmds);
    view.patch = patch === undefined ? undefined : redact(patch);
    view.evalInfo = md.swegym_eval && typeof md.swegym_eval === 'object' ? md.swegym_eval : undefined;
    const integ = md.swegym_integrity;
    view.integrityViolations = Array.isArray(integ?.violations) ? integ.violations : [];
    view.earlyStop = md.blackbox_agent_early_stop ? String(md.blackbox_agent_early_stop_kind ?? 'early stop') : undefined;
    view.reward = judged.reward;
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
