// A table of one-line rows: columns with widths and alignment, cells cut with "…" (never wider than their column,
// wide graphemes counted as two), a header, and the selected row kept in view (inverse, with a › mark if asked).
import React from 'react';
import { Box } from 'ink';
import { T, type Tone } from './theme.js';
import { displayWidth, padEnd, padStart, truncate, visibleWindow } from './text.js';

export interface Column {
  header?: string;
  /** Columns; `fill` takes what the fixed columns leave (at least 1); the last column may be `fill` or fixed. */
  width: number | 'fill';
  align?: 'left' | 'right';
}

/** A cell with a tone of its own (a status column coloured by the status); plain strings take the row's tone. */
export interface Cell {
  text: string;
  tone?: Tone;
}

export interface TableRow {
  key: string;
  cells: readonly (string | Cell)[];
  tone?: Tone;
}

const cellText = (c: string | Cell | undefined): string => (typeof c === 'string' ? c : (c?.text ?? ''));

/** The widths each column gets in `width` columns, with `gap` spaces between columns. */
export function columnWidths(columns: readonly Column[], width: number, gap = 1): number[] {
  const fixed = columns.reduce((n, c) => n + (c.width === 'fill' ? 0 : c.width), 0) + gap * Math.max(0, columns.length - 1);
  const fills = columns.filter((c) => c.width === 'fill').length;
  const each = fills ? Math.max(1, Math.floor((width - fixed) / fills)) : 0;
  return columns.map((c) => (c.width === 'fill' ? each : c.width));
}

/**
 * One row as its pieces, each cell padded or cut to its column with the gap before it, the whole cut once at `width`.
 * The last column is not padded (no trailing spaces); a fill column at the end keeps its text up to the line's end.
 */
export function tablePieces(columns: readonly Column[], cells: readonly (string | Cell)[], width: number, gap = 1): string[] {
  const widths = columnWidths(columns, width, gap);
  const sep = ' '.repeat(gap);
  const pieces: string[] = [];
  let used = 0;
  for (let i = 0; i < columns.length && used < width; i++) {
    const c = columns[i] as Column;
    const cell = cellText(cells[i]);
    const last = i === columns.length - 1;
    const w = widths[i] ?? 0;
    const text = (i ? sep : '') + (last && c.width === 'fill' ? cell : c.align === 'right' ? padStart(cell, w) : last ? truncate(cell, w) : padEnd(cell, w));
    const piece = used + displayWidth(text) > width ? truncate(text, width - used) : text;
    pieces.push(piece);
    used += displayWidth(piece);
  }
  return pieces;
}

/** One row as text (see tablePieces). */
export function tableLine(columns: readonly Column[], cells: readonly (string | Cell)[], width: number, gap = 1): string {
  return tablePieces(columns, cells, width, gap).join('');
}

export interface TableProps {
  columns: readonly Column[];
  rows: readonly TableRow[];
  width: number;
  /** Rows for the table, header included. */
  height: number;
  selected?: number;
  /** Selection shows (inverse) only when the table has the focus. */
  focused?: boolean;
  header?: boolean;
  headerTone?: Tone;
  headerBold?: boolean;
  gap?: number;
  /** Shown instead of rows when there are none. */
  empty?: string;
}

export function Table({ columns, rows, width, height, selected = -1, focused = true, header = true, headerTone = 'dim', headerBold = true, gap = 1, empty }: TableProps) {
  const bodyRows = Math.max(0, height - (header ? 1 : 0));
  const [start, end] = visibleWindow(rows.length, Math.max(0, selected), bodyRows);
  return (
    <Box flexDirection="column" width={width} overflow="hidden">
      {header ? (
        <T tone={headerTone} bold={headerBold}>
          {tableLine(columns, columns.map((c) => c.header ?? ''), width, gap)}
        </T>
      ) : null}
      {rows.slice(start, end).map((r, i) => {
        const inverse = focused && start + i === selected;
        if (!r.cells.some((c) => typeof c !== 'string' && c.tone)) {
          return (
            <T key={r.key} tone={r.tone ?? 'plain'} inverse={inverse}>
              {tableLine(columns, r.cells, width, gap) || ' '}
            </T>
          );
        }
        const pieces = tablePieces(columns, r.cells, width, gap);
        return (
          <Box key={r.key} width={width} overflow="hidden">
            {pieces.map((p, j) => {
              const cell = r.cells[j];
              return (
                <T key={j} tone={(typeof cell === 'string' ? undefined : cell?.tone) ?? r.tone ?? 'plain'} inverse={inverse}>
                  {p}
                </T>
              );
            })}
          </Box>
        );
      })}
      {rows.length === 0 && empty && bodyRows > 0 ? <T tone="dim">{truncate(empty, width)}</T> : null}
    </Box>
  );
}
