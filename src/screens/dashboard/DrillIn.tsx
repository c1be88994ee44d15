// The dashboard's drill-ins (Enter on a row): a rollout, a task, a trajectory, the GPUs, and an agent sandbox's
// Claude Code log, which grows while it runs. Lines are wrapped, never cut. The view scrolls (↑↓ PgUp PgDn g G)
// and, while it follows (`f`, `G` / `End`, or scrolling to the bottom), stays on the newest line as the log grows.
import React from 'react';
import { Box } from 'ink';
import type { MonitorSnapshot, MonitorState, MonitorStore } from '../../state/monitor.js';
import { T, type Tone } from '../../ui/theme.js';
import { Lines, type Line } from '../../ui/Lines.js';
import { fmtNum } from '../../ui/charts.js';
import { padEnd, truncate, wrapText } from '../../ui/text.js';
import { groupHistogramText } from './Curves.js';
import { gpuDetailLines } from '../dashboardGpus.js';
import { feedRows, pct, selectedIndex, taskRows, type PanelName } from './panelRows.js';

/** A trajectory's lines: how it ended, its messages and tool calls, its patch (the Trajectories drill-in and a finished sandbox). */
function trajectoryLines(v: NonNullable<MonitorSnapshot['trajectory']>, push: (text: string, tone?: Tone) => void): void {
  push(`${v.entry.kind === 'error' ? 'Aborted sample' : 'Trajectory'} ${v.entry.instance} / ${v.entry.session}`, 'accent');
  if (v.error) push(`error: ${v.error.type ?? ''} ${v.error.summary ?? v.error.message ?? ''}${v.error.httpStatus ? ` (HTTP ${v.error.httpStatus})` : ''}`, 'fail');
  if (v.reward !== undefined && v.entry.kind === 'payload') push(`reward ${v.reward} · marker ${v.marker ? JSON.stringify({ resolved: v.marker['resolved'], f2p: `${v.marker['fail_to_pass_success']}/${v.marker['fail_to_pass_total']}`, p2p: `${v.marker['pass_to_pass_success']}/${v.marker['pass_to_pass_total']}`, failure_reason: v.marker['failure_reason'] }) : v.markerError}${v.earlyStop ? ` · early stop ${v.earlyStop}` : ''}`, v.reward === 1 ? 'ok' : 'warn');
  for (const iv of v.integrityViolations.slice(0, 10)) push(`integrity: ${JSON.stringify(iv)}`, 'fail');
  for (const p of v.problems) push(`problem: ${p}`, 'warn');
  push('');
  for (const m of v.messages) {
    push(`[${m.role}] ${m.text.replace(/\s+/g, ' ')}`, m.role === 'assistant' ? 'plain' : 'dim');
    for (const c of m.toolCalls) push(`    → ${c.name} ${c.args.replace(/\s+/g, ' ')}`, 'info');
  }
  if (v.patch) {
    push('');
    push('patch:', 'accent');
    for (const l of v.patch.split('\n').slice(0, 400)) push(`  ${l}`, l.startsWith('+') ? 'ok' : l.startsWith('-') ? 'fail' : 'plain');
  }
}

function sandboxLines(s: MonitorSnapshot, ui: MonitorState, push: (text: string, tone?: Tone) => void): void {
  const st = s.sandboxStream;
  if (!st) {
    push('opening the sandbox…', 'dim');
    return;
  }
  // The newest list's row, else the row as drawn when Enter was pressed (the sandbox may have ended since).
  const row = s.sandboxes?.rows.find((r) => r.id === st.id) ?? (ui.drillRow?.id === st.id ? ui.drillRow : undefined);
  const tid = row?.trajectoryId ?? st.trajectoryId;
  if (st.transcript) {
    push(`Sandbox ${st.id}${tid ? ` · ${tid}` : ''} · finished: the sandbox is gone; its transcript from the trajectory files`, 'accent');
    trajectoryLines(st.transcript, push);
    return;
  }
  // A sandbox that ended keeps the log read while it ran (its trajectory files replace it once listed).
  const ended = st.error && st.events.length > 0;
  push(`Sandbox ${st.id}${row ? ` · ${row.template}` : ''}${tid ? ` · ${tid}` : ''} · steps ${ended ? '' : 'so far '}${st.steps ?? '?'}${st.error ? ` · ${st.error}` : ''}${ended ? ' · the log as last read' : st.error ? ' · its transcript shows once Dressage writes its trajectory files' : ' (Claude Code stream-json, refreshed every few seconds)'}`, 'accent');
  const a = st.agent;
  if (a) {
    const retries = a.apiRetries ? ` · API retries so far ${a.apiRetries}${a.lastRetryStatus !== undefined ? ` (last: ${a.lastRetryStatus ?? 'no response'})` : ''}` : '';
    const denials = a.permissionDenials ? ` · permission denials ${a.permissionDenials}` : '';
    // Symbols as well as colours: without colour (NO_COLOR) the symbol carries the tone.
    if (a.status === 'running') push(`${a.apiRetries ? '!' : '·'} Claude Code ${ended ? 'was running when last read' : 'running'}${retries}${denials}`, a.apiRetries ? 'warn' : 'plain');
    else if (a.status === 'success') push(`✓ Claude Code finished: success${retries}${denials}`, 'ok');
    else push(`✗ Claude Code ended: ${a.cause ?? a.status}${denials}`, 'fail');
    // The counts agent-log prints for the same log, read whole (not a tail window); the calls themselves scroll below.
    if (a.counts) push(`  ${a.counts}${a.results && a.results > 1 ? ` · ${a.results} results` : ''}${a.openTasks ? ` · ${a.openTasks} background task(s) open` : ''}`, 'dim');
  }
  if (st.usage) push(`  E2B: ${st.usage}`, /out of memory/.test(st.usage) ? 'warn' : 'dim');
  if (st.ending) push(`  ${st.ending}`, /before its timeout/.test(st.ending) ? 'warn' : 'dim');
  if (st.error && st.events.length === 0 && row?.kind === 'agent') {
    push(`The sandbox ended before its log was read. Its row last showed: ${row.steps ?? '?'}/80 steps · ${row.ending ?? `last tool ${row.lastTool ?? '–'}`}`, 'dim');
  }
  for (const e of st.events.slice(-300)) {
    const mark = e.tone === 'error' ? '✗' : e.tone === 'warn' ? '!' : ' ';
    push(`${mark} ${padEnd(e.type, 11)} ${e.text}`, e.tone === 'error' ? 'fail' : e.tone === 'warn' ? 'warn' : e.tone === 'ok' ? 'ok' : e.type === 'tool_result' ? 'dim' : 'plain');
  }
}

/**
 * The drill-in's text for the focused panel, wrapped to `w` columns: `pinned` stays on top (what the view is and how
 * it is going), `body` scrolls.
 */
export function drillLines(s: MonitorSnapshot, ui: MonitorState, panel: PanelName, w: number): { pinned: Line[]; body: Line[] } {
  const raw = drillText(s, ui, panel, w);
  // A sandbox's identity and its agent's state stay in view while its log scrolls; elsewhere the title line.
  const pinnedCount = panel === 'sandboxes' && s.sandboxStream && !s.sandboxStream.transcript && s.sandboxStream.agent ? (s.sandboxStream.agent.counts ? 3 : 2) : 1;
  return { pinned: wrapLines(raw.slice(0, pinnedCount), w), body: wrapLines(raw.slice(pinnedCount), w) };
}

function drillText(s: MonitorSnapshot, ui: MonitorState, panel: PanelName, w: number): Line[] {
  const out: Line[] = [];
  const push = (text: string, tone?: Tone) => out.push({ text, tone });
  if (panel === 'rollouts') {
    // The rollout opened, unless `f` made the view follow the newest one.
    const r = ui.drillFollow ? s.rollouts[s.rollouts.length - 1] : ui.drillKey !== undefined ? s.rollouts.find((x) => String(x.rollout) === ui.drillKey) : s.rollouts[selectedIndex(ui, s, 'rollouts')];
    if (!r) return [{ text: ui.drillKey !== undefined ? `rollout ${ui.drillKey} is no longer in the table` : 'no rollout selected', tone: 'dim' }];
    push(`Rollout ${r.rollout}: ${r.samples} samples, solved ${pct(r.resolved)}, trajectory mean ${fmtNum(r.rawTrajMean)}${ui.drillFollow ? ' · following the newest rollout' : ''}`, 'accent');
    push(`zero-std groups ${r.zeroStd} · failed groups ${r.failedGroups} · aborted samples ${r.aborted} · early stops ${r.earlyStops}`);
    push(`failure reasons: ${r.topReasons || '(none)'}`);
    for (const l of groupHistogramText(r.groups, w)) push(l.text, l.tone);
    push('');
    push('failures logged during this rollout:', 'dim');
    for (const f of s.failures.filter((x) => x.rollout === r.rollout).slice(-50)) push(`  ${f.kind}: ${f.text}`, 'warn');
  } else if (panel === 'samples' || panel === 'tasks') {
    const inst = ui.drillKey ?? (panel === 'samples' ? feedRows(s, ui.filter)[selectedIndex(ui, s, 'samples')]?.instance : taskRows(s, ui.filter)[selectedIndex(ui, s, 'tasks')]?.instance);
    if (!inst) return [{ text: 'nothing selected', tone: 'dim' }];
    const t = s.tasks.rows.find((x) => x.instance === inst);
    push(`Task ${inst}`, 'accent');
    push(t ? `solved ${t.solved}/${t.attempts} across rollouts · history (oldest→newest, █ all solved, ▄ some, · none): ${t.recent}` : 'no finished rollout includes this task yet');
    push('');
    push('recent samples of this task:', 'dim');
    for (const f of s.feed.filter((x) => x.instance === inst).slice(-40)) push(`  r${f.rollout} reward=${f.reward} raw=${f.raw} integrity=${f.integrity} f2p=${f.f2p} p2p=${f.p2p} ${f.reason}`, f.reward === 1 ? 'ok' : 'plain');
    const traj = s.trajectories.filter((x) => x.instance === inst).length;
    if (traj) push(`${traj} trajectory file(s) — see the Trajectories panel (filter /${inst})`, 'dim');
  } else if (panel === 'sandboxes') {
    sandboxLines(s, ui, push);
  } else if (panel === 'trajectories') {
    const v = s.trajectory;
    if (!v) return [{ text: 'loading the trajectory…', tone: 'dim' }];
    trajectoryLines(v, push);
  } else if (panel === 'gpus') {
    for (const l of gpuDetailLines(s)) push(l.text, l.tone);
  }
  return out;
}

/** Continuation lines of a wrapped line are indented by two, so where a line starts stays visible. */
function wrapLines(lines: readonly Line[], w: number): Line[] {
  const wrapped: Line[] = [];
  for (const l of lines) {
    const parts = wrapText(l.text, w);
    parts.forEach((p, i) => {
      if (i === 0) wrapped.push({ ...l, text: p });
      else for (const q of wrapText(p, w - 2)) wrapped.push({ ...l, text: `  ${q}` });
    });
  }
  return wrapped;
}

/** Lines and rows of the drill-in as last drawn, so that keys can page and find the bottom. */
const geometry = new WeakMap<MonitorStore, { total: number; rows: number }>();

export function drillRows(height: number): number {
  return Math.max(1, height - 1);
}

/** The first line shown: the end while following, else the scroll offset, never past the end. */
export function drillOffset(ui: Pick<MonitorState, 'selected' | 'detailTail'>, total: number, rows: number): number {
  const max = Math.max(0, total - rows);
  return ui.detailTail ? max : Math.min(max, Math.max(0, ui.selected['detail'] ?? 0));
}

/** Scrolls the drill-in by `delta` lines (±Infinity: top / bottom); reaching the bottom follows again. */
export function scrollDrill(store: MonitorStore, delta: number): void {
  const st = store.getState();
  const g = geometry.get(store) ?? { total: 0, rows: 1 };
  const max = Math.max(0, g.total - g.rows);
  const cur = drillOffset(st, g.total, g.rows);
  const next = delta === Infinity ? max : delta === -Infinity ? 0 : Math.max(0, Math.min(max, cur + delta));
  st.set({ selected: { ...st.selected, detail: next }, detailTail: next >= max && delta > 0 });
}

export function drillPage(store: MonitorStore): number {
  return Math.max(1, (geometry.get(store)?.rows ?? 10) - 1);
}

export function DrillIn({ store, s, ui, panel, width, height }: { store: MonitorStore; s: MonitorSnapshot; ui: MonitorState; panel: PanelName; width: number; height: number }) {
  const { pinned: top, body: lines } = drillLines(s, ui, panel, width);
  const pinned = top.slice(0, Math.max(0, height - 2));
  const rows = drillRows(height - pinned.length);
  geometry.set(store, { total: lines.length, rows });
  const off = drillOffset(ui, lines.length, rows);
  const end = Math.min(lines.length, off + rows);
  const follow = panel === 'sandboxes' ? ` · f follow ${ui.detailTail ? 'on' : 'off'}` : panel === 'rollouts' ? ` · f follow the newest rollout ${ui.drillFollow ? 'on' : 'off'}` : '';
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Lines lines={pinned} width={width} height={pinned.length} />
      <Lines lines={lines} width={width} height={rows} scroll={off} />
      <T tone="dim">{truncate(`Esc back · ↑↓ PgUp PgDn g G scroll${follow} · lines ${lines.length ? off + 1 : 0}–${end} of ${lines.length}`, width)}</T>
    </Box>
  );
}
