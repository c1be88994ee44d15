// The byte-level reading of a line's escape sequences (escapeJoins.ts) held to lines.ts's own stripAnsi over
// generated lines: the same sequences removed, and a line said to join no kept text never shows one once stripped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { LINE_MARKERS, stripAnsi } from '../../src/services/monitor/lines.js';
import { DROPPED_MARKERS } from '../../src/services/monitor/segmentScan.js';
import { adjacentPairs, escapeEnd, strippingJoinsNone } from '../../src/services/monitor/escapeJoins.js';

const KEPT = LINE_MARKERS.map(([t]) => t).filter((t) => !DROPPED_MARKERS.includes(t));
const PAIRS = adjacentPairs(KEPT);

/** Escape sequences as terminals and programs write them, and broken ones. */
const escapes = fc.constantFrom(
  '\u001b[36m', '\u001b[0m', '\u001b[1;31m', '\u001b[?25l', '\u001b[2 q', '\u001b[38;5;208m', '\u001b]0;title\u0007', '\u001b]8;;http://x\u001b\\',
  '\u001bM', '\u001b\\', '\u001b_', '\u001b[', '\u001b', '\u001b]no end', '\u001b[12', '\u001b[:m', '\u001b[1\u00e9m', '\u001b]é\u0007', '\u001b[<5m',
);
/** Pieces of real lines: dropped and kept texts, kept texts cut in two (an escape between the halves may join them). */
const pieces = fc.oneof(
  fc.constantFrom(...DROPPED_MARKERS),
  fc.constantFrom(...KEPT).chain((t) => fc.integer({ min: 1, max: Math.max(1, t.length - 1) }).map((k) => [t.slice(0, k), t.slice(k)] as const)).map(([a, b]) => `${a}\u0000${b}`),
  fc.constantFrom('(RolloutManager pid=36927, ip=10.128.0.11)', ' [2026-11-20 08:13:46] x.py:478 - ', ' kind=context_overflow', ' ', 'ü', ')', ':'),
  fc.string({ maxLength: 6 }).map((s) => s.replace(/[\u001b\n]/g, '')),
);
/** A line: pieces with escapes between and inside them (`\u0000` marks where a cut kept text may take one). */
const lines = fc.array(fc.tuple(pieces, fc.array(escapes, { maxLength: 2 }), fc.array(escapes, { maxLength: 2 })), { minLength: 1, maxLength: 8 }).map((parts) =>
  parts.map(([p, before, inside]) => before.join('') + p.replace('\u0000', inside.join(''))).join(''),
);

/** stripAnsi on the bytes, with escapeEnd's sequences. */
function stripOnBytes(b: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < b.length; ) {
    const x = b[i] === 0x1b ? escapeEnd(b, i, b.length) : i;
    if (x > i) i = x;
    else out.push(b[i++] as number);
  }
  return Buffer.from(out);
}

test('escapeEnd removes exactly the sequences that stripAnsi removes', () => {
  fc.assert(
    fc.property(lines, (line) => {
      assert.deepEqual(stripOnBytes(Buffer.from(line)).toString(), stripAnsi(line), JSON.stringify(line));
    }),
    { numRuns: 2000 },
  );
});

test('a line whose stripping joins no kept pair shows no kept text once stripped; joins that make one are caught', () => {
  let dropped = 0;
  let joined = 0;
  fc.assert(
    fc.property(lines, (line) => {
      if (KEPT.some((t) => line.includes(t))) return;
      const b = Buffer.from(line);
      const first = b.indexOf(0x1b);
      const stripped = stripAnsi(line);
      const makesKept = KEPT.some((t) => stripped.includes(t));
      const none = strippingJoinsNone(b, 0, b.length, first, PAIRS);
      if (none) {
        dropped++;
        assert.equal(makesKept, false, `said to join nothing, but stripped it holds a kept text: ${JSON.stringify(line)}`);
      }
      if (makesKept) joined++;
    }),
    { numRuns: 3000 },
  );
  assert.ok(dropped > 300 && joined > 100, `both kinds of line were drawn (${dropped} joining nothing, ${joined} making a kept text)`);
});

test("Ray's coloured actor prefix joins nothing: those lines can be dropped on their bytes", () => {
  const line = Buffer.from('\u001b[36m(RolloutManager pid=36927, ip=10.128.0.11)\u001b[0m [2026-11-20 08:13:46] blackbox_dispatch_swegym.py:478 - harvesting blackbox rollout after agent early stop: session_id=bbs-1 kind=context_overflow');
  assert.equal(strippingJoinsNone(line, 0, line.length, line.indexOf(0x1b), PAIRS), true);
  const joining = Buffer.from('\u001b[36m(x)\u001b[0m Err\u001b[1mor: session_id=bbs-1');
  assert.equal(strippingJoinsNone(joining, 0, joining.length, joining.indexOf(0x1b), PAIRS), false);
});

test('with words, an escape inside a word run or between a word and its `=`, `:`, `.` is a join; Ray\'s `)␣` is not', () => {
  const words = adjacentPairs([], { words: true });
  const has = (a: string, b: string) => words[(a.charCodeAt(0) << 8) | b.charCodeAt(0)] === 1;
  assert.ok(has('e', 'p') && has(' ', 'r') && has('>', 's') && has('7', ':') && has('d', '=') && has('.', 'R'));
  assert.ok(!has(')', ' ') && !has(']', ' ') && !has(' ', ' ') && !has('-', ' '));
  const cut = Buffer.from('\u001b[36m(x)\u001b[0m ray.exce\u001b[1mptions.RayTaskError: boom');
  assert.equal(strippingJoinsNone(cut, 0, cut.length, 0, words), false);
  assert.equal(strippingJoinsNone(cut, 0, cut.length, 0, adjacentPairs(['Error'])), true, 'without words the cut exception name joins no text of the list');
});
