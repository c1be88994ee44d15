// Log-line classification for a Dressage SWE-Gym run (launcher output + `ray job` output), per the recipe
// reference §6: Ray actor prefixes, ANSI colour, `[repeated Nx across cluster]` folding, Python logging prefixes,
// metric dict lines, per-sample reward lines, failure/retry lines, launcher summary lines.
import { parsePyDictAt, type PyDict, type PyValue } from './pyReprParse.js';

export type SummaryKind = 'step' | 'rollout' | 'perf' | 'eval';

export interface SampleLine {
  reward: number;
  raw: number;
  /** `integrity=True` means the trajectory scan found a violation (reward forced to 0). */
  integrity: boolean;
  instance: string;
  f2p: [number, number] | undefined;
  p2p: [number, number] | undefined;
  reason: string;
}

export type LogEvent =
  | { kind: 'summary'; type: SummaryKind; n: number; metrics: PyDict }
  | ({ kind: 'sample' } & SampleLine)
  | { kind: 'early_stop'; session: string; stopKind: string }
  | { kind: 'sample_failed'; session: string; summary: string }
  | { kind: 'eval_failed'; instance: string; error: string }
  | { kind: 'eval_poll_retry'; session: string; attempt: string; error: string }
  | { kind: 'patch_retry'; session: string; attempt: string; status: string }
  | { kind: 'group_retry'; attempt: number; max: number; summary: string }
  | { kind: 'group_failed'; summary: string; errorType: string; statuses: Record<string, number> }
  | { kind: 'no_trainable'; text: string }
  | { kind: 'effective'; name: string; values: Record<string, string> }
  | { kind: 'ray_nodes'; count: number; expected: number }
  | { kind: 'ray_timeout' }
  | { kind: 'ray_worker'; ip: string }
  | { kind: 'router'; host: string; port: number; prometheus: number | undefined }
  | { kind: 'memory'; rank: number | undefined; label: string; values: PyDict }
  | { kind: 'proxy_failed'; log: string }
  | { kind: 'checkpoint'; phase: 'saving' | 'saved'; iteration: number; path: string }
  | { kind: 'job_end'; status: 'succeeded' | 'failed' | 'stopped'; job: string }
  /** The console's launch wrapper: `[swegym-console] launcher exited with code N` (src/services/train/launch.ts). */
  | { kind: 'launcher_exit'; code: number }
  /** `exit`: the launcher prints this right before `exit 1` (its refusals), so the run has ended. */
  | { kind: 'fatal'; text: string; exit?: true }
  /** A hang signature of torch's ProcessGroupNCCL (hangs.ts): which rank, on which node (the Ray prefix's ip). */
  | { kind: 'hang'; signature: HangSignature; rank: number | undefined; node: string | undefined; detail: string; text: string };

/**
 * torch.distributed's NCCL process group when a collective hangs (ProcessGroupNCCL.cpp): the watchdog's timeout of
 * one collective, the heartbeat monitor finding the watchdog itself stuck, and an NCCL error raised to Python.
 */
export type HangSignature = 'nccl-watchdog-timeout' | 'nccl-heartbeat-timeout' | 'nccl-error';

export interface ParsedLine {
  /** The message after ANSI, Ray prefix, repeat suffix and Python logging prefix were removed. */
  message: string;
  /** Ray actor name, e.g. RolloutManager, when the line had a Ray prefix. */
  actor: string | undefined;
  /** Times the line stands for: N for `[repeated Nx across cluster]`, else 1. */
  repeat: number;
  /** `[YYYY-MM-DD HH:MM:SS]` from the Python logging prefix, as epoch ms (read as UTC), when present. */
  time: number | undefined;
  event: LogEvent | undefined;
}

const ANSI = /\u001B(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)|[@-Z\\-_])/g;

export function stripAnsi(text: string): string {
  return text.indexOf('\u001B') < 0 ? text : text.replace(ANSI, '');
}

// `(RolloutManager pid=123, ip=10.0.0.1) `, `(pid=123) `, `(raylet, ip=10.0.0.2) `, `(MegatronTrainRayActor pid=9) `.
const RAY_PREFIX = /^\((?:([A-Za-z_][\w.:-]*)(?: pid=\d+)?|pid=\d+)(?:, ip=[^)\s]*)?\)\s?/;
const REPEAT = /\s*\[repeated (\d+)x across cluster\](?:\s*\(Ray deduplicates logs[^)]*\))?\s*$/;
// Python logging: `[2026-08-01 12:00:00] rollout.py:123 - message` (optionally `,123` millis).
const PY_LOG = /^\[(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:[,.]\d+)?\] [^\s:]+:\d+ - /;
// Other common shapes: `2026-08-01 12:00:00,123 INFO name message` / `INFO 2026-…`.
const ISO_LOG = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:[,.]\d+)?\s+(?:[A-Z]+\s+)?(?:[\w.]+(?::\d+)?\s+(?:-\s+)?)?/;

let lastDay = '';
let lastDayMs = NaN;

/**
 * `Date.parse(`${date}T${time}Z`)` for `YYYY-MM-DD` and `HH:MM:SS`, with the day's start kept from the line before
 * (Date.parse cost most of splitPrefixes; a log's lines share their day). Times past 23:59:59 go to Date.parse.
 */
export function logTime(date: string, time: string): number {
  const h = (time.charCodeAt(0) - 48) * 10 + time.charCodeAt(1) - 48;
  const m = (time.charCodeAt(3) - 48) * 10 + time.charCodeAt(4) - 48;
  const sec = (time.charCodeAt(6) - 48) * 10 + time.charCodeAt(7) - 48;
  if (time.length !== 8 || !(h < 24 && m < 60 && sec < 60)) return Date.parse(`${date}T${time}Z`);
  if (date !== lastDay) {
    lastDayMs = Date.parse(`${date}T00:00:00Z`);
    lastDay = date;
  }
  return lastDayMs + ((h * 60 + m) * 60 + sec) * 1000;
}

export function splitPrefixes(raw: string): { message: string; actor: string | undefined; repeat: number; time: number | undefined } {
  let s = stripAnsi(raw);
  if (s.endsWith('\r')) s = s.slice(0, -1);
  let actor: string | undefined;
  let repeat = 1;
  // Ray may nest prefixes when actors print through drivers; strip up to two.
  for (let k = 0; k < 2 && s.charCodeAt(0) === 40 /* ( */; k++) {
    const m = RAY_PREFIX.exec(s);
    if (!m) break;
    actor = actor ?? m[1] ?? 'worker';
    s = s.slice(m[0].length);
  }
  if (s.endsWith(']') || s.endsWith(')') || s.endsWith(' ')) {
    const r = REPEAT.exec(s);
    if (r) {
      repeat = Math.max(1, Number(r[1]) || 1);
      s = s.slice(0, r.index);
    }
  }
  let time: number | undefined;
  if (s.charCodeAt(0) === 91 /* [ */) {
    const p = PY_LOG.exec(s);
    if (p) {
      time = logTime(p[1] as string, p[2] as string);
      s = s.slice(p[0].length);
    }
  }
  return { message: s, actor, repeat, time };
}

/** What the model takes of a parsed line (the message aside). */
export type ParsedEvent = Omit<ParsedLine, 'message'>;

const SUMMARY = /(?:^|[\s>])(step|rollout|perf|eval) (\d+): \{/;
const SAMPLE =
  /SWE-Gym reward=(\S+) raw=(\S+) integrity=(\S+) instance=(\S*) f2p=(\S+) p2p=(\S+) reason=(.*)$/;
const EARLY = /harvesting blackbox rollout after agent early stop: session_id=(\S+) kind=(\S+)/;
const SAMPLE_FAILED = /blackbox rollout failed for session_id=([^\s:]+): ?(.*)$/;
const EVAL_FAILED = /fresh SWE-Gym evaluation failed for instance=([^\s:]+): ?(.*)$/;
const POLL_RETRY = /SWE-Gym evaluator poll failed; retrying: session_id=(\S+) attempt=(\S+) error=(.*)$/;
const PATCH_RETRY = /source patch extraction failed transiently; retrying: session_id=(\S+) attempt=(\S+)(?:.* status=(\S*))?/;
const GROUP_RETRY = /resubmitting rollout group for retry \(attempt (\d+)\/(\d+)\): ?(.*)$/;
const GROUP_FAILED = /rollout group exhausted retries and will be marked failed: ?(.*)$/;
const NO_TRAINABLE = /Dressage sync rollout produced no trainable samples/;
const EFFECTIVE = /(?:^|\s)effective_([a-z0-9_]+): (.*)$/;
const RAY_NODES = /Current Ray node count: (\d+); expected ACTOR_NUM_NODES: (\d+)/;
const RAY_TIMEOUT = /Timed out waiting for Ray workers to join\./;
const RAY_WORKER = /Starting Ray worker on (\S+)/;
const ROUTER = /Router launched at ([^\s:,]+|\[[^\]]+\]):(\d+)(?:, Prometheus port: (\d+))?/;
const MEMORY = /(?:\[Rank (\d+)\] )?Memory-Usage ?(.*?): \{/;
const PROXY_FAILED = /Dressage proxy failed; see (.*)$/;
// Megatron's checkpoint messages (the convention Megatron uses; not quoted in the Dressage reference).
const CKPT_SAVING = /saving checkpoint at iteration\s+(\d+) to (\S+)/;
const CKPT_SAVED = /successfully saved checkpoint (?:from )?(?:at )?iteration\s+(\d+) to (\S+)/;
// `ray job submit` ends with `Job 'raysubmit_…' succeeded|failed|stopped` (Ray CLI behaviour).
const JOB_END = /Job '([^']+)' (succeeded|failed|stopped|was stopped)/;
const LAUNCHER_EXIT = /\[swegym-console\] launcher exited with code (\d+)/;
// The launcher's and its defaults file's refusals (`echo … >&2; exit 1` and bash's `${VAR:?message}`), from
// examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh and default/dressage_env_defaults.sh.
const LAUNCHER_REFUSAL =
  /\b(?:REPO_ROOT is required when|Missing Slime model config|Missing Dressage default env file|PROMPT_DATA must point|MODEL_ROOT must point|MASTER_ADDR is required|[A-Z_]+ must be 0 or 1; got|total actor GPUs \(\d+\) must be divisible|DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive|DRESSAGE_E2B_API_KEY is required|DRESSAGE_PADDOCK_CLASS is required|RESUME_CKPT_ROOT is required|RAY_SSH_USER is required|DRESSAGE_PROXY_URL must|SGLANG_ROUTER_URL is a proxy client target|Refusing to clear unsafe )/;
// `[rank3]:[E1201 10:15:32.123456789 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout:
// WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600012
// milliseconds before timing out.` (older torch: `[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught …`).
const NCCL_WATCHDOG_RAN = /ran for (\d+) milliseconds/;
// `[PG ID 0 PG GUID 0(default_pg) Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug
// info.` and `… ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued
// collectives.`
const NCCL_HEARTBEAT = /Heartbeat monitor timed out!|watchdog got stuck for (\d+) seconds/;
// `torch.distributed.DistBackendError: NCCL error in: …/ProcessGroupNCCL.cpp:3356, remote process exited or there was a
// network error, NCCL version 2.21.5` (also `unhandled system error`, `ncclRemoteError: …`).
const NCCL_ERROR = /\bNCCL error(?: in: [^,]*,)? ?(.*)$/;
const RANK = /\[rank(\d+)\]|\bRank (\d+)\]/;

function hangEvent(signature: HangSignature, msg: string, detail: string): LogEvent {
  const r = RANK.exec(msg);
  const rank = r ? Number(r[1] ?? r[2]) : undefined;
  return { kind: 'hang', signature, rank, node: undefined, detail: detail.trim(), text: msg.trim().slice(0, 600) };
}

function classifyHang(msg: string): LogEvent | undefined {
  if (msg.includes('Watchdog caught collective operation timeout')) {
    const op = /OpType=(\w+)/.exec(msg)?.[1];
    const seq = /SeqNum=(\d+)/.exec(msg)?.[1];
    const timeout = /Timeout\(ms\)=(\d+)/.exec(msg)?.[1];
    const ran = NCCL_WATCHDOG_RAN.exec(msg)?.[1];
    const detail = [op, seq ? `SeqNum=${seq}` : '', ran ? `ran ${Math.round(Number(ran) / 1000)} s` : '', timeout ? `(timeout ${Math.round(Number(timeout) / 1000)} s)` : ''].filter(Boolean).join(' ');
    return hangEvent('nccl-watchdog-timeout', msg, detail || 'a collective timed out');
  }
  if (msg.includes('Heartbeat monitor timed out') || msg.includes('watchdog got stuck for')) {
    const m = NCCL_HEARTBEAT.exec(msg);
    return hangEvent('nccl-heartbeat-timeout', msg, m?.[1] ? `the watchdog made no progress for ${m[1]} s` : 'the watchdog itself is stuck');
  }
  if (msg.includes('NCCL error')) {
    const m = NCCL_ERROR.exec(msg);
    return hangEvent('nccl-error', msg, (m?.[1] ?? '').replace(/,? NCCL version [\d.]+.*$/, ''));
  }
  return undefined;
}

const FATAL = /^(?:Traceback \(most recent call last\):|.*\b(?:unsupported DRESSAGE_SANDBOX_PROVIDER|Reward function '[^']*' not found|ray\.exceptions\.\w+Error))/;

export function pair(text: string): [number, number] | undefined {
  const m = /^(-?\d+)\/(-?\d+)$/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function pyNum(text: string): number {
  const t = text.toLowerCase();
  if (t === 'nan') return NaN;
  if (t === 'inf') return Infinity;
  if (t === '-inf') return -Infinity;
  const v = Number(text);
  return Number.isNaN(v) ? NaN : v;
}

function parseKv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([A-Za-z_][A-Za-z0-9_.]*)=(\S*)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out[m[1] as string] = m[2] as string;
  return out;
}

function statuses(text: string): Record<string, number> {
  // Dressage joins the summary's parts with '; ' (`statuses=ABORTED:1,COMPLETED:15; sample[…]`).
  const m = /statuses=([^;\s]+)/.exec(text);
  const out: Record<string, number> = {};
  if (!m) return out;
  for (const part of (m[1] as string).split(',')) {
    const [k, v] = part.split(':');
    if (k && v !== undefined && /^\d+$/.test(v)) out[k] = Number(v);
  }
  return out;
}

/** Classifies a message (prefixes already removed). Unknown or malformed lines give undefined. */
export function classifyMessage(msg: string): LogEvent | undefined {
  // Order: the cheapest and most frequent first.
  if (msg.includes('SWE-Gym ')) {
    const m = SAMPLE.exec(msg);
    if (m) {
      return {
        kind: 'sample',
        reward: pyNum(m[1] as string),
        raw: pyNum(m[2] as string),
        integrity: m[3] === 'True',
        instance: m[4] as string,
        f2p: pair(m[5] as string),
        p2p: pair(m[6] as string),
        reason: (m[7] as string).trim(),
      };
    }
    let e = EVAL_FAILED.exec(msg);
    if (e) return { kind: 'eval_failed', instance: e[1] as string, error: (e[2] as string).trim() };
    e = POLL_RETRY.exec(msg);
    if (e) return { kind: 'eval_poll_retry', session: e[1] as string, attempt: e[2] as string, error: (e[3] as string).trim() };
  }
  if (msg.includes(': {')) {
    const s = SUMMARY.exec(msg);
    if (s) {
      const open = (s.index ?? 0) + s[0].length - 1;
      const parsed = parsePyDictAt(msg, open);
      if (parsed && msg.slice(parsed.end).trim() === '') {
        return { kind: 'summary', type: s[1] as SummaryKind, n: Number(s[2]), metrics: parsed.dict };
      }
      return undefined;
    }
    if (msg.includes('Memory-Usage')) {
      const mm = MEMORY.exec(msg);
      if (mm) {
        const open = (mm.index ?? 0) + mm[0].length - 1;
        const parsed = parsePyDictAt(msg, open);
        if (parsed) return { kind: 'memory', rank: mm[1] === undefined ? undefined : Number(mm[1]), label: (mm[2] as string).trim(), values: parsed.dict };
      }
      return undefined;
    }
  }
  if (msg.includes('effective_')) {
    const m = EFFECTIVE.exec(msg);
    if (m) return { kind: 'effective', name: m[1] as string, values: parseKv(m[2] as string) };
  }
  if (msg.includes('blackbox rollout')) {
    const m = EARLY.exec(msg);
    if (m) return { kind: 'early_stop', session: m[1] as string, stopKind: m[2] as string };
    const f = SAMPLE_FAILED.exec(msg);
    if (f) return { kind: 'sample_failed', session: f[1] as string, summary: (f[2] as string).trim() };
  }
  if (msg.includes('rollout group')) {
    const r = GROUP_RETRY.exec(msg);
    if (r) return { kind: 'group_retry', attempt: Number(r[1]), max: Number(r[2]), summary: (r[3] as string).trim() };
    const f = GROUP_FAILED.exec(msg);
    if (f) {
      const summary = (f[1] as string).trim();
      const t = /task_error=([A-Za-z_][\w.]*)/.exec(summary);
      return { kind: 'group_failed', summary, errorType: t ? (t[1] as string) : '', statuses: statuses(summary) };
    }
  }
  if (msg.includes('patch extraction')) {
    const m = PATCH_RETRY.exec(msg);
    if (m) return { kind: 'patch_retry', session: m[1] as string, attempt: m[2] as string, status: m[3] ?? '' };
  }
  if (msg.includes('Ray node count')) {
    const m = RAY_NODES.exec(msg);
    if (m) return { kind: 'ray_nodes', count: Number(m[1]), expected: Number(m[2]) };
  }
  if (msg.includes('Router launched')) {
    const m = ROUTER.exec(msg);
    if (m) return { kind: 'router', host: m[1] as string, port: Number(m[2]), prometheus: m[3] === undefined ? undefined : Number(m[3]) };
  }
  if (msg.includes('checkpoint')) {
    let m = CKPT_SAVED.exec(msg);
    if (m) return { kind: 'checkpoint', phase: 'saved', iteration: Number(m[1]), path: m[2] as string };
    m = CKPT_SAVING.exec(msg);
    if (m) return { kind: 'checkpoint', phase: 'saving', iteration: Number(m[1]), path: m[2] as string };
  }
  if (msg.includes("Job '")) {
    const m = JOB_END.exec(msg);
    if (m) return { kind: 'job_end', job: m[1] as string, status: m[2] === 'succeeded' ? 'succeeded' : m[2] === 'failed' ? 'failed' : 'stopped' };
  }
  if (RAY_TIMEOUT.test(msg)) return { kind: 'ray_timeout' };
  if (msg.includes('Starting Ray worker')) {
    const m = RAY_WORKER.exec(msg);
    if (m) return { kind: 'ray_worker', ip: m[1] as string };
  }
  if (msg.includes('proxy failed')) {
    const m = PROXY_FAILED.exec(msg);
    if (m) return { kind: 'proxy_failed', log: (m[1] as string).trim() };
  }
  if (NO_TRAINABLE.test(msg)) return { kind: 'no_trainable', text: msg.trim() };
  if (msg.includes('launcher exited')) {
    const m = LAUNCHER_EXIT.exec(msg);
    if (m) return { kind: 'launcher_exit', code: Number(m[1]) };
  }
  if (LAUNCHER_REFUSAL.test(msg)) return { kind: 'fatal', text: msg.trim(), exit: true };
  const hang = classifyHang(msg);
  if (hang) return hang;
  if (FATAL.test(msg)) return { kind: 'fatal', text: msg.trim() };
  return undefined;
}

/** The `ip=` of a line's Ray prefix: the node a rank's message came from. */
const RAY_IP = /^(?:\u001B\[[0-9;]*m)?\([^)]*\bip=([^)\s,]+)/;

export function parseLine(raw: string): ParsedLine {
  const p = splitPrefixes(raw);
  let event = classifyMessage(p.message);
  if (event?.kind === 'hang') event.node = RAY_IP.exec(raw)?.[1];
  if (!event && p.time === undefined && p.message.length > 0 && p.message.charCodeAt(0) !== 40) {
    // A plain `YYYY-MM-DD HH:MM:SS LEVEL name` prefix (other loggers): retry without it.
    const iso = ISO_LOG.exec(p.message);
    if (iso) {
      event = classifyMessage(p.message.slice(iso[0].length));
      if (event) return { ...p, time: logTime(iso[1] as string, iso[2] as string), event };
    }
  }
  return { ...p, event };
}

/**
 * Markers for the fast scanner: every line that `classifyMessage` accepts contains at least one of these texts
 * verbatim (each is a literal part of the regex that accepts it, or of the `includes` gate in front of it), so a line
 * without any of them can be skipped without being decoded. Keep this list in step with the regexes above
 * (tests/monitor/scan.test.ts checks one line of every kind against it).
 *
 * The second field is the needle the scanner searches the raw bytes for (`Buffer.indexOf`), a part of the marker:
 * one byte that is rare in run logs (upper case, punctuation: a memchr pass whose few hits are checked against all
 * markers of that byte), or, where the marker has no such byte, a few bytes from its rarest one on (searched
 * natively, so the frequent first byte costs no call back into JavaScript). Markers with the same needle share one
 * pass, and every pass costs about as much as the hits of a rare byte: a multi-byte needle is a memchr on its first
 * byte plus a comparison at each of its hits, so as few of them as possible (11 passes instead of 17 halved the
 * marker search on the bench logs). The choice only affects speed, never which lines are found.
 */
export const LINE_MARKERS: readonly (readonly [text: string, needle: string])[] = [
  ['SWE-Gym ', 'E'], // sample, fresh-eval failure, evaluator poll retry
  [': {', '{'], // step/rollout/perf/eval dict lines, Memory-Usage lines
  ['effective_', 'f'],
  ['harvesting blackbox rollout after agent early stop: session_id=', 'k'],
  ['blackbox rollout failed for session_id=', 'k'],
  ['resubmitting rollout group for retry (attempt ', 'f'],
  ['rollout group exhausted retries and will be marked failed:', 'k'],
  ['source patch extraction failed transiently; retrying: session_id=', ';'],
  ['Current Ray node count: ', 'C'],
  ['Timed out waiting for Ray workers to join.', 'k'],
  ['Starting Ray worker on ', 'k'],
  ['Router launched at ', 'Router'],
  ['successfully saved checkpoint ', 'k'],
  ['saving checkpoint at iteration', 'k'],
  ["Job '", 'J'],
  ['Dressage proxy failed; see ', ';'],
  ['Dressage sync rollout produced no trainable samples', 'D'],
  ['[swegym-console] launcher exited with code ', 'xited '],
  // LAUNCHER_REFUSAL
  ['REPO_ROOT is required when', 'E'],
  [' must be 0 or 1; got', ';'],
  ['DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive', 'E'],
  ['DRESSAGE_PADDOCK_CLASS is required', 'E'],
  ['RESUME_CKPT_ROOT is required', 'E'],
  ['SGLANG_ROUTER_URL is a proxy client target', 'E'],
  ['Refusing to clear unsafe ', 'f'],
  // FATAL
  ['Traceback (most recent call last):', 'k'],
  ['DRESSAGE_PROXY_URL must', 'E'],
  ['PROMPT_DATA must point', 'D'],
  ['MODEL_ROOT must point', 'E'],
  ['MASTER_ADDR is required', 'E'],
  ['Missing Slime model config', 'f'],
  ['Missing Dressage default env file', 'D'],
  ['RAY_SSH_USER is required', 'E'],
  ['total actor GPUs (', 'U'],
  ['DRESSAGE_E2B_API_KEY is required', 'E'],
  ['unsupported DRESSAGE_SANDBOX_PROVIDER', 'E'],
  ["Reward function '", 'f'],
  ['Error', 'E'], // ray.exceptions.<Name>Error
  // NCCL hang signatures (classifyHang)
  ['Watchdog caught collective operation timeout', 'W'],
  ['Heartbeat monitor timed out', 'H'],
  ['watchdog got stuck for', ' stuck'],
  ['NCCL error', 'N'],
];

export function metricNumber(v: PyValue | undefined): number | undefined {
  return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : undefined;
}
