// A long job's progress on screen: `[████░░░░] 12/293 · ETA 1h02m`, the bar fitted to the width it is given, the
// ETA from the rate observed so far and only while the job runs. Re-rendered by its store's publishes (≤10 Hz).
import React from 'react';
import { T, type Tone } from './theme.js';
import { truncate } from './text.js';
import { jobProgressLine } from './progress.js';
import type { JobProgress } from '../state/types/jobs.js';

/** The bar's width for a line of `width` columns: what is left after the count and ETA, 5–20 cells. */
export function progressBarWidth(width: number, reserved = 30): number {
  return Math.max(5, Math.min(20, width - reserved));
}

export function progressText(progress: JobProgress, width: number, label = '', now = Date.now()): string {
  return truncate(`${label}${jobProgressLine(progress, now, progressBarWidth(width - label.length))}`, width);
}

export function ProgressBar({ progress, width, label = '', tone = 'info' }: { progress: JobProgress | undefined; width: number; label?: string; tone?: Tone }) {
  if (!progress) return null;
  return <T tone={tone}>{progressText(progress, width, label)}</T>;
}
