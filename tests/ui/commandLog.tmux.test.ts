// The command log (L) through the built binary in tmux, at 80×24 and 120×40: a list with a cursor on the newest
// process and its start time; ↑ moves it; Enter shows the process whole (every argument, exit, duration, times).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));
const skip = !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false;

for (const [cols, rows] of [
  [80, 24],
  [120, 40],
] as const) {
  test(`built binary at ${cols}x${rows}: the command log is a list with a cursor and a detail view`, { timeout: 120_000, skip }, async () => {
    const ws = await fakeDressageCheckout();
    const t = new TmuxSession(`cmdlog${cols}`);
    try {
      t.start([process.execPath, BIN, '--workspace', ws], { cols, rows, env: { NO_COLOR: '1' } });
      await t.waitForText('[1 Home]');
      // The home screen's doctor starts processes (python3's probe among them); the log lists them.
      await t.waitForText(/Doctor — \d+ ok/, 30_000);
      t.key('L');
      let s = await t.waitForText(/Command log \((\d+) processes/);
      const n = Number(/Command log \((\d+) processes/.exec(s)?.[1]);
      assert.ok(n >= 1, s);
      assert.match(s, new RegExp(`${n}/${n} · `), 'the cursor starts on the newest process');
      assert.match(s, /^│ › \d\d:\d\d:\d\d /m, 'each row has its start time; the cursor row is marked');
      if (n > 1) {
        t.key('Up');
        s = await t.waitForText(`${n - 1}/${n} · `);
      }
      t.key('Enter');
      s = await t.waitForText(/argv \(\d+, secrets redacted\):/);
      assert.match(s, /started: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
      assert.match(s, /duration: /);
      assert.match(s, /outcome: /);
      assert.match(s, /\[0\] \S+/);
      t.key('Escape');
      await t.waitForTextGone('argv (');
      t.key('q');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
      await removeDir(ws);
    }
  });
}
