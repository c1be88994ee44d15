// The command log as the log overlay shows it: each process's outcome, duration and argv (secrets already redacted
// by the log), worded here so that the ui kit's panel only lays rows out.
import type { CommandLogEntry } from '../services/process/commandLog.js';
import { describeOutcome, formatArgvLine } from '../services/process/commandLog.js';
import { formatDuration } from '../services/util/format.js';
import type { CommandLogRow } from '../ui/Overlays.js';
import type { DetailContent } from '../state/app.js';

function outcomeTone(e: CommandLogEntry): CommandLogRow['tone'] {
  if (e.status === 'ok') return 'ok';
  if (e.status === 'running' || e.status === 'detached') return 'info';
  if (e.status === 'stopped') return 'dim';
  return 'fail';
}

/** The wall clock's time of day (HH:MM:SS, local), as an operator compares it with other logs. */
function timeOfDay(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** `now` gives a running process its duration so far. */
export function commandLogRows(entries: readonly CommandLogEntry[], now: number): CommandLogRow[] {
  return entries.map((e) => ({ id: e.id, outcome: describeOutcome(e), duration: formatDuration((e.endedAt ?? now) - e.startedAt), time: timeOfDay(e.startedAt), command: formatArgvLine(e.argv), tone: outcomeTone(e) }));
}

/** One process whole, for the detail view: every argument, where it ran, how it ended, when and for how long. */
export function commandLogDetail(e: CommandLogEntry, now: number): DetailContent {
  const stamp = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} (${timeOfDay(ms)} local)`;
  const lines: DetailContent['lines'] = [
    { text: `outcome: ${describeOutcome(e)}${e.exitCode !== undefined ? ` (exit code ${e.exitCode})` : ''}${e.signal ? ` (signal ${e.signal})` : ''}`, tone: outcomeTone(e) === 'fail' ? 'fail' : 'plain' },
    { text: `started: ${stamp(e.startedAt)}` },
    { text: e.endedAt !== undefined ? `ended:   ${stamp(e.endedAt)}` : 'ended:   not yet' },
    { text: `duration: ${formatDuration((e.endedAt ?? now) - e.startedAt)}${e.endedAt === undefined ? ' so far' : ''}` },
    { text: `cwd: ${e.cwd}` },
    ...(e.note ? [{ text: `note: ${e.note}` }] : []),
    { text: '' },
    { text: `argv (${e.argv.length}, secrets redacted):`, tone: 'accent' },
    ...e.argv.map((a, i) => ({ text: `  [${i}] ${a}` })),
  ];
  return { title: `process ${e.id}: ${e.argv[0] ?? ''}`, lines, copy: { label: 'command', text: formatArgvLine(e.argv) } };
}
