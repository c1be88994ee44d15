// Quitting the interactive console in the middle of a smoke test (q → y, "Quitting stops them"), through the built
// binary in a real terminal against the fake E2B (behind the fault proxy): the console ends with the smoke's sandbox
// killed, also when the quit comes while E2B is still answering the create, and when a signal asks it to end
// (kill, a closed terminal): 128+N then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { startFaultProxy, type ProxyRule } from '../fakes/faultProxy.js';
import { builtMissing, BIN } from '../helpers/builtCli.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { recipePaths } from '../../src/services/workspace/paths.js';

/** The pid of the console started on workspace `ws` (its argv names it), read from /proc. */
function consolePidFor(ws: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes(ws) && argv.some((a) => a.endsWith('swegym-console') || a.endsWith('main.ts'))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function quitMidSmoke(rules: ProxyRule[], ready: (fake: FakeE2b) => boolean, end: 'keys' | 'SIGTERM' | 'SIGHUP' = 'keys'): Promise<void> {  const image = 'xingyaoww/sweb.eval.x86_64.proj0_s_repo0-100:latest';
  // The health probe never answers: the smoke holds its sandbox until something ends it.
  const fake = await startFakeE2b({ templates: ['swegym-a'], exec: (req) => (req.command.includes('31000') ? { hang: true } : undefined) });
  const proxy = await startFaultProxy(fake.url, rules);
  const ws = await fakeDressageCheckout();
  const paths = recipePaths(ws);
  const t = new TmuxSession('quit-smoke');
  try {
    await mkdir(paths.journalsDir, { recursive: true });
    await mkdir(path.dirname(paths.imageList), { recursive: true });
    await writeFile(paths.imageList, image + '\n');
    await writeFile(paths.templateMap, JSON.stringify({ [image]: 'swegym-a' }));
    await writeFile(path.join(paths.journalsDir, 'templates.json'), JSON.stringify({ version: 1, updatedAt: new Date().toISOString(), items: { [image]: { image, state: 'built', template: 'swegym-a', updatedAt: new Date().toISOString() } } }));
    const entry = process.env.SWEGYM_TEST_ENTRY === 'source' ? ['--import', 'tsx', path.resolve('src/cli/main.ts')] : [BIN];
    t.start([process.execPath, ...entry, '--workspace', ws], { cols: 140, rows: 36, env: { E2B_API_KEY: fake.apiKey, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url, NO_COLOR: '1' } });
    await t.waitForText('[1 Home]');
    t.key('3');
    await t.waitForText('swegym-a');
    t.key('s');
    await waitFor(() => ready(fake), { timeoutMs: 30_000, message: () => t.screen() });
    if (end === 'keys') {
      t.key('q');
      await t.waitForText('Quitting stops them');
      t.key('y');
    } else {
      const pid = consolePidFor(ws);
      assert.ok(pid, 'the console process is found');
      process.kill(pid, end);
    }
    assert.equal(await t.exitCode(), { keys: 0, SIGTERM: 143, SIGHUP: 129 }[end], t.screen());
    assert.deepEqual(fake.alive().map((s) => s.sandboxID), [], t.screen());
  } finally {
    t.kill();
    await proxy.close();
    await fake.close();
    await removeDir(ws);
  }
}

const skip = !hasTmux() ? 'tmux not installed' : builtMissing();

test('q → y while the smoke health probe runs: its sandbox is killed before the console ends', { skip, timeout: 90_000 }, () =>
  quitMidSmoke([], (fake) => fake.alive().length === 1),
);

test('q → y while E2B has created the sandbox but not answered yet: it is still killed', { skip, timeout: 90_000 }, () =>
  quitMidSmoke([{ role: 'control', method: 'POST', path: '/v2/sandboxes', holdMs: 3000, times: 1 }], (fake) => fake.sandboxes.size === 1),
);

for (const sig of ['SIGTERM', 'SIGHUP'] as const) {
  test(`${sig} to the interactive console mid-smoke: it quits as q does (sandbox killed) and exits 128+N`, { skip, timeout: 90_000 }, () =>
    quitMidSmoke([], (fake) => fake.alive().length === 1, sig),
  );
}
