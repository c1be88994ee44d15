// A fixed-height panel of one-line rows: sliced to the rows that fit (from `scroll`), each cut to the width.
import React from 'react';
import { Box } from 'ink';
import { T, type Tone } from './theme.js';
import { truncate } from './text.js';

export interface Line {
  text: string;
  tone?: Tone;
  bold?: boolean;
  inverse?: boolean;
  key?: string;
}

export function Lines({ lines, width, height, scroll = 0 }: { lines: readonly Line[]; width: number; height: number; scroll?: number }) {
  const start = clampScroll(scroll, lines.length, height);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.slice(start, start + Math.max(0, height)).map((l, i) => (
        <T key={l.key ?? start + i} tone={l.tone ?? 'plain'} bold={l.bold} inverse={l.inverse}>
          {truncate(l.text, width) || ' '}
        </T>
      ))}
    </Box>
  );
}

/** The first visible row for a list of `total` rows in `rows` rows: never past the end, never negative. */
export function clampScroll(scroll: number, total: number, rows: number): number {
  return Math.max(0, Math.min(scroll, total - Math.max(0, rows)));
}
