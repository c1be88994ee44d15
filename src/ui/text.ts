// Width-aware string helpers for fixed-size panels (no wrapping, ever). Widths are terminal columns: a grapheme
// cluster (ui/graphemeSegmenter.ts) is 2 columns when it is an emoji shown as emoji or an East Asian wide character,
// 0 when it is only combining marks or format characters, 1 otherwise — what the terminal and Ink's layout count.
import { LazyGraphemeSegmenter, SINGLE_CODE_POINT_CLUSTERS } from './graphemeSegmenter.js';

const segmenter = new LazyGraphemeSegmenter(undefined, { granularity: 'grapheme' });
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const EAST_ASIAN_WIDE =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{20000}-\u{3FFFD}]/u;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\u200B]+$/u;

/** The grapheme clusters of `text` (what a user sees as one character). */
export function graphemes(text: string): string[] {
  if (PRINTABLE_ASCII.test(text)) return text.split('');
  const out: string[] = [];
  for (const s of segmenter.segment(text)) out.push(s.segment);
  return out;
}

/** Columns one grapheme cluster takes in a terminal. */
export function graphemeWidth(g: string): number {
  if (g.length === 1 && g >= ' ' && g <= '~') return 1;
  if (EMOJI_PRESENTATION.test(g) || g.includes('\uFE0F') || EAST_ASIAN_WIDE.test(g)) return 2;
  if (ZERO_WIDTH.test(g)) return 0;
  return 1;
}

const WIDE_ANYWHERE = new RegExp(`${EMOJI_PRESENTATION.source}|${EAST_ASIAN_WIDE.source}`, 'u');

/**
 * True for text in which every UTF-16 unit is one grapheme of one column: ASCII, and the console's own symbols, box
 * drawing, blocks and braille (BMP code points that never join and are not wide). Such text is measured by length.
 */
function oneColumnPerUnit(text: string): boolean {
  return PRINTABLE_ASCII.test(text) || (SINGLE_CODE_POINT_CLUSTERS.test(text) && !WIDE_ANYWHERE.test(text));
}

/** Columns `text` takes in a terminal. The console's own text (one column per code point) takes the short path. */
export function displayWidth(text: string): number {
  if (oneColumnPerUnit(text)) return text.length;
  let w = 0;
  for (const g of graphemes(text)) w += graphemeWidth(g);
  return w;
}

/** Cuts to `width` columns, marking the cut with "…"; never splits a grapheme (a wide one that does not fit goes). */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (oneColumnPerUnit(text)) return text.length <= width ? text : width === 1 ? '…' : text.slice(0, width - 1) + '…';
  if (displayWidth(text) <= width) return text;
  if (width === 1) return '…';
  let out = '';
  let used = 0;
  for (const g of graphemes(text)) {
    const w = graphemeWidth(g);
    if (used + w > width - 1) break;
    out += g;
    used += w;
  }
  return out + '…';
}

/**
 * `text` in `width` columns, cut in the middle: the head and the tail stay, "…" between. For names that share a long
 * prefix and differ at the end (templates `swegym-<org>-<repo>-<issue>`, sandbox and trajectory ids), where an
 * end cut would leave rows that all read alike.
 */
export function truncateMiddle(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return width === 1 ? '…' : '';
  const chars = graphemes(text);
  const tailRoom = Math.ceil((width - 1) / 2);
  let tail = '';
  let used = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = graphemeWidth(chars[i] as string);
    if (used + w > tailRoom) break;
    tail = (chars[i] as string) + tail;
    used += w;
  }
  return truncate(text, width - used).slice(0, -1) + '…' + tail;
}

export function padEnd(text: string, width: number): string {
  const t = truncate(text, width);
  return t + ' '.repeat(Math.max(0, width - displayWidth(t)));
}

export function padStart(text: string, width: number): string {
  const t = truncate(text, width);
  return ' '.repeat(Math.max(0, width - displayWidth(t))) + t;
}

/** Visible window of a list around the selection: [start, end). */
export function visibleWindow(total: number, selected: number, rows: number): [number, number] {
  if (rows <= 0) return [0, 0];
  if (total <= rows) return [0, total];
  const half = Math.floor(rows / 2);
  const start = Math.max(0, Math.min(total - rows, selected - half));
  return [start, start + rows];
}

/** Wraps text to `width` columns, breaking at spaces where it can and inside long words where it must. */
export function wrapText(text: string, width: number): string[] {
  if (width <= 0) return [];
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/(?<= )/)) {
      let w = word;
      while (displayWidth(line) + displayWidth(w) > width) {
        if (line.trim()) {
          out.push(line.trimEnd());
          line = '';
          continue;
        }
        const cut = truncateNoMark(w, width);
        out.push(cut);
        w = w.slice(cut.length);
      }
      line += w;
    }
    out.push(line.trimEnd());
  }
  return out;
}

/** The longest head of `text` that fits in `width` columns (at least one grapheme, so wrapping always advances). */
function truncateNoMark(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const g of graphemes(text)) {
    const w = graphemeWidth(g);
    if (used + w > width && out) break;
    out += g;
    used += w;
  }
  return out;
}
