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

/** The selected row of a panel; panels in follow mode select the newest. */
export function selectedIndex(ui: Pick<MonitorState, 'selected' | 'follow' | 'filter'>, s: MonitorSnapshot, panel: PanelName): number {
  const n = rowCount(s, panel, ui.filter);
  if (n === 0) return 0;
  if (ui.follow && (panel === 'samples' || panel === 'rollouts')) return n - 1;
  return Math.min(n - 1, ui.selected[panel] ?? 0);
}

export function pct(v: number): string {
  return Number.isFinite(v) ? `${Math.round(v * 100)}%` : '–';
}
