// The sandbox ledger on disk and late creates (issue 25, points 2 and 3), through the built binary against the fake
// E2B behind the fault proxy:
// - a create that E2B completes after our request timeout (the fake holds the create past it) is waited for at
//   exit and killed; when it lands after even that wait, the console says a sandbox may still appear and how to
//   kill it, and the next command in the workspace kills it;
// - kill -9 mid-smoke leaves the session's record (0600) behind; `doctor` reports what it left; the next command
//   that uses E2B kills exactly those (never a foreign sandbox, never a live session's) and says so.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { startFaultProxy, type FaultProxy } from '../fakes/faultProxy.js';
import { builtMissing, runConsole, startConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const TEMPLATES = ['swegym-a', 'swegym-b', 'swegym-c'];
const healthy = () => ({ status: 200, body: '{"healthy":true,"version":"1.1.0"}', contentType: 'application/json' });

const ourAlive = (fake: FakeE2b) => fake.alive().filter((s) => s.metadata.swegym_console === '1').map((s) => s.sandboxID).sort();

describe('sandbox sessions on disk and late creates', { skip: builtMissing() }, () => {
  let fake: FakeE2b;
  let proxy: FaultProxy;
  let ws: string;
  let sessions: string;
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
    ws = await tempDir('swegym-faults-sessions-');
    sessions = path.join(ws, '.swegym-console', 'sandboxes');
    await mkdir(path.join(ws, 'data'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify(Object.fromEntries(TEMPLATES.map((t, i) => [`img/${i}:latest`, t]))));
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, SWEGYM_EXIT_GRACE_MS: '8000' };
  });
  afterEach(async () => {
    proxy.clearRules();
    hangHealth = false;
    // Each case starts from a clean account: whatever a case left is not the next one's to find.
    for (const id of ourAlive(fake)) await fetch(`${fake.url}/sandboxes/${id}`, { method: 'DELETE', headers: { 'X-API-KEY': fake.apiKey } });
    await removeDir(path.join(ws, '.swegym-console'));
  });
  after(async () => {
    await proxy.close();
    await fake.close();
    await removeDir(ws);
  });

  const sessionFiles = async () => (await readdir(sessions).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));

  it('a create E2B completes after our request timeout is waited for at exit and killed', { timeout: 60_000 }, async () => {
    const before = new Set(fake.sandboxes.keys());
    // The fake finishes the create 2 s after it arrives; the console gives up on the request after 1 s.
    fake.addFault({ role: 'control', method: 'POST', path: '/v2/sandboxes', delayMs: 2000 });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], { ...env, SWEGYM_E2B_REQUEST_TIMEOUT_MS: '1000' });
    const created = [...fake.sandboxes.keys()].filter((id) => !before.has(id));
    assert.match(r.err, /create sandbox from template 'swegym-a'.*(timed out|timeout)/i, 'our request timed out first');
    assert.match(r.err, /waiting up to \d+ s for E2B to answer 1 sandbox create/, r.err);
    assert.equal(created.length, 1, 'E2B completed the create after the client gave up');
    assert.deepEqual(ourAlive(fake), [], `the late sandbox was killed before the console ended:\n${r.err}`);
    assert.match(r.err, new RegExp(`killed 1 sandbox\\(es\\) this console had started: ${created[0]}`));
    assert.doesNotMatch(r.err, /may still appear/);
    assert.deepEqual(await sessionFiles(), [], 'a clean exit removes its session record');
  });

  it('a create that lands after even that wait: the console says so and how to kill it; the next command kills it', { timeout: 60_000 }, async () => {
    const before = new Set(fake.sandboxes.keys());
    // Lands 3 s after arriving; the console gives up after 1 s and waits at most 0.5 s more at exit.
    fake.addFault({ role: 'control', method: 'POST', path: '/v2/sandboxes', delayMs: 3000 });
    const r = await runConsole(['templates', 'smoke', '--template', 'swegym-a', '-w', ws], { ...env, SWEGYM_E2B_REQUEST_TIMEOUT_MS: '1000', SWEGYM_LATE_CREATE_WAIT_MS: '500' });
    assert.equal(r.code, 1, r.err);
    const session = /sandboxes kill --session ([0-9a-f]+) --yes/.exec(r.err)?.[1];
    assert.ok(session, `the kill command for the session is printed:\n${r.err}`);
    assert.match(r.err, /E2B did not answer 1 sandbox create\(s\) of this console: a sandbox may still appear/);
    // The record stays for the next console: owned by the dead session, private.
    const file = path.join(sessions, `${session}.json`);
    const rec = JSON.parse(await readFile(file, 'utf8')) as { session: string; pid: number; host: string; unanswered: number; purpose: string };
    assert.equal(rec.unanswered, 1);
    assert.equal(rec.purpose, 'templates smoke');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await stat(sessions)).mode & 0o777, 0o700);
    await waitFor(() => [...fake.sandboxes.keys()].some((id) => !before.has(id)), { timeoutMs: 10_000, message: () => 'the late create never landed' });
    const late = ourAlive(fake);
    assert.equal(late.length, 1, 'the late sandbox is alive after the console ended');
    assert.equal(fake.sandboxes.get(late[0]!)?.metadata.swegym_console_session, session);
    // Any next command that uses E2B in this workspace kills it, and says whose it was.
    const next = await runConsole(['sandboxes', 'list', '-w', ws], env);
    assert.equal(next.code, 0, next.err);
    assert.match(next.err, new RegExp(`killed 1 sandbox\\(es\\) left by a console that is gone \`templates smoke\` \\(session ${session}, pid ${rec.pid}.*: ${late[0]}`));
    assert.match(next.out, /no e2b sandboxes of this console are running/);
    assert.deepEqual(ourAlive(fake), []);
    assert.equal(fake.alive().length, 1, 'the foreign sandbox is untouched');
    assert.deepEqual(await sessionFiles(), [], 'nothing left, so the record is gone');
  });

  it('kill -9 mid-smoke: doctor reports the leftovers, the next smoke kills them and says so; a live session is left alone', { timeout: 90_000 }, async () => {
    hangHealth = true;
    const c = startConsole(['templates', 'smoke', '--all', '-w', ws], env);
    await waitFor(() => ourAlive(fake).length === 3, { timeoutMs: 30_000, message: () => c.err() });
    const left = ourAlive(fake);
    const files = await sessionFiles();
    assert.equal(files.length, 1, 'the running session has its record on disk before its creates');
    c.child.kill('SIGKILL');
    await c.exited;
    assert.deepEqual(ourAlive(fake), left, 'nothing swept them: kill -9');

    const doctor = await runConsole(['doctor', '-w', ws, '--json'], env);
    const check = (JSON.parse(doctor.out) as { checks: { id: string; status: string; detail: string; fix: string }[] }).checks.find((x) => x.id === 'leftover-sandboxes');
    assert.ok(check, doctor.out);
    assert.equal(check.status, 'warn', check.detail);
    assert.match(check.detail, new RegExp(`\`templates smoke\` \\(session [0-9a-f]+, pid ${c.child.pid}.* is gone \\(pid ${c.child.pid} has exited\\) and left 3 sandbox\\(es\\) running on E2B: ${left.join(' ')}`));
    assert.match(check.fix, /sandboxes kill --session [0-9a-f]+ --yes/);
    assert.deepEqual(ourAlive(fake), left, 'doctor reports, it does not kill');

    // The next command that uses E2B here kills them before its own work and says whose they were.
    hangHealth = true;
    const live = startConsole(['templates', 'smoke', '--template', 'swegym-b', '-w', ws], env);
    await waitFor(() => ourAlive(fake).length === 1 && !left.includes(ourAlive(fake)[0]!), { timeoutMs: 30_000, message: () => live.err() });
    assert.match(live.err(), new RegExp(`killed 3 sandbox\\(es\\) left by a console that is gone \`templates smoke\` \\(session [0-9a-f]+, pid ${c.child.pid}.*: ${left.join(' ')} \\(pid ${c.child.pid} has exited\\)`));
    assert.equal(fake.alive().filter((s) => s.metadata.owner === 'dressage').length, 1, 'the foreign sandbox is untouched');
    // That console is alive: another command (`sandboxes list` takes no lock) sees its sandbox and keeps it.
    const livesOwn = ourAlive(fake);
    const list = await runConsole(['sandboxes', 'list', '-w', ws], env);
    assert.equal(list.code, 0, list.err);
    assert.doesNotMatch(list.err, /killed/);
    assert.ok(list.out.includes(livesOwn[0]!), list.out);
    assert.deepEqual(ourAlive(fake), livesOwn, "the live session's sandbox is kept");
    live.child.kill('SIGTERM');
    await live.exited;
    assert.deepEqual(ourAlive(fake), []);
    assert.deepEqual(await sessionFiles(), []);
    const after = await runConsole(['doctor', '-w', ws, '--json'], env);
    const clean = (JSON.parse(after.out) as { checks: { id: string; status: string }[] }).checks.find((x) => x.id === 'leftover-sandboxes');
    assert.equal(clean?.status, 'ok');
  });
});
