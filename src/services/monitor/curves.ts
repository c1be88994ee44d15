// The curves' data for the dashboard: the overview charts on a rollout x-axis, every logged metric for the picker,
// the large view's metric in full, and a second run read once for comparison. Nothing here touches React.
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import type { ChartSeries, CurvesSnapshot } from '../../state/monitor.js';
import { RunModel, UNPACKED_RECORDS, type RolloutRecord, type StepRecord } from './runModel.js';
import { metricNumber } from './lines.js';
import { hasMetric, metricOf } from './packedHistory.js';
import { modelLineScanner, scanFile } from './tail.js';
import { listRegistryRuns, resolveMonitorTarget } from './resolve.js';
import { ConsoleError } from '../errors.js';

/** A path inside the workspace relative to it, else as it is. */
function displayPath(file: string, root: string): string {
  const rel = path.relative(root, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** Points kept per series (the newest); a chart is at most a few hundred braille columns wide. */
const SERIES_POINTS = 5000;

/** A model's records, sorted once per snapshot (sorting per metric would cost a sort per chart). */
export interface SortedRecords {
  steps: StepRecord[];
  rollouts: RolloutRecord[];
  stepsPerRollout: number;
}

export function sortedRecords(m: RunModel): SortedRecords {
  return { steps: m.sortedSteps(), rollouts: m.sortedRollouts(), stepsPerRollout: m.stepsPerRollout };
}

/** One metric as a series on the rollout axis (raw values; NaN where a record lacks it). */
export function metricSeries(recs: SortedRecords, source: 'step' | 'rollout', key: string, label: string, limit = SERIES_POINTS): ChartSeries {
  const x: number[] = [];
  const y: number[] = [];
  if (source === 'step') {
    const steps = recs.steps.slice(-limit);
    for (const r of steps) {
      x.push(r.step / recs.stepsPerRollout);
      const v = metricNumber(metricOf(r, key));
      y.push(v === undefined ? NaN : v);
    }
  } else {
    for (const r of recs.rollouts.slice(-limit)) {
      if (!hasMetric(r, key)) continue;
      x.push(r.rollout);
      const v = metricNumber(metricOf(r, key));
      y.push(v === undefined ? NaN : v);
    }
  }
  return { key, label, source, x, y };
}

interface CompareState {
  name: string;
  status: 'loading' | 'ready' | 'error';
  error?: string;
  model?: RunModel;
  records?: SortedRecords;
  overview?: (ChartSeries | undefined)[];
}

export class CurveView {
  private focusKey: string | undefined;
  private comparison: CompareState | undefined;
  private candidates: string[] = [];
  private generation = 0;

  /**
   * `changed` publishes a snapshot at once (a key press is answered now, not at the next refresh); `context` gives the
   * workspace paths and the open run's name.
   */
  constructor(
    private readonly changed: () => void,
    private readonly context: () => { paths: RecipePaths; openRun: string | undefined },
  ) {}

  /** The metric of the large view (undefined: none open). */
  focus(key: string | undefined): void {
    this.focusKey = key;
    this.changed();
  }

  /** Registry runs to compare with, newest first, without the open one. */
  async loadCandidates(): Promise<void> {
    const { paths, openRun } = this.context();
    this.candidates = (await listRegistryRuns(paths)).map((r) => r.name).filter((n) => n !== openRun);
    this.changed();
  }

  /**
   * Reads a second run (registry name, run directory or log file) once, whole, and draws it over the large view;
   * undefined stops comparing. A live second run is not followed: it is a reference, read as it is now.
   */
  async compare(arg: string | undefined): Promise<void> {
    const { paths } = this.context();
    const gen = ++this.generation;
    if (!arg) {
      this.comparison = undefined;
      this.changed();
      return;
    }
    const state: CompareState = { name: arg, status: 'loading' };
    this.comparison = state;
    this.changed();
    try {
      const target = await resolveMonitorTarget(arg, paths);
      // A log file is named as given (its base name alone, often run.log, says little).
      state.name = target.source === 'log-file' && target.logFile ? displayPath(target.logFile, paths.root) : target.name;
      if (!target.logFile) throw new Error(target.rayJob ? 'a Ray job cannot be compared (its log is streamed); compare its log file instead' : `${arg} has no run log to read`);
      const model = new RunModel({ name: target.name, unpackedRecords: UNPACKED_RECORDS });
      const scanner = modelLineScanner(model);
      await scanFile(target.logFile, scanner, { offset: 0 });
      scanner.end();
      if (gen !== this.generation) return;
      state.model = model;
      state.records = sortedRecords(model);
      state.status = 'ready';
    } catch (err) {
      if (gen !== this.generation) return;
      state.status = 'error';
      state.error = err instanceof ConsoleError ? err.what : (err as Error).message;
    }
    this.changed();
  }

  /** The curves part of the snapshot; `charts` are the overview's [key, label, source]. */
  build(m: RunModel, charts: readonly (readonly [string, string, 'step' | 'rollout'])[]): { charts: ChartSeries[]; curves: CurvesSnapshot } {
    const recs = sortedRecords(m);
    const lastStep = recs.steps[recs.steps.length - 1];
    const lastRollout = recs.rollouts[recs.rollouts.length - 1];
    const metrics = [...m.metricKeys]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([key, source]) => {
        const rec = source === 'step' ? lastStep : lastRollout;
        const points = source === 'step' ? recs.steps.length : recs.rollouts.length;
        return { key, source, last: rec ? metricNumber(metricOf(rec, key)) : undefined, points };
      });
    const labelOf = (key: string) => charts.find((c) => c[0] === key)?.[1] ?? key;
    const focusKey = this.focusKey;
    const focusSource = focusKey ? (m.metricKeys.get(focusKey) ?? charts.find((c) => c[0] === focusKey)?.[2]) : undefined;
    const cmp = this.comparison;
    const cmpSource = focusKey && cmp?.model ? cmp.model.metricKeys.get(focusKey) : undefined;
    return {
      charts: charts.map(([key, label, source]) => metricSeries(recs, source, key, label, 1000)),
      curves: {
        metrics,
        focus: focusKey && focusSource ? metricSeries(recs, focusSource, focusKey, labelOf(focusKey)) : undefined,
        compare: cmp
          ? {
              name: cmp.name,
              status: cmp.status,
              error: cmp.error,
              series: focusKey && cmpSource && cmp.records ? metricSeries(cmp.records, cmpSource, focusKey, labelOf(focusKey)) : undefined,
              // The overview's charts get it too (`monitor --compare` shows it without opening a chart).
              // The compared run is read once and not followed, so its series are built once.
              charts: (cmp.overview ??= cmp.records
                ? charts.map(([key, label]) => {
                    const src = cmp.model?.metricKeys.get(key);
                    return src && cmp.records ? metricSeries(cmp.records, src, key, label, 1000) : undefined;
                  })
                : undefined),
              rollouts: cmp.records?.rollouts.length ?? 0,
            }
          : undefined,
        candidates: this.candidates,
        pendingGroups: m.pendingGroups(),
        pendingRollout: m.inProgressRollout,
      },
    };
  }
}
