import { test } from 'node:test';
import { readJournalItems } from '../../src/services/workspace/journal.js';
import assert from 'node:assert/strict';
import { smokeTemplate, smokeMany } from '../../src/services/templates/smoke.js';
import { templatesJournal } from '../../src/services/templates/records.js';
import { SandboxError } from '../../src/services/sandbox/types.js';
import { FakeProvider } from './fakeProvider.js';
import { templateWorkspace, imageNames } from './helpers.js';
import { removeDir } from '../helpers/workspace.js';

test('a healthy template passes; the sandbox is killed (awaited)', async () => {
  const p = new FakeProvider();
  p.templates.add('t-ok');
  const r = await smokeTemplate({ provider: p, template: 't-ok' });
  assert.equal(r.ok, true, r.error);
  assert.equal(r.health?.version, '1.1.0');
  assert.match(r.claudeVersion ?? '', /2\.1\.207/);
  assert.equal(r.killed, true);
  assert.equal(p.liveSandboxes(), 0);
});

test('failures name the likely cause and still kill the sandbox', async () => {
  const p = new FakeProvider();
  for (const t of ['t-port', 't-unhealthy', 't-claude']) p.templates.add(t);
  p.smoke.set('t-port', { health: { ok: false, error: 'curl: (7) Failed to connect to 127.0.0.1 port 31000: Connection refused' } });
  p.smoke.set('t-unhealthy', { health: { ok: false, status: 200, body: '{"healthy":false}', json: { healthy: false } } });
  p.smoke.set('t-claude', { claude: { exitCode: 127, stdout: '', stderr: 'bash: /usr/local/bin/claude: No such file or directory', timedOut: false } });
  p.smoke.set('t-denied', { createError: new SandboxError('unknown', "Build failed: access denied to 'x': you don't have permission to pull this image") });

  const port = await smokeTemplate({ provider: p, template: 't-port', healthAttempts: 2, healthRetryMs: 1 });
  assert.equal(port.ok, false);
  assert.equal(port.code, 'no_start_command');
  assert.match(port.error ?? '', /port not open: the template's start command is missing or failed/);
  assert.match(port.error ?? '', /blackbox-server\.log: Traceback/);
  const unhealthy = await smokeTemplate({ provider: p, template: 't-unhealthy' });
  assert.equal(unhealthy.code, 'unhealthy');
  const claude = await smokeTemplate({ provider: p, template: 't-claude' });
  assert.equal(claude.code, 'claude_binary');
  assert.match(claude.error ?? '', /exited 127/);
  const missing = await smokeTemplate({ provider: p, template: 't-none' });
  assert.equal(missing.code, 'not_found');
  assert.match(missing.error ?? '', /templates build/);
  const denied = await smokeTemplate({ provider: p, template: 't-denied' });
  assert.equal(denied.code, 'pull_denied');
  assert.equal(p.liveSandboxes(), 0, 'every sandbox was killed');
  assert.equal(p.sandboxes.size, 3);
});

test('smokeMany records results in the journal under each image', async () => {
  const images = imageNames(3);
  const { ws, paths } = await templateWorkspace(images);
  const p = new FakeProvider();
  ['a', 'b', 'c'].forEach((t) => p.templates.add(t));
  p.smoke.set('b', { health: { ok: false, error: 'connection refused' } });
  try {
    const journal = await templatesJournal(paths).load();
    const results = await smokeMany({
      provider: p,
      journal,
      concurrency: 2,
      targets: images.map((image, i) => ({ image, template: ['a', 'b', 'c'][i]! })),
      smoke: { healthAttempts: 1 },
    });
    assert.equal(results.length, 3);
    const saved = { items: (await readJournalItems<any>(journal.file)) ?? {} };
    assert.equal(saved.items[images[0]!].smoke, 'passed');
    assert.equal(saved.items[images[1]!].smoke, 'failed');
    assert.match(saved.items[images[1]!].smokeError, /start command/);
    assert.equal(saved.items[images[2]!].smoke, 'passed');
    assert.equal(p.liveSandboxes(), 0);
  } finally {
    await removeDir(ws);
  }
});
