// AssemblyScript (compiled by scripts/build-wasm.mjs into src/services/monitor/markerScanWasm.ts, which is
// committed): the marker search of the `monitor` log scan in one SIMD pass, in place of one native indexOf pass
// per marker needle (src/services/monitor/markers.ts findMarkedLines, which stays the reference and the fallback).
//
// Teddy-style: each marker text has a 4-byte fingerprint (a substring chosen to be rare in run logs) and one of 8
// buckets. For each of the fingerprint's 4 positions, two 16-entry tables give the buckets whose fingerprint has
// that low / high nibble there; looking both up for 16 bytes at once (a byte shuffle each) and ANDing over the 4
// positions leaves, per byte, the buckets whose fingerprint may start there. Those few candidates are compared
// with their bucket's texts in full. src/services/monitor/markerScan.ts writes the tables; layout at `tables`:
//   +0    8 × 16 bytes: low and high nibble tables for positions 0..3 (lo0, hi0, lo1, hi1, …);
//   +128  9 × u32: bucket b's texts are descriptors [first[b], first[b + 1]);
//   +176  16 bytes of 0x0f (the nibble mask, loaded: V8 rebuilds a v128 constant at each use inside a loop);
//   +192  16 bytes of scratch;
// and at `texts`, per text: u32 address of its bytes, u32 length, u32 offset of its fingerprint in it, u32 its index
// in the caller's marker list (< 64) plus 256 × its shape (src/services/monitor/markerShapes.ts: a text with a
// shape counts only inside it); and at `literals`, what the line readers compare (see LITERALS below).
//
// Each marked line gives a record of RECORD i32s at `out`: its start, its end (its newline, or the window's end),
// then, when asked, the per-sample line read on its bytes (src/services/monitor/sampleBytes.ts readSampleBytes is
// the reference, and tests/monitor/markerScan.test.ts holds the two to the same answers): 1 if it certainly is one
// (else 0 and nothing more), the ranges of reward and raw, integrity's truth (1 for `True`), the range of the
// instance and of the trimmed reason; then the set of marker texts in the line (bits by index: low, high 32) and
// where its first escape byte is (-1: none); then (samples again) the ranges of f2p and p2p; then, always, 1 if a
// `: {` of the line has SUMMARY's shape (not only `Memory-Usage` before it), else 0.
//
// With a run limit, consecutive per-sample lines (of at most that many bytes, both numbers 0 or 1 in a plain form,
// the reason one of the table at `literals` + 1024) give one record for the run instead (RUN_* below): the caller
// then handles one record per run of sample lines, not one per line.

const RECORD: i32 = 20;
/** A run record: R_SAMPLE holds RUN; its lines, reward=1, raw=1, integrity=True counts; then (slot, lines) pairs. */
const RUN: i32 = 2;
const RUN_PAIRS: i32 = 6;

let tables: usize = 0;
let texts: usize = 0;
let literals: usize = 0;
let out: usize = 0;
let outCapacity: i32 = 0;
let resumeAt: i32 = -1;
let candidateCount: i32 = 0;

// LITERALS, at `literals` (written by markerScan.ts): +0 `SWE-Gym reward=`, +16 `[repeated `, +32 + 16 × f the six
// field names ` raw=`, ` integrity=`, ` instance=`, ` f2p=`, ` p2p=`, ` reason=`, +128 their six lengths (u8),
// +256 a 256-byte table: 1 for each byte of `SWE-Gym reward=`; +512 48 bytes where the fields' ranges are kept;
// +576 16 newlines, +592 16 escape bytes, +608 16 × `S`, +624 16 × `[` (loaded: V8 rebuilds a v128 constant at
// each use inside a loop); the shapes' literals: +640 `Memory-Usage`, +656 `ray.exceptions.`, +672 `reward=`,
// +688 `evaluation failed for instance=`, +720 `evaluator poll failed; retrying: session_id=`, +768 16 × `M`; the
// per-sample reader's byte classes: +784 16 × 32, +800 16 × 31, +816 16 × 127; the second bytes of `[repeated ` and
// `SWE-Gym reward=`: +832 16 × `r`, +848 16 × `W`; +960 u32 the reasons in the table, and
// from +1024 the table: per reason 64 bytes, its length (u32) then at +16 its text (at most REASON_MAX bytes).
const REASON_MAX: i32 = 48;
const MARK_LENGTH: i32 = 15;
const FOLD_LENGTH: i32 = 10;

/** `capacity`: records that fit at `outAt`. */
export function configure(tablesAt: usize, textsAt: usize, literalsAt: usize, outAt: usize, capacity: i32): void {
  tables = tablesAt;
  texts = textsAt;
  literals = literalsAt;
  out = outAt;
  outCapacity = capacity;
}

/** After `find` filled its output: where to call it again from (-1: it reached the end). */
export function resume(): i32 {
  return resumeAt;
}

/** Fingerprint hits compared in full since the module was configured (for the benchmarks). */
export function candidates(): i32 {
  return candidateCount;
}

/** Per byte of the 16 at p: the buckets whose fingerprint may start there. */
// @ts-ignore: decorator
@inline
function fingerprintsAt(p: usize, lo0: v128, hi0: v128, lo1: v128, hi1: v128, lo2: v128, hi2: v128, lo3: v128, hi3: v128, nibble: v128): v128 {
  const a = v128.load(p);
  const b = v128.load(p, 1);
  const c = v128.load(p, 2);
  const d = v128.load(p, 3);
  // Indices are masked to 0..15, where the relaxed shuffle is exact (and one instruction on x86).
  let m = v128.and(i8x16.relaxed_swizzle(lo0, v128.and(a, nibble)), i8x16.relaxed_swizzle(hi0, v128.and(i16x8.shr_u(a, 4), nibble)));
  m = v128.and(m, v128.and(i8x16.relaxed_swizzle(lo1, v128.and(b, nibble)), i8x16.relaxed_swizzle(hi1, v128.and(i16x8.shr_u(b, 4), nibble))));
  m = v128.and(m, v128.and(i8x16.relaxed_swizzle(lo2, v128.and(c, nibble)), i8x16.relaxed_swizzle(hi2, v128.and(i16x8.shr_u(c, 4), nibble))));
  return v128.and(m, v128.and(i8x16.relaxed_swizzle(lo3, v128.and(d, nibble)), i8x16.relaxed_swizzle(hi3, v128.and(i16x8.shr_u(d, 4), nibble))));
}

/** The texts (bits by index) of `buckets` that lie whole in base[from, end) with their fingerprint at `pos`. */
function textsAt(base: usize, pos: i32, buckets: u32, from: i32, end: i32): u64 {
  let found: u64 = 0;
  while (buckets != 0) {
    const b = ctz(buckets);
    buckets &= buckets - 1;
    const last = load<u32>(tables + 128 + ((b + 1) << 2));
    for (let t = load<u32>(tables + 128 + (b << 2)); t < last; t++) {
      const d = texts + ((t << 4) as usize);
      const len = load<u32>(d, 4) as i32;
      const s = pos - (load<u32>(d, 8) as i32);
      if (s < from || s + len > end) continue;
      const src = base + (s as usize);
      const text = load<u32>(d) as usize;
      let k = 0;
      while (k + 8 <= len && load<u64>(src + k) == load<u64>(text + k)) k += 8;
      while (k < len && load<u8>(src + k) == load<u8>(text + k)) k++;
      if (k != len) continue;
      const index = load<u32>(d, 12);
      const shape = index >> 8;
      if (shape != 0 && !shapeHolds(base, shape, s, len, from, end)) continue;
      found |= (1 as u64) << ((index & 63) as u64);
    }
  }
  return found;
}

/** The first byte of base[from, end) equal to the byte repeated in `pattern`, or -1. */
function firstByte(base: usize, from: i32, end: i32, pattern: v128): i32 {
  for (let i = from; i < end; i += 16) {
    const m = i8x16.bitmask(i8x16.eq(v128.load(base + (i as usize)), pattern));
    if (m != 0) {
      const k = i + ctz(m);
      return k < end ? k : -1;
    }
  }
  return -1;
}

/** Where the line holding `pos` starts: after the last newline of base[from, pos), or `from`. */
function lineStart(base: usize, pos: i32, from: i32, newline: v128): i32 {
  for (let q = pos; q > from; q -= 16) {
    // Bytes before `from` are read (the memory holds them) but not counted.
    const s = q - 16;
    let m = i8x16.bitmask(i8x16.eq(v128.load(base + (s as usize)), newline));
    if (s < from) m &= ~((1 << (from - s)) - 1);
    if (m != 0) return s + 32 - clz(m);
  }
  return from;
}

/**
 * findLiteral for a literal of at least 2 bytes, its first two bytes compared 16 places at a time (`first`, `second`:
 * 16 of each): a line's `[` and `S` bytes that start no literal cost nothing more.
 */
function findLiteral2(base: usize, from: i32, end: i32, lit: usize, n: i32, first: v128, second: v128): i32 {
  for (let i = from; i + n <= end; i += 16) {
    const p = base + (i as usize);
    let m = i8x16.bitmask(v128.and(i8x16.eq(v128.load(p), first), i8x16.eq(v128.load(p, 1), second)));
    while (m != 0) {
      const h = i + ctz(m);
      m &= m - 1;
      if (h + n > end) return -1;
      let k = 2;
      while (k < n && load<u8>(base + ((h + k) as usize)) == load<u8>(lit + (k as usize))) k++;
      if (k == n) return h;
    }
  }
  return -1;
}

/** The first place in base[from, end) where the n bytes at `lit` lie whole, or -1 (`first`: 16 of its first byte). */
function findLiteral(base: usize, from: i32, end: i32, lit: usize, n: i32, first: v128): i32 {
  for (let i = from; i + n <= end; ) {
    const h = firstByte(base, i, end - n + 1, first);
    if (h < 0) return -1;
    let k = 1;
    while (k < n && load<u8>(base + ((h + k) as usize)) == load<u8>(lit + (k as usize))) k++;
    if (k == n) return h;
    i = h + 1;
  }
  return -1;
}

const SHAPE_SUMMARY_DICT: u32 = 1;
const SHAPE_RAY_EXCEPTION: u32 = 2;
const SHAPE_SWE_GYM: u32 = 3;

// @ts-ignore: decorator
@inline
function isDigit(c: i32): bool {
  return c >= 48 && c <= 57;
}

// @ts-ignore: decorator
@inline
function isWordByte(c: i32): bool {
  return isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95;
}

// @ts-ignore: decorator
@inline
function isAsciiSpace(c: i32): bool {
  return c == 32 || (c >= 9 && c <= 13);
}

/** Are the n bytes at `lit` at base[pos, pos + n), inside [from, end)? */
function literalAt(base: usize, pos: i32, from: i32, end: i32, lit: usize, n: i32): bool {
  if (pos < from || pos + n > end) return false;
  for (let k = 0; k < n; k++) if (at(base, pos + k) != (load<u8>(lit + (k as usize)) as i32)) return false;
  return true;
}

/**
 * markerShapes.ts shapeHolds: does the text of `shape` at base[s, s + len) have its shape in its line (inside the
 * window [from, end))?
 */
function shapeHolds(base: usize, shape: u32, s: i32, len: i32, from: i32, end: i32): bool {
  if (shape == SHAPE_SWE_GYM) {
    // Its followers hold no newline: one that matches inside the window lies inside the line.
    const f = s + 8;
    return literalAt(base, f, from, end, literals + 672, 7) || literalAt(base, f, from, end, literals + 688, 31) || literalAt(base, f, from, end, literals + 720, 44);
  }
  const newline = v128.load(literals, 576);
  const ls = lineStart(base, s, from, newline);
  let le = firstByte(base, s + len, end, newline);
  if (le < 0) le = end;
  const escape = v128.load(literals, 592);
  if (shape == SHAPE_RAY_EXCEPTION) {
    let p = s;
    while (p > ls && isWordByte(at(base, p - 1))) p--;
    if (p == s) return false;
    const ws = p - 15;
    if (!literalAt(base, ws, ls, p, literals + 656, 15)) return false;
    return ws == ls || !isWordByte(at(base, ws - 1)) || firstByte(base, ls, ws, escape) >= 0;
  }
  if (shape != SHAPE_SUMMARY_DICT) return true;
  if (summaryShape(base, s, ls, le, escape)) {
    summaryHeld = true;
    return true;
  }
  return s - ls >= 12 && findLiteral(base, ls, s, literals + 640, 12, v128.load(literals, 768)) >= 0;
}

/**
 * Whether a `: {` of the line being read had SUMMARY's shape (markerShapes.ts summaryShapeHolds), not only
 * `Memory-Usage` before it: `find` clears it for each line and writes it to the line's record.
 */
let summaryHeld: bool = false;

/** markerShapes.ts summaryShapeHolds: the `: {` at base[s] after a summary word and number, its line ending a dict. */
function summaryShape(base: usize, s: i32, ls: i32, le: i32, escape: v128): bool {
  let e = le;
  while (e > s && isAsciiSpace(at(base, e - 1))) e--;
  const last = at(base, e - 1);
  if (!(last == 125 || last == 41 || last == 93 || last >= 128) && firstByte(base, s, le, escape) < 0) return false;
  lastEscape(base, ls, s, le, escape);
  let p = back(base, ls, s, le, escape);
  let digits = 0;
  while (p >= ls && isDigit(at(base, p))) {
    digits++;
    p = back(base, ls, p, le, escape);
  }
  if (digits == 0 || p < ls || at(base, p) != 32) return unsure();
  p = back(base, ls, p, le, escape);
  // The words' last letters differ: p, t, f, l. Their bytes little-endian, with their lengths.
  let word: u64 = 0;
  let n = 0;
  if (p >= ls) {
    const c = at(base, p);
    if (c == 112) (word = 0x70657473), (n = 4);
    else if (c == 116) (word = 0x74756f6c6c6f72), (n = 7);
    else if (c == 102) (word = 0x66726570), (n = 4);
    else if (c == 108) (word = 0x6c617665), (n = 4);
  }
  if (n == 0) return unsure();
  for (let k = n - 2; k >= 0; k--) {
    p = back(base, ls, p, le, escape);
    if (p < ls || at(base, p) != (((word >> ((k as u64) << 3)) & 0xff) as i32)) return unsure();
  }
  p = back(base, ls, p, le, escape);
  if (p < ls) return true;
  const c = at(base, p);
  return isAsciiSpace(c) || c == 62 || c == 41 || c >= 128 || unsure();
}

// The walk back from a `: {` over the line as stripAnsi leaves it (markerShapes.ts): the last escape byte before the
// walk's position, and where the CSI it starts ends (-1: it starts none).
let escAt: i32 = -1;
let escEnd: i32 = -1;

function lastEscape(base: usize, ls: i32, q: i32, le: i32, escape: v128): void {
  // lineStart finds the last escape byte as it finds the last newline: the position after it, or ls for none.
  const x = lineStart(base, q, ls, escape) - 1;
  escAt = x >= ls ? x : -1;
  escEnd = escAt >= 0 ? csiEnd(base, escAt, le) : -1;
}

function csiEnd(base: usize, x: i32, le: i32): i32 {
  if (x + 1 >= le || at(base, x + 1) != 91) return -1;
  let j = x + 2;
  while (j < le && (isDigit(at(base, j)) || at(base, j) == 59 || at(base, j) == 63)) j++;
  while (j < le && at(base, j) >= 32 && at(base, j) <= 47) j++;
  return j < le && at(base, j) >= 64 && at(base, j) <= 126 ? j + 1 : -1;
}

function back(base: usize, ls: i32, q: i32, le: i32, escape: v128): i32 {
  while (q > ls && escAt >= 0 && escEnd == q) {
    q = escAt;
    lastEscape(base, ls, q, le, escape);
  }
  return q - 1;
}

// @ts-ignore: decorator
@inline
function unsure(): bool {
  return escAt >= 0 && escEnd < 0;
}

/**
 * Writes to `out` a record for each line of base[from, end) that holds a marker text, in increasing order, once each;
 * returns how many. base[end] is a newline or the end of the data; 19 bytes past `end` and 16 before `from` must be
 * readable (their values do not matter). `samples`: read per-sample lines too. `runLimit` > 0: per-sample lines of at
 * most that many bytes that runRecord takes are counted into run records. When `out` fills up, resume() says where
 * to go on.
 */
export function find(base: usize, from: i32, end: i32, samples: bool, runLimit: i32): i32 {
  const lo0 = v128.load(tables);
  const hi0 = v128.load(tables, 16);
  const lo1 = v128.load(tables, 32);
  const hi1 = v128.load(tables, 48);
  const lo2 = v128.load(tables, 64);
  const hi2 = v128.load(tables, 80);
  const lo3 = v128.load(tables, 96);
  const hi3 = v128.load(tables, 112);
  const nibble = v128.load(tables, 176);
  const newline = v128.load(literals, 576);
  const escape = v128.load(literals, 592);
  const scratch = tables + 192;
  let n = 0;
  let i = from;
  // The open run record (-1: none): only the records just before a new one can grow.
  let run = -1;
  resumeAt = -1;
  while (i < end) {
    const m = fingerprintsAt(base + (i as usize), lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3, nibble);
    if (!v128.any_true(m)) {
      i += 16;
      continue;
    }
    let bits = i8x16.bitmask(i8x16.ne(m, i8x16.splat(0)));
    if (end - i < 16) bits &= (1 << (end - i)) - 1;
    v128.store(scratch, m);
    let next = i + 16;
    while (bits != 0) {
      const k = ctz(bits);
      bits &= bits - 1;
      const pos = i + k;
      candidateCount++;
      summaryHeld = false;
      let found = textsAt(base, pos, load<u8>(scratch + (k as usize)), from, end);
      if (found == 0) continue;
      // A text holds no newline, so its line starts at the last newline before the fingerprint.
      const start = lineStart(base, pos, from, newline);
      let nl = firstByte(base, pos, end, newline);
      if (nl < 0) nl = end;
      next = nl + 1;
      const esc = firstByte(base, start, nl, escape);
      const rec = out + ((n * RECORD) as usize) * 4;
      const sample = samples ? readSample(base, start, nl, esc, rec) : 0;
      // A line a run takes needs no more (its other texts are for lines that are not samples).
      if (sample == 1 && runLimit > 0 && nl - start <= runLimit) {
        const taken = runRecord(base, rec, run >= 0 ? out + ((run * RECORD) as usize) * 4 : 0, start, nl);
        if (taken == 1) break;
        if (taken == 2) {
          run = n++;
          if (n == outCapacity) {
            resumeAt = next < end ? next : -1;
            return n;
          }
          break;
        }
      }
      // Every other marker text of the line.
      for (let q = pos + 1; q < nl; q += 16) {
        const mq = fingerprintsAt(base + (q as usize), lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3, nibble);
        if (!v128.any_true(mq)) continue;
        let bq = i8x16.bitmask(i8x16.ne(mq, i8x16.splat(0)));
        if (nl - q < 16) bq &= (1 << (nl - q)) - 1;
        v128.store(scratch, mq);
        while (bq != 0) {
          const kq = ctz(bq);
          bq &= bq - 1;
          candidateCount++;
          found |= textsAt(base, q + kq, load<u8>(scratch + (kq as usize)), from, end);
        }
      }
      run = -1;
      store<i32>(rec, start);
      store<i32>(rec, nl, 4);
      store<i32>(rec, sample, 8);
      store<u32>(rec, found as u32, 48);
      store<u32>(rec, (found >> 32) as u32, 52);
      store<i32>(rec, esc, 56);
      store<i32>(rec, summaryHeld ? 1 : 0, 76);
      n++;
      if (n == outCapacity) {
        resumeAt = next < end ? next : -1;
        return n;
      }
      break;
    }
    i = next;
  }
  return n;
}

/**
 * The first byte of base[from, end) at most the byte repeated in `atMost` or at least the one in `atLeast` (unsigned),
 * or `end`: the end of a run of bytes between them, 16 at a time.
 */
function firstOutside(base: usize, from: i32, end: i32, atMost: v128, atLeast: v128): i32 {
  for (let i = from; i < end; i += 16) {
    const v = v128.load(base + (i as usize));
    const m = i8x16.bitmask(v128.or(i8x16.le_u(v, atMost), i8x16.ge_u(v, atLeast)));
    if (m != 0) {
      const k = i + ctz(m);
      return k < end ? k : end;
    }
  }
  return end;
}

// @ts-ignore: decorator
@inline
function at(base: usize, i: i32): i32 {
  return load<u8>(base + (i as usize)) as i32;
}

/**
 * The line base[start, end) as a per-sample line, with readSampleBytes's rules: 1 and its fields in `rec` when it
 * certainly is one, else 0 (the caller decodes it and runs the classifier). `firstEscape`: the line's first escape
 * byte, or -1.
 */
function readSample(base: usize, start: i32, end: i32, firstEscape: i32, rec: usize): i32 {
  let e = end;
  if (e > start && at(base, e - 1) == 13) e--;
  const h = findLiteral2(base, start, e, literals, MARK_LENGTH, v128.load(literals, 608), v128.load(literals, 848));
  if (h < 0) return 0;
  // A `[repeated …]` fold would cut the line.
  if (findLiteral2(base, start, e, literals + 16, FOLD_LENGTH, v128.load(literals, 624), v128.load(literals, 832)) >= 0) return 0;
  // Only complete colour codes before the marker, none of them between two marker bytes; no escape after it.
  const inMark = literals + 256;
  const escape = v128.load(literals, 592);
  let x = firstEscape < e ? firstEscape : -1;
  while (x >= 0 && x < h) {
    if (at(base, x + 1) != 91) return 0;
    let j = x + 2;
    let b = at(base, j);
    while (j < h && ((b >= 48 && b <= 57) || b == 59 || b == 63)) b = at(base, ++j);
    while (j < h && b >= 32 && b <= 47) b = at(base, ++j);
    if (j >= h || b < 64 || b > 126) return 0;
    if (x > start && load<u8>(inMark + at(base, x - 1)) == 1 && load<u8>(inMark + at(base, j + 1)) == 1) return 0;
    // Only escapes before the marker are walked: after it, the field and reason checks below reject any byte < 32.
    x = firstByte(base, j + 1, h, escape);
  }
  // Six fields, each a run of printable non-space ASCII followed by exactly the next ` name=`.
  const fields = literals + 512;
  const space = v128.load(literals, 784);
  const del = v128.load(literals, 816);
  let i = h + MARK_LENGTH;
  for (let f = 0; f < 6; f++) {
    const s = i;
    i = firstOutside(base, i, e, space, del);
    if (i >= e || at(base, i) != 32) return 0;
    // instance= may be empty; the others may not.
    if (i == s && f != 3) return 0;
    store<i32>(fields + (f << 3), s);
    store<i32>(fields + (f << 3), i, 4);
    const lit = literals + 32 + ((f << 4) as usize);
    const n = load<u8>(literals + 128 + (f as usize)) as i32;
    if (i + n > e) return 0;
    // The name (at most 16 bytes, its slot padded) in one comparison; the bytes past it are not counted.
    const same = i8x16.bitmask(i8x16.eq(v128.load(base + (i as usize)), v128.load(lit)));
    if ((~same & ((1 << n) - 1)) != 0) return 0;
    i += n;
  }
  // reason=(.*)$ trimmed: printable ASCII to the end.
  if (firstOutside(base, i, e, v128.load(literals, 800), del) < e) return 0;
  let rs = i;
  let re = e;
  while (rs < re && at(base, rs) == 32) rs++;
  while (re > rs && at(base, re - 1) == 32) re--;
  const is = load<i32>(fields, 16);
  const truth = load<i32>(fields, 20) - is == 4 && at(base, is) == 84 && at(base, is + 1) == 114 && at(base, is + 2) == 117 && at(base, is + 3) == 101;
  store<i32>(rec, load<i32>(fields), 12);
  store<i32>(rec, load<i32>(fields, 4), 16);
  store<i32>(rec, load<i32>(fields, 8), 20);
  store<i32>(rec, load<i32>(fields, 12), 24);
  store<i32>(rec, truth ? 1 : 0, 28);
  store<i32>(rec, load<i32>(fields, 24), 32);
  store<i32>(rec, load<i32>(fields, 28), 36);
  store<i32>(rec, rs, 40);
  store<i32>(rec, re, 44);
  store<i32>(rec, load<i32>(fields, 32), 60);
  store<i32>(rec, load<i32>(fields, 36), 64);
  store<i32>(rec, load<i32>(fields, 40), 68);
  store<i32>(rec, load<i32>(fields, 44), 72);
  return 1;
}

/** A number field 0 or 1 in the forms isOne (sampleBytes.ts) reads without pyNum: `0`, `1`, `0.0`, `1.0`; else -1. */
function plainBit(base: usize, s: i32, e: i32): i32 {
  const c = at(base, s);
  if (c != 48 && c != 49) return -1;
  if (e - s == 1 || (e - s == 3 && at(base, s + 1) == 46 && at(base, s + 2) == 48)) return c - 48;
  return -1;
}

/** The slot of the reason base[s, e) in the table, or -1. */
function reasonSlot(base: usize, s: i32, e: i32): i32 {
  const n = e - s;
  if (n > REASON_MAX) return -1;
  const count = load<i32>(literals, 960);
  for (let t = 0; t < count; t++) {
    const entry = literals + 1024 + ((t << 6) as usize);
    if (load<i32>(entry) != n) continue;
    // 16 bytes at a time; the line's bytes past the reason are read (the window's slack) and not counted.
    let k = 0;
    for (; k < n; k += 16) {
      const want = n - k >= 16 ? 0xffff : (1 << (n - k)) - 1;
      if ((i8x16.bitmask(i8x16.eq(v128.load(base + ((s + k) as usize)), v128.load(entry + 16 + (k as usize)))) & want) != want) break;
    }
    if (k >= n) return t;
  }
  return -1;
}

/**
 * The per-sample line base[start, nl) whose fields readSample wrote at `rec` (the next free record), counted into the
 * run record at `run` (0: none open): 1 if counted there, 2 if `rec` became a new run record holding it, 0 if the
 * line needs its own record (a number in another form, a reason not in the table).
 */
function runRecord(base: usize, rec: usize, run: usize, start: i32, nl: i32): i32 {
  const reward = plainBit(base, load<i32>(rec, 12), load<i32>(rec, 16));
  const raw = plainBit(base, load<i32>(rec, 20), load<i32>(rec, 24));
  if (reward < 0 || raw < 0) return 0;
  const slot = reasonSlot(base, load<i32>(rec, 40), load<i32>(rec, 44));
  if (slot < 0) return 0;
  const integrity = load<i32>(rec, 28);
  let into = run;
  let p = 0;
  if (into != 0) {
    const pairs = load<i32>(into, 28);
    while (p < pairs && load<i32>(into + 32 + ((p << 3) as usize)) != slot) p++;
    // A seventh reason: a new run record.
    if (p == RUN_PAIRS) into = 0;
  }
  let opened = 0;
  if (into == 0) {
    into = rec;
    store<i32>(into, start);
    store<i32>(into, RUN, 8);
    for (let f = 12; f < 32; f += 4) store<i32>(into + (f as usize), 0);
    p = 0;
    opened = 1;
  }
  store<i32>(into, nl, 4);
  store<i32>(into, load<i32>(into, 12) + 1, 12);
  store<i32>(into, load<i32>(into, 16) + reward, 16);
  store<i32>(into, load<i32>(into, 20) + raw, 20);
  store<i32>(into, load<i32>(into, 24) + integrity, 24);
  const pair = into + 32 + ((p << 3) as usize);
  if (p == load<i32>(into, 28)) {
    store<i32>(into, p + 1, 28);
    store<i32>(pair, slot);
    store<i32>(pair, 0, 4);
  }
  store<i32>(pair, load<i32>(pair, 4) + 1, 4);
  return opened + 1;
}
