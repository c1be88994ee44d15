// The command log as the log overlay shows it: each process's outcome, duration and argv (secrets already redacted
// by the log), worded here so that the ui kit's panel only lays rows out.
import type { CommandLogEntry } from '../services/process/commandLog.js';
import { describeOutcome, formatArgvLine } from '../services/process/commandLog.js';
import { formatDuration } from '../services/util/format.js';
import type { CommandLogRow } from '../ui/Overlays.js';

function outcomeTone(e: CommandLogEntry): CommandLogRow['tone'] {
  if (e.status === 'ok') return 'ok';
  if (e.status === 'running' || e.status === 'detached') return 'info';
  if (e.status === 'stopped') return 'dim';
  return 'fail';
}

/** `now` gives a running process its duration so far. */
export function commandLogRows(entries: readonly CommandLogEntry[], now: number): CommandLogRow[] {
  return entries.map((e) => ({ id: e.id, outcome: describeOutcome(e), duration: formatDuration((e.endedAt ?? now) - e.startedAt), command: formatArgvLine(e.argv), tone: outcomeTone(e) }));
}
