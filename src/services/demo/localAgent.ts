// The real Claude Code CLI on a task, in a local bubblewrap sandbox, started the way Dressage's Blackbox Server
// adapter starts it (`-p PROMPT --output-format stream-json --verbose --model M --max-turns N --permission-mode P
// --settings FILE --setting-sources user --session-id ID`, HOME/CLAUDE_CONFIG_DIR/TMPDIR in the runtime dir, the
// model at ANTHROPIC_BASE_URL=http://127.0.0.1:<port> inside the sandbox), its stdout in the runtime's
// logs/claude_code.stdout.log; then the patch is extracted as Dressage does and graded in a FRESH sandbox.
//
// The sandbox keeps its network off. Its only way out is the model: a Unix socket bind-mounted into it, behind a
// small forwarder on 127.0.0.1 inside; on this side of the socket is either the SCRIPTED model (a replay of a known
// solution, services/agent/replay.ts) or a proxy to an Anthropic-compatible URL the user gave (the API key, if any,
// is added here and never enters the sandbox).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, openSync, readSync, closeSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { DressageRow } from '../convert/schema.js';
import type { Sandbox, SandboxProvider } from '../sandbox/types.js';
import { computeReward, describeMarker, type RewardOutcome } from '../marker/marker.js';
import { redact } from '../secrets.js';
import { runBeforeAgent, shellQuote } from '../validate/evaluator.js';
import { evaluateInFreshSandbox } from '../validate/agent.js';
import { startAnthropicServer, type Step } from '../agent/scriptedModel.js';
import { StreamJsonReader, progressJson, type StreamJsonProgress } from '../agent/streamJson.js';
import { AGENT_RUNTIME_ROOT } from '../agent/agentLog.js';
import { TASK_WORKDIR } from '../recipe.js';

const CLI_IN_SANDBOX = '/opt/claude-code/claude';
const SOCKET_DIR_IN_SANDBOX = '/run/swegym-model';
const MODEL_PORT = 18080;

export type ClaudeCodeCli = { ok: true; path: string; version: string } | { ok: false; reason: string; fix: string };

/**
 * The native Claude Code binary: $CLAUDE_CODE_BIN (the variable Dressage's adapter reads too), else the
 * @anthropic-ai/claude-code package installed with the console (its postinstall puts the native binary in bin/).
 */
export function findClaudeCodeCli(env: NodeJS.ProcessEnv = process.env, start = path.dirname(fileURLToPath(import.meta.url))): ClaudeCodeCli {
  const candidates: string[] = [];
  // An explicit CLAUDE_CODE_BIN is the only candidate: the user chose it.
  if (env.CLAUDE_CODE_BIN) candidates.push(env.CLAUDE_CODE_BIN);
  else {
    for (let dir = start; ; dir = path.dirname(dir)) {
      candidates.push(path.join(dir, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe'));
      if (path.dirname(dir) === dir) break;
    }
  }
  const fix = 'npm install in the swegym-console checkout installs it (@anthropic-ai/claude-code, a dev dependency), or set CLAUDE_CODE_BIN to a native claude binary';
  const found = candidates.find((c) => existsSync(c));
  if (!found) return { ok: false, reason: env.CLAUDE_CODE_BIN ? `the Claude Code CLI is not installed: CLAUDE_CODE_BIN=${env.CLAUDE_CODE_BIN} does not exist` : 'the Claude Code CLI is not installed (no node_modules/@anthropic-ai/claude-code next to the console)', fix };
  const file = realpathSync(found);
  if (!isElf(file)) return { ok: false, reason: `${found} is not the native Claude Code binary (the package's install script did not run?)`, fix };
  try {
    const version = execFileSync(file, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), DISABLE_AUTOUPDATER: '1' } }).trim();
    return { ok: true, path: file, version };
  } catch (err) {
    return { ok: false, reason: `${found} does not run: ${(err as Error).message.split('\n')[0]}`, fix };
  }
}

function isElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 0);
    return b.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    closeSync(fd);
  }
}

export type ModelSource = { kind: 'scripted'; steps: Step[]; label: string } | { kind: 'url'; url: string; apiKey?: string };

export interface LocalAgentOptions {
  provider: SandboxProvider;
  row: DressageRow;
  cli: string;
  model: ModelSource;
  /** The model id passed to --model (Dressage: backend_options.model.id). */
  modelId?: string;
  turnTimeoutMs?: number;
  signal?: AbortSignal;
  onPhase?: (phase: 'creating' | 'sanitizing' | 'running' | 'extracting' | 'evaluating' | 'done' | 'failed') => void;
  onProgress?: (p: StreamJsonProgress) => void;
}

export interface LocalAgentResult {
  instance_id: string;
  ok: boolean;
  error?: string;
  /** What answered as the model: `scripted: …` (a replay, not a model) or the URL. */
  model: string;
  scripted: boolean;
  claudeCode: ReturnType<typeof progressJson> & { cause: string | null; version?: string };
  patch: string;
  patchFiles: string[];
  marker: Record<string, unknown> | null;
  summary?: string;
  reward?: RewardOutcome;
  /** Claude Code's stream-json log as it wrote it (for agent-log and the dashboard). */
  log: string;
  durationMs: number;
}

/** Forwards TCP 127.0.0.1:<port> inside the sandbox to the model's Unix socket (python3 stdlib, as the templates use). */
const FORWARDER = `import os, socket, sys, threading
host, port, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); srv.bind((host, port)); srv.listen(64)
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except OSError: pass
    finally:
        for s in (a, b):
            try: s.shutdown(socket.SHUT_RDWR)
            except OSError: pass
def serve(c):
    u = socket.socket(socket.AF_UNIX); u.connect(target)
    threading.Thread(target=pipe, args=(c, u), daemon=True).start(); pipe(u, c)
while True:
    c, _ = srv.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
`;

/** Dressage's settings for the CLI (ClaudeCodeConfigCompiler.build_settings): its allow list, subagents denied. */
function settingsFor(row: DressageRow): Record<string, unknown> {
  const b = (row.metadata.backend_options ?? {}) as any;
  const env: Record<string, string> = {};
  if (b.compat?.disable_prompt_caching) env.DISABLE_PROMPT_CACHING = '1';
  if (b.compat?.disable_nonessential_traffic !== false) env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  return {
    autoCompactEnabled: true,
    permissions: { allow: ['Bash(*)', 'Read(*)', 'Edit(*)', 'Write(*)', 'WebSearch', 'WebFetch', 'Glob', 'Grep', 'LS', 'NotebookRead', 'NotebookEdit', 'TodoWrite', 'Task'], deny: ['Agent'] },
    env,
  };
}

/** The model behind the socket: the scripted server, or a proxy to the user's URL. */
async function startModel(model: ModelSource, socketPath: string): Promise<{ close(): Promise<void> }> {
  if (model.kind === 'scripted') return startAnthropicServer({ script: model.steps, socketPath });
  const base = model.url.replace(/\/$/, '');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length', 'x-api-key', 'authorization'].includes(k)) headers[k] = v;
      if (model.apiKey) headers['x-api-key'] = model.apiKey;
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      fetch(`${base}${req.url ?? '/'}`, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body })
        .then((r) => {
          const out: Record<string, string> = {};
          r.headers.forEach((v, k) => {
            if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
          });
          res.writeHead(r.status, out);
          if (r.body) Readable.fromWeb(r.body as any).pipe(res);
          else res.end();
        })
        .catch((err: Error) => {
          res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `could not reach ${base}: ${redact(err.message)}` } }));
        });
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function runClaudeCodeLocally(o: LocalAgentOptions): Promise<LocalAgentResult> {
  const started = Date.now();
  const m = o.row.metadata;
  const scripted = o.model.kind === 'scripted';
  const reader = new StreamJsonReader();
  const result: LocalAgentResult = {
    instance_id: m.instance_id,
    ok: false,
    model: o.model.kind === 'scripted' ? `scripted: ${o.model.label}` : displayUrl(o.model.url),
    scripted,
    claudeCode: { ...progressJson(reader.progress()), cause: null },
    patch: '',
    patchFiles: [],
    marker: null,
    log: '',
    durationMs: 0,
  };
  const finish = (error?: string) => {
    const p = reader.progress();
    result.claudeCode = { ...progressJson(p), cause: p.cause ?? null };
    if (error) result.error = redact(error);
    result.durationMs = Date.now() - started;
    o.onPhase?.(error ? 'failed' : 'done');
    return result;
  };
  const sockDir = await mkdtemp(path.join(tmpdir(), 'swegym-model-'));
  let model: { close(): Promise<void> } | undefined;
  let sandbox: Sandbox | undefined;
  try {
    model = await startModel(o.model, path.join(sockDir, 'model.sock'));
    o.onPhase?.('creating');
    sandbox = await o.provider.create({
      template: m.sandbox_image,
      timeoutMs: (m.sandbox_timeout_sec || 3600) * 1000,
      metadata: { purpose: 'validate-agent', trajectory_id: `bbs-${randomUUID()}` },
      binds: [{ src: o.cli, dest: CLI_IN_SANDBOX }, { src: sockDir, dest: SOCKET_DIR_IN_SANDBOX, writable: true }],
      signal: o.signal,
    });
    o.onPhase?.('sanitizing');
    const san = await runBeforeAgent(sandbox, o.row, o.signal);
    if (!san.ok) return finish(`required execute_cmd failed: name=${san.failed?.step} returncode=${san.failed?.exitCode}: ${(san.failed?.stderrTail || san.failed?.stdoutTail || '').trim().split('\n').at(-1) ?? ''}`);

    o.onPhase?.('running');
    const sessionId = randomUUID();
    const runtime = `${AGENT_RUNTIME_ROOT}/bbs-${sessionId}`;
    await sandbox.writeFile(`${runtime}/settings.json`, JSON.stringify(settingsFor(o.row), null, 2));
    await sandbox.writeFile(`${runtime}/prompt.txt`, o.row.prompt.map((x) => x.content).join('\n\n'));
    await sandbox.writeFile(`${runtime}/forward_model.py`, FORWARDER);
    const b = (m.backend_options ?? {}) as any;
    const modelId = o.modelId ?? (typeof b.model?.id === 'string' && b.model.id ? b.model.id : 'claude-sonnet-4-5');
    const maxTurns = Number(b.max_turns) > 0 ? Number(b.max_turns) : 20;
    const workdir = m.workdir || TASK_WORKDIR;
    const q = shellQuote;
    const script = [
      `mkdir -p ${q(`${runtime}/logs`)} ${q(`${runtime}/home/.claude`)} ${q(`${runtime}/tmp`)}`,
      `python3 ${q(`${runtime}/forward_model.py`)} 127.0.0.1 ${MODEL_PORT} ${q(`${SOCKET_DIR_IN_SANDBOX}/model.sock`)} > ${q(`${runtime}/logs/forward_model.log`)} 2>&1 &`,
      'FWD=$!',
      "trap 'kill $FWD 2>/dev/null' EXIT",
      `for i in $(seq 100); do python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", ${MODEL_PORT}), 1)' 2>/dev/null && break; sleep 0.05; done`,
      `cd ${q(workdir)}`,
      `${CLI_IN_SANDBOX} -p "$(cat ${q(`${runtime}/prompt.txt`)})" --output-format stream-json --verbose --model ${q(modelId)} --max-turns ${maxTurns} --permission-mode ${q(String(b.permission_mode ?? 'default'))} --settings ${q(`${runtime}/settings.json`)} --setting-sources user --session-id ${sessionId} < /dev/null 2> ${q(`${runtime}/logs/claude_code.stderr.log`)} | tee ${q(`${runtime}/logs/claude_code.stdout.log`)}`,
      'exit ${PIPESTATUS[0]}',
    ].join('\n');
    const envs = {
      HOME: `${runtime}/home`,
      CLAUDE_CONFIG_DIR: `${runtime}/home/.claude`,
      CLAUDE_CODE_TMPDIR: `${runtime}/tmp`,
      TMPDIR: `${runtime}/tmp`,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${MODEL_PORT}`,
      // A placeholder: the sandbox holds no key; a real one (for --router) is added outside, at the socket.
      ANTHROPIC_API_KEY: 'sandbox-placeholder',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      ...(b.compat?.disable_prompt_caching ? { DISABLE_PROMPT_CACHING: '1' } : {}),
    };
    let lastEvents = -1;
    const run = await sandbox.run(script, {
      timeoutMs: o.turnTimeoutMs ?? 15 * 60_000,
      envs,
      signal: o.signal,
      onStdout: (line) => {
        reader.push(`${line}\n`);
        const p = reader.progress();
        if (p.events !== lastEvents) o.onProgress?.(p);
        lastEvents = p.events;
      },
    });
    result.log = await sandbox.readFile(`${runtime}/logs/claude_code.stdout.log`).catch(() => '');
    const p = reader.progress();
    if (run.timedOut) return finish(`Claude Code did not finish within ${Math.round((o.turnTimeoutMs ?? 900_000) / 1000)} s`);
    if (p.events === 0) {
      const stderr = await sandbox.readFile(`${runtime}/logs/claude_code.stderr.log`).catch(() => run.stderr);
      return finish(`claude_code exited with code ${run.exitCode} and printed no stream-json: ${stderr.trim().split('\n').slice(-3).join(' | ') || '(no stderr)'}`);
    }
    // Dressage harvests max_turns (max_steps_exceeded) and evaluates the partial patch; an API error aborts the sample.
    if (p.status === 'api_error' || p.status === 'error') return finish(`Claude Code ended with ${p.cause ?? p.status}`);

    o.onPhase?.('extracting');
    const extract = await sandbox.run(`cd ${q(workdir)} && git add -A && git diff --cached --binary --submodule=diff ${q(m.base_commit)} --`, { timeoutMs: 120_000, signal: o.signal });
    if (extract.exitCode !== 0) return finish(`patch extraction failed: returncode=${extract.exitCode}: ${extract.stderr.trim().split('\n').at(-1) ?? ''}`);
    result.patch = extract.stdout;
    result.patchFiles = [...new Set([...extract.stdout.matchAll(/^diff --git a\/(.+?) b\//gm)].map((x) => x[1] as string))];
    await sandbox.kill().catch(() => false);
    sandbox = undefined;

    o.onPhase?.('evaluating');
    const ev = await evaluateInFreshSandbox({ provider: o.provider, row: o.row, signal: o.signal }, result.patch);
    result.marker = ev.parse.ok ? ev.parse.payload : { resolved: false, parse_failure: true, failure_reason: ev.parse.reason };
    result.reward = computeReward(ev.parse);
    result.summary = describeMarker(ev.parse);
    result.ok = ev.parse.ok;
    return finish(ev.error);
  } catch (err) {
    if (o.signal?.aborted) throw err;
    return finish((err as Error).message);
  } finally {
    if (sandbox) await sandbox.kill().catch(() => false);
    await model?.close().catch(() => undefined);
    await rm(sockDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A URL to show: without user:password (a proxy URL may carry them). */
function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return redact(u.toString().replace(/\/$/, ''));
  } catch {
    return redact(url);
  }
}
