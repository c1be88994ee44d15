// Footers and the setting detail through the built binary in tmux, at 80×24 and 120×40: the footer holds the
// focused panel's actions in whole words (never `l launc…`), navigation is left to `?`, Train's checks and `l` are on
// screen at 80 columns, and `v` on a setting shows its value and help whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { FIELD_KEYS } from '../../src/services/train/controller.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));
const skip = !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false;

const footer = (screen: string) => screen.trimEnd().split('\n').at(-1) ?? '';

function assertWholeWords(line: string): void {
  assert.match(line, / · q quit · \? help · L log$/, line);
  assert.doesNotMatch(line, /\S…/, `a word cut in the footer: ${line}`);
  assert.doesNotMatch(line, /↑ |↓ |Tab next|PgUp|PgDn/, `navigation belongs in ?: ${line}`);
}

for (const [cols, rows] of [
  [80, 24],
  [120, 40],
] as const) {
  test(`built binary at ${cols}x${rows}: footers in whole words, Train's checks and l on screen, v shows a setting whole`, { timeout: 120_000, skip }, async () => {
    const ws = await fakeDressageCheckout();
    const t = new TmuxSession(`footers${cols}`);
    try {
      t.start([process.execPath, BIN, '--workspace', ws], { cols, rows, env: { NO_COLOR: '1', E2B_API_KEY: '', DRESSAGE_E2B_API_KEY: '' } });
      await t.waitForText('[1 Home]');
      for (const hotkey of ['1', '2', '3', '4', '5']) {
        t.key(hotkey);
        await t.waitForText(new RegExp(`\\[${hotkey} \\w+\\]`));
        assertWholeWords(footer(await t.waitForText(/ · q quit · \? help · L log/)));
      }
      t.key('6');
      const train = await t.waitForText(/checks: \d+ blocking, \d+ warn/);
      assertWholeWords(footer(train));
      assert.match(footer(train), /l launch/);
      assert.match(footer(train), /C (run )?checks/);
      assert.doesNotMatch(footer(train), /v the checks whole/, 'v answers the checks panel only when it has the focus');
      // v on a long setting: its whole value and its help, in the detail view.
      for (let i = 0; i < FIELD_KEYS.indexOf('MODEL_CONFIG_PATH'); i++) t.key('Down');
      await t.waitForText('› MODEL_CONFIG_PATH');
      t.key('v');
      const detail = await t.waitForText(/value: .*slime\/scripts\/models\/qwen3\.5-4B\.sh/);
      assert.match(detail, /default: /);
      t.key('Escape');
      await t.waitForTextGone('value: ');
      t.key('q');
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
      await removeDir(ws);
    }
  });
}
