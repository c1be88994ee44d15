// The kit's text field in the built binary in a real terminal: a bracketed paste with a line break lands in the
// Templates filter as one line (and is not taken as keys: no Enter, no screen switch), Esc puts the earlier filter
// back, and a secret Train setting shows neither the pasted key nor its length.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { FIELD_KEYS } from '../../src/services/train/controller.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

test('built binary at 80x24: paste into a filter, Esc cancels; a pasted secret stays hidden', { timeout: 120_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await fakeDressageCheckout();
  const t = new TmuxSession('field');
  try {
    t.start([process.execPath, BIN, '--workspace', ws], { cols: 80, rows: 24, env: { NO_COLOR: '1' } });
    await t.waitForText('[1 Home]');
    t.key('3');
    await t.waitForText('[3 Templates]');
    t.key('/');
    await t.waitForText('filter: ▏');
    // "2" and "q" would switch screens or quit if the paste were read as keys; the line break would be Enter.
    t.paste('ab2q\ncd');
    await t.waitForText('filter: ab2qcd▏');
    assert.match(t.screen(), /\[3 Templates\]/);
    t.key('Escape');
    await t.waitForTextGone('ab2qcd');
    assert.match(t.screen(), /state +template/, 'Esc put the empty filter back');

    t.key('6');
    await t.waitForText('Launch settings');
    for (let i = 0; i < FIELD_KEYS.indexOf('DRESSAGE_E2B_API_KEY'); i++) t.key('Down');
    await t.waitForText('› DRESSAGE_E2B_API_KEY');
    t.key('Enter');
    await t.waitForText(/DRESSAGE_E2B_API_KEY += ▏/);
    t.paste('pastedFakeKey42');
    const shown = await t.waitForText(/DRESSAGE_E2B_API_KEY += \(hidden\)▏/);
    assert.ok(!/pastedFake|FakeKey|\*{3,}/.test(shown), shown);
    t.key('Escape');
    await t.waitForTextGone('(hidden)▏');
    t.key('q');
    assert.equal(await t.exitCode(), 0);
  } finally {
    t.kill();
    await removeDir(ws);
  }
});
