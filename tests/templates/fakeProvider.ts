// A scriptable SandboxProvider test double for the template factory and smoke tests: build durations, permanent
// build failures, rate limits with Retry-After, transient errors, cancellation through the abort signal, and
// sandboxes whose /health and `claude --version` answers are scripted per template. Optionally persists the set
// of built templates to a JSON file so that a child process and the test share one "E2B".
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import {
  SandboxError,
  type CommandResult,
  type CreateSandboxOptions,
  type HealthResult,
  type RunCommandOptions,
  type Sandbox,
  type SandboxInfo,
  type SandboxProvider,
  type TemplateBuildOptions,
  type TemplateBuildResult,
  type TemplateSpec,
} from '../../src/services/sandbox/types.js';

export interface BuildScript {
  /** Build time in ms (default: provider's buildMs). */
  ms?: number;
  /** The build fails with this message (a real build failure, not retryable). */
  fail?: string;
  /** The first N attempts answer 429 with this Retry-After (seconds). */
  rateLimited?: number;
  retryAfterSec?: number;
  /** The first N attempts fail with a transient network error. */
  transient?: number;
}

export interface SmokeScript {
  /** Body of GET /health; default {"healthy":true,"version":"1.1.0"}. */
  health?: HealthResult;
  /** Result of `claude --version`. */
  claude?: CommandResult;
  /** Sandbox creation fails with this error. */
  createError?: SandboxError;
}

export class FakeProvider implements SandboxProvider {
  readonly name: 'memory' | 'e2b' | 'local';
  buildMs: number;
  builds: { name: string; spec: TemplateSpec; attempt: number; at: number }[] = [];
  completed: string[] = [];
  active = 0;
  maxActive = 0;
  scripts = new Map<string, BuildScript>();
  smoke = new Map<string, SmokeScript>();
  attempts = new Map<string, number>();
  templates = new Set<string>();
  sandboxes = new Map<string, { template: string; killed: boolean }>();
  existsCalls = 0;
  private seq = 0;
  private stateFile?: string;
  unauthorized = false;
  /** When set, every build waits for it before finishing (tests release it once a condition holds). */
  gate?: Promise<void>;

  constructor(opts: { buildMs?: number; name?: 'memory' | 'e2b' | 'local'; stateFile?: string } = {}) {
    this.buildMs = opts.buildMs ?? 5;
    this.name = opts.name ?? 'memory';
    this.stateFile = opts.stateFile;
    if (this.stateFile) {
      try {
        const data = JSON.parse(readFileSync(this.stateFile, 'utf8')) as { templates: string[] };
        this.templates = new Set(data.templates);
      } catch {}
    }
  }

  private persist(): void {
    if (!this.stateFile) return;
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ templates: [...this.templates] }));
    renameSync(tmp, this.stateFile);
  }

  scriptFor(spec: TemplateSpec): BuildScript {
    return this.scripts.get(spec.baseImage) ?? this.scripts.get(spec.name) ?? {};
  }

  async templateExists(name: string): Promise<boolean> {
    this.existsCalls++;
    if (this.unauthorized) throw new SandboxError('unauthorized', '401: Unauthorized, please check your credentials.', { status: 401 });
    return this.templates.has(name);
  }

  async buildTemplate(spec: TemplateSpec, opts: TemplateBuildOptions = {}): Promise<TemplateBuildResult> {
    if (this.unauthorized) throw new SandboxError('unauthorized', '401: Unauthorized, please check your credentials.', { status: 401 });
    const attempt = (this.attempts.get(spec.name) ?? 0) + 1;
    this.attempts.set(spec.name, attempt);
    this.builds.push({ name: spec.name, spec, attempt, at: Date.now() });
    const script = this.scriptFor(spec);
    if (script.rateLimited && attempt <= script.rateLimited) {
      throw new SandboxError('rate_limited', '429: Rate limit exceeded, please try again later.', { status: 429, retryAfterSec: script.retryAfterSec });
    }
    if (script.transient && attempt <= script.transient) throw new SandboxError('network', 'fetch failed');
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      opts.onLog?.(`Requesting build for template: ${spec.name}`);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, script.ms ?? this.buildMs);
        opts.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            reject(new SandboxError('cancelled', 'build polling aborted'));
          },
          { once: true },
        );
      });
      if (this.gate) await this.gate;
      opts.onLog?.(`FROM ${spec.baseImage}`);
      if (script.fail) {
        opts.onLog?.(`error: ${script.fail}`);
        throw new SandboxError('build_failed', script.fail);
      }
      this.templates.add(spec.name);
      this.persist();
      this.completed.push(spec.name);
      opts.onLog?.('Build finished');
      return { name: spec.name, templateId: `tpl_${spec.name.length}_${this.completed.length}`, buildId: `b${attempt}` };
    } finally {
      this.active--;
    }
  }

  async create(opts: CreateSandboxOptions): Promise<Sandbox> {
    const script = this.smoke.get(opts.template) ?? {};
    if (script.createError) throw script.createError;
    if (!this.templates.has(opts.template)) throw new SandboxError('not_found', `404: template '${opts.template}' not found`, { status: 404 });
    const id = `sbx${++this.seq}`;
    const entry = { template: opts.template, killed: false };
    this.sandboxes.set(id, entry);
    const sandbox: Sandbox = {
      id,
      provider: this.name,
      template: opts.template,
      run: async (command: string, _o: RunCommandOptions): Promise<CommandResult> => {
        if (entry.killed) throw new SandboxError('not_found', 'Sandbox is probably not running anymore');
        if (command.includes('claude') && command.includes('--version')) {
          return script.claude ?? { exitCode: 0, stdout: '2.1.207 (Claude Code)\n', stderr: '', timedOut: false };
        }
        if (command.includes('blackbox-server.log')) return { exitCode: 0, stdout: 'Traceback: ModuleNotFoundError: No module named blackbox_server\n', stderr: '', timedOut: false };
        return { exitCode: 127, stdout: '', stderr: `unknown command ${command}`, timedOut: false };
      },
      readFile: async () => '',
      writeFile: async () => {},
      health: async () => script.health ?? { ok: true, status: 200, body: '{"healthy":true,"version":"1.1.0"}', json: { healthy: true, version: '1.1.0' } },
      setTimeout: async () => {},
      kill: async () => {
        const was = !entry.killed;
        entry.killed = true;
        return was;
      },
    };
    return sandbox;
  }

  async connect(id: string): Promise<Sandbox> {
    throw new SandboxError('not_found', `sandbox ${id} not found`);
  }

  async list(): Promise<SandboxInfo[]> {
    return [...this.sandboxes.entries()]
      .filter(([, s]) => !s.killed)
      .map(([id, s]) => ({ id, template: s.template, metadata: {}, startedAt: new Date().toISOString(), state: 'running' as const, provider: this.name }));
  }

  async killById(id: string): Promise<boolean> {
    const s = this.sandboxes.get(id);
    if (!s || s.killed) return false;
    s.killed = true;
    return true;
  }

  liveSandboxes(): number {
    return [...this.sandboxes.values()].filter((s) => !s.killed).length;
  }
}
