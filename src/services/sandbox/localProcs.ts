// The local provider's view of its sandboxes' processes, read from /proc on the host (no spawn): whether a
// sandbox's init still runs, its descendants, whether it listens on a port; and killing without a throw.
import { readFileSync, readdirSync } from 'node:fs';
import { procStatFields } from '../util/proc.js';

export function procStartTime(pid: number): string | undefined {
  const fields = procStatFields(pid);
  // A zombie (or dead) process is gone for our purposes even though its /proc entry lingers until reaped.
  if (!fields || fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19];
}

export function isAlive(rec: { initPid: number; initStart: string }): boolean {
  return procStartTime(rec.initPid) === rec.initStart;
}

/** Host pids of every descendant of `pid` (walks /proc once). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  for (const e of entries) {
    const fields = procStatFields(Number(e));
    if (!fields) continue; // exited meanwhile
    const ppid = Number(fields[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(e));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop() as number;
    for (const c of children.get(p) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

export function hasChild(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim() !== '';
  } catch {
    return descendants(pid).length > 0;
  }
}

export function killQuietly(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

/** True when `port` is in LISTEN state in the network namespace of `pid` (read from the host, no spawn). */
export function isListening(pid: number, port: number): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const f of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${f}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A') return true;
    }
  }
  return false;
}
