// Retries through the built binary against the fake E2B behind the fault proxy: one bounded layer, shown in the
// headless output, with the hint that matches the failure (a sandbox proxy 502 is not "template not found"; the
// concurrent-sandbox 429 is not the build cap), and a persistent 429 costs a handful of requests, not a hundred.
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
const SANDBOX_GONE_502 = '{"sandboxId":"x","message":"The sandbox was not found","code":502}';
const LIMIT_429 = '{"code":429,"message":"Rate limit exceeded, please try again later. - you have reached the maximum number of concurrent E2B sandboxes (20). If you need more, please contact us"}';

describe('retries: bounded, single-layer, shown, rightly described', { skip: builtMissing() }, () => {
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
    ws = await tempDir('swegym-faults-retry-');
    await mkdir(path.join(ws, 'data'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify({ 'img/a:latest': 'swegym-a' }));
    // The backoff is the operator's setting: milliseconds here, so that the schedule, not the clock, is tested.
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, ...FAST_RETRY };
  });
  afterEach(() => proxy.clearRules());
  after(async () => {
    await proxy.close();
    await fake.close();
    await removeDir(ws);
  });

  const starts = () => proxy.requests.filter((r) => r.path === '/process.Process/Start').length;
  const creates = () => proxy.requests.filter((r) => r.method === 'POST' && r.path === '/v2/sandboxes').length;

  it('two 502s from the command endpoint are retried, shown on stderr, and the smoke passes', { timeout: 60_000 }, async () => {
    proxy.addRule({ role: 'envd', method: 'POST', path: '/process.Process/Start', status: 502, body: SANDBOX_GONE_502, times: 2 });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], env);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.err, /retry 1\/5 in 0\.0s after: start command/);
    assert.match(r.err, /retry 2\/5/);
    assert.match(r.out, /1 passed, 0 failed/);
  });

  it('a 502 that persists fails the smoke after a bounded number of tries, with the sandbox-proxy hint', { timeout: 90_000 }, async () => {
    const before = starts();
    proxy.addRule({ role: 'envd', method: 'POST', path: '/process.Process/Start', status: 502, body: SANDBOX_GONE_502 });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], env);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /FAILED\s+swegym-a: .*502/);
    assert.match(r.err, /sandbox proxy answered 502/);
    assert.doesNotMatch(r.err, /template (does not exist|was not found)|build it/);
    // health attempts x (1 + 5 retries) at most, nothing multiplied
    assert.ok(starts() - before <= 6 * 5 + 6, `${starts() - before} start requests`);
  });

  it('the concurrent-sandbox 429 is named as such, and a persistent one costs at most 6 creates', { timeout: 90_000 }, async () => {
    const before = creates();
    proxy.addRule({ role: 'control', method: 'POST', path: '/v2/sandboxes', status: 429, body: LIMIT_429, retryAfter: 1 });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], env);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /limit of concurrent sandboxes is reached/);
    assert.doesNotMatch(r.err, /template builds/);
    assert.ok(creates() - before <= 6, `${creates() - before} create requests for one smoke`);
    assert.match(r.err, /retry 5\/5/);
  });
});

describe('a persistent 429 on template builds: one retry layer, not 6 x 6 x 3', { skip: builtMissing() }, () => {
  it('one image, one persistent 429: at most 6 build requests, the failure names the rate limit', { timeout: 120_000 }, async () => {
    const fake = await startFakeE2b();
    const proxy = await startFaultProxy(fake.url, [{ role: 'control', method: 'POST', path: '/v3/templates', status: 429, retryAfter: 1, body: '{"code":429,"message":"Rate limit exceeded, please try again later."}' }]);
    const images = imageNames(1);
    const { ws } = await templateWorkspace(images);
    try {
      const r = await runConsole(['templates', 'build', '--json', '-w', ws], { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, ...FAST_RETRY });
      assert.equal(r.code, 1, r.out + r.err);
      const n = proxy.requests.filter((q) => q.method === 'POST' && q.path === '/v3/templates').length;
      assert.ok(n >= 2 && n <= 6, `${n} build requests for one image`);
      const doc = JSON.parse(r.out) as { failed: number; templates: { error: string }[] };
      assert.equal(doc.failed, 1);
      assert.match(doc.templates[0]!.error, /rate limit/i);
    } finally {
      await proxy.close();
      await fake.close();
      await removeDir(ws);
    }
  });
});
