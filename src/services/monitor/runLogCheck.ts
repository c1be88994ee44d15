// Is this file a run log at all? `monitor FILE` on a dataset, a trajectory JSON or any other file used to read it as
// an empty run (`phase: starting`, exit 0). A run log has lines the launcher, Ray or slime/Dressage write
// (effective_* lines, rollout and step dicts, per-sample reward lines, Ray's job lines, tracebacks); a file whose
// head holds none of them is refused with a clear message.
import { open } from 'node:fs/promises';
import { parseLine } from './lines.js';
import { ConsoleError, ExitCode } from '../errors.js';

/** How much of the head is read: the launcher's first recognised line comes within its first few hundred lines. */
export const RUN_LOG_HEAD_BYTES = 8 * 1024 * 1024;

export interface RunLogVerdict {
  runLog: boolean;
  /** Lines looked at. */
  lines: number;
  /** The first line, shortened, for the message. */
  sample: string | undefined;
}

/** Reads the head of `file`: a run log once one line is recognised; an empty file is taken as a run not yet writing. */
export async function inspectRunLog(file: string, maxBytes = RUN_LOG_HEAD_BYTES): Promise<RunLogVerdict> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(maxBytes, 1024 * 1024));
    let pos = 0;
    let rest = '';
    let lines = 0;
    let sample: string | undefined;
    while (pos < maxBytes) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const parts = (rest + buf.subarray(0, bytesRead).toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        if (!line.trim()) continue;
        lines++;
        sample ??= line.slice(0, 100);
        if (parseLine(line).event) return { runLog: true, lines, sample };
      }
    }
    if (rest.trim()) {
      lines++;
      sample ??= rest.slice(0, 100);
      if (parseLine(rest).event) return { runLog: true, lines, sample };
    }
    return { runLog: lines === 0, lines, sample };
  } finally {
    await fh.close();
  }
}

export function notARunLogError(file: string, v: RunLogVerdict): ConsoleError {
  return new ConsoleError({
    what: `${file} is not a run log: none of its first ${v.lines} line(s) is a line the launcher, Ray or slime/Dressage writes.`,
    cause: `It starts with: ${JSON.stringify(v.sample ?? '')}. A run log has effective_* lines, rollout/step metric lines or per-sample "SWE-Gym reward=" lines; this looks like another file (a dataset, a trajectory, a config).`,
    fix: 'Point monitor at the launcher output (the registry run: swegym-console train list), a run directory (outputs/logs/<RUN_NAME>) or a Ray job id (raysubmit_…).',
    exitCode: ExitCode.precondition,
  });
}

/** Throws notARunLogError when `file` is not empty and its head holds no run line. */
export async function assertRunLog(file: string): Promise<void> {
  let v: RunLogVerdict;
  try {
    v = await inspectRunLog(file);
  } catch {
    return; // unreadable: the reader that follows says why, with its own message
  }
  if (!v.runLog) throw notARunLogError(file, v);
}
