// The one home of human-readable durations and sizes, for the headless commands and the screens alike: one
// formatter per concept (an age, an elapsed time, a process's run time, an ETA, a size, a rate). Sizes are binary
// (KiB, MiB, GiB), as nvidia-smi, df -h and the doctor say them.

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

/** How long ago in words, for sentences (`12 s`, `4 min`, `3 h`, `2 d`): "no new line for 4 min", "heartbeat 8 s ago". */
export function formatAgeWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} d`;
}

/** How long something took, to the second (`42s`, `3m07s`, `2h05m`): builds and their ETA. */
export function formatElapsed(ms: number): string {
  return clock(Math.max(0, Math.round(ms / 1000)));
}

/** A process's run time, with sub-second precision below a minute (`850ms`, `4.2s`, `3m07s`): the command log. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)}s` : clock(Math.floor(s));
}

/** Time left, as coarse as an age (`42s`, `3m`, `2h05m`; `–` when unknown): every progress line and the loading view. */
export function formatEta(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  return formatAge(ms);
}

/** Binary units (`999 B`, `3.2 MiB`, `145 GiB`). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '?';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = -1;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** A number of MiB without the unit, for `22 of 52 MiB` (one decimal below 10). */
export function mebibytes(n: number): string {
  return (n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0);
}

export function formatRate(bytesPerSecond: number): string {
  return bytesPerSecond > 0 ? `${formatBytes(Math.round(bytesPerSecond))}/s` : '–';
}

/** `1 node`, `4 nodes`, `0 model turns`: a count and its noun, singular only for exactly one (`many` for irregulars). */
export function count(n: number, noun: string, many = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : many}`;
}
