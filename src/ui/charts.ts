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
export const DOTS = [
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
