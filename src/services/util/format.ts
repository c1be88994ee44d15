// The one home of human-readable durations and sizes, for the headless commands and the screens alike.

/** `42s`, `3m07s`, `2h05m`: whole seconds, the unit below the largest kept. */
function clock(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** How long ago, coarse (`42s`, `3m`, `2h05m`, `3d4h`): run lists and "updated … ago". */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${h % 24}h`;
}

/** How long something took or will take, to the second (`42s`, `3m07s`, `2h05m`): builds and their ETA. */
export function formatElapsed(ms: number): string {
  return clock(Math.max(0, Math.round(ms / 1000)));
}

/** A process's run time, with sub-second precision below a minute (`850ms`, `4.2s`, `3m07s`): the command log. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)}s` : clock(Math.floor(s));
}

/** Seconds left, rounded up (`–` when unknown). */
export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '–';
  return clock(Math.ceil(seconds));
}

/** Decimal units (`999 B`, `3.2 MB`, `145 GB`), as the hub and `ls -lh --si` show them. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '?';
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

export function formatRate(bytesPerSecond: number): string {
  return bytesPerSecond > 0 ? `${formatBytes(Math.round(bytesPerSecond))}/s` : '–';
}

/** `1 node`, `4 nodes`, `0 model turns`: a count and its noun, singular only for exactly one (`many` for irregulars). */
export function count(n: number, noun: string, many = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : many}`;
}
