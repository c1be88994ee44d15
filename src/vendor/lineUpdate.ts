// How Ink repaints a changed line (scripts/build.mjs wraps Ink's own line-update in ink/build/log-update.js with this).
// Ink keeps a changed line's identical prefix on screen and rewrites the rest to the line's end. A dashboard line
// mostly changes in the middle (a counter, a rate, an age in a table row, a chart's last column) and keeps its tail,
// so over SSH most of what was sent was the tail again. Where both lines are characters of one cell each (ASCII and
// the console's own symbols: braille, blocks, box drawing, arrows, `·`, `…`, `✓`) with SGR styling, this writes only
// the cells from the first to the last that differ (character or style), in the style in force there, then resets the
// style; the other cells are already right on screen. Anything else, or when Ink's write is shorter, is Ink's own.
const ESC = '\u001B[';
const SGR = /\u001B\[[\d;]*m/gy;

/** A line as cells: each printable character, where it is in the text, and the SGR sequences written before it. */
interface Cells {
  chars: string[];
  at: number[];
  styles: string[];
}

/**
 * Code points that take one cell in Ink's layout (string-width) and in terminals: printable ASCII and Latin-1, general
 * punctuation, arrows, box drawing, blocks and geometric shapes (short of the two that default to emoji), braille,
 * ✓ ✗ ⚠. No combining marks, no wide scripts, no emoji, nothing outside the BMP (one UTF-16 unit each).
 */
function oneCell(code: number): boolean {
  if (code < 0x2000) return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff && code !== 0xad);
  return (
    (code >= 0x2010 && code <= 0x2027) ||
    (code >= 0x2030 && code <= 0x205e) ||
    (code >= 0x2190 && code <= 0x21ff) ||
    (code >= 0x2500 && code <= 0x25fc) ||
    (code >= 0x2800 && code <= 0x28ff) ||
    code === 0x2713 ||
    code === 0x2717 ||
    code === 0x26a0
  );
}

/** SGR attributes that one parameter sets, and the parameter that turns each off (22 ends bold and dim alike). */
const FLAGS: Record<number, string> = { 1: 'bold', 2: 'dim', 3: 'italic', 4: 'underline', 5: 'blink', 7: 'inverse', 8: 'hidden', 9: 'strike' };
const FLAG_OFF: Record<number, readonly string[]> = { 22: ['bold', 'dim'], 23: ['italic'], 24: ['underline'], 25: ['blink'], 27: ['inverse'], 28: ['hidden'], 29: ['strike'] };

/**
 * The SGR state that a run of SGR sequences leaves, as the parameters of one sequence after a reset ('' for none), or
 * undefined for a parameter this does not know (then the sequences are replayed as written).
 */
export function sgrState(sequences: string): string | undefined {
  const flags = new Set<string>();
  let fg = '';
  let bg = '';
  for (const m of sequences.matchAll(/\u001B\[([\d;]*)m/g)) {
    const p = (m[1] as string) === '' ? [0] : (m[1] as string).split(';').map(Number);
    for (let i = 0; i < p.length; i++) {
      const c = p[i] as number;
      if (c === 0) {
        flags.clear();
        fg = bg = '';
      } else if (FLAGS[c]) flags.add(FLAGS[c] as string);
      else if (FLAG_OFF[c]) for (const f of FLAG_OFF[c] as readonly string[]) flags.delete(f);
      else if ((c >= 30 && c <= 37) || (c >= 90 && c <= 97)) fg = String(c);
      else if ((c >= 40 && c <= 47) || (c >= 100 && c <= 107)) bg = String(c);
      else if (c === 39) fg = '';
      else if (c === 49) bg = '';
      else if ((c === 38 || c === 48) && p[i + 1] === 5 && i + 2 < p.length) {
        const colour = `${c};5;${p[i + 2]}`;
        if (c === 38) fg = colour;
        else bg = colour;
        i += 2;
      } else if ((c === 38 || c === 48) && p[i + 1] === 2 && i + 4 < p.length) {
        const colour = `${c};2;${p[i + 2]};${p[i + 3]};${p[i + 4]}`;
        if (c === 38) fg = colour;
        else bg = colour;
        i += 4;
      } else return undefined;
    }
  }
  const codes = Object.entries(FLAGS).filter(([, f]) => flags.has(f)).map(([code]) => code);
  if (fg) codes.push(fg);
  if (bg) codes.push(bg);
  return codes.join(';');
}

/** The line's cells, or undefined when it holds anything but one-cell characters and SGR sequences. */
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
    if (!oneCell(code)) return undefined;
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
  // The style in force at the first changed cell (one sequence from a reset, or the line's sequences up to there
  // after a reset), the changed span as written, a reset: the state each line of Ink's frame starts from, whatever
  // the span ends in.
  const styles = after.styles[first] as string;
  const state = sgrState(styles);
  const opening = state === undefined ? `${ESC}0m${styles}` : `${ESC}${state ? `0;${state}` : '0'}m`;
  return `${ESC}${first + 1}G${opening}${next.slice(start, end)}${ESC}0m`;
}

/** Ink's line update with the changed-cells write where that is shorter. */
export function keepingUnchangedCells(inkLineUpdate: (previous: string, next: string, columns: number) => string) {
  return (previous: string, next: string, columns: number): string => {
    const ink = inkLineUpdate(previous, next, columns);
    const cells = changedCellsUpdate(previous, next, columns);
    return cells !== undefined && cells.length < ink.length ? cells : ink;
  };
}
