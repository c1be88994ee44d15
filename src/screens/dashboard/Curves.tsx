// The dashboard's curves: the overview grid (raw faint, EMA bold, x-axis in rollouts), the large single-metric view
// (Enter on a chart) with a metric picker over every logged metric, a compared run drawn over it, and the reward
// histogram per group of the rollout under the cursor. Keys are data (curveBindings) and drive help.
import React from 'react';
import { Box, useInput } from 'ink';
import type { AppServices } from '../../services/registry/appServices.js';
import type { ChartSeries, MonitorSnapshot, MonitorState } from '../../state/monitor.js';
import type { GroupTally } from '../../services/monitor/runModel.js';
import { useSel } from '../../ui/hooks.js';
import { T, useColorEnabled, type Tone } from '../../ui/theme.js';
import { CurveChart, lastFinite } from '../../ui/Chart.js';
import { ema, fmtNum, groupHistogram } from '../../ui/charts.js';
import { COMPARE_GLYPH, stepSmoothing } from '../../ui/curvePlot.js';
import { padEnd, padStart, truncate, visibleWindow } from '../../ui/text.js';
import { dispatchKey, intent, shared, withKeymap, type Binding } from '../../ui/keymap.js';
import { useKeyOverrides } from '../../ui/keymapContext.js';

const toneOf = (key: string): Tone => (key.includes('reward') ? 'ok' : 'info');

/** The overview: every chart when they fit at ≥ 6 rows each, else as many rows as fit, scrolled to the selected one. */
export function ChartsPanel({ s, selected, width, height: panelHeight, focused, smoothing }: { s: MonitorSnapshot; selected: number; width: number; height: number; focused: boolean; smoothing: number }) {
  // A compared run drawn over the charts gets a legend line under them (without colour its glyph is the only tell).
  const color = useColorEnabled();
  const cmp = s.curves?.compare;
  const legend = cmp?.status === 'ready' && cmp.charts?.some(Boolean) && panelHeight > 6 ? compareLegend(cmp.name, color) : undefined;
  const height = legend ? panelHeight - 1 : panelHeight;
  const perRow = Math.max(1, Math.min(4, Math.floor(width / 28)));
  const gridRows = Math.ceil(s.charts.length / perRow);
  let rowsShown = gridRows;
  if (gridRows > 0 && Math.floor(height / gridRows) < 6) rowsShown = Math.max(1, Math.floor(height / 6));
  const chartH = Math.max(3, Math.floor(height / Math.max(1, rowsShown)));
  const selRow = Math.floor(selected / perRow);
  const [firstRow] = visibleWindow(gridRows, selRow, rowsShown);
  const cw = Math.floor(width / perRow);
  const rows: ChartSeries[][] = [];
  for (let r = firstRow; r < Math.min(gridRows, firstRow + rowsShown); r++) rows.push(s.charts.slice(r * perRow, (r + 1) * perRow));
  return (
    <Box flexDirection="column" width={width} height={panelHeight} overflow="hidden">
      {rows.map((row, r) => (
        <Box key={r} flexDirection="row" height={chartH} width={width}>
          {row.map((c, i) => (
            <Box key={c.key} width={cw} height={chartH} paddingRight={1}>
              <CurveChart series={c} compare={s.curves?.compare?.charts?.[(firstRow + r) * perRow + i]} width={cw - 1} height={chartH} smoothing={smoothing} focused={focused && (firstRow + r) * perRow + i === selected} tone={toneOf(c.key)} />
            </Box>
          ))}
        </Box>
      ))}
      {legend ? <T tone="dim">{truncate(legend, width)}</T> : null}
    </Box>
  );
}

/** Index of the point under the cursor (the newest at or before `cursor`; the newest when undefined). */
export function cursorIndex(series: ChartSeries, cursor: number | undefined): number {
  if (series.x.length === 0) return -1;
  if (cursor === undefined) return series.x.length - 1;
  let best = 0;
  for (let i = 0; i < series.x.length; i++) if ((series.x[i] as number) <= cursor + 1e-9) best = i;
  return best;
}

/** The groups of a rollout: finished ones from its row, the in-progress one from the model's tallies so far. */
export function groupsOf(s: MonitorSnapshot, rollout: number): { groups: GroupTally[]; inProgress: boolean } | undefined {
  const row = s.rollouts.find((r) => r.rollout === rollout);
  if (row) return { groups: row.groups, inProgress: false };
  if (s.curves && rollout === s.curves.pendingRollout) return { groups: s.curves.pendingGroups, inProgress: true };
  return undefined;
}

const BLOCKS = ' ▁▂▃▄▅▆▇█';

/**
 * The histogram's rows, `k/n` in each group's own sample count: every k of the largest group size (zeros
 * included), and the counts of smaller groups (a group left with 15 of 16 samples is `5/15`, never `5/16`), in
 * order of the solved fraction.
 */
export function groupBins(groups: readonly GroupTally[]): { k: number; n: number; count: number }[] {
  const nmax = groups.reduce((m, g) => Math.max(m, g.n), 0);
  const counts = new Map<string, { k: number; n: number; count: number }>();
  for (let k = 0; k <= nmax; k++) counts.set(`${k}/${nmax}`, { k, n: nmax, count: 0 });
  for (const g of groups) {
    const k = Math.min(g.n, g.solved);
    const key = `${k}/${g.n}`;
    const bin = counts.get(key) ?? { k, n: g.n, count: 0 };
    bin.count++;
    counts.set(key, bin);
  }
  return [...counts.values()].sort((a, b) => (a.n && b.n ? a.k / a.n - b.k / b.n : a.n - b.n) || b.n - a.n);
}

/** A vertical histogram of groups by solved samples (0..n), `height` rows: title, counts, bars, k labels. */
export function histogramLines(groups: readonly GroupTally[], rollout: number, inProgress: boolean, width: number, height: number): { text: string; tone?: Tone }[] {
  const out: { text: string; tone?: Tone }[] = [];
  const h = groupHistogram(groups);
  const per = h.uniform ? `${h.n} samples` : `up to ${h.n} samples`;
  out.push({ text: truncate(`Reward per group · rollout ${rollout}${inProgress ? ' (so far)' : ''}`, width), tone: 'accent' });
  out.push({ text: truncate(`${groups.length} groups × ${per}`, width), tone: 'dim' });
  if (groups.length === 0) {
    out.push({ text: truncate('  no graded sample in this rollout yet', width), tone: 'dim' });
    return out;
  }
  const zeroStd = groups.filter((g) => g.n > 1 && (g.solved === 0 || g.solved === g.n)).length;
  const foot = { text: truncate(`zero-std groups (all solved or none) ${zeroStd}/${groups.length}`, width), tone: 'dim' as Tone };
  const bins = h.counts.length;
  const max = Math.max(1, ...h.counts);
  const rows = groupBins(groups);
  if (height >= rows.length + 4) {
    // One row per solved count: room for every bin with its count.
    const kw = `${h.n}/${h.n}`.length;
    const barW = Math.max(1, width - kw - 2 - String(max).length - 2);
    for (const { k, n, count: c } of rows) out.push({ text: `${padStart(`${k}/${n}`, kw)} ${padEnd('█'.repeat(Math.round((c / max) * barW)) || (c ? '▏' : ''), barW)} ${c}`, tone: c === 0 ? 'dim' : k === 0 || k === n ? 'warn' : 'ok' });
    out.push(foot);
    return out.slice(0, height);
  }
  const cw = Math.max(String(h.n).length + 1, String(max).length + 1, 2);
  if (!h.uniform || cw * bins > width || height < 5) {
    // Groups of several sizes are listed with their own k/n: columns would file them under the largest size.
    out.push({ text: truncate(`solved/group ${h.uniform ? h.counts.map((c, k) => `${k}:${c}`).join(' ') : rows.filter((r) => r.count > 0 || r.n === h.n).map((r) => `${r.k}/${r.n}:${r.count}`).join(' ')}`, width) });
    out.push(foot);
    return out.slice(0, height);
  }
  // Columns: counts on top, bars, solved count below.
  const barRows = Math.max(1, height - 5);
  out.push({ text: h.counts.map((c) => padStart(String(c), cw)).join(''), tone: 'dim' });
  for (let r = barRows - 1; r >= 0; r--) {
    const row = h.counts.map((c) => padStart(BLOCKS[Math.max(0, Math.min(8, Math.round((c / max) * barRows * 8) - r * 8))] as string, cw)).join('');
    out.push({ text: row, tone: 'ok' });
  }
  out.push({ text: h.counts.map((_, k) => padStart(String(k), cw)).join('') + '  solved', tone: 'dim' });
  out.push(foot);
  return out.slice(0, height);
}

/** The rollout drill-in's histogram: one line per solved count, as text. */
export function groupHistogramText(groups: readonly GroupTally[], width: number): { text: string; tone?: Tone }[] {
  if (groups.length === 0) return [];
  const h = groupHistogram(groups);
  const max = Math.max(1, ...h.counts);
  const barW = Math.max(4, Math.min(40, width - 20));
  const out: { text: string; tone?: Tone }[] = [{ text: `reward per group: groups by solved samples (of ${h.uniform ? h.n : `up to ${h.n}; a smaller group shows its own count`})`, tone: 'dim' }];
  for (const { k, n, count: c } of groupBins(groups)) out.push({ text: `  ${padStart(`${k}/${n}`, 7)} ${padEnd('█'.repeat(Math.round((c / max) * barW)), barW)} ${c}`, tone: k === 0 || k === n ? 'warn' : 'plain' });
  return out;
}

function metricItems(s: MonitorSnapshot, query: string) {
  const q = query.toLowerCase();
  return (s.curves?.metrics ?? []).filter((m) => m.key.toLowerCase().includes(q));
}

function compareItems(s: MonitorSnapshot, query: string): { label: string; arg: string | undefined }[] {
  const items: { label: string; arg: string | undefined }[] = [];
  if (s.curves?.compare) items.push({ label: `stop comparing with ${s.curves.compare.name}`, arg: undefined });
  const q = query.toLowerCase();
  for (const c of s.curves?.candidates ?? []) if (c.toLowerCase().includes(q)) items.push({ label: `run ${c}`, arg: c });
  if (query) items.push({ label: `log file or run directory: ${query}`, arg: query });
  return items;
}

/** The metrics in picker order (every logged metric; the overview's first when nothing is logged yet). */
function metricOrder(s: MonitorSnapshot): string[] {
  const keys = (s.curves?.metrics ?? []).map((m) => m.key);
  return keys.length ? keys : s.charts.map((c) => c.key);
}

function Picker({ s, ui, width, height }: { s: MonitorSnapshot; ui: MonitorState; width: number; height: number }) {
  const c = ui.curve;
  const lines: { text: string; tone?: Tone; inverse?: boolean }[] = [];
  if (c.picker === 'metric') {
    const items = metricItems(s, c.query);
    lines.push({ text: `metric: ${c.query}▏ ${items.length} of ${s.curves?.metrics.length ?? 0} logged · type to filter · ↑↓ choose · Enter show · Esc close`, tone: 'accent' });
    const [a, b] = visibleWindow(items.length, c.pick, height - 1);
    items.slice(a, b).forEach((m, i) => lines.push({ text: `${padEnd(m.key, Math.max(20, width - 34))} ${padStart(fmtNum(m.last), 9)} ${padStart(String(m.points), 6)} pts  ${m.source === 'step' ? 'train step' : 'rollout'}`, inverse: a + i === c.pick }));
    if (items.length === 0) lines.push({ text: '  no logged metric matches', tone: 'dim' });
  } else {
    const items = compareItems(s, c.query);
    lines.push({ text: `compare with: ${c.query}▏ a run of the registry, or type a log file / run directory · Enter · Esc`, tone: 'accent' });
    const [a, b] = visibleWindow(items.length, c.pick, height - 1);
    items.slice(a, b).forEach((it, i) => lines.push({ text: it.label, inverse: a + i === c.pick }));
    if (items.length === 0) lines.push({ text: '  no other run in the registry: type the path of a run log or run directory', tone: 'dim' });
  }
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.slice(0, height).map((l, i) => (
        <T key={i} tone={l.tone} inverse={l.inverse}>
          {truncate(l.text, width) || ' '}
        </T>
      ))}
    </Box>
  );
}

/** The large single-metric view. */
export function CurveDetail({ services, s, ui, width, height }: { services: AppServices; s: MonitorSnapshot; ui: MonitorState; width: number; height: number }) {
  const store = services.monitor.store;
  const curve = useSel(store, (x) => x.curve);
  const smoothing = useSel(store, (x) => x.smoothing);
  const color = useColorEnabled();
  usePickerInput(services, curve.picker !== 'none');
  const focus = s.curves?.focus ?? s.charts.find((c) => c.key === curve.metric);
  const metric = curve.metric ?? focus?.key ?? '';
  const cmp = s.curves?.compare;
  const lines: { text: string; tone?: Tone; bold?: boolean }[] = [];
  const known = s.curves?.metrics.find((m) => m.key === metric);
  const label = focus?.label && focus.label !== metric ? `${focus.label} · ${metric}` : metric;
  lines.push({ text: `${label} · logged per ${(known?.source ?? focus?.source) === 'step' ? 'train step' : 'rollout'}`, tone: 'accent', bold: true });
  let cursorX: number | undefined;
  if (focus && focus.x.length) {
    const i = cursorIndex(focus, curve.cursor);
    const x = focus.x[i] as number;
    cursorX = x;
    const sm = ema(focus.y, smoothing)[i];
    const fin = focus.y.filter((v) => Number.isFinite(v));
    const step = focus.source === 'step' ? ` (train step ${Math.round(x * Math.max(1, stepsPerRollout(focus)))})` : '';
    let cmpText = '';
    if (cmp) {
      if (cmp.status !== 'ready') cmpText = ` · compare ${cmp.name}: ${cmp.status === 'loading' ? 'reading…' : `✗ ${cmp.error ?? ''}`}`;
      else if (!cmp.series) cmpText = ` · compare ${cmp.name}: does not log ${metric}`;
      else {
        const j = cursorIndex(cmp.series, x);
        const v = cmp.series.x[j] !== undefined && Math.abs((cmp.series.x[j] as number) - x) < 1 ? cmp.series.y[j] : undefined;
        cmpText = ` · compare ${cmp.name}: ${fmtNum(v)} (${cmp.series.x.length} pts)`;
      }
    }
    lines.push({ text: `rollout ${Math.floor(x)}${step} · raw ${fmtNum(focus.y[i])}${smoothing > 0 ? ` · ema ${fmtNum(sm)}` : ''}${cmpText} · min ${fmtNum(fin.length ? Math.min(...fin) : undefined)} · max ${fmtNum(fin.length ? Math.max(...fin) : undefined)} · last ${fmtNum(lastFinite(focus.y))}` });
  } else lines.push({ text: focus ? 'no value logged yet' : `${metric || 'no metric'}: not logged by this run`, tone: 'dim' });
  const keys = `Esc back · ↑↓ metric · ←→ rollout · m metrics · O compare · [ ] smoothing ${smoothing}`;
  const bodyH = Math.max(1, height - lines.length - 1);
  const cursorRollout = cursorX === undefined ? s.curves?.pendingRollout : Math.floor(cursorX);
  const groups = cursorRollout === undefined ? undefined : groupsOf(s, cursorRollout);
  const side = width >= 100;
  const histW = side ? Math.min(52, Math.floor(width * 0.36)) : width;
  const histH = side ? bodyH : bodyH >= 14 ? Math.min(8, bodyH - 7) : 0;
  const hist = curve.picker === 'none' && groups && histH > 0 && cursorRollout !== undefined ? histogramLines(groups.groups, cursorRollout, groups.inProgress, histW, histH) : undefined;
  const chartW = side && hist ? width - histW - 1 : width;
  const chartH = side || !hist ? bodyH : bodyH - histH;
  const chart =
    curve.picker !== 'none' ? (
      <Picker s={s} ui={{ ...ui, curve }} width={chartW} height={chartH} />
    ) : focus ? (
      <CurveChart series={focus} compare={cmp?.series} width={chartW} height={chartH} smoothing={smoothing} tone={toneOf(metric)} title={false} cursor={cursorX} />
    ) : (
      <Box height={chartH} />
    );
  const histBox = hist ? (
    <Box flexDirection="column" width={histW} height={histH} overflow="hidden">
      {hist.map((l, i) => (
        <T key={i} tone={l.tone}>
          {truncate(l.text, histW) || ' '}
        </T>
      ))}
    </Box>
  ) : null;
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.map((l, i) => (
        <T key={i} tone={l.tone} bold={l.bold}>
          {truncate(l.text, width) || ' '}
        </T>
      ))}
      {side ? (
        <Box flexDirection="row" width={width} height={bodyH}>
          {chart}
          {hist ? <Box width={1} /> : null}
          {histBox}
        </Box>
      ) : (
        <Box flexDirection="column" width={width} height={bodyH}>
          {chart}
          {histBox}
        </Box>
      )}
      <T tone="dim">{truncate(cmp?.status === 'ready' && cmp.series ? `${compareLegend(cmp.name, color)} · ${keys}` : keys, width)}</T>
    </Box>
  );
}

/** Which line is which: by colour, or without colour (NO_COLOR) by glyph. */
export function compareLegend(name: string, color: boolean): string {
  return color ? `compare ${name} drawn in yellow, this run in its own colour` : `legend: ${COMPARE_GLYPH} compare ${name} · ⣿ this run (raw faint, EMA bold)`;
}

/** Steps per rollout from a train series (x = step / steps per rollout): 1 unless the x values say otherwise. */
function stepsPerRollout(series: ChartSeries): number {
  const dx = series.x.length > 1 ? (series.x[series.x.length - 1] as number) - (series.x[series.x.length - 2] as number) : 1;
  return dx > 0 && dx < 1 ? Math.round(1 / dx) : 1;
}

/** The pickers' keys (m: a metric, O: a run to compare with); what is typed filters the list. */
export function pickerBindings(services: AppServices): Binding[] {
  const store = services.monitor.store;
  const count = () => {
    const { snapshot: s, curve: c } = store.getState();
    return s ? (c.picker === 'metric' ? metricItems(s, c.query).length : compareItems(s, c.query).length) : 0;
  };
  const move = (d: number) => () => {
    const st = store.getState();
    st.set({ curve: { ...st.curve, pick: Math.max(0, Math.min(count() - 1, st.curve.pick + d)) } });
  };
  return [
    // Arrows only: k and j are letters a metric's name may hold.
    { ...intent('dashboard.pickerPrev'), description: 'previous item', run: move(-1) },
    { ...intent('dashboard.pickerNext'), run: move(1) },
    shared('pageUp', 'page up', move(-10)),
    shared('pageDown', 'page down', move(10)),
    shared('open', 'show the metric / compare with the run', () => submitPicker(services, store.getState().curve)),
    shared('back', 'close the picker', () => closePicker(services)),
    { ...intent('dashboard.pickerDelete'), run: () => {
      const st = store.getState();
      st.set({ curve: { ...st.curve, query: st.curve.query.slice(0, -1), pick: 0 } });
    } },
  ];
}

function closePicker(services: AppServices) {
  const st = services.monitor.store.getState();
  st.set({ curve: { ...st.curve, picker: 'none', query: '', pick: 0 } });
  services.app.getState().setInputCaptured(false);
}

function submitPicker(services: AppServices, cur: MonitorState['curve']) {
  closePicker(services);
  const s = services.monitor.store.getState().snapshot;
  if (!s) return;
  if (cur.picker === 'metric') {
    const m = metricItems(s, cur.query)[cur.pick];
    if (m) showMetric(services, m.key);
  } else {
    const it = compareItems(s, cur.query)[cur.pick];
    if (it) void services.monitor.curves.compare(it.arg);
  }
}

/** The pickers own the keyboard while open (App suspends its keys through inputCaptured). */
function usePickerInput(services: AppServices, active: boolean) {
  const store = services.monitor.store;
  const overrides = useKeyOverrides();
  const keys = React.useMemo(() => withKeymap(pickerBindings(services), overrides), [services, overrides]);
  useInput(
    (input, key) => {
      const st = store.getState();
      const c = st.curve;
      // Typed or pasted text that ends in Enter arrives as one input: the text, then Enter.
      const nl = key.return ? -1 : input.search(/[\r\n]/);
      if (nl >= 0 && !key.ctrl && !key.meta) {
        const typed = { ...c, query: (c.query + input.slice(0, nl)).slice(0, 200), pick: 0 };
        st.set({ curve: typed });
        return submitPicker(services, typed);
      }
      if (dispatchKey(keys, input, key)) return;
      if (input && !key.ctrl && !key.meta && !key.tab) st.set({ curve: { ...c, query: (c.query + input).slice(0, 200), pick: 0 } });
    },
    { isActive: active },
  );
}

function showMetric(services: AppServices, key: string) {
  const st = services.monitor.store.getState();
  st.set({ detail: 'chart', curve: { ...st.curve, metric: key, cursor: undefined } });
  services.monitor.curves.focus(key);
}

function openPicker(services: AppServices, picker: 'metric' | 'compare') {
  const st = services.monitor.store.getState();
  if (st.detail !== 'chart') {
    const s = st.snapshot;
    const c = s?.charts[Math.min(s.charts.length - 1, st.selected['charts'] ?? 0)];
    if (c) showMetric(services, c.key);
  }
  const now = services.monitor.store.getState();
  now.set({ curve: { ...now.curve, picker, query: '', pick: 0 } });
  services.app.getState().setInputCaptured(true);
  if (picker === 'compare') void services.monitor.curves.loadCandidates();
}

/** The curves' keys; `focusedPanel` is the dashboard panel with the focus. Listed before the dashboard's own keys. */
export function curveBindings(services: AppServices, focusedPanel: () => string): Binding[] {
  const store = services.monitor.store;
  const inChart = () => store.getState().detail === 'chart';
  const onCharts = () => inChart() || (store.getState().detail === 'none' && focusedPanel() === 'charts');
  const smooth = (dir: 1 | -1) => () => {
    const st = store.getState();
    st.set({ smoothing: stepSmoothing(st.smoothing, dir) });
  };
  const stepMetric = (d: number) => () => {
    const st = store.getState();
    const s = st.snapshot;
    if (!s) return;
    const keys = metricOrder(s);
    const i = keys.indexOf(st.curve.metric ?? '');
    const next = keys[Math.max(0, Math.min(keys.length - 1, (i < 0 ? 0 : i) + d))];
    if (next) showMetric(services, next);
  };
  const moveCursor = (d: number) => () => {
    const st = store.getState();
    const f = st.snapshot?.curves?.focus;
    if (!f || f.x.length === 0) return;
    const i = Math.max(0, Math.min(f.x.length - 1, cursorIndex(f, st.curve.cursor) + d));
    // Back at the newest point: the cursor follows new rollouts again.
    st.set({ curve: { ...st.curve, cursor: i === f.x.length - 1 ? undefined : (f.x[i] as number) } });
  };
  return [
    shared(
      'open',
      'large view of the selected chart',
      () => {
        const st = store.getState();
        const c = st.snapshot?.charts[Math.min((st.snapshot?.charts.length ?? 1) - 1, st.selected['charts'] ?? 0)];
        if (c) showMetric(services, c.key);
      },
      { when: () => store.getState().detail === 'none' && focusedPanel() === 'charts', footer: false, context: 'charts panel' },
    ),
    shared('up', 'previous metric', stepMetric(-1), { when: inChart, footer: false, context: 'large chart' }),
    shared('down', 'next metric', stepMetric(1), { when: inChart, footer: false, context: 'large chart' }),
    shared('prevItem', 'cursor to the previous rollout', moveCursor(-1), { when: inChart, footer: false, context: 'large chart' }),
    shared('nextItem', 'cursor to the next rollout', moveCursor(1), { when: inChart, footer: false, context: 'large chart' }),
    { ...intent('dashboard.metric'), when: onCharts, run: () => openPicker(services, 'metric'), footer: false },
    { ...intent('dashboard.compare'), when: onCharts, run: () => openPicker(services, 'compare'), footer: false },
    { ...intent('dashboard.smoothingDown'), run: smooth(-1), footer: false },
    { ...intent('dashboard.smoothingUp'), run: smooth(1), footer: false },
  ];
}
