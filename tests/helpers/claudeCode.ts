// The real Claude Code CLI (@anthropic-ai/claude-code, a dev dependency) run offline against the scripted Anthropic
// server (tests/fakes/anthropicServer.ts), the way Dressage's Blackbox Server starts it (`-p PROMPT --output-format
// stream-json --verbose --model M --max-turns N --permission-mode P --settings FILE --setting-sources user`, HOME in
// the runtime dir). Each scenario is one recorded transcript in tests/fixtures/claude-code/<name>.jsonl, stored
// normalised (session ids, uuids, timestamps, timings and temp paths replaced) so that a re-recording compares equal
// unless the CLI changed: `npm run record:claude-code` rewrites them, tests/agent/recordings.shipped.test.ts diffs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apiError, brokenStream, startAnthropicServer, text, toolUse, type RecordedRequest, type Step } from '../fakes/anthropicServer.js';

export const FIXTURE_DIR = path.resolve('tests/fixtures/claude-code');
export const SCRIPTED_MODEL = 'claude-sonnet-4-5';
const CLI = path.resolve('node_modules/.bin/claude');

/** The CLI's path and version when it is installed and runs here, else undefined (tests skip, saying so). */
export function claudeCodeCli(): { bin: string; version: string } | undefined {
  if (!fs.existsSync(CLI)) return undefined;
  const r = spawnSync(CLI, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return r.status === 0 ? { bin: CLI, version: r.stdout.trim() } : undefined;
}

export interface Scenario {
  /** What the transcript shows. */
  about: string;
  script: Step[];
  maxTurns: number;
  permissionMode: 'default' | 'acceptEdits' | 'dontAsk';
  /** Tools the settings allow without asking (Dressage allows Bash/Read/Edit/Write/Glob/Grep…). */
  allow: string[];
  env?: Record<string, string>;
  /** More CLI flags (after Dressage's). */
  args?: string[];
  /**
   * Scripts for a subagent's requests (the scripted server's lanes), by a text of its prompt. `afterOutput`: the
   * lane is answered once the CLI's stdout holds this text (the recorded order of the two agents' events).
   */
  lanes?: { match: string; script: Step[]; afterOutput?: string }[];
  /** The settings' deny list (default: the Agent tool, as Dressage's settings). */
  deny?: string[];
  /** SIGKILL the CLI once this many stdout bytes came and the last chunk ended mid-line; keep what came until then. */
  killMidLineAfterBytes?: number;
  /** The transcript differs run to run (a kill's timing): recorded, not compared with a re-run. */
  notReproducible?: string;
}

// The allow list of Dressage's settings, less the tools this CLI version no longer has (Glob, Grep).
const DRESSAGE_ALLOW = ['Bash(*)', 'Read(*)', 'Edit(*)', 'Write(*)'];
const BUGGY = 'def add(a, b):\n    return a - b\n';
const FIXED = 'def add(a, b):\n    return a + b\n';
const TEST = 'from calc import add\nassert add(2, 3) == 5, add(2, 3)\nprint("ok")\n';

export const SCENARIOS: Record<string, Scenario> = {
  'success-parallel-tools': {
    about: 'a fix: thinking + text + two parallel tool calls in one reply, an edit, a test run, a final answer',
    script: [
      toolUse([{ name: 'Read', input: { file_path: '{cwd}/calc.py' } }, { name: 'Bash', input: { command: 'python3 -c "import calc; print(calc.add(2, 3))"', description: 'Try add(2, 3)' } }], { thinking: 'The add function looks wrong; read it and try it.', text: 'Let me look at calc.py.' }),
      toolUse([{ name: 'Edit', input: { file_path: '{cwd}/calc.py', old_string: 'return a - b', new_string: 'return a + b' } }]),
      toolUse([{ name: 'Bash', input: { command: 'python3 test_calc.py', description: 'Run the test' } }]),
      text('Fixed: add() subtracted instead of adding; test_calc.py passes.'),
    ],
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
    // The first Bash imports calc (writing __pycache__), and the edit keeps calc.py's size: within the same second
    // Python would reuse the stale .pyc and the test run would fail, depending on the machine's speed.
    env: { PYTHONDONTWRITEBYTECODE: '1' },
  },
  'max-turns': {
    about: '--max-turns 2 reached while the model still calls tools',
    script: [1, 2, 3, 4].map((n) => toolUse([{ name: 'Bash', input: { command: `echo step ${n}`, description: `Step ${n}` } }])),
    maxTurns: 2,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
  },
  'api-529-exhausted': {
    about: 'one tool call, then 529 overloaded on every retry (CLAUDE_CODE_MAX_RETRIES=2): the API error ending',
    script: [toolUse([{ name: 'Bash', input: { command: 'ls', description: 'List files' } }]), apiError(529, 20)],
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
    env: { CLAUDE_CODE_MAX_RETRIES: '2' },
  },
  'api-500-recovered': {
    about: '500 api_error twice, retried, then the reply: a success with retries',
    script: [apiError(500, 2), toolUse([{ name: 'Read', input: { file_path: '{cwd}/calc.py' } }]), text('calc.py subtracts; add() should add.')],
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
    env: { CLAUDE_CODE_MAX_RETRIES: '4' },
  },
  'broken-stream': {
    about: 'the stream is cut after one content block (no message_stop); the CLI drops the partial reply, retries and gets it',
    script: [brokenStream([{ type: 'text', text: 'Reading the file.' }, { type: 'tool_use', name: 'Read', input: { file_path: '{cwd}/calc.py' } }], 1), text('Read it.')],
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
  },
  'max-budget': {
    about: '--max-budget-usd below the cost of the first reply: the generic error ending (subtype error_max_budget_usd)',
    script: [1, 2, 3].map((n) => toolUse([{ name: 'Bash', input: { command: `echo step ${n}`, description: `Step ${n}` } }])),
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
    args: ['--max-budget-usd', '0.001'],
  },
  'permission-denied': {
    about: 'permission mode default with only Read allowed: the Bash call is denied (is_error result + permission_denials)',
    script: [toolUse([{ name: 'Bash', input: { command: 'rm -rf build', description: 'Remove build' } }]), text('I could not run the command.')],
    maxTurns: 10,
    permissionMode: 'default',
    allow: ['Read(*)'],
  },
};

/** A reply with the usage the server reports for it (prompt-cache tokens). */
const withUsage = (step: Step, usage: NonNullable<Extract<Step, { kind: 'reply' }>['usage']>): Step => (step.kind === 'reply' ? { ...step, usage } : step);

// A long final answer (the last line of its log is ~300 KB): deterministic text, a line per finding.
const LONG_ANSWER = Array.from({ length: 3300 }, (_, i) => `Finding ${String(i + 1).padStart(4, '0')}: add() in calc.py returns a - b where the test expects a + b; checked case ${i}.`).join('\n');
// Big tool inputs, so that a log passes 2 MB in a few turns (each Write's content is in its assistant event).
const BIG_CONTENT = (n: number) => Array.from({ length: 2500 }, (_, i) => `# block ${n}.${i}: ${'pad '.repeat(20)}`).join('\n');

Object.assign(SCENARIOS, {
  'long-last-line': {
    about: 'a success whose final answer is ~300 KB: the result event (the last line) is longer than any tail window',
    script: [toolUse([{ name: 'Read', input: { file_path: '{cwd}/calc.py' } }]), text(LONG_ANSWER)],
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
  },
  'structured-inputs': {
    about: 'tool calls whose first input is a list or object: TodoWrite (enabled by CLAUDE_CODE_ENABLE_TASKS=false), MultiEdit (a tool 2.1.332 no longer has: refused), an Edit; replies with prompt-cache tokens',
    script: [
      withUsage(toolUse([{ name: 'TodoWrite', input: { todos: [{ content: 'Read calc.py', status: 'completed', activeForm: 'Reading calc.py' }, { content: 'Fix add()', status: 'in_progress', activeForm: 'Fixing add()' }, { content: 'Run the test', status: 'pending', activeForm: 'Running the test' }] } }]), { input_tokens: 1200, cache_creation_input_tokens: 4000, cache_read_input_tokens: 0 }),
      withUsage(toolUse([{ name: 'MultiEdit', input: { file_path: '{cwd}/calc.py', edits: [{ old_string: 'return a - b', new_string: 'return a + b' }, { old_string: 'def add', new_string: 'def add' }] } }]), { input_tokens: 300, cache_read_input_tokens: 4000, cache_creation_input_tokens: 200 }),
      withUsage(toolUse([{ name: 'Edit', input: { file_path: '{cwd}/calc.py', old_string: 'return a - b', new_string: 'return a + b' } }]), { input_tokens: 250, cache_read_input_tokens: 4200, cache_creation_input_tokens: 150 }),
      withUsage(text('Fixed add(); MultiEdit is not available, Edit did it.'), { input_tokens: 200, cache_read_input_tokens: 4350, cache_creation_input_tokens: 100 }),
    ],
    maxTurns: 10,
    permissionMode: 'default',
    allow: [...DRESSAGE_ALLOW, 'TodoWrite(*)'],
    env: { CLAUDE_CODE_ENABLE_TASKS: 'false' },
  },
  'two-results': {
    about: 'a background subagent (the Agent tool\'s default): the main agent ends its turn, the subagent reports, a second turn: two result events',
    script: [
      toolUse([{ name: 'Agent', input: { description: 'Check calc', prompt: 'Read calc.py and report what add() does', subagent_type: 'general-purpose', run_in_background: true } }]),
      text('Started a background agent to check calc.py.'),
      toolUse([{ name: 'Edit', input: { file_path: '{cwd}/calc.py', old_string: 'return a - b', new_string: 'return a + b' } }]),
      text('The agent found the bug; add() is fixed.'),
    ],
    // The subagent works for a second (a slow command), so the main agent's first turn ends before it reports.
    lanes: [{ match: 'Read calc.py and report what add() does', afterOutput: 'Started a background agent to check calc.py.', script: [toolUse([{ name: 'Bash', input: { command: 'sleep 1; cat calc.py', description: 'Read calc.py' } }]), text('add() returns a - b.')] }],
    maxTurns: 10,
    permissionMode: 'default',
    allow: [...DRESSAGE_ALLOW, 'Agent(*)'],
    deny: [],
  },
  'api-500-no-retries': {
    about: 'a 500 with CLAUDE_CODE_MAX_RETRIES=0: the API error ending after one HTTP attempt, and no api_retry event',
    script: [toolUse([{ name: 'Bash', input: { command: 'ls', description: 'List files' } }]), apiError(500, 5)],
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
    env: { CLAUDE_CODE_MAX_RETRIES: '0' },
  },
  'api-429-exhausted': {
    about: '429 rate_limit_error on every attempt (CLAUDE_CODE_MAX_RETRIES=1): the API error ending after one retry',
    script: [apiError(429, 5)],
    maxTurns: 10,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
    env: { CLAUDE_CODE_MAX_RETRIES: '1' },
  },
  'killed-mid-line': {
    about: 'a log past 2 MB (big Write inputs) whose CLI is killed with SIGKILL while a line is half-written: no result, a cut last line',
    script: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => toolUse([{ name: 'Write', input: { file_path: `{cwd}/notes_${n}.txt`, content: BIG_CONTENT(n) } }])),
    maxTurns: 20,
    permissionMode: 'default',
    allow: DRESSAGE_ALLOW,
    killMidLineAfterBytes: 2_200_000,
    notReproducible: 'where the kill cuts depends on how the pipe split the output',
  },
} satisfies Record<string, Scenario>);

const PROMPT = 'Fix the bug in calc.py so that test_calc.py passes.';

/** Runs one scenario with the real CLI in a fresh temp project; returns its raw stdout and the paths to normalise. */
export async function runScenario(name: string, o: { timeoutMs?: number; /** Another CLI binary (default: the pinned one). */ cli?: string } = {}): Promise<{ raw: string; stderr: string; code: number | null; cwd: string; home: string; api: string; requests: RecordedRequest[] }> {
  const sc = SCENARIOS[name];
  if (!sc) throw new Error(`unknown scenario ${name}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `cc-${name}-`));
  const cwd = path.join(root, 'testbed');
  const home = path.join(root, 'home');
  fs.mkdirSync(cwd);
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(cwd, 'calc.py'), BUGGY);
  fs.writeFileSync(path.join(cwd, 'test_calc.py'), TEST);
  const settings = path.join(root, 'settings.json');
  fs.writeFileSync(settings, JSON.stringify({ permissions: { allow: sc.allow, deny: sc.deny ?? ['Agent'] }, env: {} }));
  const script = JSON.parse(JSON.stringify(sc.script).replaceAll('{cwd}', cwd)) as Step[];
  const lanes = sc.lanes ? (JSON.parse(JSON.stringify(sc.lanes).replaceAll('{cwd}', cwd)) as Scenario['lanes']) : undefined;
  // What the CLI has printed so far, and the lanes waiting for a text of it.
  let raw = '';
  const waiting: { text: string; release: () => void }[] = [];
  const printed = (text: string) => new Promise<void>((release) => waiting.push({ text, release }));
  const api = await startAnthropicServer({ script, model: SCRIPTED_MODEL, lanes: lanes?.map((l) => ({ ...l, hold: l.afterOutput ? printed(l.afterOutput) : undefined })) });
  try {
    const args = ['-p', PROMPT, '--output-format', 'stream-json', '--verbose', '--model', SCRIPTED_MODEL, '--max-turns', String(sc.maxTurns), '--permission-mode', sc.permissionMode, '--settings', settings, '--setting-sources', 'user', ...(sc.args ?? [])];
    const env = claudeCodeEnv({ baseUrl: api.url, home, extra: sc.env });
    const child = spawn(o.cli ?? CLI, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (killed) return;
      raw += d;
      for (const w of waiting.filter((w) => raw.includes(w.text))) {
        w.release();
        waiting.splice(waiting.indexOf(w), 1);
      }
      // kill -9 mid-line: what the log holds is what the pipe had delivered when the process died.
      if (sc.killMidLineAfterBytes !== undefined && Buffer.byteLength(raw) >= sc.killMidLineAfterBytes && !raw.endsWith('\n')) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 120_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(timer);
    if (name === 'success-parallel-tools' && fs.readFileSync(path.join(cwd, 'calc.py'), 'utf8') !== FIXED) stderr += '\n(calc.py was not fixed)';
    return { raw, stderr, code, cwd, home, api: new URL(api.url).host, requests: api.requests };
  } finally {
    await api.close();
  }
}

/** The environment Dressage's adapter gives the CLI, offline: nothing inherited that could reach a real account. */
export function claudeCodeEnv(o: { baseUrl: string; home: string; extra?: Record<string, string> }): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.home,
    CLAUDE_CONFIG_DIR: path.join(o.home, '.claude'),
    ANTHROPIC_BASE_URL: o.baseUrl,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_PROMPT_CACHING: '1',
    ...o.extra,
  };
}


/** Replaces what differs between two runs of the same scenario; keeps everything else byte for byte. */
export function normaliseTranscript(raw: string, o: { cwd: string; home: string; api: string }): string {
  // A log cut mid-line (a killed writer) keeps its cut: the last line stays as it came, with no newline added.
  const cut = raw.length > 0 && !raw.endsWith('\n');
  const whole = cut ? raw.slice(0, raw.lastIndexOf('\n') + 1) : raw;
  const partial = cut ? raw.slice(raw.lastIndexOf('\n') + 1) : '';
  // Background tasks' ids (task, agent, run) and the session id also appear inside texts and paths: numbered by
  // first appearance, so a re-run compares equal.
  const ids = new Map<string, string>();
  for (const [kind, re] of [['task', /"(?:task_id|agent_id|agentId)":"([^"<]+)"/g], ['run', /"(?:run_id|runId)":"([^"<]+)"/g]] as const) {
    for (const m of raw.matchAll(re)) if (m[1] && !ids.has(m[1])) ids.set(m[1], `<${kind}-${[...ids.values()].filter((v) => v.startsWith(`<${kind}-`)).length + 1}>`);
  }
  const session = /"session_id":"([^"<]+)"/.exec(raw)?.[1];
  const events = whole
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      // The CLI names a project's folder after its path with every other character as '-'.
      const slug = o.cwd.replace(/[^A-Za-z0-9]/g, '-');
      let t = l;
      for (const [id, name] of ids) t = t.replaceAll(id, name);
      if (session && ids.size) t = t.replaceAll(session, '<session>');
      t = t.replace(/\/tmp\/claude-\d+\//g, '<tmp-claude>/');
      const s = t.replaceAll(o.cwd, '<cwd>').replaceAll(o.home, '<home>').replaceAll(path.dirname(o.cwd), '<root>').replaceAll(slug, '<cwd-slug>').replaceAll(o.api, '<api>');
      try {
        return scrub(JSON.parse(s));
      } catch {
        return s;
      }
    });
  // Parallel tool results arrive in completion order; sort each run of them by tool_use_id (call order).
  for (let i = 0; i < events.length; i++) {
    let j = i;
    while (j < events.length && isToolResult(events[j])) j++;
    if (j - i > 1) events.splice(i, j - i, ...events.slice(i, j).sort((a, b) => toolResultId(a).localeCompare(toolResultId(b))));
    i = j;
  }
  const text = events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n') + '\n';
  return cut ? text + partial.replaceAll(o.cwd, '<cwd>').replaceAll(o.home, '<home>').replaceAll(path.dirname(o.cwd), '<root>') : text;
}

function scrub(v: any, key = ''): any {
  if (Array.isArray(v)) return v.map((x) => scrub(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x, k)]));
  if (key === 'session_id' && typeof v === 'string') return '<session>';
  if ((key === 'uuid' || key === 'parent_uuid') && typeof v === 'string') return '<uuid>';
  // 2.1.333 stamps events with the time they were written.
  if ((key === 'timestamp' || key === 'written_at') && typeof v === 'string') return '<ts>';
  if (key === 'end_time' && typeof v === 'number') return 0;
  if (key === 'messaging_socket_path' && typeof v === 'string') return '<socket>';
  // Timings (duration_ms, ttft_ms, retry_delay_ms with its jitter, …).
  if (key.endsWith('_ms') && typeof v === 'number') return 0;
  if (key === 'id' && typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(v)) return '<uuid>';
  return v;
}

const isToolResult = (e: any) => e?.type === 'user' && Array.isArray(e.message?.content) && e.message.content[0]?.type === 'tool_result';
const toolResultId = (e: any) => String(e.message.content[0].tool_use_id);

/** What changed between two normalised transcripts, event by event and field by field (for a CLI upgrade). */
export function describeTranscriptDiff(before: string, after: string, max = 20): string[] {
  const a = before.trim().split('\n');
  const b = after.trim().split('\n');
  const out: string[] = [];
  if (a.length !== b.length) out.push(`events: ${a.length} recorded, ${b.length} now`);
  for (let i = 0; i < Math.max(a.length, b.length) && out.length < max; i++) {
    if (a[i] === b[i]) continue;
    const x = parseOr(a[i]);
    const y = parseOr(b[i]);
    const label = `event ${i + 1} (${eventKind(y ?? x)})`;
    if (x === undefined || y === undefined) out.push(`${label}: ${x === undefined ? 'added' : 'removed'}`);
    else for (const p of leafDiffs(x, y, '')) if (out.length < max) out.push(`${label} ${p}`);
  }
  return out;
}

const parseOr = (l: string | undefined) => {
  if (l === undefined) return undefined;
  try {
    return JSON.parse(l);
  } catch {
    return l;
  }
};
const eventKind = (e: any) => (e && typeof e === 'object' ? [e.type, e.subtype].filter(Boolean).join('/') : 'text');
const short = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

function leafDiffs(x: any, y: any, at: string): string[] {
  if (x && y && typeof x === 'object' && typeof y === 'object' && Array.isArray(x) === Array.isArray(y)) {
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
    return keys.flatMap((k) => leafDiffs(x[k], y[k], `${at}.${k}`));
  }
  return JSON.stringify(x) === JSON.stringify(y) ? [] : [`${at || '.'}: ${short(x)} → ${short(y)}`];
}

/** The newest Claude Code CLI on npm, fetched into a cache (or why not). @anthropic-ai/claude-code's `latest`, or a
 * newer build inside the Claude Agent SDK's latest (its native binary, the same CLI: `claudeCodeVersion`), whichever
 * is newer; SWEGYM_CLAUDE_CODE_NEWEST=VERSION asks for that @anthropic-ai/claude-code version instead. The binary comes
 * from the platform package (`npm pack`, the npm registry) into SWEGYM_CLAUDE_CODE_CACHE (default
 * ~/.cache/swegym-console/claude-code/VERSION/claude) and is reused from there. */
export type NewestCli =
  | { kind: 'pinned'; version: string; why: string }
  | { kind: 'other'; version: string; bin: string; from: string }
  | { kind: 'unavailable'; why: string };

export function newestClaudeCode(pinned: string, o: { cacheDir?: string; timeoutMs?: number } = {}): NewestCli {
  const platform = platformPackageSuffix();
  if (!platform) return { kind: 'unavailable', why: `no Claude Code binary is published for ${process.platform}-${process.arch}` };
  let version: string;
  let spec: string;
  const forced = process.env.SWEGYM_CLAUDE_CODE_NEWEST;
  if (forced) {
    version = forced;
    spec = `@anthropic-ai/claude-code-${platform}@${forced}`;
  } else {
    const cli = npmRun(['view', '@anthropic-ai/claude-code@latest', 'version', '--json']);
    const sdk = npmRun(['view', '@anthropic-ai/claude-agent-sdk@latest', 'version', 'claudeCodeVersion', '--json']);
    if (cli.status !== 0 && sdk.status !== 0) return { kind: 'unavailable', why: `the npm registry is unreachable (npm view @anthropic-ai/claude-code: ${npmError(cli)})` };
    const candidates: { version: string; spec: string }[] = [];
    if (cli.status === 0) candidates.push({ version: JSON.parse(cli.stdout) as string, spec: `@anthropic-ai/claude-code-${platform}@${JSON.parse(cli.stdout) as string}` });
    if (sdk.status === 0) {
      const v = JSON.parse(sdk.stdout) as { version: string; claudeCodeVersion?: string };
      if (v.claudeCodeVersion) candidates.push({ version: v.claudeCodeVersion, spec: `@anthropic-ai/claude-agent-sdk-${platform}@${v.version}` });
    }
    const best = candidates.sort((a, b) => compareVersions(b.version, a.version))[0];
    if (!best) return { kind: 'unavailable', why: 'npm view answered no version' };
    ({ version, spec } = best);
  }
  if (version === pinned) return { kind: 'pinned', version, why: forced ? `SWEGYM_CLAUDE_CODE_NEWEST=${forced} is the pinned version` : `the newest Claude Code on npm is ${version}, the pinned one` };
  const dir = path.join(o.cacheDir ?? process.env.SWEGYM_CLAUDE_CODE_CACHE ?? path.join(os.homedir(), '.cache', 'swegym-console', 'claude-code'), version);
  const bin = path.join(dir, 'claude');
  const runs = () => fs.existsSync(bin) && spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.startsWith(version);
  if (runs()) return { kind: 'other', version, bin, from: `${spec} (cached in ${dir})` };
  // Fetched beside the cache entry and moved into place whole: a cut download never stands as a cached binary.
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const work = fs.mkdtempSync(path.join(path.dirname(dir), `.fetch-${version}-`));
  try {
    const packed = npmRun(['pack', spec, '--pack-destination', work, '--json'], o.timeoutMs ?? 600_000);
    if (packed.status !== 0) return { kind: 'unavailable', why: `npm pack ${spec} failed: ${npmError(packed)}` };
    const tgz = path.join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]?.filename ?? '');
    const untar = spawnSync('tar', ['-xzf', tgz, '-C', work, 'package/claude'], { encoding: 'utf8', timeout: 300_000 });
    if (untar.status !== 0) return { kind: 'unavailable', why: `${spec} holds no package/claude: ${oneLine(untar.stderr)}` };
    fs.chmodSync(path.join(work, 'package', 'claude'), 0o755);
    fs.mkdirSync(path.join(work, 'entry'));
    fs.renameSync(path.join(work, 'package', 'claude'), path.join(work, 'entry', 'claude'));
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(path.join(work, 'entry'), dir);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  if (!runs()) return { kind: 'unavailable', why: `${bin} from ${spec} does not run or is not ${version}` };
  return { kind: 'other', version, bin, from: `${spec} (fetched into ${dir})` };
}

/** The Claude Agent SDK's latest types (its .d.ts files), fetched by `npm pack` into the cache beside the CLIs, when
 * it is newer than the installed one: the reader's wire types can be checked against them before the pin moves. */
export function newestAgentSdkTypes(installed: string, o: { cacheDir?: string } = {}): { kind: 'pinned'; why: string } | { kind: 'other'; version: string; claudeCodeVersion: string; dir: string } | { kind: 'unavailable'; why: string } {
  const view = npmRun(['view', '@anthropic-ai/claude-agent-sdk@latest', 'version', 'claudeCodeVersion', '--json']);
  if (view.status !== 0) return { kind: 'unavailable', why: `the npm registry is unreachable (npm view @anthropic-ai/claude-agent-sdk: ${npmError(view)})` };
  const v = JSON.parse(view.stdout) as { version: string; claudeCodeVersion: string };
  if (v.version === installed) return { kind: 'pinned', why: `the newest Claude Agent SDK on npm is ${installed}, the installed one` };
  const dir = path.join(o.cacheDir ?? process.env.SWEGYM_CLAUDE_CODE_CACHE ?? path.join(os.homedir(), '.cache', 'swegym-console', 'claude-code'), `agent-sdk-${v.version}`);
  if (!fs.existsSync(path.join(dir, 'sdk.d.ts'))) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    const work = fs.mkdtempSync(path.join(path.dirname(dir), `.fetch-sdk-${v.version}-`));
    try {
      const packed = npmRun(['pack', `@anthropic-ai/claude-agent-sdk@${v.version}`, '--pack-destination', work, '--json'], 300_000);
      if (packed.status !== 0) return { kind: 'unavailable', why: `npm pack @anthropic-ai/claude-agent-sdk@${v.version} failed: ${npmError(packed)}` };
      const tgz = path.join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]?.filename ?? '');
      const untar = spawnSync('tar', ['-xzf', tgz, '-C', work, '--wildcards', 'package/*.d.ts', 'package/package.json'], { encoding: 'utf8', timeout: 120_000 });
      if (untar.status !== 0) return { kind: 'unavailable', why: `@anthropic-ai/claude-agent-sdk@${v.version} has no .d.ts files: ${oneLine(untar.stderr)}` };
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(path.join(work, 'package'), dir);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
  return { kind: 'other', version: v.version, claudeCodeVersion: v.claudeCodeVersion, dir };
}

/** The suffix of Claude Code's native platform packages for this machine (linux-x64, linux-x64-musl, darwin-arm64…). */
function platformPackageSuffix(): string | undefined {
  const arch = process.arch === 'x64' || process.arch === 'arm64' ? process.arch : undefined;
  if (!arch || !['linux', 'darwin', 'win32'].includes(process.platform)) return undefined;
  if (process.platform !== 'linux') return `${process.platform}-${arch}`;
  const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  return `linux-${arch}${glibc ? '' : '-musl'}`;
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

// One quick try: an unreachable registry is a skip, not minutes of npm's retries.
const npmRun = (args: string[], timeout = 60_000) => spawnSync('npm', [...args, '--fetch-retries=1', '--fetch-timeout=20000'], { encoding: 'utf8', timeout, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);
/** npm's reason in a line: `FetchError: request to … failed, reason: connect ECONNREFUSED …`, a timeout, the exit. */
function npmError(r: ReturnType<typeof spawnSync>): string {
  const err = String(r.stderr ?? '');
  const lines = err.split('\n').map((l) => l.replace(/^npm error /, ''));
  const line = lines.find((l) => /FetchError|reason:/.test(l)) ?? lines.find((l) => /^code /.test(l));
  return oneLine(line ?? (r.error?.message || err || `exit ${r.status}`));
}
