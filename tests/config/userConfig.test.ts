// The user's config folder follows the XDG Base Directory rules, and keys.json is read without ever losing the
// defaults: a missing file is no problem, a broken one is one clear message, and each bad entry keeps its keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { keysFilePath, parseKeysFile, readKeysFile, userConfigDir } from '../../src/services/config/userConfig.js';
import { loadUserKeymap } from '../../src/app/keymap.js';
import { removeDir, tempDir } from '../helpers/workspace.js';

const noHome = () => '/nonexistent-home';

test('the config folder: an absolute XDG_CONFIG_HOME, else $HOME/.config, else the account home', () => {
  assert.equal(userConfigDir({ XDG_CONFIG_HOME: '/etc/xdg-user', HOME: '/home/op' }), '/etc/xdg-user/swegym-console');
  assert.equal(userConfigDir({ XDG_CONFIG_HOME: 'relative/cfg', HOME: '/home/op' }), '/home/op/.config/swegym-console', 'a relative XDG_CONFIG_HOME is ignored');
  assert.equal(userConfigDir({ XDG_CONFIG_HOME: '', HOME: '/home/op' }), '/home/op/.config/swegym-console');
  assert.equal(userConfigDir({}, noHome), '/nonexistent-home/.config/swegym-console');
  assert.equal(keysFilePath({ HOME: '/home/op' }), '/home/op/.config/swegym-console/keys.json');
});

test('keys.json parsing: an object is taken as written; anything else says why and keeps every default', () => {
  assert.deepEqual(parseKeysFile('{"quit": "Q"}', '/c/keys.json'), { path: '/c/keys.json', entries: { quit: 'Q' } });
  const notJson = parseKeysFile('{"quit": "Q",}', '/c/keys.json');
  assert.deepEqual(notJson.entries, {});
  assert.match(notJson.problem ?? '', /^\/c\/keys\.json is not JSON \(.+\); the default keys stay$/);
  for (const text of ['[]', '"q"', 'null', '3']) {
    const r = parseKeysFile(text, '/c/keys.json');
    assert.deepEqual(r.entries, {}, text);
    assert.match(r.problem ?? '', /must hold one object of intent → keys/, text);
  }
});

test('the file on disk: none is no problem; a folder in its place is a problem; entries are checked against the intents', async () => {
  const dir = await tempDir();
  try {
    const env = { XDG_CONFIG_HOME: dir };
    assert.deepEqual(await readKeysFile(env, noHome), { path: path.join(dir, 'swegym-console', 'keys.json'), entries: {} });
    await mkdir(path.join(dir, 'swegym-console', 'keys.json'), { recursive: true });
    assert.match((await readKeysFile(env, noHome)).problem ?? '', /could not be read \(EISDIR\); the default keys stay/);
    await removeDir(path.join(dir, 'swegym-console'));
    await mkdir(path.join(dir, 'swegym-console'));
    await writeFile(path.join(dir, 'swegym-console', 'keys.json'), JSON.stringify({ 'overlay.help': 'h', 'train.launch': 'x', nosuch: 'z' }));
    const keymap = await loadUserKeymap(env, noHome);
    assert.deepEqual(keymap.overrides, { 'overlay.help': ['h'] });
    assert.equal(keymap.problems.length, 2, keymap.problems.join('\n'));
    assert.match(keymap.problems.join('\n'), /"nosuch" is not an intent/);
    assert.match(keymap.problems.join('\n'), /x for train\.launch is also stop's key; train\.launch keeps l/);
  } finally {
    await removeDir(dir);
  }
});
