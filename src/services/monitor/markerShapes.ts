// The shapes that must surround some marker texts before their line is worth decoding. Real logs hold many lines
// that contain a marker text and still classify as nothing: printed configs and other dicts (`args: {…}`), a word
// where a metric line's number belongs (`step skipped: {…}`), metric dicts cut short, traceback lines
// (`ValueError: …`), warnings that name SWE-Gym. Each shape is a necessary condition of the regex in lines.ts that
// the marker text stands for, read on the raw bytes, so a line that fails it is skipped by the search itself
// (findMarkedLines here, and the same rules in wasm/markerScan.ts; tests/monitor/markerShapes.test.ts holds both to
// classifyMessage).
//
// As for the marker texts themselves, the literal texts of a shape (`Memory-Usage`, `ray.exceptions.`, what follows
// `SWE-Gym `) must lie whole in the bytes; colour codes around them are looked through: a metric line's word and
// number are read with complete colour codes skipped (and the line is kept where another escape comes first), a
// byte before `ray.exceptions.` is a boundary wherever an escape byte comes earlier in the line, and a dict's end is
// not checked when an escape byte follows the marker.

/** No shape: the marker text alone marks the line. */
export const SHAPE_NONE = 0;
/**
 * `: {` — SUMMARY (`(?:^|[\s>])(step|rollout|perf|eval) (\d+): \{`, the dict then running to the end of the line)
 * or MEMORY (`Memory-Usage` before it). Before the marker: digits, one space, one of the four words, and a boundary
 * (the line's start, ASCII white space, `>`, `)` that a Ray prefix ends with, any byte ≥ 0x80, which may be part of
 * Unicode white space); at the line's end, after ASCII white space, `}` (or `)`/`]` that a `[repeated …]` fold ends
 * with, or a byte ≥ 0x80). Or `Memory-Usage` anywhere before the marker.
 */
export const SHAPE_SUMMARY_DICT = 1;
/** `Error` — FATAL's `\bray\.exceptions\.\w+Error`: word bytes, at least one, then `ray.exceptions.` at a boundary. */
export const SHAPE_RAY_EXCEPTION = 2;
/**
 * `SWE-Gym ` — SAMPLE, EVAL_FAILED or POLL_RETRY: followed by `reward=`, `evaluation failed for instance=` or
 * `evaluator poll failed; retrying: session_id=`.
 */
export const SHAPE_SWE_GYM = 3;

/** The marker texts (lines.ts LINE_MARKERS) that carry a shape. */
export const MARKER_SHAPES: Readonly<Record<string, number>> = {
  ': {': SHAPE_SUMMARY_DICT,
  Error: SHAPE_RAY_EXCEPTION,
  'SWE-Gym ': SHAPE_SWE_GYM,
};

/** The literal parts of the shapes (the WebAssembly search gets them from here). */
export const MEMORY_USAGE = 'Memory-Usage';
export const RAY_EXCEPTIONS = 'ray.exceptions.';
export const SWE_GYM_FOLLOWERS = ['reward=', 'evaluation failed for instance=', 'evaluator poll failed; retrying: session_id='] as const;
const [STEP, ROLLOUT, PERF, EVAL] = ['step', 'rollout', 'perf', 'eval'].map((w) => Buffer.from(w));
const MEMORY = Buffer.from(MEMORY_USAGE);
const RAY = Buffer.from(RAY_EXCEPTIONS);
const FOLLOWERS = SWE_GYM_FOLLOWERS.map((f) => Buffer.from(f));

export function shapeOf(text: string): number {
  return MARKER_SHAPES[text] ?? SHAPE_NONE;
}

function bytesAt(buf: Uint8Array, at: number, lit: Uint8Array, end: number): boolean {
  if (at < 0 || at + lit.length > end) return false;
  for (let k = 0; k < lit.length; k++) if (buf[at + k] !== lit[k]) return false;
  return true;
}

function hasByte(buf: Uint8Array, from: number, to: number, b: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] === b) return true;
  return false;
}

function isWordByte(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

// The walk back from a `: {` over the line as stripAnsi leaves it: complete colour codes (CSI) are skipped; where
// the last escape before the walk does not start one, the stripped text is not known and the line is kept.
/** The last escape byte before the walk's position, and where the CSI it starts ends (-1: it starts none). */
let escAt = -1;
let escEnd = -1;

function lastEscape(buf: Uint8Array, ls: number, q: number, le: number): void {
  let x = q - 1;
  while (x >= ls && buf[x] !== 27) x--;
  escAt = x >= ls ? x : -1;
  escEnd = escAt >= 0 ? csiEnd(buf, escAt, le) : -1;
}

/**
 * Where the CSI at buf[x] (an escape byte) ends inside the line (before le), or -1: `ESC [ [0-9;?]* [ -/]* [@-~]`,
 * as lines.ts ANSI reads it.
 */
function csiEnd(buf: Uint8Array, x: number, le: number): number {
  if (x + 1 >= le || buf[x + 1] !== 91) return -1;
  let j = x + 2;
  while (j < le && (((buf[j] as number) >= 48 && (buf[j] as number) <= 57) || buf[j] === 59 || buf[j] === 63)) j++;
  while (j < le && (buf[j] as number) >= 32 && (buf[j] as number) <= 47) j++;
  return j < le && (buf[j] as number) >= 64 && (buf[j] as number) <= 126 ? j + 1 : -1;
}

/** The position of the byte before q in the stripped line (colour codes skipped), or ls - 1. */
function back(buf: Uint8Array, ls: number, q: number, le: number): number {
  while (q > ls && escAt >= 0 && escEnd === q) {
    q = escAt;
    lastEscape(buf, ls, q, le);
  }
  return q - 1;
}

/** A shape that failed where an escape other than a colour code comes before: kept (not known to fail). */
function unsure(): boolean {
  return escAt >= 0 && escEnd < 0;
}

/** The summary word that ends with the byte c (its last letters differ), as bytes. */
function wordEndingWith(c: number): Uint8Array | undefined {
  return c === 112 ? STEP : c === 116 ? ROLLOUT : c === 102 ? PERF : c === 108 ? EVAL : undefined;
}

/** MEMORY's alternative of SHAPE_SUMMARY_DICT: `Memory-Usage` somewhere before the `: {` at s. */
function memoryBefore(buf: Uint8Array, s: number, ls: number): boolean {
  for (let q = ls; q + MEMORY.length <= s; q++) if (bytesAt(buf, q, MEMORY, s)) return true;
  return false;
}

/**
 * SUMMARY's alternative of SHAPE_SUMMARY_DICT alone: does the `: {` at buf[s, …) follow a summary word and number
 * (or a walk over escapes this cannot read), and end its line with a dict's end? Where it fails and the line holds
 * `: {` for `Memory-Usage` only, classifyMessage gives a memory event or none (its `: {` branch returns).
 */
export function summaryShapeHolds(buf: Uint8Array, s: number, ls: number, le: number): boolean {
  let e = le;
  while (e > s && isAsciiSpace(buf[e - 1] as number)) e--;
  const last = buf[e - 1] as number;
  if (!(last === 125 || last === 41 || last === 93 || last >= 128 || hasByte(buf, s, le, 27))) return false;
  lastEscape(buf, ls, s, le);
  let p = back(buf, ls, s, le);
  let digits = 0;
  while (p >= ls && (buf[p] as number) >= 48 && (buf[p] as number) <= 57) {
    digits++;
    p = back(buf, ls, p, le);
  }
  if (digits === 0 || p < ls || buf[p] !== 32) return unsure();
  p = back(buf, ls, p, le);
  const w = p >= ls ? wordEndingWith(buf[p] as number) : undefined;
  if (!w) return unsure();
  for (let k = w.length - 2; k >= 0; k--) {
    p = back(buf, ls, p, le);
    if (p < ls || buf[p] !== w[k]) return unsure();
  }
  p = back(buf, ls, p, le);
  if (p < ls) return true;
  const c = buf[p] as number;
  return isAsciiSpace(c) || c === 62 || c === 41 || c >= 128 || unsure();
}

function rayException(buf: Uint8Array, s: number, ls: number): boolean {
  let p = s;
  while (p > ls && isWordByte(buf[p - 1] as number)) p--;
  if (p === s) return false;
  const ws = p - RAY.length;
  if (ws < ls || !bytesAt(buf, ws, RAY, p)) return false;
  return ws === ls || !isWordByte(buf[ws - 1] as number) || hasByte(buf, ls, ws, 27);
}

function sweGym(buf: Uint8Array, s: number, le: number): boolean {
  const at = s + 8;
  for (const f of FOLLOWERS) if (bytesAt(buf, at, f, le)) return true;
  return false;
}

/**
 * Does the marker text of `shape` at buf[s, …) have its shape, in the line buf[ls, le) (le: its newline or the end
 * of the data)? Always true for SHAPE_NONE.
 */
export function shapeHolds(buf: Uint8Array, shape: number, s: number, ls: number, le: number): boolean {
  if (shape === SHAPE_SUMMARY_DICT) return memoryBefore(buf, s, ls) || summaryShapeHolds(buf, s, ls, le);
  if (shape === SHAPE_RAY_EXCEPTION) return rayException(buf, s, ls);
  if (shape === SHAPE_SWE_GYM) return sweGym(buf, s, le);
  return true;
}
