// Fault behaviour: 429/503 storms back off and finish (bounded), a hung command is killed at its timeout, an aborted
// run leaves no process behind, and sandboxes are cleaned up on errors and on Ctrl-C (abort).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { E2bProvider } from '../../src/services/sandbox/e2b.js';
import { MemoryProvider } from '../../src/services/sandbox/memory.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { buildMinimalLocalTemplate } from '../../src/services/sandbox/localMinimal.js';
import { descendants } from '../../src/services/sandbox/localProcs.js';
import { withSandbox } from '../../src/services/sandbox/index.js';
import { CONSOLE_TAG_KEY } from '../../src/services/sandbox/types.js';
import type { RetryEvent } from '../../src/services/sandbox/withRetry.js';
import { sandboxErrorKind } from './contract.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

/** A process that still runs (a zombie waiting to be reaped has already released everything). */
function hostPidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '');
  } catch {
    return false;
  }
}

describe('E2B adapter faults (fake server, real SDK)', () => {
  let fake: FakeE2b;
  const retries: RetryEvent[] = [];
  let provider: E2bProvider;

  before(async () => {
    fake = await startFakeE2b({
      templates: ['tpl'],
      exec: (req) => (req.command === 'hang forever' ? { chunks: [{ stream: 'stdout', data: 'working\n' }], hang: true } : undefined),
    });
    provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url, sdkRetries: 2, retry: { attempts: 6, baseMs: 5, maxMs: 40 }, onRetry: (e) => retries.push(e), commandGraceMs: 2000 });
  });
  after(async () => fake.close());

  it('rides out a 429 storm with Retry-After and finishes', async () => {
    retries.length = 0;
    // 7 rate-limited answers: the SDK retries 2× per call (honouring Retry-After: 0), we back off between calls.
    fake.addFault({ role: 'control', method: 'POST', path: '/v2/sandboxes', status: 429, retryAfter: 0, times: 7 });
    const before = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v2/sandboxes').length;
    const sbx = await provider.create({ template: 'tpl', timeoutMs: 60_000 });
    const posts = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v2/sandboxes').slice(before);
    assert.equal(posts.filter((r) => r.status === 429).length, 7);
    assert.equal(posts.at(-1)?.status, 201);
    assert.ok(retries.length >= 2, `expected our backoff to run, got ${retries.length} retries`);
    assert.ok(retries.every((r) => r.error.kind === 'rate_limited' && r.delayMs <= 40));
    assert.equal(fake.alive().filter((s) => s.metadata[CONSOLE_TAG_KEY]).length >= 1, true);
    await sbx.kill();
  });

  it('retries 429 without Retry-After and 503 with jittered backoff', async () => {
    retries.length = 0;
    fake.addFault({ role: 'control', method: 'GET', path: '/v2/sandboxes', status: 429, times: 2 });
    fake.addFault({ role: 'control', method: 'GET', path: '/v2/sandboxes', status: 503, times: 2 });
    const list = await provider.list({});
    assert.ok(Array.isArray(list));
    assert.deepEqual(retries.map((r) => r.error.kind), ['rate_limited', 'rate_limited', 'service_busy', 'service_busy']);
    // Exponential and capped: 5, 10, 20, 40 ms ±20 %.
    retries.forEach((r, i) => assert.ok(r.delayMs >= 5 * 2 ** i * 0.8 - 1 && r.delayMs <= 40, `retry ${i}: ${r.delayMs} ms`));
  });

  it('gives up after the bounded attempts with a rate_limited error', async () => {
    fake.addFault({ role: 'control', method: 'GET', path: '/v2/sandboxes', status: 429, times: 100 });
    await assert.rejects(provider.list({}), sandboxErrorKind('rate_limited'));
    // Remove what is left of the storm so later tests are unaffected.
    while (true) {
      try {
        await new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url, sdkRetries: 0, retry: { attempts: 1 } }).list({});
        break;
      } catch {
        // drain
      }
    }
  });

  it('maps 401 to unauthorized without retrying, and no key to unauthorized without a request', async () => {
    const bad = new E2bProvider({ apiKey: 'e2b_wrong', apiUrl: fake.url, sandboxUrl: fake.url, retry: { baseMs: 1 } });
    const n = fake.requests.length;
    await assert.rejects(bad.create({ template: 'tpl', timeoutMs: 10_000 }), sandboxErrorKind('unauthorized'));
    assert.equal(fake.requests.length - n, 1);
    const none = new E2bProvider({ apiUrl: fake.url });
    await assert.rejects(none.list({}), sandboxErrorKind('unauthorized'));
    assert.equal(fake.requests.length - n, 1);
  });

  it('kills a hung command at its timeout (the SDK alone would leave it running)', async () => {
    const sbx = await provider.create({ template: 'tpl', timeoutMs: 60_000 });
    const lines: string[] = [];
    const r = await sbx.run('hang forever', { timeoutMs: 500, onStdout: (l) => lines.push(l) });
    assert.equal(r.timedOut, true);
    assert.deepEqual(lines, ['working']);
    const proc = fake.processes.find((p) => p.sandboxId === sbx.id && p.command === 'hang forever');
    assert.equal(proc?.state, 'killed');
    await sbx.kill();
  });

  it('an aborted run leaves no process behind (real host processes under the fake)', async () => {
    const sbx = await provider.create({ template: 'tpl', timeoutMs: 60_000 });
    const ac = new AbortController();
    // Abort only once the process is known to run.
    // Durations unique to this test process, so that pgrep below cannot see anyone else's sleep.
    const tag = `${process.pid % 100000}`;
    const run = sbx.run(`echo go; sleep 300.${tag} & sleep 301.${tag}; echo unreachable`, { timeoutMs: 60_000, signal: ac.signal, onStdout: (l) => l === 'go' && ac.abort() });
    await assert.rejects(run, sandboxErrorKind('cancelled'));
    const proc = fake.processes.find((p) => p.sandboxId === sbx.id && p.command.startsWith('echo go'));
    assert.ok(proc?.child?.pid);
    await waitFor(() => proc.state !== 'running' && !hostPidAlive(proc.child!.pid!), { message: () => `state ${proc.state}` });
    // No `sleep 300` / `sleep 301` survived anywhere on the host.
    const left = spawnSync('pgrep', ['-f', `^sleep 30[01]\\.${tag}$`]).stdout.toString().trim();
    assert.equal(left, '', `processes left behind: ${left}`);
    await sbx.kill();
  });

  it('kills the orphan when a create response is lost, then retries', async () => {
    const alive = () => fake.alive().filter((s) => s.metadata[CONSOLE_TAG_KEY] === '1' && s.metadata.probe === 'lost');
    fake.addFault({ role: 'control', method: 'POST', path: '/v2/sandboxes', drop: true });
    const sbx = await provider.create({ template: 'tpl', timeoutMs: 60_000, metadata: { probe: 'lost' } });
    assert.deepEqual(alive().map((s) => s.sandboxID), [sbx.id], 'exactly one sandbox survives: the orphan was killed');
    await sbx.kill();
    assert.equal(alive().length, 0);
  });

  it('withSandbox kills the sandbox on error and on abort (Ctrl-C)', async () => {
    const ids: string[] = [];
    await assert.rejects(
      withSandbox(provider, { template: 'tpl', timeoutMs: 60_000 }, async (s) => {
        ids.push(s.id);
        throw new Error('boom');
      }),
      /boom/,
    );
    const ac = new AbortController();
    await assert.rejects(
      withSandbox(provider, { template: 'tpl', timeoutMs: 60_000, signal: ac.signal }, async (s, signal) => {
        ids.push(s.id);
        return s.run('echo go; sleep 300', { timeoutMs: 60_000, signal, onStdout: (l) => l === 'go' && ac.abort() });
      }),
      sandboxErrorKind('cancelled'),
    );
    for (const id of ids) assert.equal(fake.sandboxes.get(id)?.alive, false, `sandbox ${id} still alive`);
  });

  it('surfaces a failed build with its log and reason', async () => {
    const f2 = await startFakeE2b({ builds: { broken: { logs: ['Step 1/3', 'Step 2/3: apt-get install nope'], fail: { message: 'E: Unable to locate package nope', step: '2' } } } });
    try {
      const p2 = new E2bProvider({ apiKey: f2.apiKey, apiUrl: f2.url, sandboxUrl: f2.url, retry: { baseMs: 1 } });
      const logs: string[] = [];
      await assert.rejects(
        p2.buildTemplate({ name: 'broken', baseImage: 'debian:12', cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: ['nope'], startCommand: 'true', readyPort: 31000, readyPath: '/health' }, { onLog: (l) => logs.push(l) }),
        (e) => sandboxErrorKind('build_failed')(e) && /Unable to locate package nope/.test((e as Error).message),
      );
      assert.ok(logs.some((l) => l.includes('Step 2/3')), logs.join('\n'));
      assert.equal(await p2.templateExists('broken'), false);
    } finally {
      await f2.close();
    }
  });
});

describe('memory provider faults', () => {
  it('backs off through a 429 storm using Retry-After', async () => {
    const retries: RetryEvent[] = [];
    const p = new MemoryProvider({ templates: { t: {} }, retry: { attempts: 5, baseMs: 1000 }, onRetry: (e) => retries.push(e) });
    p.rateLimitStorm('create', 3, 0.01);
    const s = await p.create({ template: 't', timeoutMs: 10_000 });
    assert.equal(retries.length, 3);
    assert.ok(retries.every((r) => r.delayMs === 10 && r.error.retryAfterSec === 0.01));
    await s.kill();
    p.rateLimitStorm('create', 10, 0);
    await assert.rejects(p.create({ template: 't', timeoutMs: 10_000 }), sandboxErrorKind('rate_limited'));
  });

  it('does not retry what is not retryable', async () => {
    const p = new MemoryProvider({ templates: { t: {} }, retry: { baseMs: 1 } });
    p.inject({ op: 'create', kind: 'unauthorized' });
    await assert.rejects(p.create({ template: 't', timeoutMs: 10_000 }), sandboxErrorKind('unauthorized'));
    assert.equal(p.calls.filter((c) => c.op === 'create').length, 1);
  });

  it('leaves no command running after an abort or a kill', async () => {
    const p = new MemoryProvider({ templates: { t: {} }, commands: () => ({ chunks: [{ stream: 'stdout', data: 'go\n' }], hang: true }) });
    const s = await p.create({ template: 't', timeoutMs: 10_000 });
    const ac = new AbortController();
    await assert.rejects(s.run('x', { timeoutMs: 10_000, signal: ac.signal, onStdout: () => ac.abort() }), sandboxErrorKind('cancelled'));
    assert.equal(p.runningCommands(), 0);
    const pending = s.run('x', { timeoutMs: 10_000 });
    await waitFor(() => p.runningCommands() === 1);
    await s.kill();
    await assert.rejects(pending, sandboxErrorKind('not_found'));
    assert.equal(p.runningCommands(), 0);
  });
});

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

describe('local provider faults', { skip: hasBwrap ? false : 'bubblewrap is not installed' }, () => {
  let dir: string;
  let provider: LocalProvider;
  before(async () => {
    dir = await tempDir('swegym-local-faults-');
    provider = new LocalProvider({ storeDir: dir, readyTimeoutMs: 3000 });
    await buildMinimalLocalTemplate(provider, 'mini');
  });
  after(async () => {
    await provider.killAll();
    await removeDir(dir);
  });

  const cmdlines = (pids: number[]) =>
    pids.map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        return '';
      }
    });

  it('a timed-out command is killed with everything it started', async () => {
    const s = (await provider.create({ template: 'mini', timeoutMs: 60_000 })) as import('../../src/services/sandbox/local.js').LocalSandbox;
    const r = await s.run('sleep 311 & sleep 312', { timeoutMs: 500 });
    assert.equal(r.timedOut, true);
    await waitFor(() => !cmdlines(descendants(s.initPid)).some((c) => /sleep 31[12]/.test(c)), { message: () => cmdlines(descendants(s.initPid)).join('\n') });
    await s.kill();
  });

  it('an aborted run leaves no process behind', async () => {
    const s = (await provider.create({ template: 'mini', timeoutMs: 60_000 })) as import('../../src/services/sandbox/local.js').LocalSandbox;
    const ac = new AbortController();
    await assert.rejects(s.run('echo go; sleep 321 & sleep 322', { timeoutMs: 60_000, signal: ac.signal, onStdout: (l) => l === 'go' && ac.abort() }), sandboxErrorKind('cancelled'));
    await waitFor(() => !cmdlines(descendants(s.initPid)).some((c) => /sleep 32[12]/.test(c)), { message: () => cmdlines(descendants(s.initPid)).join('\n') });
    // The start command's server is still there: only the command's processes were killed.
    assert.equal((await s.health(31000)).ok, true);
    const initPid = s.initPid;
    await s.kill();
    assert.equal(hostPidAlive(initPid), false, 'the sandbox pid 1 is gone');
    assert.equal(existsSync(path.join(dir, 'sandboxes', s.id)), false, 'the sandbox copy is removed');
  });

  it('has no network unless asked, and its own /tmp', async () => {
    const a = await provider.create({ template: 'mini', timeoutMs: 60_000 });
    const b = await provider.create({ template: 'mini', timeoutMs: 60_000 });
    try {
      await a.writeFile('/tmp/only-in-a', 'a');
      await assert.rejects(b.readFile('/tmp/only-in-a'), sandboxErrorKind('not_found'));
      const net = await a.run("python3 -c \"import socket; s=socket.socket(); s.settimeout(2); s.connect(('1.1.1.1', 53))\"", { timeoutMs: 10_000 });
      assert.notEqual(net.exitCode, 0, 'outbound connections fail without allowInternet');
      assert.match(net.stderr, /unreachable|Network|Errno/i);
      // Both serve 31000 in their own network namespaces.
      assert.equal((await a.health(31000)).ok, true);
      assert.equal((await b.health(31000)).ok, true);
      // Host secrets never reach the sandbox environment.
      const env = await a.run('env', { timeoutMs: 5000 });
      assert.doesNotMatch(env.stdout, /E2B_API_KEY|HF_TOKEN|ANTHROPIC/);
    } finally {
      await a.kill();
      await b.kill();
    }
  });

  it('cleans up when the start command never becomes ready', async () => {
    const before = readdirSync(path.join(dir, 'sandboxes')).length;
    // A template whose start command dies: the build refuses it, like an E2B build whose ready check fails.
    await assert.rejects(
      provider.buildTemplate({ name: 'broken', baseImage: path.join(dir, 'templates', 'mini', 'root'), cpuCount: 1, memoryMb: 256, copies: [], runCommands: [], aptPackages: [], startCommand: 'echo starting; exit 3', readyPort: 31000, readyPath: '/health' }),
      (e) => sandboxErrorKind('build_failed')(e) && /starting/.test((e as Error).message),
    );
    assert.equal(await provider.templateExists('broken'), false);
    assert.ok(!readdirSync(path.join(dir, 'templates')).some((n) => n.includes('broken')), 'no half-built template left');
    assert.equal(readdirSync(path.join(dir, 'sandboxes')).length, before);
  });

  it('keeps what build steps write to /opt, /root and /tmp; each sandbox gets its own copy', async () => {
    const ctx = path.join(dir, 'layer-ctx');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(path.join(ctx, 'image', 'testbed'), { recursive: true });
    await writeFile(path.join(ctx, 'payload.txt'), 'payload');
    await provider.buildTemplate({
      name: 'layered',
      baseImage: 'image',
      contextDir: ctx,
      cpuCount: 1,
      memoryMb: 256,
      copies: [{ src: 'payload.txt', dest: '/tmp/payload.txt' }],
      runCommands: ['mkdir -p /opt/cc-runtime && cp /tmp/payload.txt /opt/cc-runtime/p && echo cfg > /root/.cfg'],
      aptPackages: [],
      startCommand: '',
      readyPort: 0,
      readyPath: '/',
    });
    const a = await provider.create({ template: 'layered', timeoutMs: 60_000 });
    const b = await provider.create({ template: 'layered', timeoutMs: 60_000 });
    try {
      assert.equal((await a.run('cat /opt/cc-runtime/p /root/.cfg /tmp/payload.txt', { timeoutMs: 5000 })).stdout, 'payloadcfg\npayload');
      await a.writeFile('/opt/cc-runtime/p', 'changed in a');
      assert.equal(await b.readFile('/opt/cc-runtime/p'), 'payload');
    } finally {
      await a.kill();
      await b.kill();
    }
  });

  it('withSandbox kills on error', async () => {
    let id = '';
    await assert.rejects(
      withSandbox(provider, { template: 'mini', timeoutMs: 60_000 }, async (s) => {
        id = s.id;
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal((await provider.list({})).some((s) => s.id === id), false);
  });

  it('says so when the lifetime ends before the start command is ready', async () => {
    await assert.rejects(provider.create({ template: 'mini', timeoutMs: 1 }), (e) => sandboxErrorKind('timeout')(e) && /lifetime/.test((e as Error).message));
    assert.deepEqual((await provider.list({})).length, 0);
  });

  it('expires a sandbox at the end of its lifetime', async () => {
    const s = await provider.create({ template: 'mini', timeoutMs: 4000 });
    await waitFor(async () => !(await provider.list({})).some((x) => x.id === s.id), { timeoutMs: 20_000 });
    await assert.rejects(s.run('true', { timeoutMs: 1000 }), sandboxErrorKind('not_found'));
  });
});
