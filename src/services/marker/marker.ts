// The SWE-Gym reward marker (`DRESSAGE_SWEGYM_REWARD_JSON={...}`), read exactly as Dressage's reward function
// (`dressage/recipes/swegym/reward.py`) reads it: the text is split into lines as Python's `str.splitlines()` splits
// (\r, \f, U+2028 … end a line too), a marker counts only when a line starts with the prefix, the rest is read by
// `json.loads` (NaN and Infinity are accepted), a marker whose JSON is not an object is passed over, and the first
// marker that is an object or is not JSON decides (an invalid first marker is not rescued by a later valid one).
// The reward is 1 only when `resolved` is the JSON value `true`. Shared by validation (harness/agent) and the
// monitor. Checked side by side with reward.py in tests/marker/marker.upstream.test.ts.
import { StringDecoder } from 'node:string_decoder';
import { parsePyJson } from './pyjson.js';

export const MARKER_PREFIX = 'DRESSAGE_SWEGYM_REWARD_JSON=';

/** Reasons the in-sandbox grading driver writes when a task is not resolved. */
export type HarnessFailureReason =
  | 'missing_official_log_parser'
  | `official_log_parser_exception:${string}`
  | 'test_log_parse_failure'
  | 'fail_to_pass_failure'
  | 'pass_to_pass_regression';

/** Reasons the fresh-sandbox evaluator writes when it synthesizes the marker itself. */
export type EvaluatorFailureReason = 'patch_extract_failed' | 'empty_generation' | 'prohibited_test_modification' | 'failed_apply_patch' | 'fresh_eval_exception';

/** Reasons the reward function records when no usable marker is found. */
export type MarkerParseFailureReason = 'missing_reward_marker' | 'invalid_reward_marker';

export const HARNESS_FAILURE_REASONS = ['missing_official_log_parser', 'test_log_parse_failure', 'fail_to_pass_failure', 'pass_to_pass_regression'] as const;
export const EVALUATOR_FAILURE_REASONS: readonly EvaluatorFailureReason[] = [
  'patch_extract_failed',
  'empty_generation',
  'prohibited_test_modification',
  'failed_apply_patch',
  'fresh_eval_exception',
];

/** The marker printed by the in-sandbox grading driver (the `after_agent` harness command). */
export interface HarnessMarker {
  source: 'harness';
  /** All F2P and P2P tests PASSED or XFAIL. */
  resolved: boolean;
  fail_to_pass_success: number;
  fail_to_pass_total: number;
  pass_to_pass_success: number;
  pass_to_pass_total: number;
  /** Test statuses parsed from the log. */
  parsed_tests: number;
  /** Exit code of `timeout 1200 bash eval.sh` (124 = timed out). */
  eval_returncode: number;
  harness: string;
  /** Lower-cased repo key of the parser map. */
  log_parser_repo: string;
  /** Only when not resolved. */
  failure_reason?: HarnessFailureReason | string;
  /** Last 4000 chars of the test log, only when nothing was parsed. */
  test_log_tail?: string;
}

/** The marker the fresh-sandbox evaluator synthesizes on evaluator-side failures (`cmd: "<fresh-sandbox-evaluator>"`). */
export interface EvaluatorMarker {
  source: 'evaluator';
  resolved: false;
  failure_reason: EvaluatorFailureReason | string;
  harness: string;
  fresh_sandbox: true;
  returncode?: number;
  timed_out?: boolean;
  /** Last 2000 chars of stderr. */
  stderr_tail?: string;
  error?: { type: string; message: string };
}

export type RewardMarker = HarnessMarker | EvaluatorMarker;

export type MarkerParse =
  | {
      ok: true;
      marker: RewardMarker;
      /** The JSON object as printed (unknown fields kept). */
      payload: Record<string, unknown>;
      /** Fields of §5.2 that are missing or of the wrong type (the reward still follows `resolved === true`). */
      schemaIssues: string[];
      /** The marker line, without the newline. */
      line: string;
    }
  | {
      ok: false;
      reason: MarkerParseFailureReason;
      /** Why the marker is invalid (JSON error, not an object); absent when missing. */
      error?: string;
      line?: string;
    };

/** The line boundaries of Python's `str.splitlines()`. */
const LINE_BREAKS = /[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;

const HARNESS_INT_FIELDS = [
  'fail_to_pass_success',
  'fail_to_pass_total',
  'pass_to_pass_success',
  'pass_to_pass_total',
  'parsed_tests',
  'eval_returncode',
] as const;

/**
 * Parses one line (already split as `str.splitlines()` splits). Undefined when the line is no marker, or is a marker
 * whose JSON is not an object, which the reward function passes over (`passed` tells them apart).
 */
export function parseMarkerLine(line: string): MarkerParse | undefined {
  const r = readMarkerLine(line);
  return r === 'no_marker' || r === 'passed' ? undefined : r;
}

/** One line's verdict: no marker, a marker passed over (JSON but not an object), or the decisive parse. */
function readMarkerLine(line: string): MarkerParse | 'no_marker' | 'passed' {
  if (!line.startsWith(MARKER_PREFIX)) return 'no_marker';
  const parsed = parsePyJson(line.slice(MARKER_PREFIX.length));
  if (!parsed.ok) return { ok: false, reason: 'invalid_reward_marker', error: parsed.error, line };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'passed';
  const payload = value as Record<string, unknown>;
  const { marker, issues } = typeMarker(payload);
  return { ok: true, marker, payload, schemaIssues: issues, line };
}

function typeMarker(p: Record<string, unknown>): { marker: RewardMarker; issues: string[] } {
  const issues: string[] = [];
  const str = (k: string, required: boolean): string | undefined => {
    const v = p[k];
    if (v === undefined) {
      if (required) issues.push(`${k} missing`);
      return undefined;
    }
    if (typeof v !== 'string') {
      issues.push(`${k} is not a string`);
      return undefined;
    }
    return v;
  };
  const int = (k: string, required: boolean): number | undefined => {
    const v = p[k];
    if (v === undefined) {
      if (required) issues.push(`${k} missing`);
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      issues.push(`${k} is not an integer`);
      return undefined;
    }
    return v;
  };
  if (typeof p.resolved !== 'boolean') issues.push(p.resolved === undefined ? 'resolved missing' : 'resolved is not a boolean');
  const resolved = p.resolved === true;
  if (p.fresh_sandbox === true) {
    const m: EvaluatorMarker = {
      source: 'evaluator',
      resolved: false,
      failure_reason: str('failure_reason', true) ?? 'unknown',
      harness: str('harness', true) ?? '',
      fresh_sandbox: true,
    };
    if (resolved) issues.push('an evaluator-synthesized marker must not be resolved');
    const rc = int('returncode', false);
    if (rc !== undefined) m.returncode = rc;
    if (p.timed_out !== undefined) {
      if (typeof p.timed_out === 'boolean') m.timed_out = p.timed_out;
      else issues.push('timed_out is not a boolean');
    }
    const tail = str('stderr_tail', false);
    if (tail !== undefined) m.stderr_tail = tail;
    if (p.error !== undefined) {
      const e = p.error as Record<string, unknown> | null;
      if (e && typeof e === 'object' && typeof e.type === 'string' && typeof e.message === 'string') m.error = { type: e.type, message: e.message };
      else issues.push('error is not {type, message}');
    }
    if (!(EVALUATOR_FAILURE_REASONS as readonly string[]).includes(m.failure_reason)) issues.push(`unknown evaluator failure_reason ${JSON.stringify(m.failure_reason)}`);
    // The reward rule reads `payload.resolved`, so a synthesized marker that claims resolved still scores as printed.
    return { marker: m, issues };
  }
  const ints = Object.fromEntries(HARNESS_INT_FIELDS.map((k) => [k, int(k, true) ?? 0])) as Record<(typeof HARNESS_INT_FIELDS)[number], number>;
  const m: HarnessMarker = {
    source: 'harness',
    resolved,
    ...ints,
    harness: str('harness', true) ?? '',
    log_parser_repo: str('log_parser_repo', true) ?? '',
  };
  const reason = str('failure_reason', false);
  if (reason !== undefined) m.failure_reason = reason;
  if (!resolved && reason === undefined) issues.push('failure_reason missing on an unresolved marker');
  const tail = str('test_log_tail', false);
  if (tail !== undefined) m.test_log_tail = tail;
  return { marker: m, issues };
}

/** Default cap on one marker line; longer lines are an invalid marker, not unbounded memory (our rule: reward.py has no cap). */
export const DEFAULT_MAX_MARKER_LINE = 1 << 20;

/**
 * Streaming scanner: feed chunks of any size (strings or bytes, split anywhere, even inside a UTF-8 sequence);
 * it keeps only the current line and only while that line can still be a marker, so noise costs no memory.
 * The first marker line that holds a JSON object, or is not JSON, decides the result; later markers are counted but
 * ignored.
 */
export class MarkerScanner {
  private readonly decoder = new StringDecoder('utf8');
  private readonly maxLine: number;
  /** Text of the current line so far while it may still be (or is) a marker line. */
  private current = '';
  /** The current line already failed the prefix test (or is over the cap); skip to the next newline. */
  private skipping = false;
  private first: MarkerParse | undefined;
  private ended = false;
  private overlong = false;
  private afterCR = false;
  /** Marker lines seen (including ones after the first and ones passed over). */
  markerCount = 0;
  /** Complete lines seen. */
  lineCount = 0;

  constructor(opts: { maxLineBytes?: number } = {}) {
    this.maxLine = opts.maxLineBytes ?? DEFAULT_MAX_MARKER_LINE;
  }

  push(chunk: string | Uint8Array): this {
    if (this.ended) throw new Error('MarkerScanner.push after end()');
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    let i = 0;
    while (i < text.length) {
      // \r\n is one break: a \n right after a \r (even across chunks) ends nothing.
      if (this.afterCR && text.charCodeAt(i) === 10) i++;
      this.afterCR = false;
      LINE_BREAKS.lastIndex = i;
      const m = LINE_BREAKS.exec(text);
      const end = m ? m.index : text.length;
      if (!this.skipping && end > i) this.feedPart(text.slice(i, end));
      if (!m) break;
      this.finishLine();
      this.afterCR = m[0] === '\r';
      i = end + 1;
    }
    return this;
  }

  /** Flushes a last line without a newline. Idempotent. */
  end(): this {
    if (this.ended) return this;
    const rest = this.decoder.end();
    if (rest) this.push(rest);
    if (this.current !== '' || this.skipping) this.finishLine();
    this.ended = true;
    return this;
  }

  /** The first marker line's result, or undefined when none was seen (yet). */
  get found(): MarkerParse | undefined {
    return this.first;
  }

  /** After end(): the first marker, or the `missing_reward_marker` failure. */
  result(): MarkerParse {
    return this.first ?? { ok: false, reason: 'missing_reward_marker' };
  }

  private feedPart(part: string): void {
    if (part === '') return;
    this.current += part;
    const n = Math.min(this.current.length, MARKER_PREFIX.length);
    if (this.current.slice(0, n) !== MARKER_PREFIX.slice(0, n)) {
      this.current = '';
      this.skipping = true;
      return;
    }
    if (this.current.length > this.maxLine) {
      if (this.current.length >= MARKER_PREFIX.length) {
        this.markerCount++;
        if (!this.first) this.first = { ok: false, reason: 'invalid_reward_marker', error: `marker line longer than ${this.maxLine} characters`, line: this.current.slice(0, 200) + '…' };
      }
      this.current = '';
      this.skipping = true;
      this.overlong = true;
    }
  }

  private finishLine(): void {
    this.lineCount++;
    const line = this.current;
    this.current = '';
    this.skipping = false;
    if (this.overlong) {
      this.overlong = false;
      return;
    }
    const parsed = readMarkerLine(line);
    if (parsed === 'no_marker') return;
    this.markerCount++;
    if (parsed !== 'passed' && !this.first) this.first = parsed;
  }
}

/** Scans a whole text (e.g. a command's stdout). */
export function scanMarker(text: string): MarkerParse {
  return new MarkerScanner().push(text).end().result();
}

/** Scans any async stream of chunks (a child's stdout, a file read stream). */
export async function scanMarkerStream(stream: AsyncIterable<string | Uint8Array>): Promise<MarkerParse> {
  const scanner = new MarkerScanner();
  for await (const chunk of stream) scanner.push(chunk);
  return scanner.end().result();
}

/**
 * How the reward function searches a recorded `after_agent`/`swegym_harness` command: stdout, stderr and the raw
 * text joined with newlines, one scan, so the first decisive marker wins across them in that order.
 */
export function findRewardMarker(record: { stdout?: string; stderr?: string; raw?: string }): MarkerParse {
  const s = new MarkerScanner();
  s.push(record.stdout ?? '').push('\n').push(record.stderr ?? '').push('\n').push(record.raw ?? '');
  return s.end().result();
}

/** The trajectory integrity flags of reference §5.3. */
export interface IntegrityFlags {
  invalid_tool_call: boolean;
  invalid_pytest_write: boolean;
}

export interface IntegrityOverride {
  original_reward: number;
  reward: 0;
  reason: 'swegym_integrity_violation';
  invalid_tool_call: boolean;
  invalid_pytest_write: boolean;
}

export interface RewardOutcome {
  raw_reward: 0 | 1;
  reward: 0 | 1;
  integrity_violation: boolean;
  /** The marker was missing or invalid. */
  parse_failure: boolean;
  /** Why the reward is 0 (marker reason, parse failure, or `swegym_integrity_violation`); absent when 1. */
  failure_reason?: string;
  resolved: boolean;
  override?: IntegrityOverride;
  marker?: RewardMarker;
}

/** The reward rule: 1.0 only when `resolved` is `true`; no partial credit; any integrity flag gives 0. */
export function computeReward(parse: MarkerParse, integrity?: IntegrityFlags): RewardOutcome {
  const resolved = parse.ok && parse.payload.resolved === true;
  const raw: 0 | 1 = resolved ? 1 : 0;
  const violation = Boolean(integrity && (integrity.invalid_tool_call || integrity.invalid_pytest_write));
  const out: RewardOutcome = {
    raw_reward: raw,
    reward: violation ? 0 : raw,
    integrity_violation: violation,
    parse_failure: !parse.ok,
    resolved,
  };
  if (parse.ok) out.marker = parse.marker;
  if (!parse.ok) out.failure_reason = parse.reason;
  else if (!resolved) out.failure_reason = parse.marker.failure_reason ?? 'unresolved';
  if (violation && integrity) {
    out.override = {
      original_reward: raw,
      reward: 0,
      reason: 'swegym_integrity_violation',
      invalid_tool_call: integrity.invalid_tool_call,
      invalid_pytest_write: integrity.invalid_pytest_write,
    };
    if (resolved) out.failure_reason = 'swegym_integrity_violation';
  }
  return out;
}

/** One line for people: `resolved F2P 1/1 P2P 3/3` or `unresolved (fail_to_pass_failure) F2P 0/1 P2P 3/3`. */
export function describeMarker(parse: MarkerParse): string {
  if (!parse.ok) return `${parse.reason}${parse.error ? `: ${parse.error}` : ''}`;
  const m = parse.marker;
  if (m.source === 'evaluator') return `unresolved (${m.failure_reason})${m.error ? ` ${m.error.type}: ${m.error.message}` : ''}`;
  const counts = `F2P ${m.fail_to_pass_success}/${m.fail_to_pass_total} P2P ${m.pass_to_pass_success}/${m.pass_to_pass_total}`;
  const rc = m.eval_returncode === 124 ? ' (eval timed out, rc 124)' : '';
  return m.resolved ? `resolved ${counts}` : `unresolved (${m.failure_reason ?? 'no reason'}) ${counts}${rc}`;
}
