// Cutting in the middle keeps what tells similar names apart: their tail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { displayWidth, truncateMiddle } from '../../src/ui/text.js';

test('names that share a prefix stay apart by their tail', () => {
  const a = truncateMiddle('swegym-getmoto-moto-7365', 16);
  const b = truncateMiddle('swegym-getmoto-moto-7366', 16);
  assert.notEqual(a, b);
  assert.equal(a, 'swegym-…oto-7365');
  assert.equal(truncateMiddle('short', 16), 'short');
  assert.equal(truncateMiddle('abcdef', 1), '…');
});

test('property: at most the width, head and tail of the text kept, one "…" when cut', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 2, max: 40 }), (text, width) => {
      const out = truncateMiddle(text, width);
      assert.ok(displayWidth(out) <= width, `${JSON.stringify(out)} > ${width}`);
      if (displayWidth(text) <= width) assert.equal(out, text);
      else {
        const [head, tail] = out.split('…') as [string, string];
        assert.ok(text.startsWith(head) && text.endsWith(tail), JSON.stringify({ text, out }));
      }
    }),
  );
});
