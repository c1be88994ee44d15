// Curves as W&B draws them, on a rollout x-axis: the raw values as an envelope, their EMA as a line, a compared run,
// and the axis under them. Pure functions; src/ui/Chart.tsx draws them.
import { DOTS, ema, finiteRange } from './charts.js';

/** Smoothing steps for the `[` / `]` keys (W&B's slider runs 0–0.99). */
export const SMOOTHING_STEPS = [0, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99] as const;

export function stepSmoothing(current: number, dir: 1 | -1): number {
  let i = SMOOTHING_STEPS.findIndex((s) => s >= current - 1e-9);
  if (i < 0) i = SMOOTHING_STEPS.length - 1;
  const exact = Math.abs((SMOOTHING_STEPS[i] as number) - current) < 1e-9;
  const next = dir > 0 ? (exact ? i + 1 : i) : i - 1;
  return SMOOTHING_STEPS[Math.max(0, Math.min(SMOOTHING_STEPS.length - 1, next))] as number;
}

/** What a cell shows: the smoothed line wins over a compared run, which wins over the raw values. */
export type CurveLayer = 'raw' | 'ema' | 'compare' | 'blank';
export interface CurveSegment {
  layer: CurveLayer;
  text: string;
}

export interface CurveInput {
  /** x of each point, in rollouts. */
  x: readonly number[];
  /** Raw values (NaN/±Infinity are gaps). */
  y: readonly number[];
}

export interface CurvePlot {
  /** Plot rows, top first, as runs of cells of one layer. */
  rows: CurveSegment[][];
  /** y range drawn: the raw values' min and max (and the compared run's). */
  range: [number, number] | undefined;
  /** x range drawn (rollouts). */
  domain: [number, number] | undefined;
  /** The x at the plot's left and right edges (around the domain; see plotAxis). */
  axis: [number, number] | undefined;
  /** Plot column (cell) of an x value. */
  colOf: (x: number) => number;
}

/**
 * Where a plot of `px` pixel columns puts data spanning x0..x1: the x at its left edge and the x span across it, taken
 * from few steps, so that a live run's growing (or sliding) x range leaves every drawn column where it was (a new
 * rollout changes the last columns only) until the range passes the next step. Narrower than the plot: a whole number
 * of pixels per x unit from x0; wider: a whole number of x units per pixel, the pixels' bounds at multiples of it (a
 * window that slides by one rollout keeps them). Either way the data fills about half the plot or more.
 */
export function plotAxis(x0: number, x1: number, px: number): { start: number; span: number } {
  const cols = px - 1;
  const data = x1 - x0;
  if (!(data > 0) || cols < 1) return { start: x0, span: 0 };
  if (data <= cols) {
    const pixelsPerUnit = Math.floor(cols / data);
    // A range too narrow for whole pixels per unit (far below one rollout) is spread over the plot.
    return { start: x0, span: Number.isFinite(pixelsPerUnit) && pixelsPerUnit <= 1e6 ? cols / pixelsPerUnit : data };
  }
  // The bounds at multiples of the unit: its offset from x0 may push x1 past the plot, then one unit more fits (when the
  // unit is at most the plot's columns, as for any real run); else the bounds start at x0.
  const unit = Math.ceil(data / cols);
  for (const u of [unit, unit + 1]) {
    const start = Math.floor(x0 / u) * u;
    if (start <= x0 && x1 - start <= cols * u) return { start, span: cols * u };
  }
  return { start: x0, span: cols * unit };
}

/** Per pixel column: min/max/first/last/mean of the finite points that fall in it. */
function columns(s: CurveInput, values: readonly number[], x0: number, x1: number, pixelOf: (x: number) => number, px: number) {
  const min = new Float64Array(px).fill(NaN);
  const max = new Float64Array(px).fill(NaN);
  const first = new Float64Array(px).fill(NaN);
  const last = new Float64Array(px).fill(NaN);
  const sum = new Float64Array(px);
  const cnt = new Uint32Array(px);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    const x = s.x[i] as number;
    if (!Number.isFinite(v) || !Number.isFinite(x) || x < x0 || x > x1) continue;
    const c = pixelOf(x);
    if (cnt[c] === 0) {
      min[c] = max[c] = first[c] = v;
    } else {
      if (v < (min[c] as number)) min[c] = v;
      if (v > (max[c] as number)) max[c] = v;
    }
    last[c] = v;
    sum[c] = (sum[c] as number) + v;
    cnt[c] = (cnt[c] as number) + 1;
  }
  return { min, max, first, last, sum, cnt };
}

/**
 * Raw values as an envelope (every point's min..max per column, so a single spike stays visible however many points
 * share a column), the EMA of the raw values as a line, and optionally a compared run's EMA, in braille on one grid.
 */
/** The compared run's glyph without colour: braille is the open run's, this is the other's (a legend names both). */
export const COMPARE_GLYPH = '•';

/**
 * `compareGlyph`: cells where the compared run's line is drawn (and the open run's EMA is not) show this glyph
 * instead of braille: without colour, the two runs would otherwise be the same dots.
 */
export function curvePlot(main: CurveInput, width: number, height: number, opts: { smoothing?: number; compare?: CurveInput; compareGlyph?: string } = {}): CurvePlot {
  const px = Math.max(1, width * 2);
  const py = Math.max(1, height * 4);
  const smoothing = opts.smoothing ?? 0;
  const finiteX = main.x.filter((x, i) => Number.isFinite(x) && Number.isFinite(main.y[i] as number));
  const blank = (): CurveSegment[][] => Array.from({ length: Math.max(0, height) }, () => [{ layer: 'blank' as const, text: ' '.repeat(Math.max(0, width)) }]);
  if (width <= 0 || height <= 0 || finiteX.length === 0) return { rows: blank(), range: undefined, domain: undefined, axis: undefined, colOf: () => 0 };
  // The x range is the current run's: a compared run is drawn where it overlaps (same rollout, same column).
  const x0 = Math.min(...finiteX);
  const x1 = Math.max(...finiteX);
  const { start, span } = plotAxis(x0, x1, px);
  const pixelOf = (x: number) => (span > 0 ? Math.max(0, Math.min(px - 1, Math.round(((x - start) / span) * (px - 1)))) : 0);
  const colOf = (x: number) => Math.max(0, Math.min(width - 1, Math.floor(pixelOf(x) / 2)));
  const inDomain = (s: CurveInput) => s.y.filter((v, i) => (s.x[i] as number) >= x0 && (s.x[i] as number) <= x1);
  const r = finiteRange([...inDomain(main), ...(opts.compare ? inDomain(opts.compare) : [])]) as [number, number];
  let [lo, hi] = r;
  if (hi === lo) {
    hi += Math.abs(hi) * 0.05 || 1;
    lo -= Math.abs(lo) * 0.05 || 1;
  }
  const layers = new Uint8Array(width * height * 3); // per cell: raw, compare, ema bits
  const yOf = (v: number) => Math.round(((hi - Math.min(hi, Math.max(lo, v))) / (hi - lo)) * (py - 1));
  const set = (layer: number, x: number, y: number) => {
    const cell = Math.floor(y / 4) * width + Math.floor(x / 2);
    layers[cell * 3 + layer] = (layers[cell * 3 + layer] as number) | (DOTS[x % 2] as number[])[y % 4]!;
  };
  const vline = (layer: number, x: number, ya: number, yb: number) => {
    const [a, b] = ya < yb ? [ya, yb] : [yb, ya];
    for (let y = a; y <= b; y++) set(layer, x, y);
  };
  const draw = (layer: number, s: CurveInput, values: readonly number[], envelope: boolean) => {
    const c = columns(s, values, x0, x1, pixelOf, px);
    let prevX = -1;
    let prevY = 0;
    for (let x = 0; x < px; x++) {
      if (c.cnt[x] === 0) continue;
      const yFirst = yOf(envelope ? (c.first[x] as number) : (c.sum[x] as number) / (c.cnt[x] as number));
      const yLast = yOf(envelope ? (c.last[x] as number) : (c.sum[x] as number) / (c.cnt[x] as number));
      // Joined to the previous column with a straight segment, so the line is continuous.
      if (prevX >= 0) {
        const at = (t: number) => Math.round(prevY + ((yFirst - prevY) * (t - prevX)) / (x - prevX));
        for (let xx = prevX + 1; xx <= x; xx++) vline(layer, xx, at(xx - 1), at(xx));
      }
      if (envelope) vline(layer, x, yOf(c.min[x] as number), yOf(c.max[x] as number));
      else set(layer, x, yFirst);
      prevX = x;
      prevY = yLast;
    }
  };
  draw(0, main, main.y, true);
  if (opts.compare) draw(1, opts.compare, ema(opts.compare.y, smoothing), false);
  if (smoothing > 0) draw(2, main, ema(main.y, smoothing), false);
  const rows: CurveSegment[][] = [];
  for (let row = 0; row < height; row++) {
    const segs: CurveSegment[] = [];
    for (let col = 0; col < width; col++) {
      const i = (row * width + col) * 3;
      const raw = layers[i] as number;
      const cmp = layers[i + 1] as number;
      const sm = layers[i + 2] as number;
      const layer: CurveLayer = sm ? 'ema' : cmp ? 'compare' : raw ? 'raw' : 'blank';
      // A cell has one style: the winning layer's style, with every layer's dots in it.
      const bits = sm | cmp | raw;
      const ch = layer === 'compare' && opts.compareGlyph ? opts.compareGlyph : bits ? String.fromCharCode(0x2800 + bits) : ' ';
      const lastSeg = segs[segs.length - 1];
      if (lastSeg && lastSeg.layer === layer) lastSeg.text += ch;
      else segs.push({ layer, text: ch });
    }
    rows.push(segs);
  }
  return { rows, range: [lo, hi], domain: [x0, x1], axis: [start, start + span], colOf };
}

/**
 * Rollout numbers under a plot of `width` cells: the first at the left, the last where the data ends, ticks between.
 * `colOf`: the cell the plot draws an x in (CurvePlot's; by default the domain spans the width).
 */
export function xAxisLabels(domain: [number, number] | undefined, width: number, marker?: number, colOf?: (x: number) => number): string {
  if (!domain || width <= 0) return ' '.repeat(Math.max(0, width));
  const [x0, x1] = domain;
  const cellOf = colOf ?? ((x: number) => (x1 > x0 ? Math.round(((x - x0) / (x1 - x0)) * (width - 1)) : 0));
  const cells: string[] = new Array(width).fill(' ');
  const put = (col: number, text: string, alignRight = false) => {
    const start = alignRight ? col - text.length + 1 : col;
    if (start < 0 || start + text.length > width) return false;
    // Keep one blank cell between labels.
    for (let i = start - 1; i <= start + text.length; i++) if (i >= 0 && i < width && cells[i] !== ' ') return false;
    for (let i = 0; i < text.length; i++) cells[start + i] = text[i] as string;
    return true;
  };
  const label = (x: number) => String(Math.round(x));
  put(cellOf(x0), label(x0));
  const lastCol = cellOf(x1);
  // A last label that does not fit where the data ends goes at the right edge instead.
  if (x1 !== x0 && !put(lastCol, label(x1), true)) put(width - 1, label(x1), true);
  const span = x1 - x0;
  const used = lastCol - cellOf(x0) + 1;
  if (span > 0 && used >= 20) {
    // Round tick steps (1, 2, 5 × 10^k) about 12 cells apart.
    const raw = span / Math.max(1, Math.floor(used / 12));
    const p = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
    for (let t = Math.ceil(x0 / step) * step; t < x1; t += step) put(cellOf(t) - Math.floor(label(t).length / 2), label(t));
  }
  // The cursor where it does not hide a label (its rollout is spelled out above the chart).
  if (marker !== undefined && marker >= 0 && marker < width && cells[marker] === ' ') cells[marker] = '▲';
  return cells.join('');
}
