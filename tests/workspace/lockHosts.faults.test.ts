// The workspace lock on a checkout shared by several hosts (issue 25, "Shared checkouts and clusters"), through the
// built binary (`templates smoke` takes the lock) against the fake E2B: a lock held on another host is live while
// its heartbeat (the file's mtime) is fresh, and the refusal names that host; a stale one is taken over, after the
// default bound or the one SWEGYM_HEARTBEAT_STALE_MS sets; a lock with no start time whose pid is alive (pid 1) no
// longer blocks forever; a console holding the lock records host and boot id and keeps its heartbeat going.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { builtMissing, runConsole, startConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const healthy = () => ({ status: 200, body: '{"healthy":true,"version":"1.1.0"}', contentType: 'application/json' });

describe('the workspace lock across hosts', { skip: builtMissing() }, () => {
  let fake: FakeE2b;
  let ws: string;
  let lockFile: string;
  let env: NodeJS.ProcessEnv;
  let hang = false;
  const smoke = (extra: NodeJS.ProcessEnv = {}) => runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], { ...env, ...extra });
  const writeLock = async (info: Record<string, unknown>, ageMs: number) => {
    await mkdir(path.dirname(lockFile), { recursive: true });
    await writeFile(lockFile, JSON.stringify({ startedAt: '2026-12-01T20:00:00.000Z', purpose: 'templates build', ...info }));
    const t = new Date(Date.now() - ageMs);
    await utimes(lockFile, t, t);
  };

  before(async () => {
    fake = await startFakeE2b({
      templates: ['swegym-a'],
      services: { 'swegym-a': { 31000: healthy } },
      exec: (req) => {
        if (req.command.includes('claude --version') || req.command.includes('claude" --version')) return { chunks: [{ stream: 'stdout', data: '2.1.207 (Claude Code)\n' }], exitCode: 0 };
        if (hang && req.command.includes('31000')) return { hang: true };
        return undefined;
      },
    });
    ws = await tempDir('swegym-faults-lockhosts-');
    lockFile = path.join(ws, '.swegym-console', 'lock');
    await mkdir(path.join(ws, 'data'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify({ 'img/0:latest': 'swegym-a' }));
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url };
  });
  afterEach(async () => {
    hang = false;
    await rm(lockFile, { force: true });
  });
  after(async () => {
    await fake.close();
    await removeDir(ws);
  });

  const remote = { pid: 4242, pidStart: '987654', host: 'gpu-node-7', bootId: '00000000-0000-0000-0000-000000000007' };

  it('a lock held on another host with a fresh heartbeat is live: refused, naming the host', { timeout: 60_000 }, async () => {
    await writeLock(remote, 5_000);
    const r = await smoke();
    assert.equal(r.code, 3, r.err);
    assert.match(r.err, /workspace is busy: another swegym-console \(pid 4242 on host gpu-node-7\) is running "templates build" since 2026-12-01T20:00:00.000Z; last heartbeat \d+ s ago/);
    assert.match(r.err, /ssh gpu-node-7 kill 4242/);
    assert.match(r.err, /heartbeat stops for 3 min/);
    assert.ok(existsSync(lockFile), 'the live lock is kept');
  });

  it('a lock from another host whose heartbeat is stale is taken over (default bound, and SWEGYM_HEARTBEAT_STALE_MS)', { timeout: 60_000 }, async () => {
    await writeLock(remote, 10 * 60_000);
    const r = await smoke();
    assert.equal(r.code, 0, r.err);
    assert.equal(existsSync(lockFile), false, 'released after the smoke');
    await writeLock(remote, 5_000);
    const knob = await smoke({ SWEGYM_HEARTBEAT_STALE_MS: '2000', SWEGYM_HEARTBEAT_MS: '500' });
    assert.equal(knob.code, 0, knob.err);
  });

  it('a lock with no start time whose pid is alive (pid 1) blocks only while its heartbeat is fresh', { timeout: 60_000 }, async () => {
    await writeLock({ pid: 1 }, 1_000);
    const fresh = await smoke();
    assert.equal(fresh.code, 3, fresh.err);
    assert.match(fresh.err, /another swegym-console \(pid 1\) is running "templates build"/);
    await writeLock({ pid: 1 }, 10 * 60_000);
    const old = await smoke();
    assert.equal(old.code, 0, old.err);
  });

  it('the same host after a reboot: a lock of the old boot is taken over even though its pid is alive now', { timeout: 60_000 }, async () => {
    await writeLock({ pid: 1, pidStart: '1', host: hostname(), bootId: '00000000-0000-0000-0000-00000000dead' }, 1_000);
    const r = await smoke();
    assert.equal(r.code, 0, r.err);
  });

  it('a console holding the lock records host and boot id and touches the lock while it runs', { timeout: 60_000 }, async () => {
    hang = true;
    const c = startConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], { ...env, SWEGYM_HEARTBEAT_MS: '100' });
    try {
      // Holding the lock, its sandbox started (no create left in flight for the exit to wait on).
      await waitFor(() => existsSync(lockFile) && fake.alive().length === 1, { timeoutMs: 20_000, message: () => c.err() });
      const info = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number; host: string; bootId?: string; pidStart?: string };
      assert.equal(info.pid, c.child.pid);
      assert.equal(info.host, hostname());
      if (existsSync('/proc/sys/kernel/random/boot_id')) assert.equal(info.bootId, readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
      const old = new Date(Date.now() - 3_600_000);
      await utimes(lockFile, old, old);
      await waitFor(async () => (await stat(lockFile)).mtimeMs > Date.now() - 60_000, { timeoutMs: 10_000, message: () => 'no heartbeat' });
    } finally {
      c.child.kill('SIGTERM');
      await c.exited;
    }
    assert.equal(existsSync(lockFile), false, 'released on SIGTERM');
  });
});
