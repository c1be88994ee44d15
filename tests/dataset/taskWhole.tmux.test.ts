// Every value of a task readable through the built binary in tmux, at 80×24 and 120×40: the Data screen's task
// view scrolls through the problem statement, every FAIL_TO_PASS and PASS_TO_PASS test id and both patches as diffs
// (the demo's sample split, whose tasks carry gold and test patches).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { runConsole } from '../helpers/builtCli.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));
const skip = !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false;

test('the Data screen shows a task whole: every test id, the gold and test patches as diffs', { timeout: 180_000, skip }, async () => {
  const root = await tempDir('swegym-task-whole-');
  const ws = path.join(root, 'sample');
  try {
    const demo = await runConsole(['demo', '--dir', ws, '--json']);
    assert.equal(demo.code, 0, demo.err);
    for (const [cols, rows] of [
      [80, 24],
      [120, 40],
    ] as const) {
      const t = new TmuxSession(`task${cols}`);
      try {
        t.start([process.execPath, BIN, '--workspace', ws, '--provider', 'local'], { cols, rows, env: { NO_COLOR: '1' } });
        await t.waitForText('[1 Home]');
        t.key('2');
        await t.waitForText(/sample-org__\w+-\d/);
        t.key('Enter');
        await t.waitForText('the patches as diffs');
        // Scroll down one line at a time, each after the last was drawn, collecting every line that went by.
        let seen = t.screen();
        for (let step = 0; step < 200 && !/── test patch \(diff\) ──/.test(seen); step++) {
          const before = t.screen();
          t.key('Down');
          await waitFor(() => t.screen() !== before, { timeoutMs: 10_000, message: () => `the view did not scroll:\n${before}` });
          seen += t.screen();
        }
        assert.match(seen, /── gold patch \(diff\) ──/);
        assert.match(seen, /^\+ /m, 'added lines of the patch');
        assert.match(seen, /── PASS_TO_PASS \(\d+\) ──/);
        assert.match(seen, /^(diff --git|--- a\/|\+\+\+ b\/)/m, 'the patch is shown as a diff');
        for (const row of t.screen().split('\n')) assert.ok([...row].length <= cols, row);
        t.key('q');
        assert.equal(await t.exitCode(), 0);
      } finally {
        t.kill();
      }
    }
  } finally {
    await removeDir(root);
  }
});
