// Shipped tier: every E2B path of the built console against the fake E2B server, configured as a self-hosted E2B is
// (E2B_API_URL / E2B_SANDBOX_URL): templates build → status → smoke, sandboxes list/kill, validate harness. Each
// step checks what reached the server, and that no sandbox of ours is left alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { CALC_GOLD, CALC_SPEC, calcTaskPlayer } from '../fakes/sweTaskSandbox.js';
import { assignTemplateNames } from '../../src/services/templates/naming.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { E2bProvider } from '../../src/services/sandbox/e2b.js';
import { makeInstances, writeParquetFixture } from '../fixtures/parquetFixtures.js';
import { imageNames, readJson, templateWorkspace } from './helpers.js';
import { removeDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';

const healthy = () => ({ status: 200, body: '{"healthy":true,"version":"1.1.0"}', contentType: 'application/json' });

test('shipped: templates build, status and smoke; sandboxes list and kill — against an E2B endpoint given by E2B_API_URL', { timeout: 180_000 }, async () => {
  const images = imageNames(3);
  const names = [...assignTemplateNames(images).values()];
  const fake = await startFakeE2b({
    builds: Object.fromEntries(names.map((n) => [n, { pollsBeforeDone: 2 }])),
    services: Object.fromEntries(names.map((n) => [n, { 31000: healthy }])),
    exec: (req) => (req.command.includes('claude --version') ? { chunks: [{ stream: 'stdout', data: '2.1.207 (Claude Code)\n' }], exitCode: 0 } : undefined),
  });
  const { ws, paths } = await templateWorkspace(images);
  const env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url };
  try {
    const build = await runShipped(['templates', 'build', '-w', ws, '--concurrency', '2', '--json'], { env });
    assert.equal(build.code, 0, explain(build));
    assert.equal(JSON.parse(build.out).mapComplete, true);
    // Progress goes to stderr (no terminal here: plain `N/M · ETA` lines), never into the --json document.
    assert.match(build.err, /^progress: 1\/3( · ETA \S+)? \(0 failed, [0-2] building\)$/m, explain(build));
    assert.deepEqual(new Set([...fake.builds.values()].map((b) => b.name)), new Set(names), 'one build per image reached the server');
    const map = (await readJson(paths.templateMap)) as Record<string, string>;
    assert.deepEqual(Object.keys(map).sort(), [...images].sort());

    const status = await runShipped(['templates', 'status', '-w', ws, '--json'], { env });
    assert.equal(status.code, 0, explain(status));
    assert.ok(status.out.includes(names[0]!), 'status names the built templates');

    const smoke = await runShipped(['templates', 'smoke', '-w', ws, '--all', '--json'], { env });
    assert.equal(smoke.code, 0, explain(smoke));
    assert.equal(JSON.parse(smoke.out).counts.passed, 3);
    assert.match(smoke.err, /^smoking 1\/3( · ETA \S+)?$/m, explain(smoke));
    const smoked = [...fake.sandboxes.values()];
    assert.equal(smoked.length, 3, 'one sandbox per template');
    assert.deepEqual(new Set(smoked.map((s) => s.alias)), new Set(names));
    assert.deepEqual(fake.alive(), [], 'every smoke sandbox was killed');

    // Sandboxes of ours (tagged) and one of someone else's.
    const provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url });
    const mine = await provider.create({ template: names[0]!, timeoutMs: 60_000 });
    const list = await runShipped(['sandboxes', 'list', '-w', ws, '--provider', 'e2b', '--json'], { env });
    assert.equal(list.code, 0, explain(list));
    assert.deepEqual((JSON.parse(list.out) as { sandboxes: { id: string }[] }).sandboxes.map((s) => s.id), [mine.id]);
    const kill = await runShipped(['sandboxes', 'kill', '-w', ws, '--provider', 'e2b', '--all-console', '--yes'], { env });
    assert.equal(kill.code, 0, explain(kill));
    assert.deepEqual(fake.alive(), []);
    assert.ok(fake.requests.some((r) => r.method === 'DELETE' && r.path === `/sandboxes/${mine.id}`), 'the kill reached the server');
    assert.ok(![build, status, smoke, list, kill].some((r) => r.out.includes(fake.apiKey) || r.err.includes(fake.apiKey)), 'the key is never printed');
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});

test('shipped: validate harness --provider e2b grades the gold patch (resolved) and the untouched repo (unresolved) in sandboxes', { timeout: 120_000 }, async () => {
  const { play, seen } = calcTaskPlayer();
  const fake = await startFakeE2b({ templates: [CALC_SPEC.template], exec: play });
  const { ws, paths } = await templateWorkspace(imageNames(1));
  const env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url };
  try {
    await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
    await writeFile(paths.trainJsonl, JSON.stringify(sampleRow(CALC_SPEC)) + '\n');
    const [instance] = makeInstances(1);
    await writeParquetFixture(paths.parquet('train'), [{ ...instance!, instance_id: CALC_SPEC.instance_id, repo: CALC_SPEC.repo, patch: CALC_GOLD }]);
    const r = await runShipped(['validate', 'harness', '-w', ws, '--provider', 'e2b', '--instance', CALC_SPEC.instance_id, '--json'], { env });
    assert.equal(r.code, 0, explain(r));
    const doc = JSON.parse(r.out) as { results: { instance_id: string; ok: boolean; gold: { resolved: boolean }; control: { resolved: boolean } }[] };
    const [result] = doc.results;
    assert.equal(result?.ok, true, r.out);
    assert.equal(result?.gold.resolved, true);
    assert.equal(result?.control.resolved, false);
    assert.ok(seen.includes('apply') && seen.includes('harness-start'), seen.join(','));
    assert.equal(fake.sandboxes.size, 2, 'a sandbox for the gold patch and one for the control');
    assert.deepEqual(fake.alive(), []);
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});
