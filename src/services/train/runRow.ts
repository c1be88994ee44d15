// A run of the registry as one row, worded once for both faces: the Train screen's run list and `train list`.
import type { RunView } from '../../state/types/train.js';
import { formatAge } from '../util/format.js';

export interface RunRowCells {
  /** `running`, `exited 1`; a run only the registry knows of (another host) ends in `?`. */
  status: string;
  /** `on gpu-node-7` for a run of another host, else empty. */
  where: string;
  name: string;
  pid: string;
  /** Since it started (`3m`, `2h05m`). */
  age: string;
}

export function runRowCells(r: RunView, now: number): RunRowCells {
  return {
    status: r.status === 'exited' ? `exited ${r.exitCode ?? '?'}` : r.remote ? `${r.status}?` : r.status,
    where: r.status !== 'exited' && r.remote ? `on ${r.host}` : '',
    name: r.name,
    pid: `pid ${r.pid ?? '-'}`,
    age: formatAge(now - Date.parse(r.startedAt ?? r.createdAt)),
  };
}
