// Terminal charts as plain strings (one <Text> per row): sparklines in block characters and line charts in braille
// (2×4 dots per cell), with EMA smoothing and bucket downsampling. NaN/±Infinity are gaps, never a crash.

const BARS = '▁▂▃▄▅▆▇█';

/** Exponential moving average (W&B-style smoothing, 0 = none); gaps stay gaps and do not reset the average. */
export function ema(values: readonly number[], weight: number): number[] {
  if (!(weight > 0)) return values.slice();
  const out: number[] = new Array(values.length);
  let acc: number | undefined;
  let debias = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) {
      out[i] = NaN;
      continue;
    }
    acc = acc === undefined ? v * (1 - weight) : acc * weight + v * (1 - weight);
    debias = debias * weight + (1 - weight);
    out[i] = acc / debias;
  }
  return out;
}

/** Downsamples to `n` buckets (mean of finite values, or max). */
export function buckets(values: readonly number[], n: number, mode: 'mean' | 'max' = 'mean'): number[] {
  if (n <= 0) return [];
  if (values.length <= n) return values.slice();
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const a = Math.floor((i * values.length) / n);
    const b = Math.max(a + 1, Math.floor(((i + 1) * values.length) / n));
    let sum = 0;
    let cnt = 0;
    let mx = -Infinity;
    for (let j = a; j < b; j++) {
      const v = values[j] as number;
      if (!Number.isFinite(v)) continue;
      sum += v;
      cnt++;
      if (v > mx) mx = v;
    }
    out[i] = cnt === 0 ? NaN : mode === 'max' ? mx : sum / cnt;
  }
  return out;
}

/**
 * Downsamples to at most `n` buckets of w = ceil(length / n) values each, their bounds at multiples of w (the last
 * one may be partial). As values are appended, only the last bucket changes until w grows, so a live chart redraws
 * its last column, not all of them (with `buckets` every bound moved with each value: at `--speed 60` the dashboard's
 * charts were rewritten whole at every refresh).
 */
export function alignedBuckets(values: readonly number[], n: number): number[] {
  if (n <= 0) return [];
  if (values.length <= n) return values.slice();
  const w = Math.ceil(values.length / n);
  const out: number[] = [];
  for (let a = 0; a < values.length; a += w) {
    let sum = 0;
    let cnt = 0;
    for (let j = a; j < Math.min(values.length, a + w); j++) {
      const v = values[j] as number;
      if (!Number.isFinite(v)) continue;
      sum += v;
      cnt++;
    }
    out.push(cnt === 0 ? NaN : sum / cnt);
  }
  return out;
}

export function finiteRange(values: readonly number[]): [number, number] | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo === Infinity ? undefined : [lo, hi];
}

export function sparkline(values: readonly number[], width: number, opts: { min?: number; max?: number; mode?: 'mean' | 'max' } = {}): string {
  if (width <= 0) return '';
  const vs = buckets(values, width, opts.mode ?? 'max');
  const r = finiteRange(vs);
  const lo = opts.min ?? r?.[0] ?? 0;
  const hi = opts.max ?? r?.[1] ?? 1;
  let s = '';
  for (const v of vs) {
    if (!Number.isFinite(v)) {
      s += ' ';
      continue;
    }
    const t = hi > lo ? (Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo) : 0;
    s += BARS[Math.round(t * 7)];
  }
  return s;
}

// Braille dot bits: column 0 rows 0..3 = 0x01 0x02 0x04 0x40; column 1 = 0x08 0x10 0x20 0x80.
const DOTS = [
  [0x01, 0x02, 0x04, 0x40],
  [0x08, 0x10, 0x20, 0x80],
];

/**
 * A line chart `width` cells wide and `height` rows tall in braille. Points are joined vertically so the line is
 * continuous. Returns the rows (top first) and the value range used.
 */
export function brailleChart(values: readonly number[], width: number, height: number, opts: { min?: number; max?: number } = {}): { rows: string[]; range: [number, number] | undefined } {
  if (width <= 0 || height <= 0) return { rows: [], range: undefined };
  const px = width * 2;
  const py = height * 4;
  const vs = alignedBuckets(values, px);
  const r = finiteRange(vs);
  if (!r) return { rows: Array.from({ length: height }, () => ' '.repeat(width)), range: undefined };
  let lo = opts.min ?? r[0];
  let hi = opts.max ?? r[1];
  if (hi === lo) {
    hi += Math.abs(hi) * 0.05 || 1;
    lo -= Math.abs(lo) * 0.05 || 1;
  }
  const grid = new Uint8Array(width * height);
  const yOf = (v: number) => Math.round(((hi - Math.min(hi, Math.max(lo, v))) / (hi - lo)) * (py - 1));
  const set = (x: number, y: number) => {
    const cell = Math.floor(y / 4) * width + Math.floor(x / 2);
    grid[cell] = (grid[cell] as number) | (DOTS[x % 2] as number[])[y % 4]!;
  };
  let prevY: number | undefined;
  let prevX = 0;
  // When there are fewer points than pixels, spread them over the width and join them with straight segments.
  const n = vs.length;
  for (let i = 0; i < n; i++) {
    const v = vs[i] as number;
    if (!Number.isFinite(v)) {
      prevY = undefined;
      continue;
    }
    const x = n >= px ? i : Math.round((i * (px - 1)) / Math.max(1, n - 1));
    const y = yOf(v);
    if (prevY === undefined) set(x, y);
    else {
      for (let xx = prevX + 1; xx <= x; xx++) {
        const y0 = Math.round(prevY + ((y - prevY) * (xx - 1 - prevX)) / (x - prevX));
        const y1 = Math.round(prevY + ((y - prevY) * (xx - prevX)) / (x - prevX));
        const [a, b] = y0 < y1 ? [y0, y1] : [y1, y0];
        for (let yy = a; yy <= b; yy++) set(xx, yy);
      }
    }
    prevY = y;
    prevX = x;
  }
  const rows: string[] = [];
  for (let row = 0; row < height; row++) {
    let s = '';
    for (let col = 0; col < width; col++) {
      const bits = grid[row * width + col] as number;
      s += bits ? String.fromCharCode(0x2800 + bits) : ' ';
    }
    rows.push(s);
  }
  return { rows, range: [lo, hi] };
}

/** Short number for axis labels and tables: 0.000123 → 1.23e-4, 12345 → 12.3k. */
export function fmtNum(v: number | undefined, digits = 3): string {
  if (v === undefined || Number.isNaN(v)) return '–';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '-∞';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(1).replace('e+', 'e');
  if (a >= 1e4) return `${(v / 1000).toFixed(1)}k`;
  return Number(v.toPrecision(digits)).toString();
}

// ---- curves: raw and smoothed series on a rollout x-axis (W&B-style) ----

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
  /** Plot column (cell) of an x value. */
  colOf: (x: number) => number;
}

/** Per pixel column: min/max/first/last/mean of the finite points that fall in it. */
function columns(s: CurveInput, values: readonly number[], x0: number, x1: number, px: number) {
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
    const c = x1 > x0 ? Math.round(((x - x0) / (x1 - x0)) * (px - 1)) : 0;
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
  if (width <= 0 || height <= 0 || finiteX.length === 0) return { rows: blank(), range: undefined, domain: undefined, colOf: () => 0 };
  // The x range is the current run's: a compared run is drawn where it overlaps (same rollout, same column).
  const x0 = Math.min(...finiteX);
  const x1 = Math.max(...finiteX);
  const colOf = (x: number) => Math.max(0, Math.min(width - 1, Math.floor((x1 > x0 ? Math.round(((x - x0) / (x1 - x0)) * (px - 1)) : 0) / 2)));
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
    const c = columns(s, values, x0, x1, px);
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
  return { rows, range: [lo, hi], domain: [x0, x1], colOf };
}

/** Rollout numbers under a plot of `width` cells: the first at the left, the last at the right, ticks between. */
export function xAxisLabels(domain: [number, number] | undefined, width: number, marker?: number): string {
  if (!domain || width <= 0) return ' '.repeat(Math.max(0, width));
  const [x0, x1] = domain;
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
  put(0, label(x0));
  if (x1 !== x0) put(width - 1, label(x1), true);
  const span = x1 - x0;
  if (span > 0 && width >= 20) {
    // Round tick steps (1, 2, 5 × 10^k) about 12 cells apart.
    const raw = span / Math.max(1, Math.floor(width / 12));
    const p = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
    for (let t = Math.ceil(x0 / step) * step; t < x1; t += step) {
      const col = Math.round(((t - x0) / span) * (width - 1));
      put(col - Math.floor(label(t).length / 2), label(t));
    }
  }
  // The cursor where it does not hide a label (its rollout is spelled out above the chart).
  if (marker !== undefined && marker >= 0 && marker < width && cells[marker] === ' ') cells[marker] = '▲';
  return cells.join('');
}

const ABBREVIATIONS: [RegExp, string][] = [
  [/ \(([^)]*)\)/g, ' $1'],
  [/trajectory/g, 'traj'],
  [/response/g, 'resp'],
  [/length/g, 'len'],
  [/reward/g, 'rew'],
  [/logprob/g, 'lp'],
  [/tokens/g, 'tok'],
  [/ per /g, '/'],
];

/**
 * A metric name that fits `width`: the label, else the key without its `train/` / `rollout/` prefix, else those with
 * common words abbreviated, else cut in the middle (the end tells metrics apart: `…count_0.0`).
 */
export function fitName(label: string, key: string, width: number): string {
  const tail = key.replace(/^(train|rollout|perf|eval)\//, '').replace(/_/g, ' ');
  const fits = (c: string) => [...c].length <= width;
  for (const c of [label, tail]) if (fits(c)) return c;
  // Abbreviations one at a time, so that the name loses as little as it must.
  let l = label;
  let t = tail;
  for (const [re, to] of ABBREVIATIONS) {
    l = l.replace(re, to).replace(/\s+/g, ' ').trim();
    t = t.replace(re, to).replace(/\s+/g, ' ').trim();
    for (const c of [l, t]) if (fits(c)) return c;
  }
  const s = t;
  if (width <= 1) return s.slice(0, Math.max(0, width));
  const keepEnd = Math.ceil((width - 1) / 2);
  return `${s.slice(0, width - 1 - keepEnd)}…${s.slice(s.length - keepEnd)}`;
}

/** Groups of one rollout by how many of their samples were solved: counts[k] = groups with k solved. */
export function groupHistogram(groups: readonly { n: number; solved: number }[]): { counts: number[]; n: number; uniform: boolean } {
  const n = groups.reduce((m, g) => Math.max(m, g.n), 0);
  const counts = new Array(n + 1).fill(0);
  for (const g of groups) counts[Math.min(n, g.solved)]++;
  return { counts, n, uniform: groups.every((g) => g.n === n) };
}
