// The built binary in tmux on the demo's live run (`simulate DIR --live --speed 60`, then `monitor DIR`): `v` shows a
// sandbox row whole, the sandbox drill-in follows the agent's new steps (G / g / f), help at 80×24 scrolls to its end
// and lists the dashboard's keys and the overlays'; `monitor A --compare B` draws B over A's curves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));
const skip = !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false;

function run(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => execFile(process.execPath, [BIN, ...args], { timeout: 120_000 }, (err, _o, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr })));
}

test('live demo run in tmux: v on a sandbox, the drill-in follows new steps, help scrolls at 80×24', { timeout: 240_000, skip }, async () => {
  const ws = await tempDir('swegym-tmux-rows-');
  const dir = path.join(ws, 'live');
  const sim = spawn(process.execPath, [BIN, 'simulate', dir, '--live', '--speed', '60'], { stdio: 'ignore', detached: true });
  const t = new TmuxSession('rows');
  try {
    await waitFor(() => existsSync(path.join(dir, 'run.log')), { timeoutMs: 30_000 });
    t.start([process.execPath, BIN, '--workspace', ws, 'monitor', dir], { cols: 120, rows: 40, env: { NO_COLOR: '1' } });
    await t.waitForText(/Sandboxes — [1-9]\d* agent/, 60_000);
    for (const panel of ['Rollouts', 'Samples', 'Sandboxes']) {
      t.key('Tab');
      await t.waitForText(`▸ ${panel}`);
    }
    t.key('v');
    let s = await t.waitForText(/trajectory_id (bbs|swegym-eval)-/);
    assert.match(s, /(agent|eval) sandbox · template swegym-/);
    t.key('Escape');
    await t.waitForTextGone('trajectory_id');
    // Drill into the selected row once it is an agent at work (between rollouts there are none): its log grows
    // while we watch, or its sample ends and the log read so far stays.
    // The list is refreshed every 10 s, so a row may name a sandbox that has just ended: then the next row.
    await t.waitForText(/^agent .* \d+\/80 /m, 120_000);
    for (let attempt = 0; ; attempt++) {
      t.key('Enter');
      await t.waitForText('f follow on', 30_000);
      await waitFor(() => /steps so far \d+|the log as last read|trajectory files/.test(t.screen().replace(/\s+/g, ' ')), { timeoutMs: 30_000, message: () => t.screen() });
      // An agent that ended before its log was read says so: try the next row.
      if (!/ended before its log was read|lines 0–0 of 0/.test(t.screen().replace(/\s+/g, ' ')) || attempt >= 8) break;
      t.key('Escape');
      await t.waitForTextGone('f follow');
      t.key('Down');
      await t.waitForText(/^agent .* \d+\/80 /m, 60_000);
    }
    const steps = () => Number(/steps so far (\d+)/.exec(t.screen())?.[1] ?? NaN);
    const ended = () => /the log as last read|finished: the sandbox is gone|ended before its log was read/.test(t.screen().replace(/\s+/g, ' '));
    await waitFor(() => Number.isFinite(steps()) || ended(), { timeoutMs: 30_000, message: () => t.screen() });
    const first = steps();
    await waitFor(() => steps() > first || ended(), { timeoutMs: 60_000, message: () => t.screen() });
    // Following: the view ends at the newest line (the position line reads "… of N" with N the last shown).
    s = t.screen();
    const pos = /lines (\d+)–(\d+) of (\d+)/.exec(s);
    assert.ok(pos && pos[2] === pos[3], s);
    t.key('g');
    await t.waitForText(/lines 1–\d+ of \d+/);
    t.key('f');
    await t.waitForText('f follow on');
    t.key('Escape');
    await t.waitForTextGone('f follow');
    t.resize(80, 24);
    t.key('?');
    await t.waitForText(/lines 1–\d+ of \d+/);
    s = t.screen();
    assert.match(s, /Dashboard keys/);
    const at = (screen: string) => /lines (\d+)–\d+ of \d+/.exec(screen)?.[1];
    for (let i = 0; i < 12 && !/Quit question/.test(s); i++) {
      const before = at(s);
      t.key('PgDn');
      // Each page down moves the first line shown; the next key waits for that frame.
      await waitFor(() => at(t.screen()) !== before, { timeoutMs: 15_000, message: () => t.screen() });
      s = t.screen();
    }
    assert.match(s, /Quit question/);
    for (const row of s.split('\n')) assert.ok([...row].length <= 80, row);
    t.key('Escape');
    t.key('q');
    assert.equal(await t.exitCode(), 0);
  } finally {
    t.kill();
    try {
      process.kill(-sim.pid!, 'SIGKILL');
    } catch {}
    await removeDir(ws);
  }
});

test('monitor A --compare B draws B over the curves at once; --once with --compare is a usage error', { timeout: 240_000, skip }, async () => {
  const ws = await tempDir('swegym-tmux-compare-');
  const a = path.join(ws, 'run-a');
  const b = path.join(ws, 'run-b');
  for (const [dir, seed] of [[a, '1'], [b, '2']] as const) assert.equal((await run(['simulate', dir, '--rollouts', '5', '--seed', seed])).code, 0);
  const bad = await run(['--workspace', ws, 'monitor', a, '--once', '--compare', b]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--compare draws on the dashboard/);
  const t = new TmuxSession('compare');
  try {
    t.start([process.execPath, BIN, '--workspace', ws, 'monitor', a, '--compare', path.join(b, 'run.log')], { cols: 120, rows: 40, env: { NO_COLOR: '1' } });
    await t.waitForText(/rollout 0 +4/, 30_000);
    t.key('Enter');
    // NO_COLOR: the compared run has a glyph of its own, and a legend says which is which.
    await t.waitForText(/legend: • compare \S*run-b\/run\.log · ⣿ this run/);
    await t.waitForText(/compare run-b\/run\.log: \S+ \(5 pts\)/);
    t.key('q');
    assert.equal(await t.exitCode(), 0);
  } finally {
    t.kill();
    await removeDir(ws);
  }
});
