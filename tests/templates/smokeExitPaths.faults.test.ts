// Every exit path of headless `templates smoke`, through the built binary against the fake E2B behind the fault
// proxy: whatever ends the command (SIGTERM, SIGHUP, Ctrl-C twice, kills that fail, a create answered after our
// timeout), the account has no sandbox of ours alive afterwards, or the console printed the ones it could not kill
// together with the command that kills them.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { startFaultProxy, type FaultProxy } from '../fakes/faultProxy.js';
import { builtMissing, runConsole, startConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const TEMPLATES = ['swegym-a', 'swegym-b', 'swegym-c'];
const healthy = () => ({ status: 200, body: '{"healthy":true,"version":"1.1.0"}', contentType: 'application/json' });

/** Ours = carrying the console tag; the fake also holds a foreign sandbox that must survive everything. */
function ourAlive(fake: FakeE2b): string[] {
  return fake.alive().filter((s) => s.metadata.swegym_console === '1').map((s) => s.sandboxID);
}

/** The final check of every exit path: nothing of ours alive, or every live one named with the kill command. */
function assertNoneLeft(fake: FakeE2b, output: string): void {
  const alive = ourAlive(fake);
  if (alive.length === 0) return;
  assert.match(output, /swegym-console sandboxes kill/, `sandboxes alive (${alive.join(' ')}) and no kill command printed:\n${output}`);
  for (const id of alive) assert.ok(output.includes(id), `sandbox ${id} is alive and was not named:\n${output}`);
}

describe('templates smoke: every exit path leaves no sandbox of ours alive', { skip: builtMissing() }, () => {
  let fake: FakeE2b;
  let proxy: FaultProxy;
  let ws: string;
  let env: NodeJS.ProcessEnv;
  let hangHealth = false;

  before(async () => {
    fake = await startFakeE2b({
      templates: TEMPLATES,
      services: Object.fromEntries(TEMPLATES.map((t) => [t, { 31000: healthy }])),
      foreignSandboxes: [{ templateID: 'swegym-a', metadata: { owner: 'dressage' } }],
      exec: (req) => {
        if (req.command.includes('claude --version') || req.command.includes('claude" --version')) return { chunks: [{ stream: 'stdout', data: '2.1.207 (Claude Code)\n' }], exitCode: 0 };
        if (hangHealth && req.command.includes('31000')) return { hang: true };
        return undefined;
      },
    });
    proxy = await startFaultProxy(fake.url);
    ws = await tempDir('swegym-faults-smoke-');
    await mkdir(path.join(ws, 'data'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify(Object.fromEntries(TEMPLATES.map((t, i) => [`img/${i}:latest`, t]))));
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, SWEGYM_EXIT_GRACE_MS: '8000' };
  });
  afterEach(() => {
    proxy.clearRules();
    hangHealth = false;
  });
  after(async () => {
    await proxy.close();
    await fake.close();
    await removeDir(ws);
  });

  for (const sig of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${sig} while three smokes are in flight kills all three before the console ends`, { timeout: 60_000 }, async () => {
      hangHealth = true;
      const c = startConsole(['templates', 'smoke', '--all', '-w', ws], env);
      await waitFor(() => ourAlive(fake).length === 3, { timeoutMs: 30_000, message: () => c.err() });
      c.child.kill(sig);
      const { code } = await c.exited;
      assert.equal(code, sig === 'SIGTERM' ? 143 : 129, 'an interrupted smoke is not a success: 128+N');
      assert.match(c.err(), new RegExp(`got ${sig}: stopping`));
      assert.deepEqual(ourAlive(fake), [], c.err());
      assert.equal(fake.alive().length, 1, 'the foreign sandbox is untouched');
    });
  }

  it('Ctrl-C twice ends at once and still kills what it created', { timeout: 60_000 }, async () => {
    hangHealth = true;
    const c = startConsole(['templates', 'smoke', '--all', '-w', ws], env);
    await waitFor(() => ourAlive(fake).length === 3, { timeoutMs: 30_000, message: () => c.err() });
    c.child.kill('SIGINT');
    await waitFor(() => c.err().includes('interrupted: stopping'), { timeoutMs: 10_000 });
    c.child.kill('SIGINT');
    const { code } = await c.exited;
    assert.equal(code, 130);
    assertNoneLeft(fake, c.out() + c.err());
    assert.deepEqual(ourAlive(fake), [], c.err());
  });

  it('kills that keep failing are not "passed": exit 1, the live ids and `sandboxes kill` are printed', { timeout: 90_000 }, async () => {
    proxy.addRule({ role: 'control', method: 'DELETE', path: '/sandboxes/*', status: 500, body: '{"code":500,"message":"internal error"}' });
    const r = await runConsole(['templates', 'smoke', '--all', '-w', ws], env);
    assert.equal(r.code, 1, r.out + r.err);
    assert.doesNotMatch(r.out, /3 passed, 0 failed$/m);
    assert.match(r.out, /3 sandbox\(es\) could not be killed/);
    const alive = ourAlive(fake);
    assert.equal(alive.length, 3, 'the fault kept them alive');
    assertNoneLeft(fake, r.out + r.err);
    // The printed command does the job once E2B answers again.
    proxy.clearRules();
    const killed = await runConsole(['sandboxes', 'kill', ...alive, '--yes', '-w', ws], env);
    assert.equal(killed.code, 0, killed.err);
    assert.deepEqual(ourAlive(fake), []);
  });

  it('a create that E2B completes after our request timeout is found and killed (no orphan)', { timeout: 60_000 }, async () => {
    const before = new Set(fake.sandboxes.keys());
    proxy.addRule({ role: 'control', method: 'POST', path: '/v2/sandboxes', holdMs: 4000, times: 1 });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], { ...env, SWEGYM_E2B_REQUEST_TIMEOUT_MS: '1500' });
    const created = [...fake.sandboxes.keys()].filter((id) => !before.has(id));
    assert.ok(created.length >= 1, 'E2B completed the create');
    assert.match(r.err, /create sandbox from template 'swegym-a'.*(timed out|timeout)/i, 'our request timed out first');
    assertNoneLeft(fake, r.out + r.err);
    assert.deepEqual(ourAlive(fake).filter((id) => created.includes(id)), [], r.out + r.err);
  });
});
