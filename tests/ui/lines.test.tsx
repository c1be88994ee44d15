// Lines (the clipped line panel) and the width-aware text helpers under it: rows cut to the width with "…",
// clipped to the height, blank rows kept, scroll clamped; wide and emoji graphemes measured as the terminal does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { Lines, clampScroll } from '../../src/ui/Lines.js';
import { displayWidth, graphemes, padEnd, padStart, truncate, wrapText } from '../../src/ui/text.js';
import { renderInk } from '../helpers/ink.js';

test('display width: ASCII, box drawing and symbols 1; CJK and emoji 2; combining marks 0', () => {
  assert.equal(displayWidth('calc-2'), 6);
  assert.equal(displayWidth('✓ ✗ ▶ · › █ ⣿ ─ ⚠'), 17);
  assert.equal(displayWidth('日本語'), 6);
  assert.equal(displayWidth('👍🏽'), 2);
  assert.equal(displayWidth('🇩🇪'), 2);
  assert.equal(displayWidth('👩‍💻'), 2);
  assert.equal(displayWidth('⚠️'), 2, 'an emoji variation selector makes it wide');
  assert.equal(displayWidth('e\u0301'), 1);
  assert.deepEqual(graphemes('a👍🏽é'), ['a', '👍🏽', 'é']);
});

test('truncate/pad never exceed the width and never split a grapheme', () => {
  for (const text of ['plain text that is long', '日本語のテキストです', 'ok 👍🏽👍🏽👍🏽 done', 'mixé\u0301d 🇩🇪 flags', '✓ built swegym']) {
    for (let w = 1; w <= 12; w++) {
      const t = truncate(text, w);
      assert.ok(displayWidth(t) <= w, `${JSON.stringify(t)} in ${w}`);
      assert.ok(!t.includes('\u{1F3FD}') || t.includes('👍🏽'));
      assert.equal(displayWidth(padEnd(text, w)), w, `padEnd ${text} ${w}`);
      assert.equal(displayWidth(padStart(text, w)), w, `padStart ${text} ${w}`);
    }
  }
  assert.equal(truncate('日本語', 4), '日…');
  assert.equal(truncate('short', 10), 'short');
  for (const l of wrapText('日本語のテキスト and 👍🏽 words to wrap here', 7)) assert.ok(displayWidth(l) <= 7, l);
});

for (const size of [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
]) {
  test(`${size.width}x${size.height}: rows cut to the width with …, clipped to the height, blank rows kept`, async () => {
    const lines = [
      { text: 'first' },
      { text: '' },
      { text: 'x'.repeat(size.width + 30), tone: 'fail' as const },
      { text: `${'日本語'.repeat(50)}` },
      { text: `${'🚀'.repeat(size.width)}` },
      ...Array.from({ length: 50 }, (_, i) => ({ text: `row ${i}` })),
    ];
    const ui = renderInk(<Lines lines={lines} width={size.width} height={size.height} />);
    try {
      await ui.waitForText('first');
      const out = ui.frame().split('\n');
      assert.equal(out.length, size.height);
      assert.equal(out[1]!.trim(), '', 'an empty row stays a row');
      assert.ok(out[2]!.endsWith('…') && displayWidth(out[2]!) === size.width, out[2]);
      for (const l of out) assert.ok(displayWidth(l) <= size.width, `${displayWidth(l)}: ${l}`);
      assert.ok(!ui.frame().includes(`row ${size.height}`), 'rows past the height are not drawn');
    } finally {
      ui.unmount();
    }
  });
}

test('scroll is clamped: never past the end, never negative', async () => {
  assert.equal(clampScroll(100, 30, 10), 20);
  assert.equal(clampScroll(-5, 30, 10), 0);
  assert.equal(clampScroll(3, 5, 10), 0);
  const ui = renderInk(<Lines lines={Array.from({ length: 30 }, (_, i) => ({ text: `row ${i}` }))} width={20} height={5} scroll={99} />);
  try {
    await ui.waitForText('row 29');
    assert.deepEqual(ui.frame().split('\n').map((l) => l.trim()), ['row 25', 'row 26', 'row 27', 'row 28', 'row 29']);
  } finally {
    ui.unmount();
  }
});
