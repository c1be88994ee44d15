// How Ink repaints a changed line (scripts/build.mjs wraps Ink's own line-update in ink/build/log-update.js with this).
// Ink keeps a changed line's identical prefix on screen and rewrites the rest to the line's end. A dashboard line
// mostly changes in the middle (a counter, a rate, an age in a table row) and keeps its tail, so over SSH most of
// what was sent was the tail again. Where both lines are plain printable ASCII of one width with SGR styling, this
// writes only the cells from the first to the last that differ (character or style), then resets the style; the
// other cells are already right on screen. Anything else, or when Ink's write is shorter, is Ink's own.

const ESC = '\u001B[';
const SGR = /\u001B\[[\d;]*m/gy;

/** A line as cells: each printable character, where it is in the text, and the SGR sequences written before it. */
interface Cells {
  chars: string[];
  at: number[];
  styles: string[];
}

/** The line's cells, or undefined when it holds anything but printable ASCII and SGR sequences. */
function cellsOf(line: string): Cells | undefined {
  const cells: Cells = { chars: [], at: [], styles: [] };
  let style = '';
  let i = 0;
  while (i < line.length) {
    const code = line.charCodeAt(i);
    if (code === 0x1b) {
      SGR.lastIndex = i;
      const m = SGR.exec(line);
      if (!m) return undefined;
      style += m[0];
      i += m[0].length;
      continue;
    }
    if (code < 0x20 || code > 0x7e) return undefined;
    cells.chars.push(line[i] as string);
    cells.at.push(i);
    cells.styles.push(style);
    i++;
  }
  return cells;
}

/** The write that turns `previous` (on screen, on the cursor's row) into `next`, touching only the cells that differ. */
export function changedCellsUpdate(previous: string, next: string, columns: number | undefined): string | undefined {
  if (columns === undefined || !(columns >= 1)) return undefined;
  const before = cellsOf(previous);
  const after = cellsOf(next);
  // Equal widths only: the cells after the last difference must be the same cells on both lines. Short of the last
  // column, so the cursor never waits to wrap.
  if (!before || !after || before.chars.length !== after.chars.length || after.chars.length >= columns) return undefined;
  const same = (k: number) => before.chars[k] === after.chars[k] && before.styles[k] === after.styles[k];
  let first = 0;
  while (first < after.chars.length && same(first)) first++;
  if (first === after.chars.length) return undefined;
  let last = after.chars.length - 1;
  while (last > first && same(last)) last--;
  const start = after.at[first] as number;
  const end = (after.at[last] as number) + 1;
  // Reset, the styles in force at the first changed cell, the changed span as written, reset again: the state each
  // line of Ink's frame starts from, whatever the span ends in.
  return `${ESC}${first + 1}G${ESC}0m${after.styles[first]}${next.slice(start, end)}${ESC}0m`;
}

/** Ink's line update with the changed-cells write where that is shorter. */
export function keepingUnchangedCells(inkLineUpdate: (previous: string, next: string, columns: number) => string) {
  return (previous: string, next: string, columns: number): string => {
    const ink = inkLineUpdate(previous, next, columns);
    const cells = changedCellsUpdate(previous, next, columns);
    return cells !== undefined && cells.length < ink.length ? cells : ink;
  };
}
