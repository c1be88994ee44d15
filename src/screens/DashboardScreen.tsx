// The run dashboard (hotkey 7): header (run, phase, rollout i/N, samples this rollout, elapsed, ETA, checkpoint),
// alerts, charts, rollout table, live sample feed, sandboxes, GPUs + proxy, per-task history and the trajectory
// browser. Data comes from the monitor store (a snapshot published at ≤ 5 Hz); every panel has a fixed height and
// clips. Small terminals get one panel at a time (Tab cycles).
import React, { useEffect } from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import type { AppServices } from '../services/registry/appServices.js';
import type { MonitorSnapshot, MonitorState } from '../state/monitor.js';
import { useSel } from '../ui/hooks.js';
import type { Tone } from '../ui/theme.js';
import { ChartsPanel, CurveDetail, curveBindings, pickerBindings } from './dashboard/Curves.js';
import { fmtNum } from '../ui/charts.js';
import { padEnd, padStart, truncate, truncateMiddle, visibleWindow } from '../ui/text.js';
import { formatAge } from '../services/util/format.js';
import { backOut, intent, bind, shared, type Binding } from '../ui/keymap.js';
import { Lines, type Line } from '../ui/Lines.js';
import { useTextField } from '../ui/TextField.js';
import { headerLines, readingText } from './dashboardHeader.js';
import { gpuPanelLines } from './dashboardGpus.js';
import { PANELS, feedRows, follows, pct, rowCount, rowKeyAt, sandboxRows, selectedIndex, taskRows, trajRows, type PanelName } from './dashboard/panelRows.js';
import { DrillIn, drillPage, scrollDrill } from './dashboard/DrillIn.js';
import { rowDetail } from './dashboard/rowDetail.js';

export { PANELS, type PanelName } from './dashboard/panelRows.js';

/** Wide layout needs this much room; below it one panel is shown at a time. */
export const WIDE = { width: 100, height: 26 };

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
  // Filtered: how many of the rows kept match, beside the run's totals.
  const lines: Line[] = [title('Samples', focused, `${ui.follow ? 'follow' : 'paused'}${ui.filter ? ` · /${ui.filter} ${rows.length}/${s.feed.length} recent` : ''} · ${t.total} total · reward=1 ${t.reward_one} · raw=1 ${t.raw_one} · integrity ${t.integrity_violations}`)];
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
  const matched = ui.filter && sb?.ok ? `/${ui.filter} ${rows.length}/${sb.rows.length} · ` : '';
  const head = sb ? (sb.ok ? `${matched}${sb.agents} agent · ${sb.evals} eval · ${quota} of plan` : `list failed: ${sb.error ?? ''}`) : s.live ? 'no sandbox provider (set DRESSAGE_E2B_API_KEY or E2B_API_KEY)' : 'offline';
  const lines: Line[] = [title('Sandboxes', focused, head)];
  const { items, start } = windowed(rows, sel, h - 1);
  items.forEach((r, i) => {
    // An agent whose log ended badly shows how (✗, in the error tone), not its last tool call.
    const progress = r.kind === 'agent' ? ` ${padStart(r.steps === undefined ? '' : `${r.steps}/80`, 6)} ${r.ending ?? r.lastTool ?? ''}` : '';
    // Who the sandbox is first, then what moves (age, steps, last tool): a changed row is repainted from there on.
    // A long template name is cut in its middle: its tail (the task number) tells templates apart; many sandboxes
    // share a template, and the sandbox id's head tells those rows apart (`v` shows everything whole). The
    // trajectory id only where there is room: in a half-width panel the last tool call says more.
    const trajectory = w >= 100 ? `${padEnd(r.trajectoryId, 16)} ` : '';
    lines.push({ text: `${padEnd(r.kind, 5)} ${padEnd(truncateMiddle(r.template, 26), 26)} ${padEnd(r.id.slice(0, 8), 8)} ${trajectory}${padStart(r.ageMs === undefined ? '?' : formatAge(r.ageMs), 6)}${progress}`, tone: r.ending?.startsWith('✗') ? 'fail' : r.kind === 'eval' ? 'info' : 'plain', inverse: focused && start + i === sel });
  });
  if (sb?.ok && rows.length === 0) lines.push({ text: '  no Dressage sandbox running', tone: 'dim' });
  return lines.map((l) => ({ ...l, text: truncate(l.text, w) }));
}

function taskLines(s: MonitorSnapshot, ui: MonitorState, w: number, h: number, focused: boolean): Line[] {
  const rows = taskRows(s, ui.filter);
  const sel = selectedIndex(ui, s, 'tasks');
  const lines: Line[] = [title('Tasks', focused, `${ui.filter ? `/${ui.filter} ${rows.length}/${s.tasks.rows.length} · ` : ''}solved always ${s.tasks.always} · sometimes ${s.tasks.sometimes} · never ${s.tasks.never}`)];
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
  const lines: Line[] = [title('Trajectories', focused, `${ui.filter ? `/${ui.filter} ${rows.length}/${s.trajectories.length} · ` : ''}${s.trajectories.length} files · ${errs} errors`)];
  const { items, start } = windowed(rows, sel, h - 1);
  items.forEach((t, i) => {
    lines.push({ text: `${t.kind === 'error' ? '✗ err ' : '  traj'} ${padEnd(t.instance, 36)} ${t.session}`, tone: t.kind === 'error' ? 'fail' : 'plain', inverse: focused && start + i === sel });
  });
  const root = s.trajectoryRoot;
  // Where they were looked for: a RUN_NAME read from the folder's name may be the wrong one (a copied run).
  const from = ({ folder: "the folder's name", 'trajectory-dirs': 'the folders there', log: 'the log', 'launch-record': 'the launch record', simulation: 'simulation.json' } as Record<string, string>)[root?.from ?? ''] ?? '?';
  const empty = root?.runName ? `  no trajectory files under traj_*/${root.runName}/ (RUN_NAME from ${from})` : '  no traj_payload / traj_err files found for this run';
  if (rows.length === 0) lines.push({ text: ui.filter && s.trajectories.length ? '  no trajectory matches the filter' : empty, tone: 'dim' });
  return lines.map((l) => ({ ...l, text: truncate(l.text, w) }));
}

function alertLine(s: MonitorSnapshot): Line {
  if (s.alerts.length === 0) return { text: 'no alerts', tone: 'dim' };
  const worst = s.alerts.some((a) => a.level === 'fail') ? 'fail' : 'warn';
  return { text: `⚠ ${s.alerts.map((a) => a.text).join(' | ')}`, tone: worst };
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
  const detailTail = useSel(store, (s) => s.detailTail);
  const drillFollow = useSel(store, (s) => s.drillFollow);
  const ui = { ...store.getState(), follow, filter, filterEditing, selected, detail, smoothing, detailTail, drillFollow };

  useEffect(() => {
    if (store.getState().status === 'idle') void services.monitor.open(services.monitorTarget);
  }, [services, store]);

  // After each frame the selection is the row drawn: its key is kept, so that the next refresh, which may list the
  // rows in another order, draws the cursor on the same sandbox, rollout or task.
  useEffect(() => {
    const st = store.getState();
    const s = st.snapshot;
    if (!s) return;
    for (const p of PANELS) {
      if (follows(st, p)) continue;
      const i = selectedIndex(st, s, p);
      const key = rowKeyAt(s, p, st.filter, i);
      if (key !== undefined && key !== st.selectedKey[p]) st.select(p, i, key);
    }
  }, [store, snap, filter, follow]);

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
            { text: status === 'loading' ? readingText(loading) : 'No run open.', tone: 'info' },
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
    body = <DrillIn store={store} s={snap} ui={ui} panel={focused} width={width} height={bodyH} />;
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

/**
 * The filter field's keys (`/`), for help only: the field itself (ui/TextField, the kit's one set of rules) answers
 * them, so nothing here runs; anything else is typed and filters samples, sandboxes, tasks and trajectories.
 */
function filterBindings(): Binding[] {
  const answeredByTheField = () => undefined;
  return [
    bind('field.accept', answeredByTheField, { description: 'keep the filter and leave the field' }),
    bind('field.cancel', answeredByTheField, { description: 'put back the earlier filter and leave' }),
    bind('field.deleteBack', answeredByTheField),
  ];
}

function dashboardBindings(services: AppServices): Binding[] {
  const store = services.monitor.store;
  const focusedPanel = (): PanelName => PANELS[services.app.getState().focus % PANELS.length] as PanelName;
  const inDrill = () => store.getState().detail !== 'none' && store.getState().detail !== 'chart';
  // In a drill-in the row keys scroll it (a page is the view's height); in a panel they move the selection.
  const move = (delta: number | 'page' | '-page') => () => {
    const st = store.getState();
    const s = st.snapshot;
    if (!s) return;
    if (inDrill()) {
      scrollDrill(store, delta === 'page' ? drillPage(store) : delta === '-page' ? -drillPage(store) : delta);
      return;
    }
    if (typeof delta !== 'number') delta = delta === 'page' ? 10 : -10;
    const p = focusedPanel();
    const n = rowCount(s, p, st.filter);
    const cur = selectedIndex(st, s, p);
    // Moving the selection in a followed panel pauses following.
    if (st.follow && (p === 'samples' || p === 'rollouts')) st.set({ follow: false });
    const next = Math.max(0, Math.min(n - 1, cur + delta));
    st.select(p, next, rowKeyAt(s, p, st.filter, next));
  };
  const enter = () => {
    const st = store.getState();
    const s = st.snapshot;
    if (!s || st.detail !== 'none') return;
    const p = focusedPanel();
    // The drill-in stays on the row it was opened on (a rollout, a task), not on whatever becomes newest.
    const i = selectedIndex(st, s, p);
    const drillKey = p === 'rollouts' ? rowKeyAt(s, p, st.filter, i) : p === 'samples' ? feedRows(s, st.filter)[i]?.instance : p === 'tasks' ? taskRows(s, st.filter)[i]?.instance : undefined;
    st.set({ selected: { ...st.selected, detail: 0 }, detailTail: false, drillKey, drillFollow: false });
    if (p === 'sandboxes') {
      const row = sandboxRows(s, st.filter)[selectedIndex(st, s, p)];
      if (!row) return;
      void services.monitor.followSandbox(row.id, row.trajectoryId || undefined);
      // A live agent's log grows at its end: the drill-in opens there and follows it.
      st.set({ detail: 'sandbox', detailTail: true, drillRow: row });
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
    shared('pageUp', 'page up', move('-page'), { footer: false }),
    shared('pageDown', 'page down', move('page'), { footer: false }),
    shared('first', 'top of the drill-in', () => scrollDrill(store, -Infinity), { when: inDrill, footer: false }),
    shared('last', 'end of the drill-in (follows a live log)', () => scrollDrill(store, Infinity), { when: inDrill, footer: false }),
    shared('open', 'drill in', enter, { short: 'drill in' }),
    shared(
      'view',
      'show the row whole',
      () => {
        const st = store.getState();
        const detail = st.snapshot && rowDetail(st.snapshot, st, focusedPanel());
        if (detail) services.app.getState().openDetail(detail);
      },
      { when: () => store.getState().detail === 'none', short: 'whole' },
    ),
    backOut([
      {
        description: 'close the detail',
        isOpen: () => store.getState().detail !== 'none',
        close: () => {
          store.getState().set({ detail: 'none' });
          services.monitor.curves.focus(undefined);
          void services.monitor.followSandbox(undefined);
          void services.monitor.openTrajectory(undefined);
        },
      },
      { description: 'clear the kept filter', isOpen: () => store.getState().filter !== '', close: () => store.getState().set({ filter: '' }) },
    ]),
    {
      ...intent('dashboard.follow'),
      short: 'follow',
      run: () => {
        const st = store.getState();
        const s = st.snapshot;
        if (inDrill() && st.detail === 'rollout') {
          st.set({ drillFollow: !st.drillFollow });
          return;
        }
        if (inDrill()) {
          if (st.detailTail) scrollDrill(store, 0);
          else scrollDrill(store, Infinity);
          return;
        }
        // Pausing keeps the rows where they are: pin the selection to the newest row.
        if (st.follow && s) {
          for (const p of ['samples', 'rollouts'] as const) {
            const last = rowCount(s, p, st.filter) - 1;
            st.select(p, last, rowKeyAt(s, p, st.filter, last));
          }
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
  fields: (services) => [
    { title: 'Filter field (/ — type to filter the samples, sandboxes, tasks, trajectories)', bindings: filterBindings() },
    { title: 'Metric and compare pickers (m, O — type to filter the list)', bindings: pickerBindings(services) },
  ],
};
