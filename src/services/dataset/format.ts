// The download progress line (headless stderr and the Data screen); sizes and times from util/format.
import type { DownloadProgress } from './hub.js';
import { formatBytes, formatEta, formatRate } from '../util/format.js';

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
      return `downloading ${amount} · ${formatRate(p.bytesPerSecond)} · ETA ${formatEta(p.etaSeconds === undefined ? undefined : p.etaSeconds * 1000)}${p.resumedFrom ? ` · resumed at ${formatBytes(p.resumedFrom)}` : ''}${p.host ? ` · from ${p.host}` : ''}`;
  }
}
