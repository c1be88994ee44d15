// The dataset step as one service: download a split to the recipe path, load and check it, write the image list.
// Used by the headless `data …` commands and by the Data screen alike.
import path from 'node:path';
import { usageError } from '../errors.js';
import { SPLIT_ROWS, displayPath, type RecipePaths, type Split } from '../workspace/paths.js';
import { sampleWorkspaceLabel } from '../workspace/sample.js';
import { downloadHubFile, type DownloadProgress, type DownloadResult } from './hub.js';
import { readSplit } from './read.js';
import { writeImageList, type ImageListResult } from './images.js';
import type { SplitData } from './types.js';
import { SWEGYM_DATASET } from '../recipe.js';
import type { ImageListStatus } from '../../state/types/dataset.js';
export type { ImageListStatus } from '../../state/types/dataset.js';

export function parseSplit(value: string | undefined): Split {
  const v = value ?? 'train';
  if (!(v in SPLIT_ROWS)) throw usageError(`unknown split "${v}"`, 'Use --split train or --split validation.');
  return v as Split;
}

/** Parses `--expect-rows N` (a positive integer, or 0/"any" to skip the check). */
export function parseExpectRows(value: string | undefined): number | false | undefined {
  if (value === undefined) return undefined;
  if (value === 'any' || value === '0') return false;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usageError(`--expect-rows must be a positive integer (or "any"), got "${value}"`);
  return n;
}

export interface DownloadSplitOptions {
  paths: RecipePaths;
  split: Split;
  /** Target directory (default: data/swegym-source in the workspace). */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
  /** Test hooks. */
  retryDelayMs?: number;
}

export interface DownloadSplitResult extends DownloadResult {
  split: Split;
}

/** Downloads `<split>.parquet` of NovaSky-AI/SkyRL-v0-293-data to `<dir>/<split>.parquet` (resumable, verified). */
export async function downloadSplit(o: DownloadSplitOptions): Promise<DownloadSplitResult> {
  const dir = o.dir ? path.resolve(o.dir) : o.paths.sourceDir;
  const result = await downloadHubFile({
    repo: SWEGYM_DATASET,
    filename: `${o.split}.parquet`,
    target: path.join(dir, `${o.split}.parquet`),
    env: o.env,
    signal: o.signal,
    onProgress: o.onProgress,
    retryDelayMs: o.retryDelayMs,
  });
  return { ...result, split: o.split };
}

export interface LoadSplitOptions {
  split: Split;
  /** A parquet other than the recipe's `data/swegym-source/<split>.parquet`. */
  input?: string;
  expectRows?: number | false;
}

/**
 * Reads and validates the split (recipe path unless `input` is given). A sample workspace's split holds its few
 * sample tasks, so there the 293/23-row expectation is lifted unless the caller sets one.
 */
export async function loadSplit(paths: RecipePaths, o: LoadSplitOptions): Promise<SplitData> {
  const file = o.input ? path.resolve(o.input) : paths.parquet(o.split);
  const expectRows = o.expectRows ?? (!o.input && sampleWorkspaceLabel(paths) !== undefined ? false : undefined);
  return readSplit(file, { split: o.split, expectRows, ...(file !== paths.parquet(o.split) ? { ownFile: true } : {}) });
}

export interface WriteImagesOptions extends LoadSplitOptions {
  /** Output file (default: data/swegym-images.txt in the workspace). */
  output?: string;
}

export interface WriteImagesResult extends ImageListResult {
  data: SplitData;
}

/**
 * Dressage's `list-images`: validate the split, then write one image per task. The summary names the paths as the
 * operator gave them (or relative to the workspace for the defaults), as Dressage does when run from the checkout.
 */
export async function writeSplitImages(paths: RecipePaths, o: WriteImagesOptions): Promise<WriteImagesResult> {
  const data = await loadSplit(paths, o);
  const output = o.output ? path.resolve(o.output) : paths.imageList;
  const result = await writeImageList({
    rows: data.rows,
    output,
    inputLabel: o.input ?? displayPath(paths, data.file),
    outputLabel: o.output ?? displayPath(paths, output),
  });
  return { ...result, data };
}

/** Compares data/swegym-images.txt on disk with the list the split gives (byte for byte). */
export async function imageListStatus(file: string, images: readonly string[]): Promise<ImageListStatus> {
  const { readFile } = await import('node:fs/promises');
  const { imageListText } = await import('./images.js');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing', lines: 0 };
    throw err;
  }
  const lines = text.split('\n').filter((l) => l !== '').length;
  return { state: text === imageListText(images) ? 'current' : 'differs', lines };
}

/** A cheap fingerprint of the files the Data view shows (parquet, image list, template map): size and mtime. */
export async function splitStamp(paths: RecipePaths, split: Split): Promise<string> {
  const { stat } = await import('node:fs/promises');
  const one = async (file: string) => {
    try {
      const s = await stat(file);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  return (await Promise.all([paths.parquet(split), paths.imageList, paths.templateMap].map(one))).join('|');
}
