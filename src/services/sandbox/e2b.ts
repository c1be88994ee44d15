// The E2B adapter: the one place that talks to the `e2b` SDK (pinned in package.json; loaded lazily with named
// imports, because the package has no ESM exports map). Everything the rest of the console needs is normalised here:
// - a configured client (`new E2B({...})`) from the console's settings, honouring E2B_API_KEY, E2B_DOMAIN,
//   E2B_API_URL and E2B_SANDBOX_URL, so self-hosted deployments and the test fake work without touching process.env;
// - explicit timeouts on every call (request timeouts, sandbox lifetime, command lifetime);
// - every sandbox tagged with the console's metadata so list/kill only ever see ours;
// - output chunks split into lines (remainder flushed); CommandExitError becomes a result; a command timeout
//   becomes `timedOut` and the process is killed (the SDK alone leaves it running, E2B#500); an abort throws
//   `cancelled` and kills the process too;
// - SDK errors mapped onto the closed SandboxError union (AuthenticationError, ServiceBusyError and BuildError are
//   not SDK SandboxErrors, so they are matched by name);
// - bounded, jittered retries for 429/503/transport failures on control-plane calls;
// - build logs go to the caller's onLog (never the SDK's stdout logger, which would corrupt an Ink frame).
import { randomBytes } from 'node:crypto';
import { StreamCollector } from './lines.js';
import { cancelledError, retryTimingFromEnv, withRetry, type RetryEvent, type RetryPolicy } from './withRetry.js';
import { sleep } from '../util/sleep.js';
import { healthProbeCommand, parseHealthProbe } from './health.js';
import { redact } from '../secrets.js';
import { isStorageError, notWritableError } from '../workspace/atomic.js';
import { ConsoleError } from '../errors.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REQUEST_TAG_KEY, sandboxLedger, type SandboxLedger } from './ledger.js';
import {
  CONSOLE_TAG_KEY,
  CONSOLE_TAG_VALUE,
  SandboxError,
  type CommandResult,
  type CreateSandboxOptions,
  type HealthResult,
  type RunCommandOptions,
  type Sandbox,
  type SandboxInfo,
  type SandboxUsageSample,
  type SandboxProvider,
  type TemplateBuildOptions,
  type TemplateBuildResult,
  type TemplateSpec,
} from './types.js';
import { setting } from '../config/envSettings.js';

type E2bModule = typeof import('e2b');
type E2bClient = InstanceType<E2bModule['E2B']>;
type SdkSandbox = Awaited<ReturnType<E2bModule['Sandbox']['create']>>;

export interface E2bSettings {
  apiKey?: string;
  domain?: string;
  apiUrl?: string;
  sandboxUrl?: string;
  /** Per-request timeout for control-plane and envd requests (handshake only for streams). Default 30 s. */
  requestTimeoutMs?: number;
  /** The SDK's own 429 retries. Default 0: retrying is ours alone (one layer, counted and shown), never multiplied. */
  sdkRetries?: number;
  /** Our bounded backoff around control-plane calls. */
  retry?: Partial<RetryPolicy>;
  onRetry?: (e: RetryEvent) => void;
  /** Extra time the command stream may live after our own command deadline, to observe the kill. Default 10 s. */
  commandGraceMs?: number;
  /** Where created sandboxes are registered until killed (default: the process-wide ledger). */
  ledger?: SandboxLedger;
  /**
   * The workspace's sessions folder (`.swegym-console/sandboxes`): the ledger is kept there on disk, and the first
   * call kills what dead sessions of the workspace left (sessions.ts).
   */
  ledgerDir?: string;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;


/** Reads the SDK's documented variables (and SWEGYM_E2B_REQUEST_TIMEOUT_MS, our per-request timeout). Settings given explicitly win over the environment. */
export function e2bSettingsFromEnv(env: NodeJS.ProcessEnv, overrides: E2bSettings = {}): E2bSettings {
  const pick = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);
  return {
    apiKey: pick(setting(env, 'E2B_API_KEY')),
    domain: pick(env.E2B_DOMAIN),
    apiUrl: pick(env.E2B_API_URL),
    sandboxUrl: pick(env.E2B_SANDBOX_URL),
    ...(setting(env, 'SWEGYM_E2B_REQUEST_TIMEOUT_MS') ? { requestTimeoutMs: setting(env, 'SWEGYM_E2B_REQUEST_TIMEOUT_MS') } : {}),
    ...(Object.keys(retryTimingFromEnv(env)).length ? { retry: retryTimingFromEnv(env) } : {}),
    ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
  };
}

const TRANSPORT = /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|socket hang up|other side closed|UND_ERR|network/i;

/** The file-system refusal (ENOSPC, EDQUOT, EROFS …) in an error or its causes, also when only its message says it. */
function storageErrnoIn(err: unknown): NodeJS.ErrnoException | undefined {
  for (let e = err as (NodeJS.ErrnoException & { cause?: unknown }) | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (isStorageError(e)) return e;
    const code = /\b(ENOSPC|EDQUOT|EFBIG|EROFS)\b/.exec(String(e.message ?? ''))?.[1];
    if (code) return Object.assign(new Error(e.message), { code });
  }
  return undefined;
}

/** Maps anything the SDK (or undici under it) throws onto the closed SandboxError union. */
export function mapE2bError(err: unknown, what: string, signal?: AbortSignal): SandboxError {
  if (err instanceof SandboxError) return err;
  if (signal?.aborted) return cancelledError(signal, what);
  const e = err as { name?: string; message?: string; statusCode?: number; code?: unknown; cause?: unknown };
  const name = e?.name ?? '';
  const message = redact(String(e?.message ?? err));
  const msg = `${what}: ${message}`;
  const status = typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  // The local disk (the SDK spools a build's files to TMPDIR and wraps the write error in FileUploadError): named
  // with the folder and its free space, never retried, never "check the network".
  const disk = storageErrnoIn(err);
  if (disk) {
    const refused = notWritableError(disk.path ?? path.join(tmpdir(), 'e2b-template-…'), disk);
    const text = refused instanceof ConsoleError ? `${refused.what}; ${refused.causeText ?? ''}; fix: ${refused.fix ?? ''}` : message;
    return new SandboxError('unknown', `${what}: ${text}`, { cause: err });
  }
  switch (name) {
    case 'AuthenticationError':
    case 'GitAuthError':
      return new SandboxError('unauthorized', msg, { status: 401, cause: err });
    case 'RateLimitError':
      return new SandboxError('rate_limited', msg, { status: 429, cause: err });
    case 'ServiceBusyError':
      return new SandboxError('service_busy', msg, { status: 503, cause: err });
    case 'BuildError':
    case 'FileUploadError':
      return new SandboxError('build_failed', msg, { cause: err });
    case 'NotFoundError':
    case 'FileNotFoundError':
    case 'SandboxNotFoundError':
      return new SandboxError('not_found', msg, { status: 404, cause: err });
    case 'TimeoutError':
      if (/\[canceled\]/i.test(message)) return new SandboxError('cancelled', msg, { cause: err });
      return new SandboxError('timeout', msg, { cause: err });
    case 'AbortError':
      return new SandboxError('cancelled', msg, { cause: err });
    default:
      break;
  }
  // A body cut short (or garbled) on the way: the same transient fault as a reset, so retried like one.
  if (name === 'SyntaxError' && /JSON/.test(message)) {
    return new SandboxError('network', `${what}: the answer was cut short or garbled (${message})`, { cause: err });
  }
  if (status === 401 || status === 403) return new SandboxError('unauthorized', msg, { status, cause: err });
  if (status === 404) return new SandboxError('not_found', msg, { status, cause: err });
  if (status === 429) return new SandboxError('rate_limited', msg, { status, cause: err });
  if (status === 503) return new SandboxError('service_busy', msg, { status, cause: err });
  if (status === 502 || status === 504) return new SandboxError('network', msg, { status, cause: err });
  if (/^404: /.test(message) || /not found/i.test(message) && name === 'TemplateError') return new SandboxError('not_found', msg, { status: 404, cause: err });
  const causeMsg = String((e?.cause as Error | undefined)?.message ?? '') + String((e?.cause as { code?: string } | undefined)?.code ?? '');
  if (TRANSPORT.test(message) || TRANSPORT.test(causeMsg) || name === 'TypeError' && /fetch/.test(message)) {
    return new SandboxError('network', msg, { cause: err });
  }
  return new SandboxError('unknown', msg, { status, cause: err });
}

let sdkPromise: Promise<E2bModule> | undefined;
/** Loads the SDK once (named exports only: the CJS build's default export is the whole module object). */
export function loadE2b(): Promise<E2bModule> {
  const p = (sdkPromise ??= import('e2b') as unknown as Promise<E2bModule>);
  return p;
}

function toArrayBuffer(data: Uint8Array): ArrayBuffer {
  return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
}

/** Kills a command and every descendant inside the sandbox (a client-side timeout alone leaves it running). */
export function killTreeCommand(pid: number): string {
  return [
    `kill_tree() { for c in $(awk -v p="$1" '$4==p{print $1}' /proc/[0-9]*/stat 2>/dev/null); do kill_tree "$c"; done; kill -KILL "$1" 2>/dev/null; }`,
    `kill -KILL -- -${pid} 2>/dev/null`,
    `kill_tree ${pid}`,
    'true',
  ].join('; ');
}

export class E2bProvider implements SandboxProvider {
  readonly name = 'e2b' as const;
  private clientPromise: Promise<{ sdk: E2bModule; client: E2bClient }> | undefined;

  constructor(readonly settings: E2bSettings = {}) {
    if (settings.ledgerDir) this.ledger.attach(settings.ledgerDir);
  }

  /** Before the first call that reaches E2B: kill what dead sessions of the workspace left (once per process). */
  private beforeUse(): Promise<void> {
    return this.ledger.reapDead({ list: (f) => this.listNow(f), killById: (id) => this.killNow(id) });
  }

  get ledger(): SandboxLedger {
    return this.settings.ledger ?? sandboxLedger;
  }

  get requestTimeoutMs(): number {
    return this.settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** The configured SDK client; fails with `unauthorized` (no request made) when no API key is configured. */
  async client(): Promise<{ sdk: E2bModule; client: E2bClient }> {
    if (!this.settings.apiKey) {
      throw new SandboxError('unauthorized', 'no E2B API key configured (E2B_API_KEY is not set)');
    }
    this.clientPromise ??= loadE2b().then((sdk) => ({
      sdk,
      client: new sdk.E2B({
        apiKey: this.settings.apiKey,
        domain: this.settings.domain,
        apiUrl: this.settings.apiUrl,
        sandboxUrl: this.settings.sandboxUrl,
        requestTimeoutMs: this.requestTimeoutMs,
        retries: this.settings.sdkRetries ?? 0,
      }),
    }));
    return this.clientPromise;
  }

  /** Runs one SDK call with error mapping and (when `retry`) bounded backoff. */
  async call<T>(what: string, fn: (c: { sdk: E2bModule; client: E2bClient }) => Promise<T>, opts: { signal?: AbortSignal; retry?: boolean } = {}): Promise<T> {
    const c = await this.client();
    const once = async () => {
      try {
        return await fn(c);
      } catch (err) {
        throw mapE2bError(err, what, opts.signal);
      }
    };
    if (opts.retry === false) return once();
    return withRetry(once, { policy: this.settings.retry, signal: opts.signal, onRetry: this.settings.onRetry });
  }

  async create(opts: CreateSandboxOptions): Promise<Sandbox> {
    if (!(opts.timeoutMs > 0)) throw new SandboxError('unknown', `invalid sandbox timeout ${opts.timeoutMs} ms: pass a positive lifetime`);
    if (this.ledger.isClosing) throw new SandboxError('cancelled', 'create sandbox cancelled: the console is exiting');
    await this.client(); // no key: nothing is sent, so nothing for the exit sweep to look for
    await this.beforeUse();
    const sbx = await withRetry(
      async () => {
        // A per-request tag lets us find (and kill) a sandbox whose create response was lost (transport error, our
        // own timeout while the service still completes it); the session tag lets the exit sweep find it later.
        const requestTag = randomBytes(6).toString('hex');
        const metadata = { ...opts.metadata, [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE, [REQUEST_TAG_KEY]: requestTag, ...this.ledger.tag() };
        // E2B may complete a create we gave up on: the exit waits up to twice the request timeout for it to land.
        await this.ledger.willCreate(this, requestTag, 2 * this.requestTimeoutMs);
        try {
          const made = await this.call(
            `create sandbox from template '${opts.template}'`,
            ({ client }) =>
              client.Sandbox.create(opts.template, {
                timeoutMs: opts.timeoutMs,
                metadata,
                envs: opts.envs,
                ...(opts.allowInternet === undefined ? {} : { allowInternetAccess: opts.allowInternet }),
                requestTimeoutMs: this.requestTimeoutMs,
                signal: opts.signal,
              }),
            { signal: opts.signal, retry: false },
          );
          this.ledger.register(made.sandboxId, this);
          this.ledger.answered(requestTag);
          return made;
        } catch (err) {
          if (err instanceof SandboxError && (err.kind === 'network' || err.kind === 'cancelled' || err.kind === 'timeout')) {
            this.ledger.unanswered(requestTag);
            await this.reapRequest(requestTag);
          } else this.ledger.answered(requestTag);
          throw err;
        }
      },
      { policy: this.settings.retry, signal: opts.signal, onRetry: this.settings.onRetry },
    );
    const sandbox = new E2bSandbox(this, sbx, opts.template);
    // Answered after an interrupt or after the exit sweep began: nobody will use it, so it goes at once.
    if (opts.signal?.aborted || this.ledger.isClosing) {
      await sandbox.kill().catch(() => false);
      throw cancelledError(opts.signal, 'create sandbox');
    }
    return sandbox;
  }

  /** Kills sandboxes created by a request whose answer never arrived. Best effort. */
  private async reapRequest(requestTag: string): Promise<void> {
    try {
      const found = await this.listNow({ metadata: { [REQUEST_TAG_KEY]: requestTag } });
      if (found.length > 0) this.ledger.answered(requestTag);
      await Promise.all(found.map((s) => this.killNow(s.id).catch(() => false)));
    } catch {
      // the service is unreachable; the console tag still lets `sandboxes kill --all-console` find it later
    }
  }

  async connect(id: string, opts: { signal?: AbortSignal } = {}): Promise<Sandbox> {
    await this.client();
    await this.beforeUse();
    const sbx = await this.call(`connect to sandbox ${id}`, ({ client }) => client.Sandbox.connect(id, { requestTimeoutMs: this.requestTimeoutMs, signal: opts.signal }), { signal: opts.signal });
    let template = '';
    try {
      const info = await sbx.getInfo({ requestTimeoutMs: this.requestTimeoutMs, signal: opts.signal });
      template = info.name ?? info.templateId;
    } catch {
      // the template name is cosmetic
    }
    return new E2bSandbox(this, sbx, template);
  }

  async list(filter: { metadata?: Record<string, string>; signal?: AbortSignal }): Promise<SandboxInfo[]> {
    await this.client();
    await this.beforeUse();
    return this.listNow(filter);
  }

  private async listNow(filter: { metadata?: Record<string, string>; signal?: AbortSignal }): Promise<SandboxInfo[]> {
    const { client } = await this.client();
    const paginator = client.Sandbox.list({
      query: { metadata: filter.metadata, state: ['running', 'paused'] },
      limit: 100,
      requestTimeoutMs: this.requestTimeoutMs,
    });
    const out: SandboxInfo[] = [];
    while (paginator.hasNext) {
      const items = await this.call('list sandboxes', () => paginator.nextItems(), { signal: filter.signal });
      for (const s of items) {
        out.push({
          id: s.sandboxId,
          template: s.name ?? s.templateId,
          metadata: { ...(s.metadata ?? {}) },
          startedAt: new Date(s.startedAt).toISOString(),
          endAt: s.endAt ? new Date(s.endAt).toISOString() : undefined,
          state: s.state === 'paused' ? 'paused' : 'running',
          provider: 'e2b',
        });
      }
    }
    return out;
  }

  async metrics(id: string, opts: { signal?: AbortSignal; start?: Date } = {}): Promise<SandboxUsageSample[]> {
    const list = await this.call(`read the metrics of sandbox ${id}`, ({ client }) => client.Sandbox.getMetrics(id, { requestTimeoutMs: this.requestTimeoutMs, signal: opts.signal, ...(opts.start ? { start: opts.start } : {}) }), { signal: opts.signal, retry: false });
    return list.map((m) => ({ at: m.timestamp.getTime(), cpuUsedPct: m.cpuUsedPct, cpuCount: m.cpuCount, memUsed: m.memUsed, memTotal: m.memTotal, memCache: m.memCache, diskUsed: m.diskUsed, diskTotal: m.diskTotal }));
  }

  async killById(id: string): Promise<boolean> {
    await this.client();
    await this.beforeUse();
    return this.killNow(id);
  }

  private async killNow(id: string): Promise<boolean> {
    const killed = await this.call(`kill sandbox ${id}`, ({ client }) => client.Sandbox.kill(id, { requestTimeoutMs: this.requestTimeoutMs }));
    this.ledger.forget(id);
    return killed;
  }

  // Template checks and builds are retried by the template factory (which also pauses every worker during a 429
  // storm), so not here: one retry layer per operation.
  async templateExists(name: string, opts: { signal?: AbortSignal } = {}): Promise<boolean> {
    await this.client();
    await this.beforeUse();
    return this.call(`check template '${name}'`, ({ client }) => client.Template.exists(name, { requestTimeoutMs: this.requestTimeoutMs, signal: opts.signal }), { signal: opts.signal, retry: false });
  }

  async buildTemplate(spec: TemplateSpec, opts: TemplateBuildOptions = {}): Promise<TemplateBuildResult> {
    await this.client();
    await this.beforeUse();
    const log = (line: string) => opts.onLog?.(redact(line));
    // The SDK polls a build's status until E2B says it ended; a build that never ends would be polled forever.
    const deadline = new AbortController();
    const onAbort = () => deadline.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    let timedOut = false;
    const timer =
      opts.deadlineMs !== undefined && opts.deadlineMs > 0
        ? setTimeout(() => {
            timedOut = true;
            deadline.abort();
          }, opts.deadlineMs)
        : undefined;
    try {
      const info = await this.call(
        `build template '${spec.name}'`,
        async ({ sdk, client }) => {
          let t = client.Template({ fileContextPath: spec.contextDir ?? process.cwd() }).fromImage(spec.baseImage).setUser('root');
          if (spec.aptPackages.length > 0) t = t.aptInstall(spec.aptPackages);
          for (const c of spec.copies) t = t.copy(c.src, c.dest, c.mode === undefined ? {} : { mode: c.mode });
          for (const cmd of spec.runCommands) t = t.runCmd(cmd);
          const ready = sdk.waitForURL(`http://127.0.0.1:${spec.readyPort}${spec.readyPath.startsWith('/') ? '' : '/'}${spec.readyPath}`);
          const final = t.setStartCmd(spec.startCommand, ready);
          return client.Template.build(final, spec.name, {
            cpuCount: spec.cpuCount,
            memoryMB: spec.memoryMb,
            skipCache: spec.skipCache,
            requestTimeoutMs: this.requestTimeoutMs,
            signal: deadline.signal,
            onBuildLogs: (entry) => log(`${entry.level.padEnd(5)} ${entry.message}`),
          });
        },
        { signal: opts.signal, retry: false },
      );
      return { name: spec.name, templateId: info.templateId, buildId: info.buildId };
    } catch (err) {
      if (timedOut && !opts.signal?.aborted) {
        const min = Math.round((opts.deadlineMs ?? 0) / 60_000);
        throw new SandboxError('timeout', `build template '${spec.name}': deadline exceeded, the build did not finish within ${min >= 1 ? `${min} min` : `${Math.round((opts.deadlineMs ?? 0) / 1000)} s`} (E2B may still be building it; it is rebuilt on the next run)`, { cause: err });
      }
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}

export class E2bSandbox implements Sandbox {
  readonly provider = 'e2b' as const;
  readonly id: string;

  constructor(
    private readonly owner: E2bProvider,
    private readonly sbx: SdkSandbox,
    readonly template: string,
  ) {
    this.id = sbx.sandboxId;
  }

  async run(command: string, opts: RunCommandOptions): Promise<CommandResult> {
    if (!(opts.timeoutMs > 0)) throw new SandboxError('unknown', `a command needs a positive timeout, got ${opts.timeoutMs} ms`);
    if (opts.signal?.aborted) throw cancelledError(opts.signal, 'command');
    const out = new StreamCollector(opts.maxOutputBytes, opts.onStdout);
    const err = new StreamCollector(opts.maxOutputBytes, opts.onStderr);
    const grace = this.owner.settings.commandGraceMs ?? 10_000;
    let handle: Awaited<ReturnType<SdkSandbox['commands']['run']>> & { pid: number; wait(): Promise<unknown>; kill(): Promise<boolean> };
    try {
      // Starting is retried on the failures that mean "it did not start" at the edge (the sandbox proxy's 502,
      // 503, 429); the rest of the command is not, since by then it may have run.
      handle = (await withRetry(
        async () => {
          try {
            return await this.sbx.commands.run(command, {
              background: true,
              cwd: opts.cwd,
              user: opts.user as never,
              envs: opts.envs,
              timeoutMs: opts.timeoutMs + grace,
              requestTimeoutMs: this.owner.requestTimeoutMs,
              onStdout: (chunk: string) => out.push(chunk),
              onStderr: (chunk: string) => err.push(chunk),
            });
          } catch (e) {
            const mapped = mapE2bError(e, `start command in sandbox ${this.id}`, opts.signal);
            // The SDK reads every 502 of the sandbox proxy as "sandbox not running"; the control plane knows.
            if (mapped.kind === 'not_found' && (await this.isRunningPerControlPlane())) {
              throw new SandboxError('network', `${mapped.message} (E2B's sandbox proxy answered 502, but the sandbox is running)`, { status: 502, cause: e });
            }
            throw mapped;
          }
        },
        { policy: this.owner.settings.retry, signal: opts.signal, onRetry: this.owner.settings.onRetry },
      )) as typeof handle;
    } catch (e) {
      out.finish();
      err.finish();
      throw e;
    }

    let ended: 'timeout' | 'abort' | undefined;
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const timer = setTimeout(() => {
      ended ??= 'timeout';
      stop();
    }, opts.timeoutMs);
    const onAbort = () => {
      ended ??= 'abort';
      stop();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    const waited = handle.wait().then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    try {
      const first = await Promise.race([waited, stopped.then(() => undefined)]);
      if (first === undefined || ended) {
        await this.killProcess(handle.pid, handle);
        // The stream ends once the process is gone; bound the wait in case the daemon never says so.
        await Promise.race([waited, sleep(5000, undefined, { unref: true })]);
        out.finish();
        err.finish();
        if (ended === 'abort') throw cancelledError(opts.signal, 'command');
        return { exitCode: 124, stdout: out.tail.text(), stderr: err.tail.text(), timedOut: true };
      }
      if (first.ok) {
        const r = first.r as { exitCode: number };
        return { exitCode: r.exitCode, stdout: out.finish(), stderr: err.finish(), timedOut: false };
      }
      const e = first.e as { name?: string; exitCode?: number; message?: string };
      if (e?.name === 'CommandExitError' && typeof e.exitCode === 'number') {
        return { exitCode: e.exitCode, stdout: out.finish(), stderr: err.finish(), timedOut: false };
      }
      if (e?.name === 'TimeoutError' && /deadline_exceeded/i.test(String(e.message))) {
        await this.killProcess(handle.pid, handle);
        return { exitCode: 124, stdout: out.finish(), stderr: err.finish(), timedOut: true };
      }
      out.finish();
      err.finish();
      throw mapE2bError(e, 'command', opts.signal);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async isRunningPerControlPlane(): Promise<boolean> {
    try {
      const info = (await this.sbx.getInfo({ requestTimeoutMs: this.owner.requestTimeoutMs })) as { state?: string };
      return info.state === undefined || info.state === 'running';
    } catch {
      return false;
    }
  }

  private async killProcess(pid: number, handle: { kill(): Promise<boolean> }): Promise<void> {
    try {
      await this.sbx.commands.run(killTreeCommand(pid), { timeoutMs: 15_000, requestTimeoutMs: this.owner.requestTimeoutMs, user: 'root' as never });
    } catch {
      // best effort: fall back to the daemon's own SIGKILL below
    }
    try {
      await handle.kill();
    } catch {
      // already gone
    }
  }

  async readFile(path: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    try {
      return await this.sbx.files.read(path, { format: 'text', requestTimeoutMs: this.owner.requestTimeoutMs, signal: opts.signal });
    } catch (e) {
      throw mapE2bError(e, `read ${path}`, opts.signal);
    }
  }

  async writeFile(path: string, data: string | Uint8Array, opts: { signal?: AbortSignal } = {}): Promise<void> {
    try {
      await this.sbx.files.write(path, typeof data === 'string' ? data : toArrayBuffer(data), { requestTimeoutMs: this.owner.requestTimeoutMs, signal: opts.signal });
    } catch (e) {
      throw mapE2bError(e, `write ${path}`, opts.signal);
    }
  }

  async health(port: number, path = '/health', opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<HealthResult> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const r = await this.run(healthProbeCommand(port, path, timeoutMs / 1000), { timeoutMs: timeoutMs + 10_000, signal: opts.signal, maxOutputBytes: 256 * 1024 });
    return parseHealthProbe(r);
  }

  async setTimeout(ms: number): Promise<void> {
    await this.owner.call(`extend sandbox ${this.id}`, () => this.sbx.setTimeout(ms, { requestTimeoutMs: this.owner.requestTimeoutMs }));
  }

  async kill(): Promise<boolean> {
    const killed = await this.owner.call(`kill sandbox ${this.id}`, () => this.sbx.kill({ requestTimeoutMs: this.owner.requestTimeoutMs }));
    this.owner.ledger.forget(this.id);
    return killed;
  }
}
