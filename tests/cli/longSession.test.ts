// The interactive console's heap sizing (src/cli/longSession.ts): with a fixed growth factor V8's old generation
// stays near what survives instead of growing to up to 4× of it. The same allocation pattern (a slowly growing set
// that lives, and a batch of objects that lives long enough to be promoted, then dies) in two fresh processes, with
// the entry's young-generation flags, one of them tuned; the tuned one's old space peaks well lower.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const WORKLOAD = `
import v8 from 'node:v8';
import { tuneHeapForLongSession } from ${JSON.stringify(path.resolve('src/cli/longSession.ts'))};
if (process.argv.includes('tune')) tuneHeapForLongSession();
const keep = [];
let promoted = [];
let peak = 0;
for (let round = 0; round < 1500; round++) {
  for (let i = 0; i < 2000; i++) promoted.push({ a: i, b: 'x' + i, c: [i, i] });
  if (promoted.length > 200000) promoted = [];
  keep.push({ k: round, s: 'y'.repeat(50) });
  peak = Math.max(peak, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size);
}
process.stdout.write(String(peak));
`;

function oldSpacePeak(tuned: boolean): number {
  const r = spawnSync(process.execPath, ['--max-semi-space-size=8', '--min-semi-space-size=8', '--import', 'tsx', '--input-type=module', '-e', WORKLOAD, ...(tuned ? ['tune'] : [])], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout);
}

test('tuned, the old generation peaks well below V8’s default sizing on the same allocations', () => {
  const untuned = oldSpacePeak(false);
  const tuned = oldSpacePeak(true);
  assert.ok(tuned < 0.8 * untuned, `old space peak ${(tuned / 1048576).toFixed(1)} MiB tuned against ${(untuned / 1048576).toFixed(1)} MiB`);
});
