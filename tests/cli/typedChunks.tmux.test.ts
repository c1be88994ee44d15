// Keys that arrive together in one read (an SSH link, a fast typist, a paste the terminal does not bracket) are
// handled as if typed one at a time, through the built binary in tmux: `abc⏎` in one write sets a Train setting and
// closes its field, `xyz⏎` keeps a Dashboard filter, pasted lines submit, `jjj` moves three rows, and a bracketed paste
// with a line break stays text in the field; Esc then clears the kept filter. At 80×24 and at 120×40.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { FIELD_KEYS } from '../../src/services/train/controller.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));
const skip = !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false;

function simulate(dir: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [BIN, 'simulate', dir, '--rollouts', '3', '--prompts', '2', '--samples-per-prompt', '2'], { timeout: 60_000 }, (err) => (err ? reject(err) : resolve())),
  );
}

for (const [cols, rows] of [
  [80, 24],
  [120, 40],
] as const) {
  test(`built binary at ${cols}x${rows}: text and Enter in one read, as if typed slowly`, { timeout: 120_000, skip }, async () => {
    const ws = await fakeDressageCheckout();
    const runDir = path.join(ws, 'sim');
    await simulate(runDir);
    const t = new TmuxSession(`chunks${cols}`);
    try {
      t.start([process.execPath, BIN, '--workspace', ws], { cols, rows, env: { NO_COLOR: '1' } });
      await t.waitForText('[1 Home]');
      // Train settings: RUN_NAME, edited and submitted in one read; the next key then moves the cursor (as typed).
      t.key('6');
      await t.waitForText('Launch settings');
      for (let i = 0; i < FIELD_KEYS.indexOf('RUN_NAME'); i++) t.key('Down');
      await t.waitForText('› RUN_NAME');
      t.key('Enter');
      await t.waitForText(/RUN_NAME += .*▏/);
      t.key('C-u');
      await t.waitForText(/RUN_NAME += ▏/);
      t.writeOnce('chunked-run\r');
      const s = await t.waitForText(/› RUN_NAME +chunked-run /);
      assert.doesNotMatch(s, /typing — Esc/, 'the field closed on the Enter of the chunk');
      // Pasted lines without bracketing: the first line is typed and submitted; what follows is keys again.
      t.key('Enter');
      await t.waitForText(/RUN_NAME += chunked-run▏/);
      t.key('C-u');
      t.writeOnce('first\nj');
      await t.waitForText(/ RUN_NAME +first /);
      await t.waitForText(/› (?!RUN_NAME)/);
      // A bracketed paste is text: its line break neither submits nor reaches the screen's keys.
      t.key('Up');
      await t.waitForText('› RUN_NAME');
      t.key('Enter');
      await t.waitForText(/RUN_NAME += first▏/);
      t.paste('-x\ny');
      await t.waitForText(/RUN_NAME += first-xy▏/);
      t.key('Escape');
      await t.waitForText(/› RUN_NAME +first /);
      // Three presses of j in one read move three rows.
      const at = FIELD_KEYS.indexOf('RUN_NAME');
      t.writeOnce('jjj');
      await t.waitForText(`› ${FIELD_KEYS[at + 3]}`);
      t.key('q');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
    // The Dashboard's filter: `/`, then the filter and Enter in one read keep it; the field closes.
    const d = new TmuxSession(`chunksdash${cols}`);
    try {
      d.start([process.execPath, BIN, '--workspace', ws, 'monitor', runDir], { cols, rows, env: { NO_COLOR: '1' } });
      await d.waitForText(/ended at rollout 3\/3/, 60_000);
      d.key('/');
      await d.waitForText('(Enter keep · Esc cancel)');
      d.writeOnce('zzz-no-such\r');
      const s = await d.waitForTextGone('(Enter keep · Esc cancel)');
      assert.match(s, /filter: zzz-no-such/);
      // Esc backs out of the innermost state: the kept filter clears (as in Data and Templates).
      d.key('Escape');
      await d.waitForTextGone('filter: zzz-no-such');
      assert.match(d.screen(), /\[7 Dashboard\]/, 'the first Esc cleared the filter and stayed on the screen');
      d.key('q');
      assert.equal(await d.exitCode(), 0);
    } finally {
      d.kill();
      await removeDir(ws);
    }
  });
}
