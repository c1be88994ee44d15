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
// and at `texts`, per text: u32 address of its bytes, u32 length, u32 offset of its fingerprint in it.

let tables: usize = 0;
let texts: usize = 0;
let out: usize = 0;
let outCapacity: i32 = 0;
let resumeAt: i32 = -1;
let candidateCount: i32 = 0;

export function configure(tablesAt: usize, textsAt: usize, outAt: usize, capacity: i32): void {
  tables = tablesAt;
  texts = textsAt;
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

/** Does a text of one of `buckets` (a bit set) lie in base[from, end) with its fingerprint at `pos`? */
function matches(base: usize, pos: i32, buckets: u32, from: i32, end: i32): bool {
  while (buckets != 0) {
    const b = ctz(buckets);
    buckets &= buckets - 1;
    const last = load<u32>(tables + 128 + ((b + 1) << 2));
    for (let t = load<u32>(tables + 128 + (b << 2)); t < last; t++) {
      const d = texts + (t as usize) * 12;
      const len = load<u32>(d, 4) as i32;
      const s = pos - (load<u32>(d, 8) as i32);
      if (s < from || s + len > end) continue;
      const src = base + (s as usize);
      const text = load<u32>(d) as usize;
      let k = 0;
      while (k + 8 <= len && load<u64>(src + k) == load<u64>(text + k)) k += 8;
      while (k < len && load<u8>(src + k) == load<u8>(text + k)) k++;
      if (k == len) return true;
    }
  }
  return false;
}

/**
 * Writes to `out` (as i32, in increasing order, once each) the start offsets of the lines of base[from, end) that
 * hold a marker text; returns how many. base[end] is a newline or the end of the data; 19 bytes past `end` must be
 * readable (their values do not matter). When `out` fills up, resume() says where to go on.
 */
export function find(base: usize, from: i32, end: i32): i32 {
  const lo0 = v128.load(tables);
  const hi0 = v128.load(tables, 16);
  const lo1 = v128.load(tables, 32);
  const hi1 = v128.load(tables, 48);
  const lo2 = v128.load(tables, 64);
  const hi2 = v128.load(tables, 80);
  const lo3 = v128.load(tables, 96);
  const hi3 = v128.load(tables, 112);
  const nibble = v128.load(tables, 176);
  const scratch = tables + 192;
  let n = 0;
  let i = from;
  resumeAt = -1;
  while (i < end) {
    const p = base + (i as usize);
    const a = v128.load(p);
    const b = v128.load(p, 1);
    const c = v128.load(p, 2);
    const d = v128.load(p, 3);
    // Indices are masked to 0..15, where the relaxed shuffle is exact (and one instruction on x86).
    let m = v128.and(i8x16.relaxed_swizzle(lo0, v128.and(a, nibble)), i8x16.relaxed_swizzle(hi0, v128.and(i16x8.shr_u(a, 4), nibble)));
    m = v128.and(m, v128.and(i8x16.relaxed_swizzle(lo1, v128.and(b, nibble)), i8x16.relaxed_swizzle(hi1, v128.and(i16x8.shr_u(b, 4), nibble))));
    m = v128.and(m, v128.and(i8x16.relaxed_swizzle(lo2, v128.and(c, nibble)), i8x16.relaxed_swizzle(hi2, v128.and(i16x8.shr_u(c, 4), nibble))));
    m = v128.and(m, v128.and(i8x16.relaxed_swizzle(lo3, v128.and(d, nibble)), i8x16.relaxed_swizzle(hi3, v128.and(i16x8.shr_u(d, 4), nibble))));
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
      if (!matches(base, pos, load<u8>(scratch + (k as usize)), from, end)) continue;
      // A text holds no newline, so its line starts at the last newline before the fingerprint.
      let start = pos;
      while (start > from && load<u8>(base + ((start - 1) as usize)) != 10) start--;
      store<i32>(out + ((n as usize) << 2), start);
      n++;
      let nl = pos;
      while (nl < end && load<u8>(base + (nl as usize)) != 10) nl++;
      next = nl + 1;
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
