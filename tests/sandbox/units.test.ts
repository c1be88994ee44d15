// Pure pieces of the sandbox layer: line splitting, output tails, backoff, health probe parsing, error mapping,
// settings from the environment, and the fake's metadata filter decoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineSplitter, OutputTail, StreamCollector } from '../../src/services/sandbox/lines.js';
import { backoffDelay, withRetry } from '../../src/services/sandbox/withRetry.js';
import { SANDBOX_RETRY as DEFAULT_RETRY } from '../../src/services/util/retry.js';
import { healthProbeCommand, parseHealthProbe, HEALTH_STATUS_MARKER } from '../../src/services/sandbox/health.js';
import { mapE2bError, e2bSettingsFromEnv } from '../../src/services/sandbox/e2b.js';
import { sandboxConsoleError, createProvider, localStoreDir } from '../../src/services/sandbox/index.js';
import { SandboxError } from '../../src/services/sandbox/types.js';
import { parseMetadataFilter } from '../fakes/e2bServer.js';

test('chunks become lines; the remainder is flushed once; CRLF is trimmed', () => {
  const lines: string[] = [];
  const s = new LineSplitter((l) => lines.push(l));
  s.push('partial line without newline ');
  s.push('continues\nsecond\r\nthi');
  s.push('rd');
  assert.deepEqual(lines, ['partial line without newline continues', 'second']);
  s.flush();
  s.flush();
  assert.deepEqual(lines, ['partial line without newline continues', 'second', 'third']);
});

test('the output tail keeps the most recent bytes', () => {
  const t = new OutputTail(10);
  for (let i = 0; i < 100; i++) t.push(`${i % 10}`);
  assert.equal(t.text(), '0123456789');
  assert.equal(t.truncated, true);
  const c = new StreamCollector(1024, undefined);
  c.push('a\nb');
  assert.equal(c.finish(), 'a\nb');
});

test('backoff grows exponentially with jitter, is capped, and honours Retry-After', () => {
  const policy = { ...DEFAULT_RETRY, baseMs: 100, maxMs: 1000, jitter: [0.8, 1.2] as const };
  assert.equal(backoffDelay(policy, 1, undefined, () => 0.5), 100);
  assert.equal(backoffDelay(policy, 3, undefined, () => 0.5), 400);
  assert.equal(backoffDelay(policy, 3, undefined, () => 0), 320);
  assert.equal(backoffDelay(policy, 3, undefined, () => 1), 480);
  assert.equal(backoffDelay(policy, 10, undefined, () => 1), 1000);
  assert.equal(backoffDelay(policy, 1, 7, () => 0), 1000, 'Retry-After is capped too');
  assert.equal(backoffDelay(policy, 1, 0.5, () => 0), 500);
});

test('withRetry stops on non-retryable errors and on abort', async () => {
  let n = 0;
  await assert.rejects(
    withRetry(async () => {
      n++;
      throw new SandboxError('not_found', 'x');
    }),
    /x/,
  );
  assert.equal(n, 1);
  const ac = new AbortController();
  const p = withRetry(
    async () => {
      throw new SandboxError('service_busy', 'busy');
    },
    { policy: { baseMs: 60_000, attempts: 3 }, signal: ac.signal, onRetry: () => ac.abort() },
  );
  await assert.rejects(p, (e) => e instanceof SandboxError && e.kind === 'cancelled');
});

test('health probe output is parsed into status, body and JSON', () => {
  const ok = parseHealthProbe({ exitCode: 0, stdout: `{"healthy": true}\n${HEALTH_STATUS_MARKER}200\n`, stderr: '', timedOut: false });
  assert.deepEqual(ok, { ok: true, status: 200, body: '{"healthy": true}', json: { healthy: true } });
  const bad = parseHealthProbe({ exitCode: 0, stdout: `oops\n${HEALTH_STATUS_MARKER}503\n`, stderr: '', timedOut: false });
  assert.equal(bad.ok, false);
  assert.equal(bad.status, 503);
  assert.equal(bad.error, 'HTTP 503');
  const refused = parseHealthProbe({ exitCode: 7, stdout: `\n${HEALTH_STATUS_MARKER}000\n`, stderr: 'curl: (7) Failed to connect', timedOut: false });
  assert.deepEqual(refused, { ok: false, error: 'curl: (7) Failed to connect' });
  assert.equal(parseHealthProbe({ exitCode: 124, stdout: '', stderr: '', timedOut: true }).ok, false);
  assert.throws(() => healthProbeCommand(0), RangeError);
  assert.match(healthProbeCommand(31000, 'health'), /http:\/\/127\.0\.0\.1:31000\/health/);
});

test('SDK errors map onto the closed union by name, including the non-SandboxError classes', () => {
  const err = (name: string, message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { name, ...extra });
  assert.equal(mapE2bError(err('AuthenticationError', 'Unauthorized'), 'x').kind, 'unauthorized');
  assert.equal(mapE2bError(err('RateLimitError', 'Rate limit exceeded'), 'x').kind, 'rate_limited');
  assert.equal(mapE2bError(err('ServiceBusyError', 'busy'), 'x').kind, 'service_busy');
  assert.equal(mapE2bError(err('BuildError', 'failed'), 'x').kind, 'build_failed');
  assert.equal(mapE2bError(err('FileUploadError', 'upload'), 'x').kind, 'build_failed');
  assert.equal(mapE2bError(err('SandboxNotFoundError', 'gone'), 'x').kind, 'not_found');
  assert.equal(mapE2bError(err('TimeoutError', '[deadline_exceeded] the operation timed out'), 'x').kind, 'timeout');
  assert.equal(mapE2bError(err('TimeoutError', "[canceled] likely due to exceeding 'requestTimeoutMs'"), 'x').kind, 'cancelled');
  assert.equal(mapE2bError(err('SandboxError', '404: template not found', { statusCode: 404 }), 'x').kind, 'not_found');
  assert.equal(mapE2bError(err('SandboxError', '2: [unknown] fetch failed'), 'x').kind, 'network');
  assert.equal(mapE2bError(new TypeError('fetch failed'), 'x').kind, 'network');
  assert.equal(mapE2bError(err('SandboxError', '500: boom', { statusCode: 500 }), 'x').kind, 'unknown');
  const ac = new AbortController();
  ac.abort();
  assert.equal(mapE2bError(new Error('whatever'), 'x', ac.signal).kind, 'cancelled');
  // Secrets in messages are masked.
  assert.doesNotMatch(mapE2bError(err('SandboxError', 'bad key e2b_abcdefghijkl'), 'x').message, /e2b_abcdefghijkl/);
});

test('settings come from the documented E2B variables; explicit settings win', () => {
  const s = e2bSettingsFromEnv({ E2B_API_KEY: 'k', E2B_DOMAIN: 'e2b.example.com', E2B_API_URL: ' https://api.example.com ', E2B_SANDBOX_URL: '' }, { domain: 'other.dev' });
  assert.deepEqual(s, { apiKey: 'k', domain: 'other.dev', apiUrl: 'https://api.example.com', sandboxUrl: undefined });
  assert.equal(createProvider('e2b', { env: {} }).name, 'e2b');
  assert.match(localStoreDir('/ws'), /\/ws\/\.swegym-console\/local-sandboxes$/);
});

test('sandbox failures read as what / cause / fix', () => {
  const e = sandboxConsoleError(new SandboxError('rate_limited', '429', { retryAfterSec: 30 }), 'create sandbox');
  assert.match(e.what, /create sandbox: 429 \(retry after 30s\)/);
  assert.match(e.fix ?? '', /--concurrency/);
  assert.equal(sandboxConsoleError(new SandboxError('unauthorized', 'no key'), 'list').exitCode, 3);
});

test('the fake decodes the SDK doubly encoded metadata filter', () => {
  // {'run id': 'a&b', swegym_console: '1'} as the SDK sends it (reference §3.3).
  const inner = new URLSearchParams({ [encodeURIComponent('run id')]: encodeURIComponent('a&b'), swegym_console: '1' }).toString();
  const wire = new URL(`http://x/v2/sandboxes?metadata=${encodeURIComponent(inner)}`);
  assert.deepEqual(parseMetadataFilter(wire.searchParams.get('metadata')), { 'run id': 'a&b', swegym_console: '1' });
  assert.deepEqual(parseMetadataFilter(null), {});
});
