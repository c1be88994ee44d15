// A short JSON answer is a transient fault (issue 25, point 5), through the built binary against the fake E2B
// behind the fault proxy: a truncated body on the sandbox create, the build create and a build-status poll is
// retried by the one retry layer that already retries resets and 5xx on the same requests, and the job succeeds.
// A body cut mid-stream (reset-mid-body), garbled (corrupt) or lost after the work was done (drop-response) is the
// same fault; a slow answer is no fault; a hung one ends at the request timeout. The operator's backoff knobs
// (SWEGYM_RETRY_BASE_MS / _MAX_MS) make each retry wait milliseconds.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { startFaultProxy, type FaultProxy } from '../fakes/faultProxy.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { templateWorkspace, imageNames } from '../templates/helpers.js';

const FAST_RETRY = { SWEGYM_RETRY_BASE_MS: '10', SWEGYM_RETRY_MAX_MS: '40' };
const healthy = () => ({ status: 200, body: '{"healthy":true,"version":"1.1.0"}', contentType: 'application/json' });

describe('a sandbox create whose answer is cut, garbled, lost, slow or hung', { skip: builtMissing() }, () => {
  let fake: FakeE2b;
  let proxy: FaultProxy;
  let ws: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    fake = await startFakeE2b({
      templates: ['swegym-a'],
      services: { 'swegym-a': { 31000: healthy } },
      exec: (req) => (req.command.includes('--version') ? { chunks: [{ stream: 'stdout', data: '2.1.207 (Claude Code)\n' }], exitCode: 0 } : undefined),
    });
    proxy = await startFaultProxy(fake.url);
    ws = await tempDir('swegym-faults-partial-');
    await mkdir(path.join(ws, 'data'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify({ 'img/a:latest': 'swegym-a' }));
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, ...FAST_RETRY };
  });
  afterEach(() => proxy.clearRules());
  after(async () => {
    await proxy.close();
    await fake.close();
    await removeDir(ws);
  });

  for (const kind of ['truncate', 'reset-mid-body', 'corrupt', 'drop-response'] as const) {
    it(`${kind} on POST /v2/sandboxes: one retry, the smoke passes, no sandbox left`, { timeout: 60_000 }, async () => {
      proxy.addRule({ kind, role: 'control', method: 'POST', path: '/v2/sandboxes', bytes: 20, times: 1 });
      const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], env);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.err, /retry 1\/5 in [\d.]+s after: create sandbox/);
      assert.match(r.out, /1 passed, 0 failed/);
      assert.equal([...fake.sandboxes.values()].filter((s) => s.alive).length, 0, 'the sandbox whose answer was cut is found and killed');
    });
  }

  it('slow on POST /v2/sandboxes (the answer in small pieces): no retry needed, the smoke passes', { timeout: 60_000 }, async () => {
    proxy.addRule({ kind: 'slow', role: 'control', method: 'POST', path: '/v2/sandboxes', chunkBytes: 8, delayMs: 5, times: 1 });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], env);
    assert.equal(r.code, 0, r.out + r.err);
    assert.doesNotMatch(r.err, /retry/);
  });

  it('hang on POST /v2/sandboxes: the request timeout ends it, the failure says so, nothing is left', { timeout: 60_000 }, async () => {
    proxy.addRule({ kind: 'hang', role: 'control', method: 'POST', path: '/v2/sandboxes' });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], { ...env, SWEGYM_E2B_REQUEST_TIMEOUT_MS: '800' });
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /create sandbox from template 'swegym-a'.*(timed out|timeout)/i);
    assert.equal([...fake.sandboxes.values()].filter((s) => s.alive).length, 0);
  });
});

describe('a truncated answer during a template build is retried', { skip: builtMissing() }, () => {
  const cases = [
    { name: 'the build create (POST /v3/templates)', rule: { method: 'POST', path: '/v3/templates' } },
    { name: 'a build-status poll', rule: { method: 'GET', path: /^\/templates\/[^/]+\/builds\/[^/]+\/status$/ } },
  ];
  for (const c of cases) {
    it(`truncate on ${c.name}: the build is retried and succeeds`, { timeout: 60_000 }, async () => {
      const fake = await startFakeE2b();
      const proxy = await startFaultProxy(fake.url, [{ kind: 'truncate', role: 'control', ...c.rule, bytes: 9, times: 1 }]);
      const { ws } = await templateWorkspace(imageNames(1));
      try {
        const r = await runConsole(['templates', 'build', '--json', '-w', ws], { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, ...FAST_RETRY });
        assert.ok(proxy.requests.some((q) => q.rule === 0), 'the fault was injected');
        assert.equal(r.code, 0, r.out + r.err);
        const doc = JSON.parse(r.out) as { failed: number; built: number };
        assert.equal(doc.failed, 0, r.out);
        assert.match(r.err, /retry .*attempt 2/);
      } finally {
        await proxy.close();
        await fake.close();
        await removeDir(ws);
      }
    });
  }
});
