// Data screen state: the loaded split (or why it is not loaded), the filter/selection of the task table, the open
// task, and a running download's progress. The dataset controller (src/services/dataset/controller.ts) publishes here.
import { createStore } from 'zustand/vanilla';
import type { Split } from './types/workspace.js';
import type { SweGymTask, SplitSummary, DownloadProgress, ImageListStatus } from './types/dataset.js';

export interface DataError {
  what: string;
  cause?: string;
  fix?: string;
  /** Validation problems, one line each. */
  problems?: string[];
}

export interface DataDownload {
  split: Split;
  startedAt: number;
  progress?: DownloadProgress;
  /** Set when it ended. */
  outcome?: { ok: true; text: string } | { ok: false; error: DataError };
  running: boolean;
}

export interface DataState {
  split: Split;
  status: 'idle' | 'loading' | 'loaded' | 'missing' | 'invalid';
  file?: string;
  rows: SweGymTask[];
  summary?: SplitSummary;
  warnings: string[];
  error?: DataError;
  /** docker image → template name, from data/e2b-template-map.json when present. */
  templateMap?: Record<string, string>;
  templateMapNote?: string;
  imageList?: ImageListStatus;
  filter: string;
  filtering: boolean;
  selected: number;
  /** instance_id of the open task. */
  detail?: string;
  detailScroll: number;
  download?: DataDownload;
  /** Fingerprint of the files at the last load, and the split it was for (see DataController.load's ifChanged). */
  stamp?: string;
  stampSplit?: Split;
  set(partial: Partial<Omit<DataState, 'set'>>): void;
}

export function createDataStore() {
  return createStore<DataState>()((set) => ({
    split: 'train',
    status: 'idle',
    rows: [],
    warnings: [],
    filter: '',
    filtering: false,
    selected: 0,
    detailScroll: 0,
    set(partial) {
      set(partial);
    },
  }));
}

export type DataStore = ReturnType<typeof createDataStore>;

/** Case-insensitive filter over id, repo and image; every space-separated word must match. */
export function filterTasks(rows: readonly SweGymTask[], filter: string): SweGymTask[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return rows as SweGymTask[];
  return rows.filter((r) => {
    const hay = `${r.instance_id} ${r.repo} ${r.image} ${r.version}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}
