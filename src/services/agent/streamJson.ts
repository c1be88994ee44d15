// The one reader of Claude Code's `-p --output-format stream-json --verbose` log (claude_code.stdout.log in a
// Blackbox Server runtime), written from the real CLI's output (tests/fixtures/claude-code, recorded with 2.1.x):
// - one `assistant` event per content block: thinking, text and tool_use blocks of one reply share `message.id`
//   and repeat the same `usage`, whose `output_tokens` is a streaming placeholder; only `result` has real totals;
// - a failed API call ends with a synthetic assistant message (`model: "<synthetic>"`, top-level `error`) and a
//   `result` with `is_error: true`, `api_error_status` (subtype still `success`); `--max-turns` ends with
//   `subtype: "error_max_turns"` and `errors: [...]`; `num_turns` counts model turns + 1 there;
// - `system` events: `init`, `thinking_tokens`, `api_retry` (attempt, max_retries, retry_delay_ms, error_status),
//   `permission_denied`, `task_started`/`task_notification`;
// - tool results come as `user` events, one per result (parallel calls: one each, in completion order);
// - a process can print several `result` events (`result_index` 0, 1, …): with a background subagent (the Agent
//   tool's default) the main agent ends its turn, the subagent's `task_notification` starts another, and each
//   result's `usage` and `num_turns` cover only the main loop's calls since the previous result (the CLI's schema:
//   "MAIN AGENT LOOP ONLY", "per-turn"; `model_usage_since_last_result` "sum it over a conversation's results").
//   2.1.332 in -p mode holds a result back while a background task runs, so both come out at the end; the session's
//   totals here are the sum over all results. Dressage's Blackbox Server also appends one process per user turn
//   (`--resume`) to the same log.
// The events are read through the types of streamJsonWire.ts, held to the CLI's own message types (the Claude Agent
// SDK's SDKMessage) at compile time.
// The reader takes text as it grows (a live log, `tail -c` of one): a line cut at either end is skipped or kept
// for the next chunk, never thrown on.
import type { StreamEventView } from '../../state/types/agent.js';
import { count } from '../util/format.js';
import type { Loose, WireAssistant, WireAssistantBlock, WireEvent, WireResult, WireSystem, WireToolResult, WireUser } from './streamJsonWire.js';
export type { StreamEventView } from '../../state/types/agent.js';

export type AgentStatus = 'running' | 'success' | 'max_turns' | 'api_error' | 'error';

export interface ToolCallRecord {
  id: string;
  name: string;
  /** The input in one short line: the command, the file, the pattern. */
  arg: string;
  /** undefined while no result has come back. */
  is_error: boolean | undefined;
}

export interface ApiRetry {
  attempt: number;
  max_retries: number;
  error_status: number | null;
  retry_delay_ms: number;
  error?: string;
}

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
}

export interface StreamJsonProgress {
  status: AgentStatus;
  /** Distinct model responses (message ids), the synthetic error message excluded. */
  modelTurns: number;
  toolCalls: ToolCallRecord[];
  /** Live: one usage per distinct message (output_tokens are the stream's placeholders); final: the results' sum. */
  usage: { input_tokens: number; output_tokens: number };
  /** Prompt-cache tokens, counted apart from input_tokens (the API's cache_read/cache_creation_input_tokens). */
  cache: { read_input_tokens: number; creation_input_tokens: number };
  /** Every reply is covered by a result's totals (no reply seen since the last result). */
  usageFinal: boolean;
  /** `result` events seen (more than one with a background subagent or a resumed session). */
  results: number;
  /** Background tasks (subagents, background commands) started and not yet reported done (task_notification). */
  openTasks: number;
  /** The last result's queued_turn_count: more than 0 = another turn (and result) follows. */
  queuedTurns: number;
  apiRetries: ApiRetry[];
  apiErrorStatus: number | null;
  permissionDenials: PermissionDenial[];
  /** `Name: arg` of the last tool call. */
  lastTool: string | undefined;
  /** Why it ended badly, for people: `max turns (…)`, `API error 529 after 2 retries: …`. */
  cause: string | undefined;
  /** The result's text (the final answer, or the API error text). */
  resultText: string | undefined;
  numTurns: number | undefined;
  model: string | undefined;
  sessionId: string | undefined;
  /** Complete JSON lines seen, and lines that were not JSON (cut or foreign). */
  events: number;
  skipped: number;
}

const SYNTHETIC_MODEL = '<synthetic>';

/** Incremental reader: `push` text as the log grows, read `progress()` at any time. */
export class StreamJsonReader {
  private pending = '';
  private first = true;
  private readonly messages = new Map<string, { input: number; output: number }>();
  private readonly calls = new Map<string, ToolCallRecord>();
  private readonly tasks = new Set<string>();
  private anonymous = 0;
  /** Results' totals so far, and the live count of the replies since the last result. */
  private readonly settled = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, turns: 0 };
  private segment = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, replies: 0 };
  private retriesBeforeResult = 0;
  /** A result without totals (error_max_budget_usd) left its replies' live count standing. */
  private estimated = false;
  private readonly p: StreamJsonProgress = {
    status: 'running',
    modelTurns: 0,
    toolCalls: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    cache: { read_input_tokens: 0, creation_input_tokens: 0 },
    usageFinal: false,
    results: 0,
    openTasks: 0,
    queuedTurns: 0,
    apiRetries: [],
    apiErrorStatus: null,
    permissionDenials: [],
    lastTool: undefined,
    cause: undefined,
    resultText: undefined,
    numTurns: undefined,
    model: undefined,
    sessionId: undefined,
    events: 0,
    skipped: 0,
  };
  readonly views: StreamEventView[] = [];

  /** @param o.cutStart the text may begin mid-line (a `tail -c` of the log): a first line that is not JSON is skipped. */
  constructor(private readonly o: { cutStart?: boolean; keepViews?: number } = {}) {}

  push(chunk: string): this {
    const text = this.pending + chunk;
    const lines = text.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.line(line);
    return this;
  }

  /** The progress so far; a last line without its newline counts when it is already complete JSON. */
  progress(): StreamJsonProgress {
    if (this.pending.trim()) {
      const ev = parse(this.pending);
      if (ev !== undefined) {
        this.pending = '';
        this.apply(ev);
      }
    }
    return { ...this.p, toolCalls: this.p.toolCalls.map((c) => ({ ...c })), usage: { ...this.p.usage }, cache: { ...this.p.cache }, apiRetries: [...this.p.apiRetries], permissionDenials: [...this.p.permissionDenials] };
  }

  /** A line the caller could not hand over (too long to keep): counted as not read. */
  skip(): void {
    this.p.skipped++;
  }

  get finished(): boolean {
    return this.p.status !== 'running';
  }

  private line(line: string): void {
    const first = this.first;
    this.first = false;
    if (!line.trim()) return;
    const ev = parse(line);
    if (ev === undefined) {
      if (!(first && this.o.cutStart)) this.p.skipped++;
      return;
    }
    this.apply(ev);
  }

  private apply(e: Event): void {
    this.p.events++;
    if (typeof e.session_id === 'string') this.p.sessionId = e.session_id;
    if (e.type === 'assistant') this.assistant(e);
    else if (e.type === 'user') this.user(e);
    else if (e.type === 'system') this.system(e);
    else if (e.type === 'result') this.result(e);
    const view = summarizeEvent(e);
    if (!view) return;
    // The whole log knows what one line does not: how many retries came before an API error.
    if (e.type === 'result' && this.p.status !== 'success' && this.p.cause) view.text = `${this.p.cause} · num_turns=${e.num_turns ?? '?'}`;
    this.views.push(view);
    const keep = this.o.keepViews ?? 500;
    if (this.views.length > keep * 2) this.views.splice(0, this.views.length - keep);
  }

  private assistant(e: Loose<WireAssistant>): void {
    const m = e.message;
    if (!m || typeof m !== 'object') return;
    // Subagent (Task) messages carry the parent's tool_use id; the turn count is the main agent's, as num_turns is.
    if (e.parent_tool_use_id) return;
    if (m.model === SYNTHETIC_MODEL) return;
    if (typeof m.model === 'string') this.p.model = m.model;
    const id = typeof m.id === 'string' && m.id ? m.id : `#${++this.anonymous}`;
    if (!this.messages.has(id)) {
      const u = m.usage ?? {};
      this.messages.set(id, { input: num(u.input_tokens), output: num(u.output_tokens) });
      this.p.modelTurns = this.messages.size;
      this.segment.input += num(u.input_tokens);
      this.segment.output += num(u.output_tokens);
      this.segment.cacheRead += num(u.cache_read_input_tokens);
      this.segment.cacheCreation += num(u.cache_creation_input_tokens);
      this.segment.replies++;
      this.resumed();
    }
    for (const b of blocks(m.content)) {
      if (b?.type !== 'tool_use') continue;
      const callId = typeof b.id === 'string' ? b.id : `#call${this.calls.size + 1}`;
      if (this.calls.has(callId)) continue;
      const rec: ToolCallRecord = { id: callId, name: String(b.name ?? '?'), arg: shortInput(b.input), is_error: undefined };
      this.calls.set(callId, rec);
      this.p.toolCalls.push(rec);
      this.p.lastTool = `${rec.name}${rec.arg ? `: ${rec.arg}` : ''}`;
    }
  }

  /** A reply after a result: the session goes on (a background task's notification, the next resumed turn). */
  private resumed(): void {
    if (this.p.results === 0 || this.p.status === 'running') {
      this.showUsage();
      return;
    }
    this.p.status = 'running';
    this.p.cause = undefined;
    this.p.apiErrorStatus = null;
    this.showUsage();
  }

  private showUsage(): void {
    const s = this.settled;
    const g = this.segment;
    this.p.usage = { input_tokens: s.input + g.input, output_tokens: s.output + g.output };
    this.p.cache = { read_input_tokens: s.cacheRead + g.cacheRead, creation_input_tokens: s.cacheCreation + g.cacheCreation };
    this.p.usageFinal = this.p.results > 0 && g.replies === 0 && !this.estimated;
  }

  private user(e: Loose<WireUser>): void {
    if (e.parent_tool_use_id) return;
    for (const b of toolResults(e.message?.content)) {
      if (b?.type !== 'tool_result') continue;
      const rec = this.calls.get(String(b.tool_use_id));
      if (rec) rec.is_error = b.is_error === true;
    }
  }

  private system(e: Loose<WireSystem>): void {
    if (e.subtype === 'api_retry') {
      this.p.apiRetries.push({ attempt: num(e.attempt), max_retries: num(e.max_retries), error_status: typeof e.error_status === 'number' ? e.error_status : null, retry_delay_ms: num(e.retry_delay_ms), ...(typeof e.error === 'string' ? { error: e.error } : {}) });
    } else if (e.subtype === 'permission_denied' && typeof e.tool_use_id === 'string') {
      this.deny({ tool_name: String(e.tool_name ?? '?'), tool_use_id: e.tool_use_id });
    } else if (e.subtype === 'init' && typeof e.model === 'string') this.p.model ??= e.model;
    else if (e.subtype === 'task_started' && typeof e.task_id === 'string') this.tasks.add(e.task_id);
    else if (e.subtype === 'task_notification' && typeof e.task_id === 'string') this.tasks.delete(e.task_id);
    else if (e.subtype === 'background_tasks_changed' && Array.isArray(e.tasks)) {
      // The CLI's own list of what still runs in the background replaces what the start/notification pairs say.
      this.tasks.clear();
      for (const t of e.tasks ?? []) if (typeof t?.task_id === 'string') this.tasks.add(t.task_id);
    }
    this.p.openTasks = this.tasks.size;
  }

  private deny(d: PermissionDenial): void {
    if (!this.p.permissionDenials.some((x) => x.tool_use_id === d.tool_use_id)) this.p.permissionDenials.push(d);
  }

  private result(e: Loose<WireResult>): void {
    const u = e.usage;
    // A result's totals replace the live count of the replies since the previous result, except when they are all
    // zero after replies were seen: the CLI's error_max_budget_usd result carries an empty usage (its total_cost_usd
    // still counts the reply).
    const g = this.segment;
    const final = u && typeof u === 'object' ? { input: num(u.input_tokens), output: num(u.output_tokens), cacheRead: num(u.cache_read_input_tokens), cacheCreation: num(u.cache_creation_input_tokens) } : undefined;
    const use = final && (final.input > 0 || final.output > 0 || g.input === 0) ? final : g;
    if (use === g && g.replies > 0) this.estimated = true;
    this.settled.input += use.input;
    this.settled.output += use.output;
    this.settled.cacheRead += use.cacheRead;
    this.settled.cacheCreation += use.cacheCreation;
    this.segment = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, replies: 0 };
    this.p.results++;
    this.p.queuedTurns = num(e.queued_turn_count);
    this.showUsage();
    if (typeof e.num_turns === 'number') {
      this.settled.turns += e.num_turns;
      this.p.numTurns = this.settled.turns;
    }
    if ('result' in e && typeof e.result === 'string') this.p.resultText = e.result;
    for (const d of Array.isArray(e.permission_denials) ? e.permission_denials : []) {
      if (d && typeof d.tool_use_id === 'string') this.deny({ tool_name: String(d.tool_name ?? '?'), tool_use_id: d.tool_use_id });
    }
    // The retries reported since the previous result are this one's.
    const end = ending(e, this.p.apiRetries.length - this.retriesBeforeResult);
    this.retriesBeforeResult = this.p.apiRetries.length;
    this.p.apiErrorStatus = end.apiErrorStatus;
    this.p.status = end.status;
    this.p.cause = end.cause;
  }
}

/** How a `result` event ends the run: status, api_error_status, the cause in words. */
function ending(e: Loose<WireResult>, retries?: number): { status: AgentStatus; apiErrorStatus: number | null; cause: string | undefined; resultText: string | undefined } {
  const errors: string[] = 'errors' in e && Array.isArray(e.errors) ? e.errors.map(String) : [];
  const apiErrorStatus = 'api_error_status' in e && typeof e.api_error_status === 'number' ? e.api_error_status : null;
  const resultText = 'result' in e && typeof e.result === 'string' ? e.result : undefined;
  if (e.subtype === 'error_max_turns') return { status: 'max_turns', apiErrorStatus, resultText, cause: `max turns${errors.length ? ` (${errors.join('; ')})` : ''}` };
  if (e.is_error === true && (apiErrorStatus !== null || e.terminal_reason === 'api_error')) {
    // No api_retry event is no proof of no retry: the CLI does not report every attempt (a status it does not retry,
    // CLAUDE_CODE_MAX_RETRIES=0, retries a proxy made); the log cannot say how many HTTP attempts were made.
    const after = retries === undefined ? '' : retries === 0 ? ' (the log reports no retries; attempts it does not report are unknown)' : ` after ${retries} ${retries === 1 ? 'retry' : 'retries'}`;
    return { status: 'api_error', apiErrorStatus, resultText, cause: `API error${apiErrorStatus !== null ? ` ${apiErrorStatus}` : ''}${after}${resultText ? `: ${firstLine(resultText)}` : ''}` };
  }
  if (e.is_error === true || (typeof e.subtype === 'string' && e.subtype.startsWith('error'))) {
    return { status: 'error', apiErrorStatus, resultText, cause: `${e.subtype ?? 'error'}${errors.length ? ` (${errors.join('; ')})` : resultText ? `: ${firstLine(resultText)}` : ''}` };
  }
  return { status: 'success', apiErrorStatus, resultText, cause: undefined };
}

/** The whole text at once (a finished log, or a snapshot of a live one). */
export function readStreamJson(text: string, o: { cutStart?: boolean } = {}): StreamJsonProgress {
  return new StreamJsonReader(o).push(text).progress();
}

/** The `--json` shape of `agent-log`: exactly these keys. */
export function progressJson(p: StreamJsonProgress) {
  return {
    status: p.status,
    model_turns: p.modelTurns,
    tool_calls: p.toolCalls.map((c) => ({ name: c.name, is_error: c.is_error ?? null })),
    usage: { input_tokens: p.usage.input_tokens, output_tokens: p.usage.output_tokens, cache_read_input_tokens: p.cache.read_input_tokens, cache_creation_input_tokens: p.cache.creation_input_tokens },
    results: p.results,
    api_retries: p.apiRetries.length,
    api_error_status: p.apiErrorStatus,
    permission_denials: p.permissionDenials.length,
    last_tool: p.lastTool ?? null,
  };
}

/** Tokens as agent-log and the drill-in say them: input, the prompt cache's tokens beside it (the API counts them
 * apart from input_tokens), output. */
/** The counts line of a session, worded once for `agent-log` and the dashboard's drill-in: `4 model turns · 2 tool calls (1 failed) · tokens …`. */
export function countsText(p: StreamJsonProgress): string {
  const errors = p.toolCalls.filter((c) => c.is_error).length;
  return `${count(p.modelTurns, 'model turn')} · ${count(p.toolCalls.length, 'tool call')}${errors ? ` (${errors} failed)` : ''} · ${tokensText(p)}`;
}

export function tokensText(p: Pick<StreamJsonProgress, 'usage' | 'cache' | 'usageFinal'>): string {
  const cache = p.cache.read_input_tokens || p.cache.creation_input_tokens ? ` (+ cache read ${p.cache.read_input_tokens}, cache creation ${p.cache.creation_input_tokens})` : '';
  return `tokens in ${p.usage.input_tokens}${cache} out ${p.usage.output_tokens}${p.usageFinal ? '' : ' (so far; output is counted at each result)'}`;
}

/** One line of the log summarised for the drill-in; undefined when it is not a JSON event. */
export function summarizeStreamEvent(line: string): StreamEventView | undefined {
  const e = parse(line);
  return e === undefined ? undefined : summarizeEvent(e);
}

function summarizeEvent(e: Event): StreamEventView | undefined {
  const type = String(e.type ?? '?');
  if (e.type === 'assistant') {
    if (e.message?.model === SYNTHETIC_MODEL) return { type: 'api_error', text: oneLine(contentText(e.message?.content)), tone: 'error' };
    const tools: string[] = [];
    const parts = blocks(e.message?.content).map((b) => {
      if (b?.type === 'tool_use') {
        const t = `${b.name}(${shortInput(b.input)})`;
        tools.push(t);
        return t;
      }
      // Kept views are bounded: a ~300 KB final answer is shown by its head (the result holds it whole).
      if (b?.type === 'text') return clip(oneLine(String(b.text ?? '')), VIEW_TEXT_MAX);
      if (b?.type === 'thinking') return '(thinking)';
      return '';
    });
    return { type, text: parts.filter(Boolean).join(' · '), tools };
  }
  if (e.type === 'user') {
    const r = toolResults(e.message?.content).find((b) => b?.type === 'tool_result');
    if (r) return { type: 'tool_result', text: `${r.is_error ? 'error: ' : ''}${oneLine(contentText(r.content)).slice(0, 200)}`, ...(r.is_error ? { tone: 'warn' as const } : {}) };
    return { type, text: '' };
  }
  if (e.type === 'result') {
    const r = ending(e);
    const turns = `num_turns=${e.num_turns ?? '?'}`;
    if (r.status === 'success') return { type, text: `success · ${turns}${r.resultText ? ` · ${oneLine(r.resultText).slice(0, 160)}` : ''}`, tone: 'ok' };
    const cause = r.status === 'api_error' ? `API error ${r.apiErrorStatus ?? ''}`.trim() : (r.cause ?? r.status);
    return { type, text: `${cause} · ${turns}${r.status === 'api_error' && r.resultText ? ` · ${oneLine(r.resultText).slice(0, 160)}` : ''}`, tone: 'error' };
  }
  if (e.type === 'system') {
    if (e.subtype === 'api_retry') return { type: 'api_retry', text: `API retry ${e.attempt ?? '?'}/${e.max_retries ?? '?'}: ${e.error_status ?? 'no response'}${e.error ? ` ${e.error}` : ''}, next in ${Math.round(num(e.retry_delay_ms) / 100) / 10} s`, tone: 'warn' };
    if (e.subtype === 'permission_denied') return { type: 'permission_denied', text: `${e.tool_name ?? '?'} denied${e.message ? `: ${oneLine(String(e.message)).slice(0, 160)}` : ''}`, tone: 'warn' };
    return { type, text: String(e.subtype ?? '') };
  }
  return { type, text: '' };
}

/** A parsed line: one of the events the reader knows (read through their declared fields only), or another JSON
 * object (another `type`, or `system` with another `subtype`) that only counts. */
type Event = Loose<WireEvent>;

function parse(line: string): Event | undefined {
  const t = line.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Event) : undefined;
  } catch {
    return undefined;
  }
}

/** An assistant reply's content blocks, as the kinds the reader looks into (any other `type` is passed over). */
const blocks = (content: unknown): readonly (Loose<WireAssistantBlock> | null | undefined)[] => (Array.isArray(content) ? content : []);
/** A user event's content as blocks (a plain string prompt has none); tool_result ones are the reader's. */
const toolResults = (content: unknown): readonly (Loose<WireToolResult> | null | undefined)[] => (Array.isArray(content) ? content : []);

const VIEW_TEXT_MAX = 4000;
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const firstLine = (s: string) => (s.split('\n')[0] ?? '').trim().slice(0, 200);

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join(' ');
  return '';
}

/** A tool call's input in one short line: the command, the file, the pattern; lists and objects summarised. */
export function shortInput(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const o = input as Record<string, unknown>;
  return oneLine(summariseInput(o)).slice(0, 120);
}

function summariseInput(o: Record<string, unknown>): string {
  // TodoWrite: the list's size and the item being worked on.
  if (Array.isArray(o['todos'])) {
    const todos = o['todos'] as any[];
    const doing = todos.find((t) => t?.status === 'in_progress') ?? todos[0];
    const done = todos.filter((t) => t?.status === 'completed').length;
    return `${todos.length} ${todos.length === 1 ? 'todo' : 'todos'}${done ? `, ${done} done` : ''}${doing ? `; ${doing.status === 'in_progress' ? 'doing' : 'first'}: ${String(doing.content ?? doing.activeForm ?? '')}` : ''}`;
  }
  // MultiEdit (and any call naming a file with a list of edits): the file and how many edits.
  const edits = Array.isArray(o['edits']) ? ` (${o['edits'].length} ${o['edits'].length === 1 ? 'edit' : 'edits'})` : '';
  // Grep and Glob: the pattern says more than the folder searched.
  for (const key of ['command', 'file_path', 'notebook_path', 'pattern', 'path', 'url', 'query', 'description', 'prompt']) {
    const v = o[key];
    if (typeof v === 'string' && v.trim()) return `${v}${edits}`;
  }
  const text = Object.values(o).find((v) => typeof v === 'string' && v.trim());
  if (typeof text === 'string') return `${text}${edits}`;
  const [key, value] = Object.entries(o)[0] ?? [];
  return key === undefined ? '' : `${key}: ${structured(value) ?? String(value)}`;
}

/** A list or object in words: `3 items: a, b, …`, `{a, b}`; undefined for a plain value. */
function structured(v: unknown): string | undefined {
  if (Array.isArray(v)) {
    const names = v.slice(0, 3).map((x) => (x && typeof x === 'object' ? String(Object.values(x).find((y) => typeof y === 'string') ?? '{…}') : String(x)));
    return `${v.length} ${v.length === 1 ? 'item' : 'items'}${names.length ? `: ${names.join(', ')}${v.length > 3 ? ', …' : ''}` : ''}`;
  }
  if (v && typeof v === 'object') return `{${Object.keys(v).slice(0, 4).join(', ')}${Object.keys(v).length > 4 ? ', …' : ''}}`;
  return undefined;
}
