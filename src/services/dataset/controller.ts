// Drives the Data screen: loads and checks the split, runs the download job (downloadJob.ts, the one `data download`
// prints) with its progress in the data store, writes the image list. States come from typed errors
// (DataValidationError, ConsoleError.kind), never from an error's wording. The heavy dataset code is imported on
// first use: this controller is created with the first frame's stores.
import type { RecipePaths, Split } from '../workspace/paths.js';
import type { DataError, DataStore } from '../../state/data.js';
import type { JobsStore } from '../../state/jobs.js';
import { ConsoleError } from '../errors.js';
import type { DownloadJobEvent } from './downloadJob.js';
import { DataValidationError } from './validationError.js';
import { formatProblem } from './types.js';
// Loaded with every command (the entry imports it), so a static import costs nothing here.
import { formatBytes } from '../util/format.js';

export type Flash = (text: string, tone: 'info' | 'warn' | 'error') => void;

export interface DataControllerOptions {
  paths: RecipePaths;
  store: DataStore;
  jobs: JobsStore;
  env: NodeJS.ProcessEnv;
  /** The app's one-line message (the data store has no message of its own). */
  flash: Flash;
}

export function downloadJobId(split: Split): string {
  return `data-download-${split}`;
}

function toDataError(err: unknown): DataError {
  if (err instanceof DataValidationError) return { what: err.what, fix: err.fix, problems: err.problems.map(formatProblem) };
  if (err instanceof ConsoleError) return { what: err.what, cause: err.causeText, fix: err.fix };
  return { what: String((err as Error)?.message ?? err) };
}

export class DataController {
  private loadToken = 0;

  constructor(private readonly opts: DataControllerOptions) {}

  /**
   * Reads the split of the store's `split`, its image list status and the template map. With `ifChanged`, does
   * nothing when those files are as they were at the last load (opening the screen again costs a few stats).
   * A reload keeps showing the previous data until the new one is ready.
   */
  async load(opts: { ifChanged?: boolean } = {}): Promise<void> {
    const { store, paths } = this.opts;
    const token = ++this.loadToken;
    const { split } = store.getState();
    const { splitStamp } = await import('./split.js');
    const stamp = await splitStamp(paths, split);
    if (token !== this.loadToken) return;
    const before = store.getState();
    if (opts.ifChanged && before.stamp === stamp && before.stampSplit === split && before.status !== 'idle') return;
    if (before.status !== 'loaded' || before.stampSplit !== split) store.getState().set({ status: 'loading', error: undefined });
    try {
      const [{ loadSplit, imageListStatus }, { summarize }, { uniqueImages }, { inspectTemplateMap }] = await Promise.all([
        import('./split.js'),
        import('./summary.js'),
        import('./images.js'),
        import('../templates/map.js'),
      ]);
      const data = await loadSplit(paths, { split });
      const images = uniqueImages(data.rows);
      const [imageList, map] = await Promise.all([imageListStatus(paths.imageList, images), inspectTemplateMap(paths.templateMap)]);
      if (token !== this.loadToken) return;
      const mapProblem = map.problems.find((p) => p.kind !== 'no_entry');
      const mapped = images.filter((i) => map.map[i]).length;
      const { selected } = store.getState();
      store.getState().set({
        stamp,
        stampSplit: split,
        status: 'loaded',
        file: data.file,
        rows: data.rows,
        summary: summarize(data),
        warnings: data.warnings.map(formatProblem),
        imageList,
        templateMap: map.map,
        templateMapNote: mapProblem?.kind === 'missing_file' ? 'no template map yet (templates not built)' : mapProblem ? mapProblem.message : `${mapped}/${images.length} images have a template`,
        selected: Math.min(selected, Math.max(0, data.rows.length - 1)),
      });
    } catch (err) {
      if (token !== this.loadToken) return;
      const missing = err instanceof ConsoleError && err.kind === 'missing_file';
      store.getState().set({ stamp, stampSplit: split, status: missing ? 'missing' : 'invalid', rows: [], summary: undefined, error: toDataError(err), detail: undefined });
    }
  }

  switchSplit(): void {
    const { split, set } = this.opts.store.getState();
    const next: Split = split === 'train' ? 'validation' : 'train';
    set({ split: next, selected: 0, detail: undefined, filter: '', detailScroll: 0 });
    void this.load();
  }

  /** Downloads the store's split as a job (bytes, rate, ETA in the store), then reloads. */
  async download(env: NodeJS.ProcessEnv = this.opts.env): Promise<void> {
    const { store, jobs, paths, flash } = this.opts;
    if (store.getState().download?.running) return flash('a download is already running', 'warn');
    const { split } = store.getState();
    const ac = new AbortController();
    const id = downloadJobId(split);
    const startedAt = Date.now();
    jobs.getState().start({ id, title: `download ${split}.parquet`, startedAt, cancel: () => ac.abort() });
    store.getState().set({ download: { split, startedAt, running: true } });
    try {
      const { runDownloadJob } = await import('./downloadJob.js');
      const onEvent = (e: DownloadJobEvent) => {
        if (e.type !== 'progress') return;
        const d = store.getState().download;
        if (d) store.getState().set({ download: { ...d, progress: e.progress } });
        if (e.total) jobs.getState().progress(id, e.done, e.total);
      };
      const { result } = await runDownloadJob({ paths, split, env, signal: ac.signal, onEvent });
      // The file is there either way; an invalid one shows as such once the screen reloads it.
      const text = result.upToDate
        ? `${split}.parquet is up to date (${formatBytes(result.bytes)})`
        : `downloaded ${split}.parquet (${formatBytes(result.bytes)}${result.verified.sha256 ? ', sha256 verified' : ''})`;
      store.getState().set({ download: { split, startedAt, running: false, progress: store.getState().download?.progress, outcome: { ok: true, text } } });
      flash(text, 'info');
      if (store.getState().split === split) await this.load();
    } catch (err) {
      const error = toDataError(err);
      store.getState().set({ download: { split, startedAt, running: false, progress: store.getState().download?.progress, outcome: { ok: false, error } } });
      flash(error.what, 'error');
    } finally {
      jobs.getState().finish(id);
    }
  }

  /** Cancels the running download of the store's split. */
  cancelDownload(): void {
    const split = this.opts.store.getState().download?.split;
    if (split) this.opts.jobs.getState().jobs[downloadJobId(split)]?.cancel?.();
  }

  /** Writes data/swegym-images.txt from the loaded split (Dressage's list-images), then refreshes its status. */
  async writeImages(): Promise<void> {
    const { store, paths, flash } = this.opts;
    const { split, status } = store.getState();
    if (status !== 'loaded') return flash('load a valid split first (d downloads it)', 'warn');
    try {
      const { writeSplitImages, imageListStatus } = await import('./split.js');
      const r = await writeSplitImages(paths, { split });
      store.getState().set({ imageList: await imageListStatus(paths.imageList, r.images) });
      flash(r.summary, 'info');
    } catch (err) {
      flash(toDataError(err).what, 'error');
    }
  }
}
