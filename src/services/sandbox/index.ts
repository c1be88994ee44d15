// Entry point of the sandbox layer: the provider factory, settings, and how sandbox failures read for people.
// Importing this module is cheap: the `e2b` SDK is only loaded when an E2B call is made.
import path from 'node:path';
import { ConsoleError, ExitCode } from '../errors.js';
import { CONSOLE_DIR_NAME } from '../workspace/paths.js';
import { E2bProvider, e2bSettingsFromEnv, type E2bSettings } from './e2b.js';
import { LocalProvider, LOCAL_STORE_DIR_NAME, type LocalSettings } from './local.js';
import { MemoryProvider, type MemoryProviderOptions } from './memory.js';
import { sessionsDir } from './sessions.js';
import { CONSOLE_TAG_KEY, CONSOLE_TAG_VALUE, SandboxError, type CreateSandboxOptions, type ProviderName, type Sandbox, type SandboxProvider } from './types.js';

export * from './types.js';
export { E2bProvider, e2bSettingsFromEnv, mapE2bError, type E2bSettings } from './e2b.js';
export { LocalProvider, LocalSandbox, type LocalSettings, type LocalTemplateMeta } from './local.js';
export { buildMinimalLocalTemplate } from './localMinimal.js';
export { MemoryProvider, MemorySandbox, type MemoryProviderOptions, type MemoryCommandPlan, type MemoryTemplate } from './memory.js';
export { withRetry, backoffDelay, type RetryPolicy, type RetryEvent } from './withRetry.js';
export { LineSplitter, StreamCollector } from './lines.js';
export { healthProbeCommand, parseHealthProbe } from './health.js';

export interface ProviderSettings {
  /** The workspace (Dressage checkout); the local provider keeps its store under `<workspace>/.swegym-console/`. */
  workspace?: string;
  /** Environment to read E2B_* variables from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Explicit E2B settings; they win over the environment. */
  e2b?: E2bSettings;
  local?: Partial<LocalSettings>;
  memory?: MemoryProviderOptions;
}

/** Where the local provider keeps templates and sandbox state for a workspace. */
export function localStoreDir(workspace: string): string {
  return path.join(path.resolve(workspace), CONSOLE_DIR_NAME, LOCAL_STORE_DIR_NAME);
}

/** The console's metadata filter: what `list` and clean-up use so that only our sandboxes are ever touched. */
export function consoleTag(extra: Record<string, string> = {}): Record<string, string> {
  return { ...extra, [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE };
}

export function createProvider(name: ProviderName, settings: ProviderSettings = {}): SandboxProvider {
  switch (name) {
    case 'e2b': {
      // A workspace's E2B provider keeps the sandbox ledger on disk there (and reaps what dead sessions left).
      const ledgerDir = settings.workspace ? sessionsDir(path.join(path.resolve(settings.workspace), CONSOLE_DIR_NAME)) : undefined;
      return new E2bProvider(e2bSettingsFromEnv(settings.env ?? process.env, { ...(ledgerDir ? { ledgerDir } : {}), ...settings.e2b }));
    }
    case 'local': {
      const storeDir = settings.local?.storeDir ?? localStoreDir(settings.workspace ?? process.cwd());
      return new LocalProvider({ ...settings.local, storeDir });
    }
    case 'memory':
      return new MemoryProvider(settings.memory);
    default: {
      const never: never = name;
      throw new ConsoleError({ what: `unknown sandbox provider '${String(never)}'`, fix: 'use --provider e2b or --provider local', exitCode: ExitCode.usage });
    }
  }
}

const FIXES: Record<SandboxError['kind'], { cause: string; fix: string }> = {
  unauthorized: {
    cause: 'E2B rejected the API key, or none is configured',
    fix: 'export E2B_API_KEY=<your key> (https://e2b.dev/dashboard?tab=keys); for a self-hosted E2B also set E2B_DOMAIN or E2B_API_URL',
  },
  rate_limited: {
    cause: 'E2B rate limit or concurrent-sandbox limit reached (Hobby: 20 sandboxes, 1 create/s; Pro: 100, 5/s)',
    fix: 'lower --concurrency, kill leftovers with `swegym-console sandboxes kill --all-console`, or retry later',
  },
  service_busy: { cause: 'E2B answered 503 (no capacity right now)', fix: 'retry in a minute; it is safe to re-run the same command' },
  network: { cause: 'the E2B service could not be reached', fix: 'check the network/proxy, and E2B_DOMAIN / E2B_API_URL / E2B_SANDBOX_URL if you use a self-hosted E2B' },
  not_found: { cause: 'the sandbox or template does not exist (killed, expired, or never built)', fix: 'check the name/id; `swegym-console sandboxes list` shows running sandboxes, `templates status` the templates' },
  timeout: { cause: 'the operation did not finish within its time limit, or the sandbox reached its end of life', fix: 'retry; if it keeps happening, raise the timeout or check the template start command' },
  cancelled: { cause: 'interrupted', fix: 'run the command again when ready' },
  build_failed: { cause: 'a template build step or the start command failed', fix: 'read the build log above; fix the step (missing package, bad image, start command) and rebuild' },
  unknown: { cause: 'an unexpected sandbox failure', fix: 'run again with --debug for details' },
};

/** Turns any sandbox failure into a ConsoleError with what / cause / fix. */
export function sandboxConsoleError(err: unknown, what: string): ConsoleError {
  if (err instanceof ConsoleError) return err;
  if (err instanceof SandboxError) {
    const f = FIXES[err.kind];
    const retry = err.retryAfterSec !== undefined ? ` (retry after ${err.retryAfterSec}s)` : '';
    return new ConsoleError({ what: `${what}: ${err.message}${retry}`, cause: f.cause, fix: f.fix, exitCode: err.kind === 'unauthorized' ? ExitCode.precondition : ExitCode.failed, inner: err });
  }
  return new ConsoleError({ what: `${what}: ${(err as Error)?.message ?? String(err)}`, inner: err });
}

/**
 * Creates a sandbox, hands it to `fn`, and always kills it afterwards: on success, on a thrown error, and when
 * `opts.signal` aborts (Ctrl-C) — the kill is awaited before this resolves or rejects.
 */
export async function withSandbox<T>(provider: SandboxProvider, opts: CreateSandboxOptions, fn: (sandbox: Sandbox, signal: AbortSignal) => Promise<T>): Promise<T> {
  const sandbox = await provider.create(opts);
  const local = new AbortController();
  const onAbort = () => local.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  try {
    return await fn(sandbox, local.signal);
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await sandbox.kill().catch(() => false);
  }
}
