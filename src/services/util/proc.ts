// /proc/<pid>/stat, read in one place: a pid alone is reused (after a reboot, on a busy host), so the lock, the run
// registry and the local sandboxes tell a process by its pid and its start time.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The fields after the command name (field 3, the state, onward), or undefined where there is no /proc or no such
 * pid. The name (field 2) is in parentheses and may itself hold spaces and parentheses.
 */
export function procStatFields(pid: number, procRoot = '/proc'): string[] | undefined {
  try {
    const stat = readFileSync(path.join(procRoot, String(pid), 'stat'), 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The start time of a process in clock ticks since boot (field 22). */
export function processStartTime(pid: number, procRoot = '/proc'): string | undefined {
  return procStatFields(pid, procRoot)?.[19];
}
