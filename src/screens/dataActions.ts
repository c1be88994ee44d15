// Data screen actions: load and check the split, download it (as a job with progress), write the image list.
// They call the dataset service and publish into the data store; the screen only renders the store.
import type { AppServices } from './services.js';
import { ConsoleError } from '../services/errors.js';
import { DataValidationError } from '../services/dataset/read.js';
import { formatProblem } from '../services/dataset/types.js';
import type { DataError } from '../state/data.js';
import type { Split } from '../services/workspace/paths.js';

let loadToken = 0;

function toDataError(err: unknown): DataError {
  if (err instanceof DataValidationError) return { what: err.what, fix: err.fix, problems: err.problems.map(formatProblem) };
  if (err instanceof ConsoleError) return { what: err.what, cause: err.causeText, fix: err.fix };
  return { what: String((err as Error)?.message ?? err) };
}

/**
 * Reads the split of the store's `split`, its image list status and the template map. With `ifChanged`, does
 * nothing when those files are as they were at the last load (opening the screen again costs a few stats).
 * A reload keeps showing the previous data until the new one is ready.
 */
export async function loadData(services: AppServices, opts: { ifChanged?: boolean } = {}): Promise<void> {
  const store = services.data;
  const token = ++loadToken;
  const { split } = store.getState();
  const { splitStamp } = await import('../services/dataset/split.js');
  const stamp = await splitStamp(services.paths, split);
  if (token !== loadToken) return;
  const before = store.getState();
  if (opts.ifChanged && before.stamp === stamp && before.stampSplit === split && before.status !== 'idle') return;
  if (before.status !== 'loaded' || before.stampSplit !== split) store.getState().set({ status: 'loading', error: undefined });
  try {
    const [{ loadSplit, imageListStatus }, { summarize }, { uniqueImages }, { inspectTemplateMap }] = await Promise.all([
      import('../services/dataset/split.js'),
      import('../services/dataset/summary.js'),
      import('../services/dataset/images.js'),
      import('../services/templates/map.js'),
    ]);
    const data = await loadSplit(services.paths, { split });
    const images = uniqueImages(data.rows);
    const [imageList, map] = await Promise.all([imageListStatus(services.paths.imageList, images), inspectTemplateMap(services.paths.templateMap)]);
    if (token !== loadToken) return;
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
    if (token !== loadToken) return;
    const missing = err instanceof ConsoleError && err.kind === 'missing_file';
    store.getState().set({ stamp, stampSplit: split, status: missing ? 'missing' : 'invalid', rows: [], summary: undefined, error: toDataError(err), detail: undefined });
  }
}

export function switchSplit(services: AppServices): void {
  const { split, set } = services.data.getState();
  const next: Split = split === 'train' ? 'validation' : 'train';
  set({ split: next, selected: 0, detail: undefined, filter: '', detailScroll: 0 });
  void loadData(services);
}

/** Downloads the store's split from the hub as a job (bytes, rate, ETA in the store), then reloads. */
export async function startDownload(services: AppServices, env: NodeJS.ProcessEnv = services.env): Promise<void> {
  const store = services.data;
  const current = store.getState().download;
  if (current?.running) {
    services.app.getState().setFlash('a download is already running', 'warn');
    return;
  }
  const { split } = store.getState();
  const ac = new AbortController();
  const id = `data-download-${split}`;
  const startedAt = Date.now();
  services.jobs.getState().start({ id, title: `download ${split}.parquet`, startedAt, cancel: () => ac.abort() });
  store.getState().set({ download: { split, startedAt, running: true } });
  try {
    const [{ downloadSplit }, { formatBytes }] = await Promise.all([import('../services/dataset/split.js'), import('../services/util/format.js')]);
    const result = await downloadSplit({
      paths: services.paths,
      split,
      env,
      signal: ac.signal,
      onProgress: (p) => {
        const d = store.getState().download;
        if (d) store.getState().set({ download: { ...d, progress: p } });
        if (p.total) services.jobs.getState().progress(id, p.received, p.total);
      },
    });
    const text = result.upToDate
      ? `${split}.parquet is up to date (${formatBytes(result.bytes)})`
      : `downloaded ${split}.parquet (${formatBytes(result.bytes)}${result.verified.sha256 ? ', sha256 verified' : ''})`;
    store.getState().set({ download: { split, startedAt, running: false, progress: store.getState().download?.progress, outcome: { ok: true, text } } });
    services.app.getState().setFlash(text, 'info');
    if (store.getState().split === split) await loadData(services);
  } catch (err) {
    const error = toDataError(err);
    store.getState().set({ download: { split, startedAt, running: false, progress: store.getState().download?.progress, outcome: { ok: false, error } } });
    services.app.getState().setFlash(error.what, 'error');
  } finally {
    services.jobs.getState().finish(id);
  }
}

/** Writes data/swegym-images.txt from the loaded split (Dressage's list-images), then refreshes its status. */
export async function writeImages(services: AppServices): Promise<void> {
  const { split, status } = services.data.getState();
  if (status !== 'loaded') {
    services.app.getState().setFlash('load a valid split first (d downloads it)', 'warn');
    return;
  }
  try {
    const { writeSplitImages, imageListStatus } = await import('../services/dataset/split.js');
    const r = await writeSplitImages(services.paths, { split });
    services.data.getState().set({ imageList: await imageListStatus(services.paths.imageList, r.images) });
    services.app.getState().setFlash(r.summary, 'info');
  } catch (err) {
    services.app.getState().setFlash(toDataError(err).what, 'error');
  }
}
