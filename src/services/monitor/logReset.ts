// The words for a followed log that was replaced or truncated (followJob.ts LogReset): the dashboard's alert and
// the headless follow's note say the same.
import path from 'node:path';
import type { LogReset } from './followJob.js';

export function logResetText(r: LogReset, logFile: string | undefined): string {
  const name = logFile ? path.basename(logFile) : 'the log';
  const when = new Date(r.at).toISOString().slice(11, 19);
  const what = r.kind === 'replaced' ? `${name} was replaced by another file (new inode)` : `${name} got shorter (truncated or rewritten)`;
  return `${what} at ${when} UTC: read again from its start with fresh totals (the earlier read had counted ${r.samplesBefore} samples in ${r.rolloutsBefore} rollouts)`;
}
