// `validate harness` exit paths through the built binary against the fake E2B (issue 16, points 2 and 4): SIGTERM or
// SIGHUP while both arms of two tasks hold sandboxes ends the command with every sandbox of ours killed and the
// workspace lock released; three runs at once validate once (the others are refused by the lock).
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { startFaultProxy, type FaultProxy } from '../fakes/faultProxy.js';
import { builtMissing, runConsole, startConsole } from '../helpers/builtCli.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { recipePaths, type RecipePaths } from '../../src/services/workspace/paths.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { CALC_BASE, CALC_GOLD, CALC_SPEC } from '../fakes/sweTaskSandbox.js';

const BASE = CALC_BASE;
const GOLD = CALC_GOLD;
const spec = (n: number) => ({ ...CALC_SPEC, instance_id: `sample__calc-${n}` });

const ourAlive = (fake: FakeE2b) => fake.alive().filter((s) => s.metadata.swegym_console === '1').map((s) => s.sandboxID);

describe('validate harness: exit paths and the lock', { skip: builtMissing() }, () => {
  let fake: FakeE2b;
  let proxy: FaultProxy;
  let ws: string;
  let paths: RecipePaths;
  let env: NodeJS.ProcessEnv;
  let hang = true;
  before(async () => {
    // The sanitizer (the first command of each arm) hangs: every arm holds its sandbox until something ends it.
    // When not hanging it fails after a while, so that three runs started together overlap.
    fake = await startFakeE2b({
      templates: ['tpl-calc'],
      exec: (req) => {
        if (!req.command.startsWith("bash -lc 'set -e; cd /testbed;")) return { exitCode: 0 };
        return hang ? { hang: true } : { chunks: [{ stream: 'stderr', data: 'sanitize failed\n' }], exitCode: 2, durationMs: 3000 };
      },
    });
    proxy = await startFaultProxy(fake.url);
    ws = await fakeDressageCheckout();
    paths = recipePaths(ws);
    await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
    await writeFile(paths.trainJsonl, [1, 2].map((n) => JSON.stringify(sampleRow(spec(n)))).join('\n') + '\n');
    const { parquetBytes } = await import('../fixtures/parquetFixtures.js');
    await mkdir(paths.sourceDir, { recursive: true });
    const inst = (n: number) => ({ instance_id: spec(n).instance_id, repo: 'sample/calc', base_commit: BASE, patch: GOLD, test_patch: '', problem_statement: 'add is wrong', version: '1.0', FAIL_TO_PASS: spec(n).FAIL_TO_PASS, PASS_TO_PASS: spec(n).PASS_TO_PASS, hints_text: '', created_at: '2024-01-01T00:00:00Z' });
    await writeFile(paths.parquet('train'), await parquetBytes([inst(1), inst(2)]));
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, SWEGYM_EXIT_GRACE_MS: '8000' };
  });
  afterEach(() => {
    hang = true;
  });
  after(async () => {
    await proxy.close();
    await fake.close();
    await removeDir(ws);
  });

  for (const sig of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${sig} with four arms in flight: every sandbox killed, lock released`, { timeout: 60_000 }, async () => {
      const c = startConsole(['validate', 'harness', '--all', '-w', ws], env);
      await waitFor(() => ourAlive(fake).length === 4, { timeoutMs: 30_000, message: () => c.err() });
      assert.ok(existsSync(paths.lockFile), 'validation holds the workspace lock');
      c.child.kill(sig);
      const { code } = await c.exited;
      assert.notEqual(code, 0);
      assert.doesNotMatch(c.err(), /ending now/, 'the first signal alone winds the command down');
      assert.deepEqual(ourAlive(fake), [], c.err());
      assert.equal(existsSync(paths.lockFile), false, 'the lock is released');
    });
  }

  it('three runs at once: one validates, the others are refused by the lock (exit 3), nothing left alive', { timeout: 60_000 }, async () => {
    hang = false;
    const runs = await Promise.all([1, 2, 3].map(() => runConsole(['validate', 'harness', '--all', '-w', ws], env)));
    const refused = runs.filter((r) => r.code === 3);
    assert.equal(refused.length, 2, runs.map((r) => `${r.code}: ${r.err}`).join('\n---\n'));
    for (const r of refused) assert.match(r.err, /workspace is busy/);
    assert.deepEqual(ourAlive(fake), []);
  });
});
