// The task image list, byte-identical to Dressage's `list-images`: one image per line, each line ending in "\n",
// first-seen order, exact duplicates removed; and the same stderr summary line.
import path from 'node:path';
import { writeFileAtomic } from '../workspace/atomic.js';
import type { SweGymTask } from './types.js';

/** Unique images in first-seen order. */
export function uniqueImages(rows: readonly Pick<SweGymTask, 'image'>[]): string[] {
  return [...new Set(rows.map((r) => r.image))];
}

/** The file content Dressage writes: every image followed by "\n" (an empty list gives an empty file). */
export function imageListText(images: readonly string[]): string {
  return images.map((i) => `${i}\n`).join('');
}

/**
 * A path as Python's `pathlib.Path` prints it (Dressage prints its Path arguments): repeated slashes collapsed,
 * `.` components and a trailing slash dropped; `..` kept; an empty path is `.`.
 */
export function pythonPathString(p: string): string {
  if (p === '') return '.';
  const absolute = p.startsWith('/');
  // POSIX pathlib keeps exactly two leading slashes, collapses three or more to one.
  const lead = absolute ? (p.startsWith('//') && !p.startsWith('///') ? '//' : '/') : '';
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  const body = parts.join('/');
  return lead + body || '.';
}

export function summaryLine(count: number, inputLabel: string, outputLabel: string): string {
  return `wrote ${count} unique images from ${pythonPathString(inputLabel)} to ${pythonPathString(outputLabel)}`;
}

export interface WriteImageListOptions {
  rows: readonly Pick<SweGymTask, 'image'>[];
  /** Where to write (absolute or relative to the process cwd). */
  output: string;
  /** The input path as the operator named it, for the summary line (default: as given). */
  inputLabel: string;
  /** The output path as the operator named it (default: `output`). */
  outputLabel?: string;
}

export interface ImageListResult {
  images: string[];
  output: string;
  /** `wrote <N> unique images from <input> to <output>` */
  summary: string;
}

/** Writes the list atomically and returns the images and the summary line (the caller prints it to stderr). */
export async function writeImageList(opts: WriteImageListOptions): Promise<ImageListResult> {
  const images = uniqueImages(opts.rows);
  const output = path.resolve(opts.output);
  await writeFileAtomic(output, imageListText(images));
  return { images, output, summary: summaryLine(images.length, opts.inputLabel, opts.outputLabel ?? opts.output) };
}
