// The doctor: every prerequisite and known trap of the recipe, checked concurrently with timeouts.
import type { RecipePaths } from '../workspace/paths.js';
import type { DoctorCheck } from './types.js';
import { CHECKS, type CheckContext } from './checks.js';
import { sampleWorkspaceLabel } from '../workspace/sample.js';

/**
 * Checks of the real recipe that the sample workspace does not need (it has no Dressage checkout, runs local
 * sandboxes with stand-ins and trains nothing): there a warning or failure of theirs is reported as not needed.
 */
const REAL_RECIPE_ONLY = new Set(['checkout', 'slime', 'uv', 'e2b-key', 'e2b-train-key', 'proxy-url', 'nodes', 'hostfile', 'gpus', 'ray']);

function forSampleWorkspace(c: DoctorCheck): DoctorCheck {
  if ((c.status !== 'warn' && c.status !== 'fail') || !(REAL_RECIPE_ONLY.has(c.id) || c.id.startsWith('py-'))) return c;
  return { ...c, status: 'skip', detail: `not needed in the sample workspace (for the real recipe: ${c.detail})`, fix: '' };
}

export interface DoctorOptions {
  paths: RecipePaths;
  env: NodeJS.ProcessEnv;
  provider: 'e2b' | 'local';
  /** Per-check timeout. */
  timeoutMs?: number;
}

export async function runDoctor(opts: DoctorOptions): Promise<DoctorCheck[]> {
  // A check that hangs must not hold the doctor up; SWEGYM_DOCTOR_TIMEOUT_MS raises the bound on slow machines.
  const timeoutMs = opts.timeoutMs ?? (Number(opts.env.SWEGYM_DOCTOR_TIMEOUT_MS) || 3000);
  const ctx: CheckContext = { paths: opts.paths, env: opts.env, provider: opts.provider, timeoutMs };
  const results = await Promise.all(
    CHECKS.map(async (check): Promise<DoctorCheck[]> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<DoctorCheck[]>((resolve) => {
        timer = setTimeout(
          () => resolve([{ id: check.id, title: check.title, status: 'warn', detail: `no answer within ${timeoutMs} ms`, fix: 'check again; something on this machine hangs' }]),
          timeoutMs + 500,
        );
      });
      try {
        const r = await Promise.race([check.run(ctx), timeout]);
        return (Array.isArray(r) ? r : [r]).map((c) => ({ ...c, id: c.id ?? check.id, title: c.title ?? check.title }) as DoctorCheck);
      } catch (err) {
        return [{ id: check.id, title: check.title, status: 'warn', detail: `check crashed: ${(err as Error).message}` }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const checks = results.flat();
  return sampleWorkspaceLabel(opts.paths) ? checks.map(forSampleWorkspace) : checks;
}
