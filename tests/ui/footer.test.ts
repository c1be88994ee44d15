// The footer's rule: the actions that apply now, in the screen's order, navigation left to `?`, whole words only
// (full, then without parentheses, then the shortest form, then as many whole ones as fit and "…").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { footerText } from '../../src/ui/Overlays.js';
import { shared, type Binding } from '../../src/ui/keymap.js';

const noop = () => {};

test('navigation and the bindings whose condition fails are not in the footer', () => {
  const text = footerText(
    [
      shared('up', 'previous row', noop),
      shared('down', 'next row', noop),
      { keys: ['Tab'], intent: 'panel.next', description: 'next panel', run: noop },
      shared('view', 'the checks whole', noop, { when: () => false }),
      { keys: ['l'], intent: 'train.launch', description: 'launch (checks, then asks)', run: noop },
    ],
    120,
  );
  assert.match(text, /^l launch \(checks, then asks\) +· q quit · \? help · L log$/);
});

test('narrow: shorter forms before dropping any; never a word cut', () => {
  const b: Binding[] = [
    { keys: ['l'], intent: 'train.launch', description: 'launch (checks, then asks)', run: noop },
    { keys: ['C'], intent: 'train.checks', description: 'run checks', short: 'checks', run: noop },
    { keys: ['u'], intent: 'train.reset', description: 'reset to default', run: noop },
  ];
  assert.match(footerText(b, 80), /^l launch · C run checks · u reset to default +· q quit/);
  assert.match(footerText(b, 60), /^l launch · C checks · u reset +· q quit/);
  assert.match(footerText(b, 50), /^l launch · C checks … +· q quit/);
});

test('property: any descriptions at any width give a line of exactly that width ending in the pinned keys, words whole', () => {
  const word = fc.stringMatching(/^[a-z]{1,9}$/);
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'Enter'), fc.array(word, { minLength: 1, maxLength: 6 })), { maxLength: 8 }), fc.integer({ min: 40, max: 200 }), (items, width) => {
      const bindings = items.map(([k, words]) => ({ keys: [k], intent: 'stop' as const, description: words.join(' '), run: noop }));
      const text = footerText(bindings, width);
      assert.equal([...text].length, width);
      assert.match(text, / · q quit · \? help · L log$/);
      assert.doesNotMatch(text, /\S…/);
    }),
  );
});
