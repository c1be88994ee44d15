// Templates screen state: rows (image, template, state, smoke, error), totals, progress, artifacts line, the log view.
// The templates controller publishes here at most 10 times a second; the screen reads narrow slices.
import { createStore } from 'zustand/vanilla';
import type { TemplateStatusRow, TemplateCounts } from './types/templates.js';
import type { JobProgress } from './types/jobs.js';

export interface ArtifactsLine {
  ok: boolean;
  text: string;
}

export interface TemplatesState {
  rows: TemplateStatusRow[];
  counts: TemplateCounts;
  artifacts?: ArtifactsLine;
  mapProblems: string[];
  loading: boolean;
  running: boolean;
  stopping: boolean;
  abandoning: boolean;
  active: number;
  concurrency: number;
  smoking: number;
  /** The running build's and smoke run's count and rate (set while they run). */
  buildProgress?: JobProgress;
  smokeProgress?: JobProgress;
  selected: number;
  filter: string;
  filtering: boolean;
  /** Image whose build log is open. */
  logImage?: string;
  logLines: string[];
  message?: { text: string; tone: 'info' | 'warn' | 'error' };
  set(partial: Partial<Omit<TemplatesState, 'set'>>): void;
}

export const EMPTY_COUNTS: TemplateCounts = { total: 0, queued: 0, building: 0, built: 0, failed: 0, mapped: 0, smokePassed: 0, smokeFailed: 0 };

export function createTemplatesStore() {
  return createStore<TemplatesState>()((set) => ({
    rows: [],
    counts: EMPTY_COUNTS,
    mapProblems: [],
    loading: true,
    running: false,
    stopping: false,
    abandoning: false,
    active: 0,
    concurrency: 0,
    smoking: 0,
    selected: 0,
    filter: '',
    filtering: false,
    logLines: [],
    set(partial) {
      set(partial);
    },
  }));
}

export type TemplatesStore = ReturnType<typeof createTemplatesStore>;

/** Rows matching the filter (substring of image, template, state, smoke or error). */
export function filterRows(rows: readonly TemplateStatusRow[], filter: string): TemplateStatusRow[] {
  const f = filter.trim().toLowerCase();
  if (!f) return [...rows];
  return rows.filter((r) => `${r.image} ${r.template} ${r.state} ${r.smoke ?? ''} ${r.error}`.toLowerCase().includes(f));
}
