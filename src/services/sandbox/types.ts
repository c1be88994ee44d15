// The one sandbox interface every later step talks to (template smoke, evaluation, agent validation, the live
// sandbox panel). Providers: E2B (cloud, via the `e2b` SDK), local (bubblewrap on this machine), memory (tests).
// Modelled on Dressage's own provider split: create → commands/files/health → kill, plus template build/exists.

export type ProviderName = 'e2b' | 'local' | 'memory';

/** Metadata key/value every console sandbox carries so that list/kill find only ours. Keep to [A-Za-z0-9._-]. */
export const CONSOLE_TAG_KEY = 'swegym_console';
export const CONSOLE_TAG_VALUE = '1';

export interface CreateSandboxOptions {
  /** Template name (E2B alias) or, for the local provider, a template name registered in its store. */
  template: string;
  /** Sandbox lifetime in ms. */
  timeoutMs: number;
  envs?: Record<string, string>;
  /** Extra metadata tags (the console tag is always added). */
  metadata?: Record<string, string>;
  /** Local provider: allow network access (off by default). */
  allowInternet?: boolean;
  /**
   * Local provider: host paths mounted into the sandbox (a tool too large to copy per sandbox, a socket
   * directory); E2B ignores them. `readOnly` unless said otherwise.
   */
  binds?: { src: string; dest: string; writable?: boolean }[];
  signal?: AbortSignal;
}

export interface RunCommandOptions {
  cwd?: string;
  user?: string;
  envs?: Record<string, string>;
  /** Whole-command timeout. Required: nothing runs without a bound. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Complete lines (no newline), already split from chunks. */
  onStdout?: (line: string) => void;
  onStderr?: (line: string) => void;
  /** Keep at most this many bytes of each stream in the result (tail). Default 1 MiB. */
  maxOutputBytes?: number;
}

/**
 * A command result. A non-zero exit is a result, not an error. A command that hit its timeout is killed (with its
 * children) and reported with `timedOut: true` and exitCode 124 (like coreutils `timeout`); an aborted signal throws
 * SandboxError('cancelled') instead.
 */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface HealthResult {
  ok: boolean;
  status?: number;
  body?: string;
  /** Parsed JSON body when it is JSON. */
  json?: unknown;
  error?: string;
}

export interface SandboxInfo {
  id: string;
  template: string;
  metadata: Record<string, string>;
  startedAt: string;
  endAt?: string;
  state: 'running' | 'paused';
  provider: ProviderName;
}

export interface Sandbox {
  readonly id: string;
  readonly provider: ProviderName;
  readonly template: string;
  run(command: string, opts: RunCommandOptions): Promise<CommandResult>;
  readFile(path: string, opts?: { signal?: AbortSignal }): Promise<string>;
  writeFile(path: string, data: string | Uint8Array, opts?: { signal?: AbortSignal }): Promise<void>;
  /** GET http://127.0.0.1:<port><path> from inside the sandbox. */
  health(port: number, path?: string, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<HealthResult>;
  /** Extend (or set) the remaining lifetime. */
  setTimeout(ms: number): Promise<void>;
  /** Always awaited; idempotent; resolves false when it was already gone. */
  kill(): Promise<boolean>;
}

/** The steps of a sandbox template, the same for every provider (see templates/recipe). */
export interface TemplateSpec {
  name: string;
  /** Docker image for E2B; for the local provider, a directory tree (rootfs or /testbed tree). */
  baseImage: string;
  cpuCount: number;
  memoryMb: number;
  /** Files copied into the template: [local source, destination, mode]. */
  copies: { src: string; dest: string; mode?: number }[];
  /** Commands run at build time, as root. */
  runCommands: string[];
  aptPackages: string[];
  startCommand: string;
  /** Readiness: the start command is ready when this port answers the health path. */
  readyPort: number;
  readyPath: string;
  skipCache?: boolean;
  /** Directory that relative `copies[].src` paths are resolved against (E2B's fileContextPath). Default: cwd. */
  contextDir?: string;
}

export interface TemplateBuildResult {
  name: string;
  templateId: string;
  buildId?: string;
}

export interface TemplateBuildOptions {
  signal?: AbortSignal;
  /** Give up on a build that has not ended after this long (E2B's own limit is 1 h; a stuck build never ends). */
  deadlineMs?: number;
  /** Build log lines as they arrive. */
  onLog?: (line: string) => void;
}

/** One resource sample of a sandbox, as E2B's SandboxMetric gives it (bytes; CPU in percent of its cores). */
export interface SandboxUsageSample {
  at: number;
  cpuUsedPct: number;
  cpuCount: number;
  memUsed: number;
  memTotal: number;
  memCache: number;
  diskUsed: number;
  diskTotal: number;
}

export interface SandboxProvider {
  readonly name: ProviderName;
  create(opts: CreateSandboxOptions): Promise<Sandbox>;
  /** Reconnect to a running sandbox by id (monitor drill-in). */
  connect(id: string, opts?: { signal?: AbortSignal }): Promise<Sandbox>;
  /** Lists running sandboxes whose metadata contains every given tag. */
  list(filter: { metadata?: Record<string, string>; signal?: AbortSignal }): Promise<SandboxInfo[]>;
  /** Kill by id; false when it was already gone. */
  killById(id: string): Promise<boolean>;
  templateExists(name: string, opts?: { signal?: AbortSignal }): Promise<boolean>;
  /** The service's own resource samples of a sandbox (E2B: GET /sandboxes/{id}/metrics); absent where none exist. */
  metrics?(id: string, opts?: { signal?: AbortSignal; start?: Date }): Promise<SandboxUsageSample[]>;
  buildTemplate(spec: TemplateSpec, opts?: TemplateBuildOptions): Promise<TemplateBuildResult>;
}

/** The closed set of sandbox failures. Every provider maps its errors onto these. */
export type SandboxErrorKind =
  | 'rate_limited'
  | 'unauthorized'
  | 'not_found'
  | 'timeout'
  | 'cancelled'
  | 'service_busy'
  | 'build_failed'
  | 'network'
  | 'unknown';

export class SandboxError extends Error {
  readonly kind: SandboxErrorKind;
  /** Seconds to wait before retrying, from Retry-After when the service sent one. */
  readonly retryAfterSec: number | undefined;
  readonly status: number | undefined;

  constructor(kind: SandboxErrorKind, message: string, opts: { retryAfterSec?: number; status?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'SandboxError';
    this.kind = kind;
    this.retryAfterSec = opts.retryAfterSec;
    this.status = opts.status;
  }

  /** Worth retrying with backoff: rate limits, busy service, transport errors. Never build failures. */
  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'service_busy' || this.kind === 'network';
  }
}
