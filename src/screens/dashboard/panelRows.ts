// The dashboard's panels and their rows (pure: snapshot + UI state → rows), shared by the panels, the drill-ins
// and the row detail views.
import type { MonitorSnapshot, MonitorState } from '../../state/monitor.js';

export const PANELS = ['charts', 'rollouts', 'samples', 'sandboxes', 'gpus', 'tasks', 'trajectories'] as const;
export type PanelName = (typeof PANELS)[number];

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

export function rowCount(s: MonitorSnapshot, panel: PanelName, filter: string): number {
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

/** Each row's identity, in the panel's order: what the cursor stays on while rows move. */
export function rowKeys(s: MonitorSnapshot, panel: PanelName, filter: string): string[] {
  switch (panel) {
    case 'charts':
      return s.charts.map((c) => c.key);
    case 'rollouts':
      return s.rollouts.map((r) => String(r.rollout));
    case 'samples':
      return feedRows(s, filter).map((f) => `${f.rollout}\u0000${f.instance}\u0000${f.at ?? ''}\u0000${f.reason}\u0000${f.reward}`);
    case 'sandboxes':
      return sandboxRows(s, filter).map((r) => r.id);
    case 'gpus':
      return s.gpus.latest.map((g) => String(g.index));
    case 'tasks':
      return taskRows(s, filter).map((t) => t.instance);
    case 'trajectories':
      return trajRows(s, filter).map((t) => t.dir);
  }
}

/** Panels whose follow mode selects the newest row. */
export function follows(ui: Pick<MonitorState, 'follow'>, panel: PanelName): boolean {
  return ui.follow && (panel === 'samples' || panel === 'rollouts');
}

/**
 * The selected row of a panel: the row whose key was selected, wherever it moved; its old position when it is
 * gone (the sandbox ended); panels in follow mode select the newest.
 */
export function selectedIndex(ui: Pick<MonitorState, 'selected' | 'follow' | 'filter'> & { selectedKey?: MonitorState['selectedKey'] }, s: MonitorSnapshot, panel: PanelName): number {
  const n = rowCount(s, panel, ui.filter);
  if (n === 0) return 0;
  if (follows(ui, panel)) return n - 1;
  const key = ui.selectedKey?.[panel];
  if (key !== undefined) {
    const i = rowKeys(s, panel, ui.filter).indexOf(key);
    if (i >= 0) return i;
  }
  return Math.min(n - 1, ui.selected[panel] ?? 0);
}

/** The key of the row at `index` (undefined when there is none). */
export function rowKeyAt(s: MonitorSnapshot, panel: PanelName, filter: string, index: number): string | undefined {
  return rowKeys(s, panel, filter)[index];
}

export function pct(v: number): string {
  return Number.isFinite(v) ? `${Math.round(v * 100)}%` : '–';
}
