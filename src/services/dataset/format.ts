// Human formatting of sizes, rates and ETAs for download progress (headless stderr and the Data screen).
import type { DownloadProgress } from './hub.js';

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

export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '–';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** One line: `downloading 3.2 MB / 7.1 MB (45%) · 1.2 MB/s · ETA 3s · from cdn.example`. */
export function formatProgress(p: DownloadProgress): string {
  const amount = p.total !== undefined ? `${formatBytes(p.received)} / ${formatBytes(p.total)} (${Math.floor((p.received / Math.max(1, p.total)) * 100)}%)` : formatBytes(p.received);
  switch (p.phase) {
    case 'probing':
      return `resolving on ${p.host ?? 'the hub'}…`;
    case 'retrying':
      return `retrying (attempt ${p.attempt + 1}) after: ${p.note ?? 'a network error'} · have ${amount}`;
    case 'verifying':
      return `verifying ${amount}…`;
    case 'done':
      return `done ${amount}`;
    default:
      return `downloading ${amount} · ${formatRate(p.bytesPerSecond)} · ETA ${formatEta(p.etaSeconds)}${p.resumedFrom ? ` · resumed at ${formatBytes(p.resumedFrom)}` : ''}${p.host ? ` · from ${p.host}` : ''}`;
  }
}
