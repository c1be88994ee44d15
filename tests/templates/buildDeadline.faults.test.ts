// A template build that never finishes (issue 16, point 3), through the built binary against the fake E2B: the
// build has a deadline (--build-timeout), and one Ctrl-C ends the command within the grace period with the
// workspace lock released — never a console polling forever, never a lock left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { builtMissing, runConsole, startConsole } from '../helpers/builtCli.js';
import { removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { templateWorkspace, imageNames } from './helpers.js';
import { assignTemplateNames } from '../../src/services/templates/naming.js';

async function stuckBuildSetup() {
  const images = imageNames(1);
  const name = assignTemplateNames(images).get(images[0]!)!;
  const fake = await startFakeE2b({ builds: { [name]: { pollsBeforeDone: Number.MAX_SAFE_INTEGER } } });
  const { ws, paths } = await templateWorkspace(images);
  const env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url };
  return { fake, ws, paths, env, polls: () => [...fake.builds.values()].reduce((n, b) => n + b.polls, 0) };
}

test('--build-timeout gives up on a build that never ends: failed with the deadline named, lock released', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const s = await stuckBuildSetup();
  try {
    const r = await runConsole(['templates', 'build', '--build-timeout', '0.05', '--json', '-w', s.ws], s.env);
    assert.equal(r.code, 1, r.out + r.err);
    const doc = JSON.parse(r.out) as { failed: number; templates: { state: string; error: string }[] };
    assert.equal(doc.failed, 1);
    assert.match(doc.templates[0]!.error, /deadline exceeded.*3 s/);
    assert.equal(existsSync(s.paths.lockFile), false, 'the lock is released');
    // The console has exited; once its last connection is closed no poll of it can still be in flight.
    await waitFor(() => s.fake.openConnections() === 0, { timeoutMs: 5000, message: () => `${s.fake.openConnections()} connection(s) to the fake E2B still open after the console exited: something still polls the build` });
  } finally {
    await s.fake.close();
    await removeDir(s.ws);
  }
});

test('one Ctrl-C during a build that never ends: the console ends within the grace period, lock released', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const s = await stuckBuildSetup();
  const c = startConsole(['templates', 'build', '-w', s.ws], { ...s.env, SWEGYM_EXIT_GRACE_MS: '2000' });
  try {
    await waitFor(() => s.polls() > 3 && existsSync(s.paths.lockFile), { timeoutMs: 30_000, message: () => c.err() });
    c.child.kill('SIGINT');
    const { code } = await Promise.race([c.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still running 20 s after Ctrl-C:\n${c.err()}`)), 20_000))]);
    assert.equal(code, 130, c.err());
    assert.match(c.err(), /still stopping after 2 s; ending now/);
    assert.equal(existsSync(s.paths.lockFile), false, `the lock is released: ${existsSync(s.paths.lockFile) ? readFileSync(s.paths.lockFile, 'utf8') : ''}`);
  } finally {
    c.child.kill('SIGKILL');
    await s.fake.close();
    await removeDir(s.ws);
  }
});

test('Ctrl-C twice during a build that never ends: the console ends at once and leaves no lock', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const s = await stuckBuildSetup();
  const c = startConsole(['templates', 'build', '-w', s.ws], s.env);
  try {
    await waitFor(() => s.polls() > 3 && existsSync(s.paths.lockFile), { timeoutMs: 30_000, message: () => c.err() });
    c.child.kill('SIGINT');
    await waitFor(() => c.err().includes('interrupted: stopping'), { timeoutMs: 10_000 });
    c.child.kill('SIGINT');
    const { code } = await c.exited;
    assert.equal(code, 130, c.err());
    assert.equal(existsSync(s.paths.lockFile), false, 'the second Ctrl-C leaves no lock');
  } finally {
    c.child.kill('SIGKILL');
    await s.fake.close();
    await removeDir(s.ws);
  }
});
