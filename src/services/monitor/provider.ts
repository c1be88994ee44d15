// The provider behind the sandboxes panel. Dressage's training sandboxes are created with DRESSAGE_E2B_API_KEY
// (recipe §8 trap 2); listing works with any key of the same E2B team, so that key is preferred, then E2B_API_KEY.
import type { SandboxProvider } from '../sandbox/types.js';
import { setting } from '../config/envSettings.js';

export async function openMonitorProvider(name: 'e2b' | 'local', env: NodeJS.ProcessEnv): Promise<SandboxProvider | undefined> {
  if (name !== 'e2b') return undefined; // Dressage's local_bwrap sandboxes are not listed through a console provider.
  const apiKey = (env.DRESSAGE_E2B_API_KEY ?? '').trim() || (setting(env, 'E2B_API_KEY') ?? '').trim();
  if (!apiKey) return undefined;
  const { E2bProvider, e2bSettingsFromEnv } = await import('../sandbox/e2b.js');
  return new E2bProvider(e2bSettingsFromEnv(env, { apiKey }));
}

/**
 * E2B plan limit on concurrent sandboxes, else 100 (Pro; Hobby is 20). One setting for every screen: the launch checks
 * read the same SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT (train/settings.ts).
 */
export function sandboxLimitFromEnv(env: NodeJS.ProcessEnv): number {
  return setting(env, 'SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT');
}

/** SWEGYM_DASHBOARD_REFRESH_MS: the dashboard's data refresh (250 ms to 60 s); unset or invalid = the default. */
export function refreshMsFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  return setting(env, 'SWEGYM_DASHBOARD_REFRESH_MS');
}
