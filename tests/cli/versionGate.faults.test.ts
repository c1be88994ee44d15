// Signals through the version gate (issue 25, point 4): on a Node older than 22.12, bin/swegym-console runs the
// project's Node 24 as its child. A supervisor's `kill PID` (SIGTERM to the wrapper alone, as systemd's
// KillMode=process sends it) must reach the real console: it stops its build, releases the workspace lock, and the
// wrapper exits with the child's code, 143. Run with the machine's own old Node (skipped, saying so, without one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { BIN, builtMissing } from '../helpers/builtCli.js';
import { removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { templateWorkspace, imageNames } from '../templates/helpers.js';
import { hasTmux, TmuxSession } from '../helpers/tmux.js';
import { assignTemplateNames } from '../../src/services/templates/naming.js';

/** A Node on this machine older than 22.12 (the case the wrapper exists for), if any. */
function oldNode(): string | undefined {
  let candidates = ['/usr/bin/node', '/bin/node', '/usr/local/bin/node'];
  try {
    candidates = [...candidates, ...execFileSync('which', ['-a', 'node'], { encoding: 'utf8' }).split('\n').filter(Boolean)];
  } catch {
    // no `which`: the fixed places only
  }
  for (const node of new Set(candidates)) {
    if (!existsSync(node)) continue;
    try {
      const [major = 0, minor = 0] = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim().split('.').map(Number);
      if (major < 22 || (major === 22 && minor < 12)) return node;
    } catch {
      // not runnable
    }
  }
  return undefined;
}

const OLD_NODE = oldNode();
const skip = builtMissing() || (OLD_NODE ? false : 'no Node older than 22.12 on this machine: the version gate does not re-run anything here');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
  test(`${sig} to the wrapper reaches the real console: build stopped, lock released, exit 128+N`, { skip, timeout: 60_000 }, async () => {
    const images = imageNames(1);
    const name = assignTemplateNames(images).get(images[0]!)!;
    const fake = await startFakeE2b({ builds: { [name]: { pollsBeforeDone: Number.MAX_SAFE_INTEGER } } });
    const { ws, paths } = await templateWorkspace(images);
    const polls = () => [...fake.builds.values()].reduce((n, b) => n + b.polls, 0);
    // Its own session, no terminal: nothing but our kill reaches it, as under a supervisor.
    const wrapper = spawn(OLD_NODE!, [BIN, 'templates', 'build', '-w', ws], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url, SWEGYM_EXIT_GRACE_MS: '500' },
    });
    let err = '';
    wrapper.stderr.on('data', (d) => (err += d));
    wrapper.stdout.resume();
    // 'exit', not 'close': an orphaned console would hold the pipes open.
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => wrapper.on('exit', (code, signal) => resolve({ code, signal })));
    let consolePid = 0;
    try {
      await waitFor(() => polls() > 2 && existsSync(paths.lockFile), { timeoutMs: 30_000, message: () => err });
      consolePid = (JSON.parse(readFileSync(paths.lockFile, 'utf8')) as { pid: number }).pid;
      assert.notEqual(consolePid, wrapper.pid, 'the lock is held by the real console, the wrapper\'s child');
      wrapper.kill(sig);
      const { code, signal } = await exited;
      // The wrapper ends after its child: by then the console has said why it stopped and released its lock.
      await waitFor(() => !alive(consolePid), { timeoutMs: 2000, message: () => `the real console (pid ${consolePid}) outlived the wrapper (exit ${code ?? signal})\n${err}` });
      assert.equal(signal, null, err);
      assert.equal(code, { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[sig], err);
      assert.match(err, sig === 'SIGINT' ? /interrupted: stopping/ : new RegExp(`got ${sig}: stopping`));
      assert.equal(alive(consolePid), false, `the real console (pid ${consolePid}) ended with the wrapper`);
      assert.equal(existsSync(paths.lockFile), false, 'the lock is released');
      // Both processes are gone; once their last connection is closed no poll can still be in flight.
      await waitFor(() => fake.openConnections() === 0, { timeoutMs: 5000, message: () => `${fake.openConnections()} connection(s) to the fake E2B still open after the console ended: something still polls the build` });
    } finally {
      wrapper.kill('SIGKILL');
      if (consolePid && alive(consolePid)) process.kill(consolePid, 'SIGKILL');
      await fake.close();
      await removeDir(ws);
    }
  });
}

test('a console that dies of a signal: the wrapper exits 128+N, not 1', { skip, timeout: 60_000 }, async () => {
  const images = imageNames(1);
  const name = assignTemplateNames(images).get(images[0]!)!;
  const fake = await startFakeE2b({ builds: { [name]: { pollsBeforeDone: Number.MAX_SAFE_INTEGER } } });
  const { ws, paths } = await templateWorkspace(images);
  const wrapper = spawn(OLD_NODE!, [BIN, 'templates', 'build', '-w', ws], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url },
  });
  let err = '';
  wrapper.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => wrapper.on('exit', (code) => resolve(code)));
  try {
    await waitFor(() => existsSync(paths.lockFile), { timeoutMs: 30_000, message: () => err });
    const consolePid = (JSON.parse(readFileSync(paths.lockFile, 'utf8')) as { pid: number }).pid;
    process.kill(consolePid, 'SIGKILL');
    assert.equal(await exited, 137, err);
  } finally {
    wrapper.kill('SIGKILL');
    await fake.close();
    await removeDir(ws);
  }
});

test('one Ctrl-C in a terminal through the wrapper is one interrupt, not two (the terminal signals both)', { skip: skip || (hasTmux() ? false : 'no tmux'), timeout: 60_000 }, async () => {
  const images = imageNames(1);
  const name = assignTemplateNames(images).get(images[0]!)!;
  const fake = await startFakeE2b({ builds: { [name]: { pollsBeforeDone: Number.MAX_SAFE_INTEGER } } });
  const { ws, paths } = await templateWorkspace(images);
  const polls = () => [...fake.builds.values()].reduce((n, b) => n + b.polls, 0);
  const tmux = new TmuxSession('gate');
  try {
    tmux.start([OLD_NODE!, BIN, 'templates', 'build', '-w', ws], {
      cols: 160,
      rows: 40,
      env: { NO_COLOR: '1', E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url, SWEGYM_EXIT_GRACE_MS: '1000' },
    });
    await waitFor(() => polls() > 2 && existsSync(paths.lockFile), { timeoutMs: 30_000, message: () => tmux.screen() });
    tmux.key('C-c');
    // Counted once, the first interrupt's grace runs out; counted twice, the console would end at once without it.
    const screen = await tmux.waitForText(/still stopping after 1 s; ending now/, 20_000);
    assert.match(screen, /interrupted: stopping/);
    assert.equal(await tmux.exitCode(), 130, tmux.screen());
    assert.equal(existsSync(paths.lockFile), false, 'the lock is released');
  } finally {
    tmux.kill();
    await fake.close();
    await removeDir(ws);
  }
});
