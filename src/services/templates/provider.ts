// Opens the sandbox provider the template commands use (--provider e2b|local), through the sandbox layer's factory.
import { ConsoleError, ExitCode } from '../errors.js';
import type { SandboxProvider } from '../sandbox/types.js';
import type { RetryEvent } from '../sandbox/retry.js';
import type { RecipePaths } from '../workspace/paths.js';

/** `onRetry` sees every retry of the provider's one retry layer (headless commands print them). */
export async function openSandboxProvider(name: 'e2b' | 'local', env: NodeJS.ProcessEnv, paths: RecipePaths, opts: { onRetry?: (e: RetryEvent) => void } = {}): Promise<SandboxProvider> {
  const { createProvider } = await import('../sandbox/index.js');
  if (name === 'e2b' && !env.E2B_API_KEY?.trim()) {
    throw new ConsoleError({
      what: 'E2B_API_KEY is not set',
      cause: 'building and smoke-testing templates talks to E2B with E2B_API_KEY (training later uses DRESSAGE_E2B_API_KEY)',
      fix: 'export E2B_API_KEY=e2b_… (or use --provider local for the offline sample workspace)',
      exitCode: ExitCode.precondition,
    });
  }
  return createProvider(name, { workspace: paths.root, env, ...(opts.onRetry ? { e2b: { onRetry: opts.onRetry } } : {}) });
}
