// One keymap: across every screen, the global keys and the overlays, a key means one thing (its binding id), and
// a shared action has the same keys everywhere. Bindings are data: their keys drive matching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Key } from 'ink';
import { SCREENS, loadScreen } from '../../src/screens/registry.js';
import { globalBindings, overlayBindings } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { INTENTS, SHARED, backOut, isIntent, bindingMatches, dispatchKey, keyMatches, splitEscPrefix, type Binding } from '../../src/ui/keymap.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { readFile } from 'node:fs/promises';
import { screenHelpSections } from '../../src/ui/Overlays.js';

const NO_KEY: Key = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
  super: false, hyper: false, capsLock: false, numLock: false,
} as Key;
const key = (k: Partial<Key>): Key => ({ ...NO_KEY, ...k });

async function allTables() {
  const ws = await fakeDressageCheckout();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
  const tables: { where: string; bindings: Binding[] }[] = [];
  for (const entry of SCREENS) {
    const m = await loadScreen(entry);
    tables.push({ where: m.id, bindings: m.bindings(services) });
  }
  tables.push({ where: 'global', bindings: globalBindings(services, SCREENS, () => {}, 2) });
  const overlays = overlayBindings(services, SCREENS, { requestQuit: () => {}, quitNow: () => {}, scroll: () => {}, copy: () => {} });
  for (const [name, b] of Object.entries(overlays)) tables.push({ where: `overlay:${name}`, bindings: b });
  return { ws, services, tables };
}

test('no key means two different things across screens, global keys and overlays', async () => {
  const { ws, services, tables } = await allTables();
  try {
    const meaning = new Map<string, { id: string; where: string; description: string }>();
    const clashes: string[] = [];
    for (const t of tables) {
      for (const b of t.bindings) {
        assert.ok(isIntent(b.intent), `${t.where}: "${b.description}" names no intent of src/ui/intents.ts`);
        // Declared once: a binding's keys are its intent's (a screen words the description, never the keys).
        assert.deepEqual(b.keys, INTENTS[b.intent].keys, `${t.where}: ${b.intent} lists keys of its own`);
        for (const k of b.keys) {
          const seen = meaning.get(k);
          if (seen && seen.id !== b.intent) clashes.push(`${k}: ${seen.where} "${seen.description}" (${seen.id}) vs ${t.where} "${b.description}" (${b.intent})`);
          else if (!seen) meaning.set(k, { id: b.intent, where: t.where, description: b.description });
        }
        // A screen-specific action is named after its screen.
        if (b.intent && !(b.intent in SHARED) && !t.where.startsWith('overlay') && t.where !== 'global') assert.ok(b.intent.startsWith(`${t.where}.`), `${t.where}: ${b.intent}`);
      }
    }
    assert.deepEqual(clashes, []);
    // The keys the issue found overloaded now each mean one thing.
    assert.equal(meaning.get('r')?.id, 'refresh');
    assert.equal(meaning.get('x')?.id, 'stop');
    assert.equal(meaning.get('F')?.id, 'retryFailed');
    assert.equal(meaning.get('s')?.id, 'templates.smoke');
    assert.equal(meaning.get('R')?.id, 'train.resume');
    assert.equal(meaning.get('a')?.id, 'templates.artifactsLog');
  } finally {
    services.dispose();
    await removeDir(ws);
  }
});

test('a binding matches exactly the keys it lists (and its condition)', () => {
  let ran = 0;
  let on = true;
  const b: Binding = { keys: ['G', 'End'], intent: 'last', description: 'last', run: () => ran++, when: () => on };
  assert.equal(bindingMatches(b, 'G', key({ shift: true })), true);
  assert.equal(bindingMatches(b, '', key({ end: true })), true);
  assert.equal(bindingMatches(b, 'g', key({})), false);
  assert.equal(bindingMatches(b, 'G', key({ ctrl: true })), false);
  on = false;
  assert.equal(dispatchKey([b], 'G', key({})), false);
  assert.equal(ran, 0);
  assert.equal(keyMatches('↑', '', key({ upArrow: true })), true);
  assert.equal(keyMatches('k', 'k', key({})), true);
  assert.equal(keyMatches('Ctrl-C', 'c', key({ ctrl: true })), true);
  assert.equal(keyMatches('Shift-Tab', '', key({ tab: true, shift: true })), true);
  assert.equal(keyMatches('Tab', '', key({ tab: true, shift: true })), false);
});

test('Esc and a digit arriving together (Alt+digit) split into the two keys', () => {
  const split = splitEscPrefix('3', key({ meta: true }));
  assert.ok(split);
  assert.equal(split[0]![0].escape, true);
  assert.equal(split[1]![1], '3');
  assert.equal(split[1]![0].meta, false);
  assert.equal(splitEscPrefix('3', key({})), undefined);
  // Esc then Tab: a named key (no input text) splits too.
  const tab = splitEscPrefix('', key({ meta: true, tab: true }));
  assert.equal(tab?.[1]![0].tab, true);
  assert.equal(tab?.[1]![0].meta, false);
});

test('Esc backs out of the innermost open state, one per press, then falls through', () => {
  const open = { detail: true, filter: true };
  const b = backOut([
    { description: 'close the detail', isOpen: () => open.detail, close: () => (open.detail = false) },
    { description: 'clear the kept filter', isOpen: () => open.filter, close: () => (open.filter = false) },
  ]);
  const esc = key({ escape: true });
  assert.equal(b.intent, 'back');
  assert.equal(dispatchKey([b], '', esc), true);
  assert.deepEqual(open, { detail: false, filter: true });
  assert.equal(dispatchKey([b], '', esc), true);
  assert.deepEqual(open, { detail: false, filter: false });
  assert.equal(dispatchKey([b], '', esc), false, 'nothing open: the app’s own back takes Esc');
});

test('every screen has one Esc rule: at most one back binding, and a kept filter is one of its states', async () => {
  const { ws, services, tables } = await allTables();
  try {
    for (const t of tables.filter((x) => !x.where.startsWith('overlay') && x.where !== 'global')) {
      assert.ok(t.bindings.filter((b) => b.intent === 'back').length <= 1, `${t.where} has several Esc bindings`);
      if (t.bindings.some((b) => b.intent === 'filter')) {
        const back = t.bindings.find((b) => b.intent === 'back');
        assert.match(back?.description ?? '', /clear the kept filter/, `${t.where}: Esc does not clear a kept filter`);
      }
    }
  } finally {
    services.dispose();
    await removeDir(ws);
  }
});

test('help groups a screen’s keys by where they apply: no group lists one key twice with two meanings', async () => {
  const { ws, services, tables } = await allTables();
  try {
    const twice: string[] = [];
    for (const t of tables.filter((x) => !x.where.startsWith('overlay') && x.where !== 'global')) {
      for (const section of screenHelpSections(`${t.where} keys`, t.bindings)) {
        const seen = new Map<string, string>();
        for (const b of section.bindings) {
          for (const k of b.keys) {
            const before = seen.get(k);
            if (before !== undefined && before !== b.description) twice.push(`${section.title}: ${k} "${before}" and "${b.description}"`);
            seen.set(k, b.description);
          }
        }
      }
    }
    assert.deepEqual(twice, []);
  } finally {
    services.dispose();
    await removeDir(ws);
  }
});

test('the README names the demo key the home screen binds', async () => {
  const readme = await readFile('README.md', 'utf8');
  const named = /`(\w)` starts the offline demo/.exec(readme)?.[1];
  const { ws, services, tables } = await allTables();
  try {
    const demo = tables.find((t) => t.where === 'home')?.bindings.find((b) => b.intent === 'home.demo');
    assert.ok(named && demo, 'README and the home screen both name the demo key');
    assert.deepEqual(demo.keys, [named]);
  } finally {
    services.dispose();
    await removeDir(ws);
  }
});
