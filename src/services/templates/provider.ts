// Opens the sandbox provider the template commands use (--provider e2b|local).
import { ConsoleError, ExitCode } from '../errors.js';
import type { SandboxProvider } from '../sandbox/types.js';
import type { RecipePaths } from '../workspace/paths.js';

export async function openSandboxProvider(name: 'e2b' | 'local', env: NodeJS.ProcessEnv, _paths: RecipePaths): Promise<SandboxProvider> {
  if (name === 'e2b') {
    const { E2bProvider, e2bSettingsFromEnv } = await import('../sandbox/e2b.js');
    const settings = e2bSettingsFromEnv(env);
    if (!settings.apiKey) {
      throw new ConsoleError({
        what: 'E2B_API_KEY is not set',
        cause: 'building and smoke-testing templates talks to E2B with E2B_API_KEY (training later uses DRESSAGE_E2B_API_KEY)',
        fix: 'export E2B_API_KEY=e2b_… (or use --provider local for the offline sample workspace)',
        exitCode: ExitCode.precondition,
      });
    }
    return new E2bProvider(settings);
  }
  throw new ConsoleError({
    what: 'the local provider is not available in this build yet',
    fix: 'use --provider e2b',
    exitCode: ExitCode.precondition,
  });
}
