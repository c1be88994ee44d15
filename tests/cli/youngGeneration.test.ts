// capYoungGeneration stops V8 from doubling its young generation under a steady allocation rate (the dashboard's
// RSS growth, bench/README.md): the same allocation loop, in a fresh process each, with and without the cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const MODULE = path.resolve('src/cli/youngGeneration.ts');

/** New space (MiB) after an allocation loop whose objects survive a few scavenges, as a log follower's do. */
function youngAfterLoad(cap: boolean): number {
  const script = `
    import v8 from 'node:v8';
    import { capYoungGeneration } from ${JSON.stringify(MODULE)};
    ${cap ? 'capYoungGeneration(8, 20);' : ''}
    const keep = [];
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 100000; i++) keep.push({ i, s: 'line ' + i });
      if (keep.length > 200000) keep.splice(0, 100000);
      await new Promise((r) => setTimeout(r, 5));
    }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(young.space_size / 1048576));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  return Number(out);
}

test('without the cap the young generation grows past 16 MiB; with a cap of 8 MiB it stays at most one doubling above', () => {
  const free = youngAfterLoad(false);
  const capped = youngAfterLoad(true);
  assert.ok(free > 16, `uncapped young generation ${free} MiB (expected growth, or the test proves nothing)`);
  assert.ok(capped <= 16, `capped young generation ${capped} MiB`);
});
