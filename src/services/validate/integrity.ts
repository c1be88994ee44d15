// The trajectory integrity scan of Dressage's stable SWE-Gym recipe (dressage/recipes/swegym/integrity.py), applied
// before a reward is reported: a tool call that reaches the task repository on the web (`invalid_tool_call`) or
// writes a pytest-sensitive path (`invalid_pytest_write`) zeroes the reward. The rules are Dressage's; they are
// checked side by side with integrity.py in tests/validate/integrity.upstream.test.ts.
//
// Dressage scans the trajectory its proxy recorded. `validate agent` may run against any compatible router, so it
// scans the agent's tool calls from Claude Code's stream-json log instead, converted to the same messages the
// Blackbox Server's claude_code adapter builds (assistant messages with `tool_calls: [{function: {name, arguments}}]`).
import { readFileSync, existsSync } from 'node:fs';
import { parsePyJson } from '../marker/pyjson.js';

export interface IntegrityViolation {
  segment_index: number;
  message_index: number;
  tool_index: number;
  tool: string;
  kind: 'invalid_tool_call' | 'invalid_pytest_write';
  reason: string;
  repo?: string;
  path?: string;
  snippet?: string;
}

export interface IntegrityResult {
  invalid_tool_call: boolean;
  invalid_pytest_write: boolean;
  violations: IntegrityViolation[];
}

/** The proxy's trajectory payload shape: `{data: [{messages: [...]}, …]}` (one entry per segment). */
export interface TrajectoryPayload {
  data?: { messages?: unknown[] }[] | null;
}

const WRITE_TOOLS = new Set(['edit', 'write', 'multiedit', 'multi_edit', 'apply_patch']);
const WEB_TOOL_PATTERNS = ['browser', 'web_search', 'websearch', 'search_query', 'open_url', 'fetch_url', 'webfetch', 'web_fetch'];
const PYTEST_CONFIG = new Set(['conftest.py', 'pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml']);
const NETWORK = [
  /\b(?:curl|wget)\b/i,
  /\bgit\s+(?:clone|fetch|pull|ls-remote|archive)\b/i,
  /\bgit\s+remote\s+add\b/i,
  /\bgh\s+(?:api|repo|pr|issue)\b/i,
  /\bpip(?:3)?\s+install\b.*(?:https?:\/\/|git\+https?:\/\/)/i,
  /\bpython(?:3)?\s+-m\s+pip\s+install\b.*(?:https?:\/\/|git\+https?:\/\/)/i,
];
const SHELL_WRITERS = ['sed -i', 'perl -pi', 'rm ', 'mv ', 'cp ', 'touch ', 'truncate '];
/** Python's str.split() whitespace (JS \s lacks \x1c–\x1f). */
const PY_WS = /[\s\x1c-\x1f]+/;

type Args = Record<string, unknown>;
const isObject = (v: unknown): v is Args => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Python truthiness of a JSON value. */
const truthy = (v: unknown) => !(v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0));
const pyStr = (v: unknown) => (typeof v === 'string' ? v : v === true ? 'True' : v === false ? 'False' : String(v));

/** Python's `json.dumps(value, ensure_ascii=False, sort_keys=True)`. */
function pyDumps(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : JSON.stringify(v);
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(', ')}]`;
  const keys = Object.keys(v as Args).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${JSON.stringify(k)}: ${pyDumps((v as Args)[k])}`).join(', ')}}`;
}

function snippet(text: string, limit = 320): string {
  const compact = text.split(PY_WS).filter(Boolean).join(' ');
  return compact.length <= limit ? compact : compact.slice(0, limit - 3) + '...';
}

function toolNameAndArgs(call: unknown): [string, unknown] {
  if (!isObject(call)) return ['', {}];
  const fn = call.function;
  let name: string;
  let raw: unknown;
  if (isObject(fn)) {
    name = truthy(fn.name) ? pyStr(fn.name) : truthy(call.name) ? pyStr(call.name) : '';
    raw = fn.arguments;
  } else {
    name = truthy(call.name) ? pyStr(call.name) : '';
    raw = call.arguments;
  }
  if (typeof raw === 'string') {
    const parsed = parsePyJson(raw);
    return [name, parsed.ok ? parsed.value : { _raw: raw }];
  }
  return [name, isObject(raw) ? raw : {}];
}

function commandOf(args: unknown): string {
  if (!isObject(args)) return '';
  const v = truthy(args.command) ? args.command : truthy(args.cmd) ? args.cmd : '';
  return pyStr(v);
}

export function shellFragments(command: string): string[] {
  return command
    .split(/\s*(?:&&|\|\||;|\n|\|)\s*/)
    .map((p) => p.trim())
    .filter(Boolean);
}

function repoWebText(tool: string, args: unknown): string {
  const name = tool.toLowerCase();
  if (name === 'bash') return shellFragments(commandOf(args)).filter((f) => NETWORK.some((re) => re.test(f))).join('\n');
  if (WEB_TOOL_PATTERNS.some((p) => name.includes(p))) return `${tool} ${pyDumps(args)}`;
  return '';
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

function repoPatterns(slug: string): RegExp[] {
  const e = escapeRe(slug);
  return [
    new RegExp(`https?://(?:www\\.)?github\\.com/${e}(?:[/?#.\\s"']|$)`),
    new RegExp(`git@github\\.com:${e}(?:\\.git)?(?:\\s|$)`),
    new RegExp(`https?://patch-diff\\.githubusercontent\\.com/raw/${e}(?:[/?#\\s"']|$)`),
    new RegExp(`https?://raw\\.githubusercontent\\.com/${e}(?:[/?#\\s"']|$)`),
    new RegExp(`https?://api\\.github\\.com/repos/${e}(?:[/?#\\s"']|$)`),
    new RegExp(`https?://codeload\\.github\\.com/${e}(?:[/?#\\s"']|$)`),
  ];
}

export function normalizeRepoSlug(value: string): string {
  let text = value.trim().toLowerCase();
  text = text.replace(/^https?:\/\/(?:www\.)?github\.com\//, '');
  if (text.endsWith('.git')) text = text.slice(0, -4);
  const m = /^([a-z0-9_.-]+)\/([a-z0-9_.-]+)(?:[/#?].*)?$/.exec(text);
  return m ? `${m[1]}/${m[2]}` : '';
}

function slugsFromFile(file: string): string[] {
  if (!existsSync(file)) return [];
  const out: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const text = line.trim();
    if (!text) continue;
    const parsed = parsePyJson(text);
    const row = parsed.ok ? parsed.value : text;
    let candidates: unknown[];
    if (isObject(row)) {
      const meta = isObject(row.metadata) ? row.metadata : {};
      candidates = [row.repo, row.repository, meta.repo, meta.repository];
    } else candidates = [row];
    for (const c of candidates) {
      const slug = normalizeRepoSlug(truthy(c) ? pyStr(c) : '');
      if (slug) out.push(slug);
    }
  }
  return out;
}

/** The repositories a tool call must not reach: the task's own (metadata) plus DRESSAGE_SWEGYM_BLOCKED_REPOS(_FILE). */
export function blockedRepoSlugs(metadata: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const slugs = new Set<string>();
  for (const item of (env.DRESSAGE_SWEGYM_BLOCKED_REPOS ?? '').split(',')) {
    const s = normalizeRepoSlug(item);
    if (s) slugs.add(s);
  }
  if (env.DRESSAGE_SWEGYM_BLOCKED_REPOS_FILE) for (const s of slugsFromFile(env.DRESSAGE_SWEGYM_BLOCKED_REPOS_FILE)) slugs.add(s);
  for (const key of ['repo', 'repository', 'github_repo', 'repo_full_name']) {
    const v = metadata[key];
    if (truthy(v)) {
      const s = normalizeRepoSlug(pyStr(v));
      if (s) slugs.add(s);
    }
  }
  return slugs;
}

export function isPytestSensitivePath(p: string): boolean {
  if (!p) return false;
  let n = p.replace(/\\/g, '/').trim().replace(/^["']+|["']+$/g, '');
  if (!n || n.startsWith('/tmp/')) return false;
  const tb = n.indexOf('/testbed/');
  if (tb >= 0) n = n.slice(tb + '/testbed/'.length);
  n = (n.split('::', 1)[0] as string).replace(/^[./]+/, '');
  const parts = n.split('/');
  const base = parts[parts.length - 1] as string;
  return PYTEST_CONFIG.has(base) || parts.includes('tests') || parts.includes('testing') || parts.includes('r2e_tests');
}

const all = (re: RegExp, text: string, group: number) => [...text.matchAll(re)].map((m) => m[group] as string);

function redirectPaths(command: string): string[] {
  return [...all(/(?:^|[^>])>>?\s*(['"]?)([^'"\s;&|()<>]+)\1/g, command, 2), ...all(/\btee(?:\s+-a)?\s+(['"]?)([^'"\s;&|()<>]+)\1/g, command, 2)];
}

function candidatePaths(text: string): string[] {
  return [
    ...all(/(\/testbed\/[^'"\s;&|()<>]+)/g, text, 1),
    ...all(/((?:tests|testing|r2e_tests)\/[^'"\s;&|()<>]+|[^'"\s;&|()<>]*test[^'"\s;&|()<>]*\.py|conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml)/g, text, 1),
  ];
}

function pythonWritePaths(command: string): string[] {
  return [
    ...all(/\bopen\s*\(\s*['"]([^'"]+)['"]\s*,\s*['"][wa+]/g, command, 1),
    ...all(/\b(?:unlink|remove|rename|replace)\s*\(\s*['"]([^'"]+)['"]/g, command, 1),
    ...all(/\bshutil\.(?:copy|copyfile|move|rmtree)\s*\(\s*['"]([^'"]+)['"]/g, command, 1),
    ...all(/['"]([^'"]+)['"]\s*\)\.write_(?:text|bytes)\s*\(/g, command, 1),
  ];
}

function shellWritePaths(command: string): string[] {
  const out: string[] = [];
  for (const f of shellFragments(command)) {
    const lower = f.toLowerCase();
    if (SHELL_WRITERS.some((w) => lower.includes(w))) out.push(...candidatePaths(f));
  }
  out.push(...pythonWritePaths(command));
  return out;
}

function pytestWritePathFromCommand(command: string): string {
  if (!command) return '';
  for (const p of redirectPaths(command)) if (isPytestSensitivePath(p)) return p;
  for (const p of shellWritePaths(command)) if (isPytestSensitivePath(p)) return p;
  return '';
}

function argumentPath(args: unknown): string {
  if (!isObject(args)) return '';
  for (const k of ['filePath', 'file_path', 'path', 'filepath']) if (truthy(args[k])) return pyStr(args[k]);
  return '';
}

/** `scan_trajectory_integrity(payload, metadata)` without the metadata writes: the flags and the violations. */
export function scanTrajectoryIntegrity(payload: TrajectoryPayload, metadata: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): IntegrityResult {
  const violations: IntegrityViolation[] = [];
  const slugs = [...blockedRepoSlugs(metadata, env)].sort();
  (payload.data ?? []).forEach((segment, si) => {
    const messages = (isObject(segment) && Array.isArray(segment.messages) ? segment.messages : []) as unknown[];
    messages.forEach((message, mi) => {
      if (!isObject(message) || message.role !== 'assistant') return;
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      calls.forEach((call, ti) => {
        const [name, args] = toolNameAndArgs(call);
        const at = { segment_index: si, message_index: mi, tool_index: ti, tool: name };
        if (slugs.length) {
          const text = repoWebText(name, args);
          if (text) {
            const lower = text.toLowerCase();
            const slug = slugs.find((s) => repoPatterns(s).some((re) => re.test(lower)));
            if (slug) violations.push({ ...at, kind: 'invalid_tool_call', reason: 'blocked_repo_web_access', repo: slug, snippet: snippet(text) });
          }
        }
        const lname = name.toLowerCase();
        if (WRITE_TOOLS.has(lname)) {
          const p = argumentPath(args);
          if (isPytestSensitivePath(p)) {
            violations.push({ ...at, kind: 'invalid_pytest_write', reason: 'write_tool_to_pytest_sensitive_path', path: p });
            return;
          }
        }
        if (lname === 'bash') {
          const command = commandOf(args);
          const p = pytestWritePathFromCommand(command);
          if (p) violations.push({ ...at, kind: 'invalid_pytest_write', reason: 'shell_write_to_pytest_sensitive_path', path: p, snippet: snippet(command) });
        }
      });
    });
  });
  return {
    invalid_tool_call: violations.some((v) => v.kind === 'invalid_tool_call'),
    invalid_pytest_write: violations.some((v) => v.kind === 'invalid_pytest_write'),
    violations,
  };
}

/** Whether the row is graded by the SWE-Gym harness marker (Dressage scans only those). */
export function usesSwegymIntegrity(metadata: Record<string, unknown>): boolean {
  return metadata.reward_fn === 'swegym_harness_marker';
}

/**
 * The agent's tool calls from Claude Code's stream-json log as one trajectory segment: each assistant event becomes
 * an assistant message whose tool_use blocks are tool_calls (name, input as JSON), as the claude_code adapter does.
 */
export function trajectoryFromStreamJson(text: string): TrajectoryPayload {
  const messages: unknown[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(ev) || !isObject(ev.message) || ev.type === 'result') continue;
    const msg = ev.message;
    if (msg.role !== undefined && msg.role !== 'assistant') continue;
    const content = Array.isArray(msg.content) ? msg.content : [];
    const tool_calls = content
      .filter((b): b is Args => isObject(b) && b.type === 'tool_use')
      .map((b, i) => ({ id: String(b.id ?? `call_${i}`), type: 'function', function: { name: String(b.name ?? 'tool'), arguments: typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {}) } }));
    messages.push({ role: 'assistant', ...(tool_calls.length ? { tool_calls } : {}) });
  }
  return { data: [{ messages }] };
}
