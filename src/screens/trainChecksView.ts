// The launch checks as the Train screen shows them: the probes know more than the pure checks, but a pure failure
// stands; failures first. One function, so that the panel and `l` (which refuses while anything blocks) agree.
import type { LaunchCheck } from '../services/train/checks.js';

const ORDER = { fail: 0, warn: 1, skip: 2, ok: 3 } as const;

export function mergedChecks(staticChecks: readonly LaunchCheck[], probed: readonly LaunchCheck[]): LaunchCheck[] {
  const merged = new Map(staticChecks.map((c) => [c.id, c]));
  for (const c of probed) if (merged.get(c.id)?.status !== 'fail') merged.set(c.id, c);
  return [...merged.values()].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
}
