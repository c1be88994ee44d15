// The marker search of the fast scanner (LineScanner, the --once segment scan): raw bytes searched for the needles
// of lines.ts LINE_MARKERS, so that only lines holding a marker are ever decoded. Some marker texts count only
// inside their shape (markerShapes.ts).
import { shapeHolds, shapeOf } from './markerShapes.js';

/** Markers grouped by needle: one indexOf pass per group; `ats[i]` is where the needle sits in `texts[i]`. */
export interface MarkerGroup {
  needle: Uint8Array;
  texts: Uint8Array[];
  ats: number[];
  /** `shapes[i]`: the shape `texts[i]` must have (markerShapes.ts; 0: none). */
  shapes: number[];
  /**
   * 1 for each byte that follows the needle in some text (all 1 when a text ends with it): a one-byte needle such as
   * `k` is found in most noise lines, and most of those hits are rejected here without comparing every text.
   */
  after: Uint8Array;
  /** The same for the byte before the needle. */
  before: Uint8Array;
}

/** Groups [text, needle] pairs by needle. */
export function compileMarkers(markers: readonly (readonly [string, string])[]): MarkerGroup[] {
  const enc = new TextEncoder();
  const groups: (Pick<MarkerGroup, 'needle' | 'texts' | 'ats' | 'shapes'> & { key: string })[] = [];
  for (const [text, needle] of markers) {
    const bytes = enc.encode(text);
    const at = text.indexOf(needle);
    if (needle.length === 0 || at < 0 || text.includes('\n') || bytes.length !== text.length) throw new Error(`bad line marker ${JSON.stringify(text)} / ${JSON.stringify(needle)}`);
    let g = groups.find((x) => x.key === needle);
    if (!g) groups.push((g = { key: needle, needle: enc.encode(needle), texts: [], ats: [], shapes: [] }));
    g.texts.push(bytes);
    g.ats.push(at);
    g.shapes.push(shapeOf(text));
  }
  return groups.map(({ needle, texts, ats, shapes }) => {
    const after = new Uint8Array(256);
    const before = new Uint8Array(256);
    texts.forEach((t, i) => {
      const at = ats[i] as number;
      const next = at + needle.length;
      if (next < t.length) after[t[next] as number] = 1;
      else after.fill(1);
      if (at > 0) before[t[at - 1] as number] = 1;
      else before.fill(1);
    });
    return { needle, texts, ats, shapes, after, before };
  });
}

/**
 * Appends to `out` (in increasing order, once each) the start offsets of the lines of buf[from, end) that contain
 * a marker (in its shape, where it has one). buf[from - 1] is a newline or from is 0; end is the index of a newline
 * or the end of the data.
 */
export function findMarkedLines(buf: Buffer, from: number, end: number, groups: MarkerGroup[], out: number[]): void {
  const first = out.length;
  let sorted = true;
  // indexOf on a view that ends at `end`, so a search for a rare byte stops there instead of running on.
  const view = end < buf.length ? buf.subarray(0, end) : buf;
  for (const g of groups) {
    const needle = g.needle.length === 1 ? (g.needle[0] as number) : g.needle;
    const texts = g.texts;
    const ats = g.ats;
    const shapes = g.shapes;
    const after = g.after;
    const prior = g.before;
    const len = g.needle.length;
    const before = out.length;
    let p = from;
    while (p < end) {
      const h = view.indexOf(needle, p);
      if (h < 0) break;
      // Neighbour bytes that no marker has around this needle: not a marker (a byte outside the buffer reads as
      // undefined and falls through to the full comparison, which checks the bounds).
      if (after[buf[h + len] as number] === 0 || prior[buf[h - 1] as number] === 0) {
        p = h + 1;
        continue;
      }
      let hit = false;
      for (let k = 0; k < texts.length && !hit; k++) {
        const t = texts[k] as Uint8Array;
        const s = h - (ats[k] as number);
        const n = t.length;
        if (s < from || s + n > end) continue;
        let i = 0;
        while (i < n && buf[s + i] === t[i]) i++;
        hit = i === n;
        const shape = shapes[k] as number;
        if (hit && shape !== 0) {
          const ls = Math.max(from, view.lastIndexOf(10, s) + 1);
          const le = view.indexOf(10, s);
          hit = shapeHolds(buf, shape, s, ls, le < 0 ? end : le);
        }
      }
      if (!hit) {
        p = h + 1;
        continue;
      }
      const ls = view.lastIndexOf(10, h) + 1;
      out.push(ls < from ? from : ls);
      const le = view.indexOf(10, h);
      p = le < 0 ? end : le + 1;
    }
    if (before > first && out.length > before) sorted = false;
  }
  if (!sorted) {
    const part = out.splice(first).sort((a, b) => a - b);
    let prev = -1;
    for (const x of part) if (x !== prev) out.push((prev = x));
  }
}
