// The built binary (dist/ via bin/swegym-console) in a real terminal: start, navigate, help, resize, quit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';
import { codeCacheFile } from '../../src/vendor/uiVendorLoader.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

test('interactive console in tmux: first frame, number keys, help, resize, quit with exit 0; it leaves the UI code cache', { skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await fakeDressageCheckout();
  const t = new TmuxSession('nav');
  const cache = codeCacheFile(path.resolve('dist/chunks/ui-vendor.cjs'));
  rmSync(cache, { force: true });
  try {
    t.start([process.execPath, BIN, '--workspace', ws], { cols: 120, rows: 32 });
    await t.waitForText('[1 Home]');
    await t.waitForText('Download the SWE-Gym split');
    await t.waitForText(/Doctor — \d+ ok/);
    t.key('3');
    await t.waitForText('[3 Templates]');
    t.key('?');
    await t.waitForText('Everywhere');
    t.key('Escape');
    // The tab bar stays drawn under the help overlay, so wait for the overlay itself to go: a second
    // Esc sent while the first is still pending in Ink's escape-sequence timeout reads as one Meta+Esc.
    await t.waitForTextGone('Everywhere');
    await t.waitForText('[3 Templates]');
    t.key('Escape');
    await t.waitForText('[1 Home]');
    t.key('j');
    await t.waitForText('› · 2. List task images');
    t.resize(60, 16);
    await t.waitForText(/Pipeline/);
    const small = t.screen().split('\n');
    assert.ok(small.every((l) => [...l].length <= 60));
    t.key('q');
    assert.equal(await t.exitCode(), 0);
    await t.waitForText('Detached training runs keep running');
    assert.ok(existsSync(cache), 'the first start writes the UI bundle code cache for the next');
  } finally {
    t.kill();
    await removeDir(ws);
  }
});

test('outside a Dressage checkout the home screen says so first, and D runs the offline demo, then opens its sample workspace with Claude Code running on the Validate screen', { timeout: 240_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const dir = await tempDir('swegym-not-a-checkout-');
  const t = new TmuxSession('nocheckout');
  try {
    t.start([process.execPath, BIN, '--workspace', dir], { cols: 120, rows: 36 });
    await t.waitForText(`Not a Dressage checkout: ${dir}`);
    await t.waitForText('looked for examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh');
    await t.waitForText('git clone https://github.com/Accio-Lab/Dressage && cd Dressage && git submodule update --init --recursive');
    await t.waitForText('press D for the offline demo');
    t.key('D');
    await t.waitForText('SAMPLE WORKSPACE (not SWE-Gym)', 200_000);
    // The demo's headline inside the console: the real Claude Code CLI on a sample task, live on the Validate
    // screen (its phase and the stream-json reader's counts), then its graded result, which stays.
    await t.waitForText(/\[5 Validate\]/, 30_000);
    await t.waitForText(/Claude Code \(validate agent\) on sample-org__\S+: (starting|creating|sanitizing|running|extracting|evaluating)/, 30_000);
    const done = await t.waitForText(/graded in a fresh sandbox: ✓ resolved F2P 2\/2 P2P \d\/\d → reward 1/, 120_000);
    assert.match(done, /Claude Code success: 4 model turns, 4 tool calls/);
    // The status line comes in the same store update (tests/validate/agentController.test.ts holds that); tmux may
    // still capture a frame half-drawn, so it is waited for, not read from the same capture.
    await t.waitForText(/validate agent sample-org__\S+: resolved \(reward 1\)/, 10_000);
    t.key('1');
    await t.waitForText(/✓ 7\. Validate tasks end to end +3\/3 tasks validated/, 30_000);
    assert.doesNotMatch(t.screen(), /Not a Dressage checkout/);
    t.key('q');
    assert.equal(await t.exitCode(), 0);
  } finally {
    t.kill();
    await removeDir(dir);
  }
});

test('without a TTY the interactive command explains itself and exits 2', async () => {
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [BIN], { env: { ...process.env } }, (err, _stdout, stderr) => resolve({ code: err ? (err as { code?: number }).code ?? 1 : 0, stderr }));
    child.stdin?.end();
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /needs a terminal/);
  assert.match(r.stderr, /swegym-console doctor/);
});

test('exit codes: unknown command 2, unimplemented refuses, --version prints the version', async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [BIN, ...args], (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr })),
    );
  const unknown = await run(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const badOpt = await run(['doctor', '--nope']);
  assert.equal(badOpt.code, 2);
});

test('Node older than 22.12 is refused with one clear line', { skip: !existsSync('/usr/bin/node') ? 'no system node' : false }, async () => {
  const r = await new Promise<{ code: number; stderr: string; version: string }>((resolve) =>
    execFile('/usr/bin/node', ['-e', 'process.stdout.write(process.versions.node)'], (_e, version) =>
      execFile('/usr/bin/node', [BIN, '--version'], { env: { ...process.env, SWEGYM_CONSOLE_NO_REEXEC: '1' } }, (err, _o, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stderr, version }),
      ),
    ),
  );
  const [major = 0, minor = 0] = r.version.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 12)) return; // the system Node is new enough: nothing to refuse
  assert.equal(r.code, 3);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /needs Node\.js >= 22\.12 \(found v/);
});
