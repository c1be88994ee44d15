// The Dressage commit the console says it was verified against (recipe.ts, shown by `doctor`) is the one the upstream
// copy these differential tests run against names (../shared/upstream/README.md), or, with SWEGYM_UPSTREAM=DIR
// pointing at a git checkout, the test says that checkout's commit, so a run against another commit is visible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { VERIFIED_DRESSAGE_COMMIT } from '../../src/services/recipe.js';
import { readGitHead } from '../../src/services/workspace/gitHead.js';
import { UPSTREAM_DRESSAGE_DIR, UPSTREAM_ORIGIN, UPSTREAM_ROOT, upstreamMissing } from '../helpers/upstreamDir.js';

const readme = path.join(UPSTREAM_ROOT, 'README.md');

test('the verified Dressage commit is the upstream checkout the differential tests use', async (t) => {
  const head = await readGitHead(UPSTREAM_DRESSAGE_DIR);
  if ('commit' in head) {
    t.diagnostic(`${UPSTREAM_ORIGIN} is Dressage ${head.commit}${head.commit === VERIFIED_DRESSAGE_COMMIT ? '' : ` (differs from the verified ${VERIFIED_DRESSAGE_COMMIT}: these tests now verify that one)`}`);
    return;
  }
  const missing = upstreamMissing([readme]);
  if (missing) return t.skip(missing);
  const row = readFileSync(readme, 'utf8').split('\n').find((l) => l.startsWith('| `dressage/`')) ?? '';
  const listed = /dressage `([0-9a-f]{40})`/.exec(row)?.[1];
  if (!listed) return t.skip(`${UPSTREAM_ORIGIN} is no git checkout and its README names no dressage commit: the commit cannot be compared`);
  assert.equal(VERIFIED_DRESSAGE_COMMIT, listed, 'recipe.ts VERIFIED_DRESSAGE_COMMIT must name the upstream copy the tests verified');
});
