// The doctor: every prerequisite and known trap of the recipe, checked concurrently with timeouts. One job for both
// faces: `doctor` prints its events, the home screen puts them in its store; each check's result is an event as
// soon as it is known, so the screen fills in while slow checks (python3, the E2B API) still run.
import type { RecipePaths } from '../workspace/paths.js';
import type { DoctorCheck, PendingCheck } from './types.js';
import { stat } from 'node:fs/promises';
import { CHECKS, type CheckContext, type CheckDef } from './checks.js';
import { DRESSAGE_CLONE_COMMAND } from '../workspace/checkout.js';
import { DoctorProbe, NoAnswerError } from './probe.js';
import { sampleWorkspaceLabel } from '../workspace/sample.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import { setting } from '../config/envSettings.js';

/**
 * Checks of the real recipe that the sample workspace does not need (it has no Dressage checkout, runs local
 * sandboxes with stand-ins and trains nothing): there a warning or failure of theirs is reported as not needed.
 */
const REAL_RECIPE_ONLY = new Set(['checkout', 'dressage-commit', 'slime', 'uv', 'e2b-key', 'e2b-train-key', 'proxy-url', 'nodes', 'hostfile', 'gpus', 'ray']);

function forSampleWorkspace(c: DoctorCheck): DoctorCheck {
  if ((c.status !== 'warn' && c.status !== 'fail') || !(REAL_RECIPE_ONLY.has(c.id) || c.id.startsWith('py-'))) return c;
  return { ...c, status: 'skip', detail: `not needed in the sample workspace (for the real recipe: ${c.detail})`, fix: '' };
}

/** Checks that need nothing of the workspace folder: the environment, this Node, the PATH. */
const WORKSPACE_FREE = new Set(['node', 'e2b-key', 'bootstrap-urls', 'nodes', 'bbs-port', 'tools']);

/** A check of its own, first, when the workspace folder is missing (or is not a folder); undefined when it is there. */
async function workspaceFolderCheck(root: string): Promise<CheckDef | undefined> {
  let problem: string | undefined;
  try {
    if (!(await stat(root)).isDirectory()) problem = `${root} is not a folder`;
  } catch (err) {
    problem = (err as NodeJS.ErrnoException).code === 'ENOENT' ? `${root} does not exist` : `${root} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (!problem) return undefined;
  const detail = problem;
  return {
    id: 'workspace',
    title: 'Workspace folder',
    run: async () => ({ status: 'fail', detail, fix: `pass --workspace with the folder of your Dressage checkout (${DRESSAGE_CLONE_COMMAND} makes one); the checks that read it were skipped` }),
  };
}

export type DoctorJobEvent =
  /** Every check about to run, in the order results are listed. */
  | { type: 'started'; pending: PendingCheck[] }
  /** One check answered: its result rows (a check may report several, e.g. artifacts and the binary). */
  | { type: 'result'; id: string; checks: DoctorCheck[] }
  /** All of them, in the order of `started`. */
  | { type: 'finished'; checks: DoctorCheck[] };

export interface DoctorOptions {
  paths: RecipePaths;
  env: NodeJS.ProcessEnv;
  provider: 'e2b' | 'local';
  /** Per-check timeout. */
  timeoutMs?: number;
  onEvent?: JobListener<DoctorJobEvent>;
}

export async function runDoctor(opts: DoctorOptions): Promise<DoctorCheck[]> {
  const emit = jobEmitter<DoctorJobEvent>('doctor', opts.onEvent);
  // A check that hangs must not hold the doctor up; SWEGYM_DOCTOR_TIMEOUT_MS raises the bound on slow machines.
  const timeoutMs = opts.timeoutMs ?? setting(opts.env, 'SWEGYM_DOCTOR_TIMEOUT_MS');
  const base = { paths: opts.paths, env: opts.env, provider: opts.provider, timeoutMs };
  // python3 starts with the first check that asks for it (none does when the workspace folder is missing).
  let probe: DoctorProbe | undefined;
  let probeSettled = false;
  const ctx: CheckContext = {
    ...base,
    get probe() {
      if (!probe) {
        probe = new DoctorProbe(base);
        void probe.settled.then(() => (probeSettled = true));
      }
      return probe;
    },
  };
  const sample = Boolean(sampleWorkspaceLabel(opts.paths));
  const folder = await workspaceFolderCheck(opts.paths.root);
  // Without the folder every check that reads it or starts a program in it would fail for that reason alone, in
  // words that blame something else ("python3 not found"): the folder is named first and those checks wait for it.
  const checks = folder ? [folder, ...CHECKS] : CHECKS;
  emit({ type: 'started', pending: checks.map(({ id, title }) => ({ id, title })) });
  const results = await Promise.all(
    checks.map(async (check): Promise<DoctorCheck[]> => {
      if (folder && check !== folder && !WORKSPACE_FREE.has(check.id)) {
        const rows: DoctorCheck[] = [{ id: check.id, title: check.title, status: 'skip', detail: `not checked: the workspace folder ${opts.paths.root} does not exist` }];
        emit({ type: 'result', id: check.id, checks: rows });
        return rows;
      }
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<DoctorCheck[]>((resolve) => {
        const arm = () => {
          timer = setTimeout(() => {
            // While python3 is still running, its own deadline bounds the checks that wait for it and words their
            // answer ("the python3 probe ended before it"); this guard racing it made the words depend on the load.
            if (probe && !probeSettled) return void probe.settled.then(arm);
            resolve([{ id: check.id, title: check.title, status: 'warn', detail: `no answer within ${timeoutMs} ms`, fix: 'check again; something on this machine hangs' }]);
          }, timeoutMs + 500);
        };
        arm();
      });
      let rows: DoctorCheck[];
      try {
        const r = await Promise.race([check.run(ctx), timeout]);
        rows = (Array.isArray(r) ? r : [r]).map((c) => ({ ...c, id: c.id ?? check.id, title: c.title ?? check.title }) as DoctorCheck);
      } catch (err) {
        rows = [
          err instanceof NoAnswerError
            ? { id: check.id, title: check.title, status: 'warn', detail: err.message, fix: 'check again; something on this machine hangs' }
            : { id: check.id, title: check.title, status: 'warn', detail: `check crashed: ${(err as Error).message}` },
        ];
      } finally {
        clearTimeout(timer);
      }
      if (sample) rows = rows.map(forSampleWorkspace);
      emit({ type: 'result', id: check.id, checks: rows });
      return rows;
    }),
  );
  const all = results.flat();
  emit({ type: 'finished', checks: all });
  return all;
}
