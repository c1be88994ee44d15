// The fault proxy's rule kinds do what docs/FAULTS.md says, against a small upstream (so a probe that passes means
// the fault really happened): status, reset, reset-mid-body, truncate, corrupt, slow, hang, drop-response, and the
// older fields (status, drop, holdMs) still work.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFaultProxy, type FaultProxy } from '../fakes/faultProxy.js';

const BODY = JSON.stringify({ sandboxID: 'i0123456789', envdVersion: '0.2.0', message: 'x'.repeat(200) });

interface Answer {
  status?: number;
  body?: string;
  error?: string;
  headers?: http.IncomingHttpHeaders;
}

function ask(url: string, method = 'POST', timeoutMs = 2000): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(url + '/v2/sandboxes', { method, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body, headers: res.headers }));
      res.on('error', (e) => resolve({ status: res.statusCode, body, headers: res.headers, error: (e as NodeJS.ErrnoException).code ?? e.message }));
      res.on('aborted', () => resolve({ status: res.statusCode, body, headers: res.headers, error: 'aborted' }));
    });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end('{}');
  });
}

describe('fault proxy rule kinds', () => {
  let upstream: http.Server;
  let served = 0;
  let proxy: FaultProxy;
  before(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        served++;
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(BODY)) });
        res.end(BODY);
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    proxy = await startFaultProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  });
  afterEach(() => proxy.clearRules());
  after(async () => {
    await proxy.close();
    upstream.closeAllConnections();
    await new Promise<void>((r) => upstream.close(() => r()));
  });

  it('no rule: the answer passes unchanged', async () => {
    const a = await ask(proxy.url);
    assert.equal(a.status, 201);
    assert.equal(a.body, BODY);
  });

  it('status (kind or the old field): the status and body instead of forwarding, Retry-After kept', async () => {
    const before = served;
    proxy.addRule({ kind: 'status', status: 503, body: '{"code":503}', retryAfter: 2, times: 1 });
    proxy.addRule({ status: 429, times: 1 });
    const a = await ask(proxy.url);
    assert.equal(a.status, 503);
    assert.equal(a.body, '{"code":503}');
    assert.equal(a.headers?.['retry-after'], '2');
    assert.equal((await ask(proxy.url)).status, 429);
    assert.equal(served, before, 'never forwarded');
  });

  it('reset (kind or drop: before): the connection breaks, the server never sees the request', async () => {
    const before = served;
    proxy.addRule({ kind: 'reset', times: 1 });
    proxy.addRule({ drop: 'before', times: 1 });
    assert.ok((await ask(proxy.url)).error);
    assert.ok((await ask(proxy.url)).error);
    assert.equal(served, before);
  });

  it('drop-response (kind or drop: after): the server did the work, the client gets a reset', async () => {
    const before = served;
    proxy.addRule({ kind: 'drop-response', times: 1 });
    proxy.addRule({ drop: 'after', times: 1 });
    assert.ok((await ask(proxy.url)).error);
    assert.ok((await ask(proxy.url)).error);
    assert.equal(served, before + 2);
  });

  it('truncate: a complete answer whose body is cut short (content-length agrees)', async () => {
    proxy.addRule({ kind: 'truncate', bytes: 20, times: 1 });
    const a = await ask(proxy.url);
    assert.equal(a.status, 201);
    assert.equal(a.body, BODY.slice(0, 20));
    assert.equal(a.headers?.['content-length'], '20');
    assert.throws(() => JSON.parse(a.body!));
  });

  it('reset-mid-body: the headers promise the whole body, part arrives, then the connection breaks', async () => {
    proxy.addRule({ kind: 'reset-mid-body', bytes: 30, times: 1 });
    const a = await ask(proxy.url);
    assert.equal(a.status, 201);
    assert.equal(a.headers?.['content-length'], String(BODY.length));
    assert.ok(a.error, 'the body ends in an error');
    assert.ok((a.body ?? '').length <= 30);
  });

  it('corrupt: the same length, different bytes', async () => {
    proxy.addRule({ kind: 'corrupt', times: 1 });
    const a = await ask(proxy.url);
    assert.equal(a.status, 201);
    assert.equal(a.body!.length, BODY.length);
    assert.notEqual(a.body, BODY);
  });

  it('slow: the whole body, in pieces with pauses', async () => {
    proxy.addRule({ kind: 'slow', chunkBytes: 64, delayMs: 20, times: 1 });
    const a = await ask(proxy.url);
    assert.equal(a.body, BODY);
    assert.equal(a.headers?.['content-length'], String(BODY.length));
  });

  it('hang: no answer until the client gives up; the server never sees it', async () => {
    const before = served;
    proxy.addRule({ kind: 'hang', times: 1 });
    const a = await ask(proxy.url, 'POST', 300);
    assert.match(a.error ?? '', /client timeout|ECONNRESET/);
    assert.equal(served, before);
  });

  it('holdMs past the client timeout: the server did the work, the client saw nothing (the orphan case)', async () => {
    const before = served;
    proxy.addRule({ holdMs: 1000, times: 1 });
    assert.match((await ask(proxy.url, 'POST', 200)).error ?? '', /client timeout/);
    assert.equal(served, before + 1);
  });
});
