// The built binary at 80×24 in a real terminal: the tab bar keeps every number, the footer keeps q ? L, and help
// scrolls past "7 Dashboard" to the overlay keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

test('80x24 through the built binary: tab bar, footer and help scrolling', { timeout: 120_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await fakeDressageCheckout();
  const t = new TmuxSession('small');
  try {
    t.start([process.execPath, BIN, '--workspace', ws], { cols: 80, rows: 24, env: { NO_COLOR: '1' } });
    const home = await t.waitForText('[1 Home]');
    const lines = home.split('\n');
    for (const n of ['2', '3', '4', '5', '6', '7']) assert.match(lines[0]!, new RegExp(`(^| )${n} `), `tab ${n}:\n${lines[0]}`);
    await t.waitForText(/q quit · \? help · L log/);
    t.key('?');
    await t.waitForText('Home keys');
    await t.waitForText(/lines 1–\d+ of \d+/);
    for (let i = 0; i < 6; i++) t.key('PageDown');
    // "Quit question" shows a page before the end: wait for the last PageDown to land, not for the first frame with it.
    const end = await t.waitForText(/lines \d+–(\d+) of \1/);
    assert.match(end, /Quit question/);
    t.key('Escape');
    await t.waitForTextGone('Quit question');
    t.key('q');
    assert.equal(await t.exitCode(), 0);
  } finally {
    t.kill();
    await removeDir(ws);
  }
});
