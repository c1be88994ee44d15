// kill -9 mid-validate (issue 25, point 3), through the built binary against the fake E2B behind the fault proxy:
// the four arms' sandboxes outlive the console; `doctor` reports them from the session's record; the next
// `validate harness` takes over the dead console's lock, kills exactly those sandboxes first and says so.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { startFaultProxy, type FaultProxy } from '../fakes/faultProxy.js';
import { builtMissing, runConsole, startConsole } from '../helpers/builtCli.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { recipePaths, type RecipePaths } from '../../src/services/workspace/paths.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { CALC_BASE, CALC_GOLD, CALC_SPEC } from '../fakes/sweTaskSandbox.js';

const spec = (n: number) => ({ ...CALC_SPEC, instance_id: `sample__calc-${n}` });
const ourAlive = (fake: FakeE2b) => fake.alive().filter((s) => s.metadata.swegym_console === '1').map((s) => s.sandboxID).sort();

describe('validate harness: kill -9 leaves a record the next console follows', { skip: builtMissing() }, () => {
  let fake: FakeE2b;
  let proxy: FaultProxy;
  let ws: string;
  let paths: RecipePaths;
  let env: NodeJS.ProcessEnv;
  let hang = true;
  before(async () => {
    // The sanitizer (each arm's first command) hangs while `hang`, so every arm holds its sandbox; then it fails at once.
    fake = await startFakeE2b({
      templates: ['tpl-calc'],
      foreignSandboxes: [{ templateID: 'tpl-calc', metadata: { owner: 'dressage' } }],
      exec: (req) => {
        if (!req.command.startsWith("bash -lc 'set -e; cd /testbed;")) return { exitCode: 0 };
        return hang ? { hang: true } : { chunks: [{ stream: 'stderr', data: 'sanitize failed\n' }], exitCode: 2 };
      },
    });
    proxy = await startFaultProxy(fake.url);
    ws = await fakeDressageCheckout();
    paths = recipePaths(ws);
    await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
    await writeFile(paths.trainJsonl, [1, 2].map((n) => JSON.stringify(sampleRow(spec(n)))).join('\n') + '\n');
    const { parquetBytes } = await import('../fixtures/parquetFixtures.js');
    await mkdir(paths.sourceDir, { recursive: true });
    const inst = (n: number) => ({ instance_id: spec(n).instance_id, repo: 'sample/calc', base_commit: CALC_BASE, patch: CALC_GOLD, test_patch: '', problem_statement: 'add is wrong', version: '1.0', FAIL_TO_PASS: spec(n).FAIL_TO_PASS, PASS_TO_PASS: spec(n).PASS_TO_PASS, hints_text: '', created_at: '2024-01-01T00:00:00Z' });
    await writeFile(paths.parquet('train'), await parquetBytes([inst(1), inst(2)]));
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url };
  });
  after(async () => {
    await proxy.close();
    await fake.close();
    await removeDir(ws);
  });

  it('kill -9 with four arms in flight: doctor reports them, the next validate kills them and says so', { timeout: 90_000 }, async () => {
    const c = startConsole(['validate', 'harness', '--all', '-w', ws], env);
    await waitFor(() => ourAlive(fake).length === 4, { timeoutMs: 30_000, message: () => c.err() });
    const left = ourAlive(fake);
    c.child.kill('SIGKILL');
    await c.exited;
    assert.deepEqual(ourAlive(fake), left, 'kill -9 sweeps nothing');

    const doctor = await runConsole(['doctor', '-w', ws, '--json'], env);
    const check = (JSON.parse(doctor.out) as { checks: { id: string; status: string; detail: string; fix: string }[] }).checks.find((x) => x.id === 'leftover-sandboxes');
    assert.equal(check?.status, 'warn', doctor.out);
    assert.match(check.detail, new RegExp(`\`validate harness\` \\(session [0-9a-f]+, pid ${c.child.pid}.* left 4 sandbox\\(es\\) running on E2B: ${left.join(' ')}`));

    hang = false;
    const next = await runConsole(['validate', 'harness', '--all', '-w', ws], env);
    assert.doesNotMatch(next.err, /workspace is busy/, 'the dead console\'s lock is taken over');
    assert.match(next.err, new RegExp(`killed 4 sandbox\\(es\\) left by a console that is gone \`validate harness\` \\(session [0-9a-f]+, pid ${c.child.pid}.*: ${left.join(' ')} \\(pid ${c.child.pid} has exited\\)`));
    assert.deepEqual(ourAlive(fake), []);
    assert.equal(fake.alive().length, 1, 'the foreign sandbox is untouched');
    assert.deepEqual((await readdir(path.join(paths.consoleDir, 'sandboxes'))).filter((n) => n.endsWith('.json')), []);
  });
});
