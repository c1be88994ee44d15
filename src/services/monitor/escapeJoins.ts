// Whether removing a line's ANSI escape sequences (lines.ts stripAnsi, before any classifying) could make one of a
// set of texts appear (marker texts and their shapes' literals), read on the line's bytes without decoding it. Ray colours every actor prefix
// (`ESC[36m(RolloutManager pid=…)ESC[0m`), so in a real log nearly every line holds escapes; the segment scan may
// drop a line that holds only marker texts whose events the `--once --json` document never prints (DROPPED_MARKERS),
// but only if stripping cannot join text into another marker. A marker that spans a removed sequence holds, side by
// side, the byte before the sequence and the byte after it: if no marker text holds that pair, none can appear there.

const isWordByte = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;

/**
 * A table of the byte pairs (a << 8 | b) that stand side by side in some text, and with `words` also every pair that
 * a regex's `\w+`, `\d+` or `(?:^|[\s>])word` can run across: word byte next to word byte, a word byte after
 * white space, `>`, `)` or `.`, and `.`, `=` or `:` after a word byte. The marker search's shapes (markerShapes.ts)
 * read such runs around a text, so an escape inside one could make a shape that the bytes do not show.
 */
export function adjacentPairs(texts: readonly string[], opts: { words?: boolean } = {}): Uint8Array {
  const pairs = new Uint8Array(1 << 16);
  for (const t of texts) {
    const b = Buffer.from(t, 'utf8');
    for (let i = 0; i + 1 < b.length; i++) pairs[((b[i] as number) << 8) | (b[i + 1] as number)] = 1;
  }
  if (opts.words) {
    for (let a = 0; a < 128; a++) {
      for (let b = 0; b < 128; b++) {
        const before = isWordByte(a) || a === 0x20 || a === 0x09 || a === 0x3e || a === 0x29 || a === 0x2e;
        if ((isWordByte(b) && before) || (isWordByte(a) && (b === 0x2e || b === 0x3d || b === 0x3a))) pairs[(a << 8) | b] = 1;
      }
    }
  }
  return pairs;
}

const ESC = 0x1b;

/**
 * The end (exclusive) of the escape sequence that lines.ts's ANSI pattern matches at buf[e] (an ESC byte), or e when
 * it matches none there: CSI `ESC [ params intermediates final`, OSC `ESC ] … BEL|ESC \`, or ESC and one byte of
 * @–Z, \, ], ^, _ (an OSC without its terminator is that: ESC ]).
 */
export function escapeEnd(buf: Uint8Array, e: number, end: number): number {
  const c = e + 1 < end ? (buf[e + 1] as number) : -1;
  if (c === 0x5b) {
    let i = e + 2;
    // Parameters [0-9;?], intermediates [ -/], one final byte [@-~].
    while (i < end && (((buf[i] as number) >= 0x30 && (buf[i] as number) <= 0x39) || buf[i] === 0x3b || buf[i] === 0x3f)) i++;
    while (i < end && (buf[i] as number) >= 0x20 && (buf[i] as number) <= 0x2f) i++;
    return i < end && (buf[i] as number) >= 0x40 && (buf[i] as number) <= 0x7e ? i + 1 : e;
  }
  if (c === 0x5d) {
    for (let i = e + 2; i < end; i++) {
      if (buf[i] === 0x07) return i + 1;
      if (buf[i] === ESC) {
        if (i + 1 < end && buf[i + 1] === 0x5c) return i + 2;
        break;
      }
    }
    return e + 2; // ESC ] alone
  }
  return (c >= 0x40 && c <= 0x5a) || (c >= 0x5c && c <= 0x5f) ? e + 2 : e;
}

/**
 * True when stripping the escape sequences of buf[start, end) (the first ESC at `firstEscape`) joins no two bytes
 * that stand side by side in a text of `pairs`: no such text can appear in the stripped line that is not in it already.
 */
export function strippingJoinsNone(buf: Uint8Array, start: number, end: number, firstEscape: number, pairs: Uint8Array): boolean {
  let e = firstEscape;
  while (e >= 0 && e < end) {
    let x = escapeEnd(buf, e, end);
    if (x === e) {
      // Not a sequence: the ESC byte stays (no marker text holds it).
      e = indexOfByte(buf, ESC, e + 1, end);
      continue;
    }
    // Consecutive sequences are one join.
    while (x < end && buf[x] === ESC) {
      const y = escapeEnd(buf, x, end);
      if (y === x) break;
      x = y;
    }
    if (e > start && x < end && pairs[((buf[e - 1] as number) << 8) | (buf[x] as number)] === 1) return false;
    e = indexOfByte(buf, ESC, x, end);
  }
  return true;
}

function indexOfByte(buf: Uint8Array, byte: number, from: number, end: number): number {
  const i = buf.indexOf(byte, from);
  return i < 0 || i >= end ? -1 : i;
}
