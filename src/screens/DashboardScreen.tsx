// The run dashboard (hotkey 7): header (run, phase, rollout i/N, samples this rollout, elapsed, ETA, checkpoint),
// alerts, charts, rollout table, live sample feed, sandboxes, GPUs + proxy, per-task history and the trajectory
// browser. Data comes from the monitor store (a snapshot published at ≤ 5 Hz); every panel has a fixed height and
// clips. Small terminals get one panel at a time (Tab cycles).
import React, { useEffect } from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import type { AppServices } from './services.js';
import type { MonitorSnapshot, MonitorState } from '../state/monitor.js';
import { useSel } from '../ui/hooks.js';
import { T, type Tone } from '../ui/theme.js';
import { ChartsPanel, CurveDetail, curveBindings, groupHistogramText } from './dashboard/Curves.js';
import { fmtNum } from '../ui/charts.js';
import { padEnd, padStart, truncate, visibleWindow } from '../ui/text.js';
import { formatAge } from '../services/util/format.js';
import { shared, type Binding } from '../ui/keymap.js';
import { Lines, type Line } from '../ui/Lines.js';
import { useTextField } from '../ui/TextField.js';
import { headerLines } from './dashboardHeader.js';
import { gpuDetailLines, gpuPanelLines } from './dashboardGpus.js';

export const PANELS = ['charts', 'rollouts', 'samples', 'sandboxes', 'gpus', 'tasks', 'trajectories'] as const;
export type PanelName = (typeof PANELS)[number];

/** Wide layout needs this much room; below it one panel is shown at a time. */
export const WIDE = { width: 100, height: 26 };

function pct(v: number): string {
  return Number.isFinite(v) ? `${Math.round(v * 100)}%` : '–';
}

// ---- panel contents (pure: snapshot + UI state → lines) ----

function matches(filter: string, ...fields: string[]): boolean {
  if (!filter) return true;
  const f = filter.toLowerCase();
  return fields.some((x) => x.toLowerCase().includes(f));
}

export function feedRows(s: MonitorSnapshot, filter: string) {
  return s.feed.filter((f) => matches(filter, f.instance, f.reason));
}

export function sandboxRows(s: MonitorSnapshot, filter: string) {
  return (s.sandboxes?.rows ?? []).filter((r) => matches(filter, r.template, r.trajectoryId, r.id, r.kind));
}

export function taskRows(s: MonitorSnapshot, filter: string) {
  return s.tasks.rows.filter((t) => matches(filter, t.instance));
}

export function trajRows(s: MonitorSnapshot, filter: string) {
  return s.trajectories.filter((t) => matches(filter, t.instance, t.session, t.kind));
}

function rowCount(s: MonitorSnapshot, panel: PanelName, filter: string): number {
  switch (panel) {
    case 'charts':
      return s.charts.length;
    case 'rollouts':
      return s.rollouts.length;
    case 'samples':
      return feedRows(s, filter).length;
    case 'sandboxes':
      return sandboxRows(s, filter).length;
    case 'gpus':
      return s.gpus.latest.length;
    case 'tasks':
      return taskRows(s, filter).length;
    case 'trajectories':
      return trajRows(s, filter).length;
  }
}

/** The selected row of a panel; panels in follow mode select the newest. */
function selectedIndex(ui: Pick<MonitorState, 'selected' | 'follow' | 'filter'>, s: MonitorSnapshot, panel: PanelName): number {
  const n = rowCount(s, panel, ui.filter);
  if (n === 0) return 0;
  if (ui.follow && (panel === 'samples' || panel === 'rollouts')) return n - 1;
  return Math.min(n - 1, ui.selected[panel] ?? 0);
}

function title(name: string, focused: boolean, extra: string): Line {
  return { text: `${focused ? '▸ ' : '  '}${name}${extra ? ` — ${extra}` : ''}`, tone: focused ? 'accent' : 'plain', bold: true };
}

function windowed<T>(items: T[], sel: number, rows: number): { items: T[]; start: number } {
  const [a, b] = visibleWindow(items.length, sel, rows);
  return { items: items.slice(a, b), start: a };
}

function rolloutLines(s: MonitorSnapshot, ui: MonitorState, w: number, h: number, focused: boolean): Line[] {
  const rows = h - 2;
  const sel = selectedIndex(ui, s, 'rollouts');
  const { items, start } = windowed(s.rollouts, sel, rows);
  const lines: Line[] = [title('Rollouts', focused, `${s.rollouts.length}`), { text: `${padStart('#', 5)} ${padStart('solved', 7)} ${padStart('traj', 6)} ${padStart('n', 4)} ${padStart('0std', 4)} ${padStart('fail', 4)} ${padStart('abrt', 4)}  reasons`, tone: 'dim' }];
  items.forEach((r, i) => {
    const tone: Tone = r.failedGroups > 0 || r.aborted > 0 ? 'warn' : 'plain';
    lines.push({
      text: `${padStart(String(r.rollout), 5)} ${padStart(pct(r.resolved), 7)} ${padStart(fmtNum(r.rawTrajMean), 6)} ${padStart(String(r.samples), 4)} ${padStart(String(r.zeroStd), 4)} ${padStart(String(r.failedGroups), 4)} ${padStart(String(r.aborted), 4)}  ${r.topReasons}`,
      tone,
      inverse: focused && start + i === sel,
    });
  });
  if (s.rollouts.length === 0) lines.push({ text: '  no rollout has finished yet', tone: 'dim' });
  return lines.map((l) => ({ ...l, text: truncate(l.text, w) }));
}

function sampleLines(s: MonitorSnapshot, ui: MonitorState, w: number, h: number, focused: boolean): Line[] {
  const rows = feedRows(s, ui.filter);
  const sel = selectedIndex(ui, s, 'samples');
  const { items, start } = windowed(rows, sel, h - 1);
  const t = s.totals;
  const lines: Line[] = [title('Samples', focused, `${ui.follow ? 'follow' : 'paused'}${ui.filter ? ` · /${ui.filter}` : ''} · ${t.total} total · reward=1 ${t.reward_one} · raw=1 ${t.raw_one} · integrity ${t.integrity_violations}`)];
  items.forEach((f, i) => {
    const tone: Tone = f.integrity ? 'fail' : f.reward === 1 ? 'ok' : f.raw === 1 ? 'warn' : 'plain';
    const mark = f.reward === 1 ? '✓' : f.integrity ? '!' : '✗';
    lines.push({ text: `${mark} r${f.rollout} ${padEnd(f.instance, 34)} f2p ${padEnd(f.f2p, 5)} p2p ${padEnd(f.p2p, 7)} ${f.reason}`, tone, inverse: focused && start + i === sel });
  });
  if (rows.length === 0) lines.push({ text: ui.filter ? '  no sample matches the filter' : '  no per-sample line yet (SWE-Gym reward=…)', tone: 'dim' });
  return lines;
}

function sandboxLines(s: MonitorSnapshot, ui: MonitorState, w: number, h: number, focused: boolean): Line[] {
  const sb = s.sandboxes;
  const rows = sandboxRows(s, ui.filter);
  const sel = selectedIndex(ui, s, 'sandboxes');
  const quota = sb ? `${sb.rows.length}/${sb.limit}` : '';
  const head = sb ? (sb.ok ? `${sb.agents} agent · ${sb.evals} eval · ${quota} of plan` : `list failed: ${sb.error ?? ''}`) : s.live ? 'no sandbox provider (set DRESSAGE_E2B_API_KEY or E2B_API_KEY)' : 'offline';
  const lines: Line[] = [title('Sandboxes', focused, head)];
  const { items, start } = windowed(rows, sel, h - 1);
  items.forEach((r, i) => {
    // An agent whose log ended badly shows how (✗, in the error tone), not its last tool call.
    const progress = r.kind === 'agent' ? ` ${padStart(r.steps === undefined ? '' : `${r.steps}/80`, 6)} ${r.ending ?? r.lastTool ?? ''}` : '';
    // Who the sandbox is first, then what moves (age, steps, last tool): a changed row is repainted from there on.
    // The trajectory id only where there is room: in a half-width panel the last tool call says more (drill in for it).
    const trajectory = w >= 100 ? `${padEnd(r.trajectoryId, 16)} ` : '';
    lines.push({ text: `${padEnd(r.kind, 5)} ${padEnd(r.template, 30)} ${trajectory}${padStart(r.ageMs === undefined ? '?' : formatAge(r.ageMs), 6)}${progress}`, tone: r.ending?.startsWith('✗') ? 'fail' : r.kind === 'eval' ? 'info' : 'plain', inverse: focused && start + i === sel });
  });
  if (sb?.ok && rows.length === 0) lines.push({ text: '  no Dressage sandbox running', tone: 'dim' });
  return lines.map((l) => ({ ...l, text: truncate(l.text, w) }));
}

function taskLines(s: MonitorSnapshot, ui: MonitorState, w: number, h: number, focused: boolean): Line[] {
  const rows = taskRows(s, ui.filter);
  const sel = selectedIndex(ui, s, 'tasks');
  const lines: Line[] = [title('Tasks', focused, `solved always ${s.tasks.always} · sometimes ${s.tasks.sometimes} · never ${s.tasks.never}`)];
  const { items, start } = windowed(rows, sel, h - 1);
  items.forEach((t, i) => {
    lines.push({ text: `${padEnd(t.instance, 36)} ${padStart(`${t.solved}/${t.attempts}`, 7)} ${t.recent}`, tone: t.solved === 0 ? 'dim' : t.solved === t.attempts ? 'ok' : 'plain', inverse: focused && start + i === sel });
  });
  if (rows.length === 0) lines.push({ text: '  tasks appear when a rollout finishes', tone: 'dim' });
  return lines.map((l) => ({ ...l, text: truncate(l.text, w) }));
}

function trajLines(s: MonitorSnapshot, ui: MonitorState, w: number, h: number, focused: boolean): Line[] {
  const rows = trajRows(s, ui.filter);
  const sel = selectedIndex(ui, s, 'trajectories');
  const errs = s.trajectories.filter((t) => t.kind === 'error').length;
  const lines: Line[] = [title('Trajectories', focused, `${s.trajectories.length} files · ${errs} errors`)];
  const { items, start } = windowed(rows, sel, h - 1);
  items.forEach((t, i) => {
    lines.push({ text: `${t.kind === 'error' ? '✗ err ' : '  traj'} ${padEnd(t.instance, 36)} ${t.session}`, tone: t.kind === 'error' ? 'fail' : 'plain', inverse: focused && start + i === sel });
  });
  if (rows.length === 0) lines.push({ text: '  no traj_payload / traj_err files found for this run', tone: 'dim' });
  return lines.map((l) => ({ ...l, text: truncate(l.text, w) }));
}

function alertLine(s: MonitorSnapshot): Line {
  if (s.alerts.length === 0) return { text: 'no alerts', tone: 'dim' };
  const worst = s.alerts.some((a) => a.level === 'fail') ? 'fail' : 'warn';
  return { text: `⚠ ${s.alerts.map((a) => a.text).join(' | ')}`, tone: worst };
}

// ---- drill-in views ----

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

function detailLines(s: MonitorSnapshot, ui: MonitorState, panel: PanelName, w: number): Line[] {
  const out: Line[] = [];
  const push = (text: string, tone?: Tone) => out.push({ text, tone });
  if (panel === 'rollouts') {
    const r = s.rollouts[selectedIndex(ui, s, 'rollouts')];
    if (!r) return [{ text: 'no rollout selected', tone: 'dim' }];
    push(`Rollout ${r.rollout}: ${r.samples} samples, solved ${pct(r.resolved)}, trajectory mean ${fmtNum(r.rawTrajMean)}`, 'accent');
    push(`zero-std groups ${r.zeroStd} · failed groups ${r.failedGroups} · aborted samples ${r.aborted} · early stops ${r.earlyStops}`);
    push(`failure reasons: ${r.topReasons || '(none)'}`);
    for (const l of groupHistogramText(r.groups, w)) push(l.text, l.tone);
    push('');
    push('failures logged during this rollout:', 'dim');
    for (const f of s.failures.filter((x) => x.rollout === r.rollout).slice(-50)) push(`  ${f.kind}: ${f.text}`, 'warn');
  } else if (panel === 'samples' || panel === 'tasks') {
    const inst = panel === 'samples' ? feedRows(s, ui.filter)[selectedIndex(ui, s, 'samples')]?.instance : taskRows(s, ui.filter)[selectedIndex(ui, s, 'tasks')]?.instance;
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
    const st = s.sandboxStream;
    if (!st) return [{ text: 'opening the sandbox…', tone: 'dim' }];
    const row = s.sandboxes?.rows.find((r) => r.id === st.id);
    const tid = row?.trajectoryId ?? st.trajectoryId;
    if (st.transcript) {
      push(`Sandbox ${st.id}${tid ? ` · ${tid}` : ''} · finished: the sandbox is gone; its transcript from the trajectory files`, 'accent');
      trajectoryLines(st.transcript, push);
    } else {
      push(`Sandbox ${st.id}${row ? ` · ${row.template}` : ''}${tid ? ` · ${tid}` : ''} · steps so far ${st.steps ?? '?'}${st.error ? ` · ${st.error}` : ''} (Claude Code stream-json, refreshed every few seconds)`, 'accent');
      const a = st.agent;
      if (a) {
        const retries = a.apiRetries ? ` · API retries so far ${a.apiRetries}${a.lastRetryStatus !== undefined ? ` (last: ${a.lastRetryStatus ?? 'no response'})` : ''}` : '';
        const denials = a.permissionDenials ? ` · permission denials ${a.permissionDenials}` : '';
        // Symbols as well as colours: without colour (NO_COLOR) the symbol carries the tone.
        if (a.status === 'running') push(`${a.apiRetries ? '!' : '·'} Claude Code running${retries}${denials}`, a.apiRetries ? 'warn' : 'plain');
        else if (a.status === 'success') push(`✓ Claude Code finished: success${retries}${denials}`, 'ok');
        else push(`✗ Claude Code ended: ${a.cause ?? a.status}${denials}`, 'fail');
      }
      for (const e of st.events.slice(-200)) {
        const mark = e.tone === 'error' ? '✗' : e.tone === 'warn' ? '!' : ' ';
        push(`${mark} ${padEnd(e.type, 11)} ${e.text}`, e.tone === 'error' ? 'fail' : e.tone === 'warn' ? 'warn' : e.tone === 'ok' ? 'ok' : e.type === 'tool_result' ? 'dim' : 'plain');
      }
    }
  } else if (panel === 'trajectories') {
    const v = s.trajectory;
    if (!v) return [{ text: 'loading the trajectory…', tone: 'dim' }];
    trajectoryLines(v, push);
  } else if (panel === 'gpus') {
    for (const l of gpuDetailLines(s)) push(l.text, l.tone);
  }
  return out.map((l) => ({ ...l, text: truncate(l.text, w) }));
}

function Detail({ s, ui, panel, width, height }: { s: MonitorSnapshot; ui: MonitorState; panel: PanelName; width: number; height: number }) {
  const lines = detailLines(s, ui, panel, width);
  // The detail scrolls with ↑↓ through its lines (selected.detail).
  const off = Math.min(Math.max(0, lines.length - (height - 1)), ui.selected['detail'] ?? 0);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Lines lines={lines.slice(off, off + height - 1)} width={width} height={height - 1} />
      <T tone="dim">{truncate(`Esc back · ↑↓ scroll (${Math.min(lines.length, off + height - 1)}/${lines.length})`, width)}</T>
    </Box>
  );
}

// ---- the screen ----

function Panel({ name, s, ui, width, height, focused }: { name: PanelName; s: MonitorSnapshot; ui: MonitorState; width: number; height: number; focused: boolean }) {
  if (name === 'charts') return <ChartsPanel s={s} selected={selectedIndex(ui, s, 'charts')} width={width} height={height} focused={focused} smoothing={ui.smoothing} />;
  const lines =
    name === 'rollouts'
      ? rolloutLines(s, ui, width, height, focused)
      : name === 'samples'
        ? sampleLines(s, ui, width, height, focused)
        : name === 'sandboxes'
          ? sandboxLines(s, ui, width, height, focused)
          : name === 'gpus'
            ? gpuPanelLines(s, width, height, focused)
            : name === 'tasks'
              ? taskLines(s, ui, width, height, focused)
              : trajLines(s, ui, width, height, focused);
  return <Lines lines={lines} width={width} height={height} />;
}

function Dashboard({ services, width, height, focus }: ScreenProps) {
  const store = services.monitor.store;
  const status = useSel(store, (s) => s.status);
  const error = useSel(store, (s) => s.error);
  const snap = useSel(store, (s) => s.snapshot);
  const loading = useSel(store, (s) => s.loading);
  // UI state: subscribe to the pieces that change frames.
  const follow = useSel(store, (s) => s.follow);
  const filter = useSel(store, (s) => s.filter);
  const filterEditing = useSel(store, (s) => s.filterEditing);
  const selected = useSel(store, (s) => s.selected);
  const detail = useSel(store, (s) => s.detail);
  const smoothing = useSel(store, (s) => s.smoothing);
  const ui = { ...store.getState(), follow, filter, filterEditing, selected, detail, smoothing };

  useEffect(() => {
    if (store.getState().status === 'idle') void services.monitor.open(services.monitorTarget);
  }, [services, store]);

  // The filter field owns the keyboard while editing (App suspends global keys through inputCaptured).
  const leaveFilter = () => {
    store.getState().set({ filterEditing: false });
    services.app.getState().setInputCaptured(false);
  };
  const filterText = useTextField({
    active: filterEditing,
    value: filter,
    onChange: (value) => store.getState().set({ filter: value }),
    onSubmit: leaveFilter,
    onCancel: leaveFilter,
    maxLength: 80,
    // "filter: " before it, the keys after
    room: Math.max(8, width - 34),
  });

  const focused = PANELS[focus % PANELS.length] as PanelName;
  if (!snap) {
    const lines: Line[] =
      status === 'error'
        ? [{ text: 'Cannot open the run', tone: 'fail', bold: true }, ...(error ?? '').split('\n').map((t) => ({ text: t, tone: 'plain' as Tone })), { text: 'r retries · swegym-console monitor RUN|RUN_DIR|LOG_FILE opens another run', tone: 'dim' }]
        : [
            { text: status === 'loading' ? `Reading the run log${loading ? ` — ${Math.round(loading.bytes / 1048576)} of ${Math.round(loading.total / 1048576)} MiB` : ''}…` : 'No run open.', tone: 'info' },
            { text: 'The dashboard follows the newest run in the registry; `monitor RUN` opens another.', tone: 'dim' },
          ];
    return <Lines lines={lines} width={width} height={height} />;
  }

  const head: Line[] = headerLines(snap, width);
  const top: Line[] = [...head, alertLine(snap)];
  if (filterEditing || filter) top.push({ text: `filter: ${filterText}${filterEditing ? ' (Enter keep · Esc cancel)' : ''}`, tone: 'accent' });
  const bodyH = Math.max(1, height - top.length);
  let body: React.ReactNode;
  if (detail === 'chart') {
    body = <CurveDetail services={services} s={snap} ui={ui} width={width} height={bodyH} />;
  } else if (detail !== 'none') {
    body = <Detail s={snap} ui={ui} panel={focused} width={width} height={bodyH} />;
  } else if (width < WIDE.width || height < WIDE.height) {
    // Compact: one panel at a time.
    body = <Panel name={focused} s={snap} ui={ui} width={width} height={bodyH} focused />;
  } else {
    // Charts get a third of the room or more (two rows of ≥ 6 at 120×40: title, plot, x-axis).
    const chartH = Math.max(6, Math.min(16, Math.floor(bodyH * 0.37)));
    const rest = bodyH - chartH;
    const midH = Math.ceil(rest / 2);
    const lowH = rest - midH;
    const left = Math.floor(width * 0.5);
    const right = width - left;
    const leftMid: PanelName = focused === 'tasks' || focused === 'trajectories' ? focused : 'rollouts';
    body = (
      <Box flexDirection="column" width={width} height={bodyH} overflow="hidden">
        <Panel name="charts" s={snap} ui={ui} width={width} height={chartH} focused={focused === 'charts'} />
        <Box flexDirection="row" height={midH} width={width}>
          <Panel name={leftMid} s={snap} ui={ui} width={left - 1} height={midH} focused={focused === leftMid} />
          <Box width={1} />
          <Panel name="samples" s={snap} ui={ui} width={right} height={midH} focused={focused === 'samples'} />
        </Box>
        <Box flexDirection="row" height={lowH} width={width}>
          <Panel name="sandboxes" s={snap} ui={ui} width={left - 1} height={lowH} focused={focused === 'sandboxes'} />
          <Box width={1} />
          <Panel name="gpus" s={snap} ui={ui} width={right} height={lowH} focused={focused === 'gpus'} />
        </Box>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Lines lines={top} width={width} height={top.length} />
      {body}
    </Box>
  );
}

function dashboardBindings(services: AppServices): Binding[] {
  const store = services.monitor.store;
  const focusedPanel = (): PanelName => PANELS[services.app.getState().focus % PANELS.length] as PanelName;
  const move = (delta: number) => () => {
    const st = store.getState();
    const s = st.snapshot;
    if (!s) return;
    if (st.detail !== 'none' && focusedPanel() !== 'charts') {
      st.select('detail', (st.selected['detail'] ?? 0) + delta);
      return;
    }
    const p = focusedPanel();
    const n = rowCount(s, p, st.filter);
    const cur = selectedIndex(st, s, p);
    // Moving the selection in a followed panel pauses following.
    if (st.follow && (p === 'samples' || p === 'rollouts')) st.set({ follow: false });
    st.select(p, Math.max(0, Math.min(n - 1, cur + delta)));
  };
  const enter = () => {
    const st = store.getState();
    const s = st.snapshot;
    if (!s || st.detail !== 'none') return;
    const p = focusedPanel();
    st.select('detail', 0);
    if (p === 'sandboxes') {
      const row = sandboxRows(s, st.filter)[selectedIndex(st, s, p)];
      if (!row) return;
      void services.monitor.followSandbox(row.id);
      st.set({ detail: 'sandbox' });
    } else if (p === 'trajectories') {
      const row = trajRows(s, st.filter)[selectedIndex(st, s, p)];
      if (!row) return;
      void services.monitor.openTrajectory(row);
      st.set({ detail: 'trajectory' });
    } else if (p === 'rollouts') st.set({ detail: 'rollout' });
    else st.set({ detail: 'task' });
  };
  return [
    ...curveBindings(services, focusedPanel),
    shared('up', 'previous row', move(-1)),
    shared('down', 'next row', move(1)),
    shared('pageUp', 'page up', move(-10), { footer: false }),
    shared('pageDown', 'page down', move(10), { footer: false }),
    shared('open', 'drill in', enter),
    shared(
      'back',
      'close detail',
      () => {
        store.getState().set({ detail: 'none' });
        services.monitor.curves.focus(undefined);
        void services.monitor.followSandbox(undefined);
        void services.monitor.openTrajectory(undefined);
      },
      { when: () => store.getState().detail !== 'none', footer: false },
    ),
    {
      keys: ['f'],
      id: 'dashboard.follow',
      description: 'toggle follow',
      run: () => {
        const st = store.getState();
        const s = st.snapshot;
        // Pausing keeps the rows where they are: pin the selection to the newest row.
        if (st.follow && s) {
          for (const p of ['samples', 'rollouts'] as const) st.select(p, rowCount(s, p, st.filter) - 1);
        }
        st.set({ follow: !st.follow });
      },
    },
    shared('filter', 'filter', () => {
      store.getState().set({ filterEditing: true });
      services.app.getState().setInputCaptured(true);
    }),
    shared('refresh', 'reopen run', () => void services.monitor.reopen(), { footer: false }),
  ];
}

export const dashboardScreen: ScreenModule = {
  id: 'dashboard',
  title: 'Dashboard',
  hotkey: '7',
  panels: [...PANELS],
  Component: Dashboard,
  bindings: dashboardBindings,
};
