// In-memory sandbox provider for fast orchestration tests (no processes, no sockets). Behaviour is scriptable:
// per-template files and HTTP services, a command handler returning chunked output with delays and exit codes,
// and fault injection (rate-limit storms with Retry-After, busy service, unauthorised, not found, network) on any
// operation. It keeps the same contract as the real providers: non-zero exit is a result, a command timeout is a
// result with timedOut, an abort throws `cancelled`, operations on a killed sandbox throw `not_found`, and
// control-plane calls are retried with the same bounded backoff as the E2B adapter.
import { randomBytes } from 'node:crypto';
import { StreamCollector } from './lines.js';
import { httpHealthResult } from './health.js';
import { sleep } from '../util/sleep.js';
import { cancelledError, withRetry, type RetryEvent, type RetryPolicy } from './withRetry.js';
import {
  CONSOLE_TAG_KEY,
  CONSOLE_TAG_VALUE,
  SandboxError,
  type CommandResult,
  type CreateSandboxOptions,
  type HealthResult,
  type RunCommandOptions,
  type Sandbox,
  type SandboxErrorKind,
  type SandboxInfo,
  type SandboxProvider,
  type TemplateBuildOptions,
  type TemplateBuildResult,
  type TemplateSpec,
} from './types.js';

export type MemoryOp = 'create' | 'connect' | 'list' | 'kill' | 'run' | 'readFile' | 'writeFile' | 'health' | 'setTimeout' | 'templateExists' | 'buildTemplate';

export interface MemoryService {
  (path: string): { status: number; body: string } | Promise<{ status: number; body: string }>;
}

export interface MemoryTemplate {
  /** Files present in every sandbox made from this template. */
  files?: Record<string, string>;
  /** HTTP services by port, answering health checks (the start command's server). */
  services?: Record<number, MemoryService>;
  startCommand?: string;
}

export interface MemoryChunk {
  stream: 'stdout' | 'stderr';
  data: string;
  /** Wait this long before emitting the chunk. */
  delayMs?: number;
}

/** What a scripted command does. */
export interface MemoryCommandPlan {
  chunks?: MemoryChunk[];
  exitCode?: number;
  /** Extra time after the last chunk before it exits. */
  durationMs?: number;
  /** Never exits on its own (only a timeout or abort ends it). */
  hang?: boolean;
}

export interface MemoryCommandContext {
  sandbox: MemorySandbox;
  opts: RunCommandOptions;
}

/** Returns a plan for a command, or undefined to fall through to the built-in mini shell. */
export type MemoryCommandHandler = (command: string, ctx: MemoryCommandContext) => MemoryCommandPlan | undefined | Promise<MemoryCommandPlan | undefined>;

export interface MemoryFault {
  op: MemoryOp;
  kind: SandboxErrorKind;
  /** How many calls fail (default 1). */
  times?: number;
  retryAfterSec?: number;
  message?: string;
}

export interface MemoryProviderOptions {
  templates?: Record<string, MemoryTemplate>;
  commands?: MemoryCommandHandler;
  retry?: Partial<RetryPolicy>;
  onRetry?: (e: RetryEvent) => void;
  /** Sandboxes that exist "on the account" but were not made by this console (never listed or touched). */
  foreignSandboxes?: { id: string; template: string; metadata: Record<string, string> }[];
  /** Build log lines and an optional failure, per template name. */
  builds?: Record<string, { logs?: string[]; error?: string }>;
}

export interface MemoryCall {
  op: MemoryOp;
  id?: string;
  arg?: string;
}

interface Record_ {
  id: string;
  template: string;
  metadata: Record<string, string>;
  envs: Record<string, string>;
  files: Map<string, Uint8Array>;
  startedAt: string;
  endAt: string;
  alive: boolean;
  timer: NodeJS.Timeout | undefined;
  running: Set<AbortController>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export class MemoryProvider implements SandboxProvider {
  readonly name = 'memory' as const;
  readonly calls: MemoryCall[] = [];
  private readonly sandboxes = new Map<string, Record_>();
  private readonly faults: MemoryFault[] = [];
  private readonly templates: Map<string, MemoryTemplate>;

  constructor(private readonly options: MemoryProviderOptions = {}) {
    this.templates = new Map(Object.entries(options.templates ?? {}));
    for (const f of options.foreignSandboxes ?? []) {
      this.sandboxes.set(f.id, this.newRecord(f.id, f.template, f.metadata, {}, 3600_000));
    }
  }

  /** Makes the next `times` calls of `op` fail with `kind`. */
  inject(fault: MemoryFault): void {
    this.faults.push({ times: 1, ...fault });
  }

  /** A 429 storm: the next `times` calls of `op` are rate limited with the given Retry-After. */
  rateLimitStorm(op: MemoryOp, times: number, retryAfterSec?: number): void {
    this.inject({ op, kind: 'rate_limited', times, retryAfterSec, message: '429: Rate limit exceeded, please try again later' });
  }

  addTemplate(name: string, template: MemoryTemplate): void {
    this.templates.set(name, template);
  }

  /** Ids of sandboxes still alive (including foreign ones). */
  aliveIds(): string[] {
    return [...this.sandboxes.values()].filter((r) => r.alive).map((r) => r.id);
  }

  /** Commands currently executing, across all sandboxes (for "nothing left behind" assertions). */
  runningCommands(): number {
    let n = 0;
    for (const r of this.sandboxes.values()) n += r.running.size;
    return n;
  }

  private checkFault(op: MemoryOp): void {
    const i = this.faults.findIndex((f) => f.op === op && (f.times ?? 1) > 0);
    if (i < 0) return;
    const f = this.faults[i] as MemoryFault;
    f.times = (f.times ?? 1) - 1;
    if (f.times <= 0) this.faults.splice(i, 1);
    throw new SandboxError(f.kind, f.message ?? `injected ${f.kind} on ${op}`, { retryAfterSec: f.retryAfterSec });
  }

  private control<T>(op: MemoryOp, fn: () => T | Promise<T>, signal?: AbortSignal): Promise<T> {
    return withRetry(
      async () => {
        this.checkFault(op);
        return fn();
      },
      { policy: this.options.retry, signal, onRetry: this.options.onRetry },
    );
  }

  private newRecord(id: string, template: string, metadata: Record<string, string>, envs: Record<string, string>, timeoutMs: number): Record_ {
    const now = Date.now();
    return {
      id,
      template,
      metadata,
      envs,
      files: new Map(),
      startedAt: new Date(now).toISOString(),
      endAt: new Date(now + timeoutMs).toISOString(),
      alive: true,
      timer: undefined,
      running: new Set(),
    };
  }

  private arm(rec: Record_, ms: number): void {
    if (rec.timer) clearTimeout(rec.timer);
    rec.endAt = new Date(Date.now() + ms).toISOString();
    rec.timer = setTimeout(() => this.expire(rec), ms);
    rec.timer.unref?.();
  }

  private expire(rec: Record_): void {
    rec.alive = false;
    if (rec.timer) clearTimeout(rec.timer);
    rec.timer = undefined;
    for (const c of rec.running) c.abort(new SandboxError('not_found', `sandbox ${rec.id} was killed`));
    rec.running.clear();
  }

  async create(opts: CreateSandboxOptions): Promise<Sandbox> {
    if (!(opts.timeoutMs > 0)) throw new SandboxError('unknown', `invalid sandbox timeout ${opts.timeoutMs} ms: pass a positive lifetime`);
    this.calls.push({ op: 'create', arg: opts.template });
    return this.control(
      'create',
      () => {
        const tpl = this.templates.get(opts.template);
        if (!tpl) throw new SandboxError('not_found', `template '${opts.template}' not found`, { status: 404 });
        const id = `mem-${randomBytes(6).toString('hex')}`;
        const rec = this.newRecord(id, opts.template, { ...opts.metadata, [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE }, { ...opts.envs }, opts.timeoutMs);
        for (const [p, content] of Object.entries(tpl.files ?? {})) rec.files.set(p, enc.encode(content));
        this.sandboxes.set(id, rec);
        this.arm(rec, opts.timeoutMs);
        return new MemorySandbox(this, rec);
      },
      opts.signal,
    );
  }

  async connect(id: string, opts: { signal?: AbortSignal } = {}): Promise<Sandbox> {
    this.calls.push({ op: 'connect', id });
    return this.control(
      'connect',
      () => {
        const rec = this.sandboxes.get(id);
        if (!rec || !rec.alive) throw new SandboxError('not_found', `sandbox ${id} not found`, { status: 404 });
        return new MemorySandbox(this, rec);
      },
      opts.signal,
    );
  }

  async list(filter: { metadata?: Record<string, string>; signal?: AbortSignal }): Promise<SandboxInfo[]> {
    this.calls.push({ op: 'list' });
    return this.control(
      'list',
      () =>
        [...this.sandboxes.values()]
          .filter((r) => r.alive && Object.entries(filter.metadata ?? {}).every(([k, v]) => r.metadata[k] === v))
          .map((r) => ({ id: r.id, template: r.template, metadata: { ...r.metadata }, startedAt: r.startedAt, endAt: r.endAt, state: 'running' as const, provider: 'memory' as const })),
      filter.signal,
    );
  }

  async killById(id: string): Promise<boolean> {
    this.calls.push({ op: 'kill', id });
    return this.control('kill', () => {
      const rec = this.sandboxes.get(id);
      if (!rec || !rec.alive) return false;
      this.expire(rec);
      return true;
    });
  }

  async templateExists(name: string, opts: { signal?: AbortSignal } = {}): Promise<boolean> {
    this.calls.push({ op: 'templateExists', arg: name });
    return this.control('templateExists', () => this.templates.has(name), opts.signal);
  }

  async buildTemplate(spec: TemplateSpec, opts: TemplateBuildOptions = {}): Promise<TemplateBuildResult> {
    this.calls.push({ op: 'buildTemplate', arg: spec.name });
    return this.control(
      'buildTemplate',
      () => {
        const script = this.options.builds?.[spec.name];
        for (const line of script?.logs ?? [`building ${spec.name} from ${spec.baseImage}`]) opts.onLog?.(line);
        if (script?.error) throw new SandboxError('build_failed', script.error);
        if (!this.templates.has(spec.name)) this.templates.set(spec.name, { startCommand: spec.startCommand });
        return { name: spec.name, templateId: `tpl-${spec.name}`, buildId: `build-${randomBytes(4).toString('hex')}` };
      },
      opts.signal,
    );
  }

  // ---- used by MemorySandbox ----

  /** @internal */
  requireAlive(rec: Record_, op: MemoryOp): void {
    this.calls.push({ op, id: rec.id });
    this.checkFault(op);
    if (!rec.alive) throw new SandboxError('not_found', `sandbox ${rec.id} is not running (killed or expired)`, { status: 404 });
  }

  /** @internal */
  template(rec: Record_): MemoryTemplate | undefined {
    return this.templates.get(rec.template);
  }

  /** @internal */
  handler(): MemoryCommandHandler | undefined {
    return this.options.commands;
  }

  /** @internal */
  killRecord(rec: Record_): boolean {
    if (!rec.alive) return false;
    this.expire(rec);
    return true;
  }

  /** @internal */
  arm_(rec: Record_, ms: number): void {
    this.arm(rec, ms);
  }
}

/** A minimal shell for the built-in commands the contract suite uses: echo, printf, exit, sleep, cat, pwd, true/false. */
function miniShell(command: string, rec: Record_, opts: RunCommandOptions): MemoryCommandPlan {
  const chunks: MemoryChunk[] = [];
  const env: Record<string, string> = { ...rec.envs, ...opts.envs };
  let exitCode = 0;
  let durationMs = 0;
  const expand = (s: string) => s.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_m, n: string) => env[n] ?? '');
  const unquote = (s: string) => {
    const t = s.trim();
    if ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"'))) {
      return t.startsWith('"') ? expand(t.slice(1, -1)) : t.slice(1, -1);
    }
    return expand(t);
  };
  for (const raw of command.split(/;|&&|\n/)) {
    let part = raw.trim();
    if (!part) continue;
    let stream: 'stdout' | 'stderr' = 'stdout';
    if (/\s*1?>&2\s*$/.test(part)) {
      stream = 'stderr';
      part = part.replace(/\s*1?>&2\s*$/, '');
    }
    const [word = '', ...rest] = part.split(/\s+/);
    const args = part.slice(word.length).trim();
    if (word === 'echo') chunks.push({ stream, data: unquote(args) + '\n' });
    else if (word === 'printf') chunks.push({ stream, data: unquote(args).replace(/\\n/g, '\n') });
    else if (word === 'exit') return { chunks, exitCode: Number(rest[0] ?? 0), durationMs };
    else if (word === 'sleep') durationMs += Number(rest[0] ?? 0) * 1000;
    else if (word === 'true') exitCode = 0;
    else if (word === 'false') exitCode = 1;
    else if (word === 'pwd') chunks.push({ stream, data: (opts.cwd ?? '/root') + '\n' });
    else if (word === 'cat') {
      const file = rec.files.get(unquote(args));
      if (file) chunks.push({ stream, data: dec.decode(file) });
      else {
        chunks.push({ stream: 'stderr', data: `cat: ${unquote(args)}: No such file or directory\n` });
        exitCode = 1;
      }
    } else {
      chunks.push({ stream: 'stderr', data: `bash: ${word}: command not found\n` });
      exitCode = 127;
    }
  }
  return { chunks, exitCode, durationMs };
}

export class MemorySandbox implements Sandbox {
  readonly provider = 'memory' as const;
  readonly id: string;
  readonly template: string;

  constructor(
    private readonly owner: MemoryProvider,
    private readonly rec: Record_,
  ) {
    this.id = rec.id;
    this.template = rec.template;
  }

  get envs(): Record<string, string> {
    return { ...this.rec.envs };
  }

  get metadata(): Record<string, string> {
    return { ...this.rec.metadata };
  }

  async run(command: string, opts: RunCommandOptions): Promise<CommandResult> {
    if (!(opts.timeoutMs > 0)) throw new SandboxError('unknown', `a command needs a positive timeout, got ${opts.timeoutMs} ms`);
    this.owner.requireAlive(this.rec, 'run');
    if (opts.signal?.aborted) throw cancelledError(opts.signal, 'command');
    const plan = (await this.owner.handler()?.(command, { sandbox: this, opts })) ?? miniShell(command, this.rec, opts);
    const out = new StreamCollector(opts.maxOutputBytes, opts.onStdout);
    const err = new StreamCollector(opts.maxOutputBytes, opts.onStderr);
    const ctl = new AbortController();
    this.rec.running.add(ctl);
    const timer = setTimeout(() => ctl.abort(new SandboxError('timeout', 'command timed out')), opts.timeoutMs);
    const onAbort = () => ctl.abort(cancelledError(opts.signal, 'command'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (const c of plan.chunks ?? []) {
        if (c.delayMs) await sleep(c.delayMs, ctl.signal);
        (c.stream === 'stdout' ? out : err).push(c.data);
      }
      if (plan.hang) await sleep(2 ** 31 - 1, ctl.signal);
      if (plan.durationMs) await sleep(plan.durationMs, ctl.signal);
      return { exitCode: plan.exitCode ?? 0, stdout: out.finish(), stderr: err.finish(), timedOut: false };
    } catch (e) {
      const reason = ctl.signal.reason as unknown;
      if (reason instanceof SandboxError && reason.kind === 'timeout') {
        return { exitCode: 124, stdout: out.finish(), stderr: err.finish(), timedOut: true };
      }
      out.finish();
      err.finish();
      throw reason instanceof SandboxError ? reason : e;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      this.rec.running.delete(ctl);
    }
  }

  async readFile(path: string): Promise<string> {
    this.owner.requireAlive(this.rec, 'readFile');
    const data = this.rec.files.get(path);
    if (!data) throw new SandboxError('not_found', `file ${path} not found in sandbox ${this.id}`, { status: 404 });
    return dec.decode(data);
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    this.owner.requireAlive(this.rec, 'writeFile');
    this.rec.files.set(path, typeof data === 'string' ? enc.encode(data) : new Uint8Array(data));
  }

  async health(port: number, path = '/health'): Promise<HealthResult> {
    this.owner.requireAlive(this.rec, 'health');
    const svc = this.owner.template(this.rec)?.services?.[port];
    if (!svc) return { ok: false, error: `connection refused: nothing listens on port ${port}` };
    const { status, body } = await svc(path);
    return httpHealthResult(status, body);
  }

  async setTimeout(ms: number): Promise<void> {
    this.owner.requireAlive(this.rec, 'setTimeout');
    this.owner.arm_(this.rec, ms);
  }

  async kill(): Promise<boolean> {
    return this.owner.killRecord(this.rec);
  }
}
