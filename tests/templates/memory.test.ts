// The factory and smoke against the providers engineer's in-memory provider (its own retries and fault injection).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryProvider } from '../../src/services/sandbox/memory.js';
import { TemplateFactory } from '../../src/services/templates/factory.js';
import { assignTemplateNames } from '../../src/services/templates/naming.js';
import { readTemplateMap } from '../../src/services/templates/map.js';
import { smokeMany } from '../../src/services/templates/smoke.js';
import { templatesJournal } from '../../src/services/templates/records.js';
import { templateWorkspace, imageNames, VERSIONS } from './helpers.js';
import { removeDir } from '../helpers/workspace.js';

test('memory provider: rate-limit storm on builds, one failing image, then smoke (healthy / no service)', { timeout: 60_000 }, async () => {
  const images = imageNames(6);
  const names = assignTemplateNames(images);
  const bad = names.get(images[4]!)!;
  const provider = new MemoryProvider({
    retry: { attempts: 2, baseMs: 1, maxMs: 5 },
    builds: { [bad]: { error: 'Build failed: apt-get: command not found' } },
    commands: (cmd) => (cmd.includes('claude --version') ? { chunks: [{ stream: 'stdout', data: '2.1.207 (Claude Code)\n' }], exitCode: 0 } : undefined),
  });
  provider.rateLimitStorm('buildTemplate', 9, 0.01);
  const { ws, paths } = await templateWorkspace(images);
  try {
    const result = await new TemplateFactory({
      provider,
      paths,
      artifacts: { artifactDir: paths.artifactDir, versions: VERSIONS },
      concurrency: 3,
      retry: { baseMs: 5, maxMs: 20 },
    }).run();
    assert.equal(result.built, 5);
    assert.equal(result.failed, 1);
    const failed = result.records.find((r) => r.template === bad)!;
    assert.equal(failed.code, 'not_debian');
    const map = await readTemplateMap(paths.templateMap, images.filter((_, i) => i !== 4));
    assert.equal(Object.keys(map).length, 5);

    // Smoke: one template whose start command serves BBS, one whose does not.
    const ok = names.get(images[0]!)!;
    provider.addTemplate(ok, { services: { 31000: () => ({ status: 200, body: '{"healthy":true,"version":"1.1.0"}' }) } });
    const journal = await templatesJournal(paths).load();
    const results = await smokeMany({
      provider,
      journal,
      targets: [{ image: images[0]!, template: ok }, { image: images[1]!, template: names.get(images[1]!)! }],
      smoke: { healthAttempts: 2, healthRetryMs: 1 },
    });
    assert.equal(results.find((r) => r.template === ok)?.ok, true, JSON.stringify(results));
    const noService = results.find((r) => r.template !== ok)!;
    assert.equal(noService.ok, false);
    assert.equal(noService.code, 'no_start_command');
    assert.deepEqual(provider.aliveIds(), [], 'every smoke sandbox was killed');
  } finally {
    await removeDir(ws);
  }
});
