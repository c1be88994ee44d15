// Opens the sandbox provider the template commands use (--provider e2b|local), through the sandbox layer's factory.
import { ConsoleError, ExitCode } from '../errors.js';
import type { SandboxProvider } from '../sandbox/types.js';
import type { RetryEvent } from '../sandbox/withRetry.js';
import type { RecipePaths } from '../workspace/paths.js';
import { sampleWorkspaceLabel } from '../workspace/sample.js';
import { setting } from '../config/envSettings.js';

/**
 * `onRetry` sees every retry of the provider's one retry layer (headless commands print them). `purpose` says what
 * the caller does with E2B (its words go into the error): templates by default, validation for `validate`.
 */
export async function openSandboxProvider(
  name: 'e2b' | 'local',
  env: NodeJS.ProcessEnv,
  paths: RecipePaths,
  opts: { onRetry?: (e: RetryEvent) => void; purpose?: string } = {},
): Promise<SandboxProvider> {
  const { createProvider } = await import('../sandbox/index.js');
  if (name === 'e2b' && !setting(env, 'E2B_API_KEY')?.trim()) {
    // The sample workspace's sandboxes are local ones: the key is not what is missing there, the flag is.
    if (sampleWorkspaceLabel(paths)) {
      throw new ConsoleError({
        what: 'the sample workspace runs on local sandboxes, and this command asked for E2B (the default provider)',
        cause: `${paths.root} is the sample workspace that \`swegym-console demo\` built: its templates exist only for the local provider`,
        fix: `add --provider local (or export SWEGYM_CONSOLE_PROVIDER=local), e.g. swegym-console -w ${paths.root} --provider local …`,
        exitCode: ExitCode.precondition,
      });
    }
    throw new ConsoleError({
      what: 'E2B_API_KEY is not set',
      cause: `${opts.purpose ?? 'building and smoke-testing templates'} talks to E2B with E2B_API_KEY (training later uses DRESSAGE_E2B_API_KEY)`,
      fix: 'export E2B_API_KEY=e2b_… (or use --provider local for the offline sample workspace)',
      exitCode: ExitCode.precondition,
    });
  }
  return createProvider(name, { workspace: paths.root, env, ...(opts.onRetry ? { e2b: { onRetry: opts.onRetry } } : {}) });
}
