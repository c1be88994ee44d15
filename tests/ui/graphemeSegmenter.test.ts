// The lazy segmenter that the build puts in place of Intl.Segmenter must segment exactly like the real one, and must
// not build the real one (ICU) for text that splits by code point.
// test-isolation: process — it counts constructions of Intl.Segmenter from its own first import of the module; in a
// process shared with other files, the module is already loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// Count constructions of the native segmenter; the module under test captures Intl.Segmenter when it loads.
const NativeSegmenter = Intl.Segmenter;
let nativeBuilt = 0;
class CountingSegmenter extends NativeSegmenter {
  constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
    super(...args);
    nativeBuilt++;
  }
}
(globalThis.Intl as { Segmenter: typeof Intl.Segmenter }).Segmenter = CountingSegmenter;
const { LazyGraphemeSegmenter, SINGLE_CODE_POINT_CLUSTERS } = await import('../../src/ui/graphemeSegmenter.js');
(globalThis.Intl as { Segmenter: typeof Intl.Segmenter }).Segmenter = NativeSegmenter;

const native = new NativeSegmenter();
const plain = (segments: Iterable<{ segment: string; index: number; input: string; isWordLike?: boolean }>) =>
  [...segments].map(({ segment, index, input, isWordLike }) => ({ segment, index, input, isWordLike }));

/** Every code point of the shortcut's set. */
function shortcutCodePoints(): number[] {
  const all: number[] = [];
  for (let c = 0; c <= 0xffff; c++) if (SINGLE_CODE_POINT_CLUSTERS.test(String.fromCharCode(c))) all.push(c);
  return all;
}

test('each code point of the shortcut set is a grapheme cluster of its own next to any neighbour class', () => {
  const set = shortcutCodePoints();
  assert.ok(set.length > 3_500, `the set should cover Latin, punctuation, arrows, box drawing, braille… (${set.length})`);
  for (const c of set) {
    const ch = String.fromCharCode(c);
    // After a letter (an Extend, SpacingMark or ZWJ would join it), before one (a Prepend would) and doubled
    // (regional indicators and Hangul jamo pair up): native splits each by code point, and so does the shortcut.
    for (const text of [`a${ch}b`, `${ch}${ch}`]) {
      const expected = plain(native.segment(text));
      assert.equal(expected.length, [...text].length, `native splits ${JSON.stringify(text)} by code point`);
      assert.deepEqual(plain(new LazyGraphemeSegmenter().segment(text)), expected, `U+${c.toString(16)} in ${JSON.stringify(text)}`);
    }
    // After CR (only LF joins it; CR is outside the set, so this goes to ICU): still the same as native.
    assert.deepEqual(plain(new LazyGraphemeSegmenter().segment(`\r${ch}`)), plain(native.segment(`\r${ch}`)));
  }
  // The whole set in one string, forwards and backwards.
  const forwards = String.fromCharCode(...set.filter((c) => c !== 0x0d));
  const backwards = [...forwards].reverse().join('');
  for (const text of [forwards, backwards]) assert.equal([...native.segment(text)].length, text.length);
});

test('any text, in or out of the set, segments exactly as Intl.Segmenter does (random differential)', () => {
  const pieces = [
    'a', 'Z', ' ', '─', '│', '●', '✓', '✗', '⠿', '⣀', '▁', '█', '→', '…', '·', '\u001b', '[', '\n', '\t', 'é',
    '\r\n', '\r', 'e\u0301', '👍', '👍🏽', '👨‍👩‍👧', '🇩🇪', '🇩', '1\uFE0F\u20E3', '한', '\u1100\u1161\u11A8', '漢', '\u200D',
    '\u0915\u094D\u0937', '\uFE0F', '\uD800', 'ｱ', '\u00AD', '\u2028',
  ];
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let i = 0; i < 3000; i++) {
    let text = '';
    const n = Math.floor(random() * 12);
    for (let k = 0; k < n; k++) text += pieces[Math.floor(random() * pieces.length)];
    const lazy = new LazyGraphemeSegmenter().segment(text);
    assert.deepEqual(plain(lazy), plain(native.segment(text)), JSON.stringify(text));
    const at = Math.floor(random() * (text.length + 2)) - 1;
    const a = lazy.containing(at);
    const b = native.segment(text).containing(at);
    assert.deepEqual(a && { segment: a.segment, index: a.index }, b && { segment: b.segment, index: b.index }, `containing(${at}) of ${JSON.stringify(text)}`);
  }
});

test('word and sentence segmentation go to ICU unchanged', () => {
  const text = 'Hello, wörld. Second sentence!';
  for (const granularity of ['word', 'sentence'] as const) {
    assert.deepEqual(
      plain(new LazyGraphemeSegmenter('en', { granularity }).segment(text)),
      plain(new NativeSegmenter('en', { granularity }).segment(text)),
    );
  }
  assert.equal(new LazyGraphemeSegmenter('en').resolvedOptions().granularity, 'grapheme');
  assert.deepEqual(LazyGraphemeSegmenter.supportedLocalesOf(['en']), NativeSegmenter.supportedLocalesOf(['en']));
});

test('the real segmenter is built only when text needs it', () => {
  const before = nativeBuilt;
  const s = new LazyGraphemeSegmenter();
  const consoleText = '\u001b[1mswegym-console\u001b[22m ● ✓ ─│ ⣿ →';
  assert.equal([...s.segment(consoleText)].length, consoleText.length);
  assert.equal(nativeBuilt, before, 'console text needs no ICU');
  assert.equal([...s.segment('👨‍👩‍👧 ok')].length, 4);
  assert.equal(nativeBuilt, before + 1, 'an emoji sequence builds it once');
  assert.equal([...s.segment('e\u0301')].length, 1);
  assert.equal(nativeBuilt, before + 1, 'and it is reused');
});
