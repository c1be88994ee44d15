// Every key is declared once, in the intent table: screens name intents (no key lists of their own), the number
// keys are the go.<screen> intents, docs/KEYS.md is the table's generated text, and the user's overrides are checked
// (unknown intents, non-keys, text-field keys and clashes are reported and keep their defaults).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { INTENTS, keyReference, keyReferenceMarkdown, resolveKeyOverrides, withKeymap, dispatchKey, bind, type Binding } from '../../src/ui/keymap.js';
import { SCREENS } from '../../src/screens/registry.js';
import { goIntent } from '../../src/screens/App.js';
import type { Key } from 'ink';

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p)));
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

test('docs/KEYS.md holds the generated key reference', async () => {
  const doc = await readFile('docs/KEYS.md', 'utf8');
  const block = /<!-- keys: [^\n]*-->\n([^]*?)<!-- \/keys -->/.exec(doc)?.[1];
  assert.equal(block, keyReferenceMarkdown(), 'docs/KEYS.md: regenerate the table between the keys markers (swegym-console keys --defaults --markdown)');
  for (const id of Object.keys(INTENTS)) assert.ok(block.includes(`\`${id}\``), id);
});

test('screens and the shell list no keys of their own: a binding takes its keys from its intent', async () => {
  const offenders: string[] = [];
  for (const file of await files('src/screens')) {
    const text = await readFile(file, 'utf8');
    for (const [i, line] of text.split('\n').entries()) if (/\bkeys:\s*\[/.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
  }
  assert.deepEqual(offenders, []);
});

test("a screen's number key is its go.<id> intent, and its hotkey is that intent's default", () => {
  for (const s of SCREENS) {
    assert.deepEqual(INTENTS[goIntent(s.id)].keys, [s.hotkey], s.id);
    assert.equal(INTENTS[goIntent(s.id)].description, s.title, s.id);
  }
  assert.throws(() => goIntent('nosuch'), /no go\.nosuch intent/);
});

test('the defaults never clash, and the reference lists every intent once', () => {
  assert.deepEqual(resolveKeyOverrides({}), { overrides: {}, problems: [] });
  const ref = keyReference();
  assert.equal(ref.length, Object.keys(INTENTS).length);
  assert.equal(new Set(ref.map((r) => r.intent)).size, ref.length);
});

test('overrides: good ones apply, a swap is fine, every bad entry is worded and keeps its default keys', () => {
  const swap = resolveKeyOverrides({ 'train.launch': 'C', 'train.checks': ['l'], quit: ['Q', 'Ctrl-C'] });
  assert.deepEqual(swap, { overrides: { 'train.launch': ['C'], 'train.checks': ['l'], quit: ['Q', 'Ctrl-C'] }, problems: [] });
  const bad = resolveKeyOverrides({
    nosuch: 'z',
    'field.accept': 'a',
    'train.reset': 3,
    'train.resume': [],
    'train.saveSecrets': 'Alt-x',
    'dashboard.follow': 'q', // quit's key
    'dashboard.pickerPrev': 'Esc', // the picker's own keyboard closes with Esc
    'dashboard.pickerNext': 'k', // the picker's keyboard has no k (it is typed)
  });
  assert.deepEqual(bad.overrides, { 'dashboard.pickerNext': ['k'] });
  const text = bad.problems.join('\n');
  assert.match(text, /"nosuch" is not an intent/);
  assert.match(text, /field\.accept is a text field's key and cannot be changed; it keeps Enter/);
  assert.match(text, /train\.reset must be a key or a list of keys .* it keeps u/);
  assert.match(text, /train\.resume must be a key or a list of keys/);
  assert.match(text, /train\.saveSecrets: "Alt-x" is not a key/);
  assert.match(text, /q for dashboard\.follow is also quit's key; dashboard\.follow keeps f/);
  assert.match(text, /Esc for dashboard\.pickerPrev is also back's key; dashboard\.pickerPrev keeps ↑/);
  assert.equal(bad.problems.length, 7, text);
  // Two overrides that take one key: both keep their defaults.
  const both = resolveKeyOverrides({ 'train.launch': 'z', 'train.checks': 'z' });
  assert.deepEqual(both.overrides, {});
  assert.equal(both.problems.length, 2);
});

const NO_KEY = { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false } as Key;

test('withKeymap moves an intent to its new keys; a disabled binding takes its key and says why instead of running', () => {
  let ran = 0;
  const launch = bind('train.launch', () => ran++);
  const [moved] = withKeymap([launch], { 'train.launch': ['L'] }) as [Binding];
  assert.deepEqual(moved.keys, ['L']);
  assert.equal(dispatchKey([moved], 'l', NO_KEY), false);
  assert.equal(dispatchKey([moved], 'L', NO_KEY), true);
  assert.equal(ran, 1);
  let busy: string | undefined = 'not while the split downloads';
  const said: string[] = [];
  const split = bind('data.split', () => ran++, { disabledReason: () => busy });
  assert.equal(dispatchKey([split], 't', NO_KEY, (reason, b) => said.push(`${b.intent}: ${reason}`)), true);
  assert.deepEqual(said, ['data.split: not while the split downloads']);
  assert.equal(ran, 1);
  busy = undefined;
  dispatchKey([split], 't', NO_KEY);
  assert.equal(ran, 2);
});
