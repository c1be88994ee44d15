// Train screen actions: they call the train services and publish into the train store. No process is spawned here:
// the services own the launcher (detached), `ray status` and `ray stop`.
import type { AppServices } from './services.js';
import { GROUPS, SETTINGS, describeSecretSettings, isSecretSetting, loadTrainSettings, saveTrainSettings, validateSetting } from '../services/train/settings.js';
import { buildLaunchPlan, type LaunchPlan } from '../services/train/launch.js';
import { runLaunchChecks, staticChecks } from '../services/train/checks.js';
import { findLatestCheckpoint, resumeSettings } from '../services/train/registry.js';
import { refreshRuns } from '../services/train/discovery.js';
import { runLaunchJob, runStopJob } from '../services/train/launchJob.js';
import { redact } from '../services/secrets.js';

export { refreshRuns };

/** Setting keys in form order (grouped). */
export const FIELD_KEYS: string[] = GROUPS.flatMap((g) => SETTINGS.filter((s) => s.group === g.id).map((s) => s.key));

function plan(services: AppServices): LaunchPlan {
  return buildLaunchPlan({ paths: services.paths, env: services.env, saved: services.train.getState().values });
}

function flash(services: AppServices, text: string, tone: 'info' | 'warn' | 'error' = 'info'): void {
  services.app.getState().setFlash(redact(text, services.env), tone);
}

/** Recomputes effective values, derived values and the pure checks for the current form. */
export function recompute(services: AppServices): void {
  const p = plan(services);
  services.train.getState().set({ effective: describeSecretSettings(p.effective), sources: p.sources, derived: p.derived, staticChecks: staticChecks(p) });
  void findLatestCheckpoint(p.checkpointDir).then((checkpoint) => services.train.getState().set({ checkpoint }));
}

export async function initTrain(services: AppServices): Promise<void> {
  try {
    const saved = await loadTrainSettings(services.paths);
    services.train.getState().set({ values: { ...saved.values, ...saved.secrets }, storeSecrets: saved.storeSecrets, loaded: true });
  } catch (err) {
    services.train.getState().set({ loaded: true });
    flash(services, `settings not loaded: ${(err as Error).message}`, 'error');
  }
  recompute(services);
  // The same set of checks as `train launch --dry-run` (files, proxy, runs, Ray), so that the screen's count is the
  // headless one from the start, not the settings' checks alone until C.
  void runChecks(services);
  await refreshRuns(services);
}

async function persist(services: AppServices): Promise<void> {
  const { values, storeSecrets } = services.train.getState();
  try {
    await saveTrainSettings(services.paths, values, { storeSecrets });
  } catch (err) {
    flash(services, `settings not saved: ${(err as Error).message}`, 'error');
  }
}

/** Commits one field; an invalid value is refused (the draft stays for correction). Empty = back to the default. */
export async function commitField(services: AppServices, key: string, value: string): Promise<boolean> {
  const trimmed = value.trim();
  const problem = trimmed === '' ? undefined : validateSetting(key, trimmed);
  if (problem) {
    flash(services, problem, 'error');
    return false;
  }
  const values = { ...services.train.getState().values };
  if (trimmed === '') delete values[key];
  else values[key] = trimmed;
  // The probed checks were for the old value: they go, and run again for the new one.
  services.train.getState().set({ values, editing: undefined, checks: [], checkedAt: undefined });
  recompute(services);
  void runChecks(services);
  await persist(services);
  if (isSecretSetting(key) && trimmed !== '' && !services.train.getState().storeSecrets) {
    flash(services, `${key} kept in memory only (p stores secrets in a 0600 file)`, 'info');
  }
  return true;
}

export async function resetField(services: AppServices, key: string): Promise<void> {
  await commitField(services, key, '');
}

export async function toggleStoreSecrets(services: AppServices): Promise<void> {
  const next = !services.train.getState().storeSecrets;
  services.train.getState().set({ storeSecrets: next });
  await persist(services);
  flash(services, next ? 'secrets are saved in .swegym-console/train-secrets.env (mode 0600)' : 'secrets are no longer saved to disk');
}

/** Screens whose settings changed while their checks ran: they check again once the run ends. */
const recheck = new WeakSet<AppServices>();

export async function runChecks(services: AppServices): Promise<void> {
  const store = services.train.getState();
  if (store.checking) {
    recheck.add(services);
    return;
  }
  store.set({ checking: true });
  const asked = { values: store.values };
  try {
    const checks = await runLaunchChecks(plan(services), { log: services.commandLog });
    const now = services.train.getState();
    // Answers for settings that have changed since are not shown as today's.
    if (now.values === asked.values) now.set({ checks, checkedAt: Date.now() });
    else recheck.add(services);
  } catch (err) {
    flash(services, `checks failed to run: ${(err as Error).message}`, 'error');
  } finally {
    services.train.getState().set({ checking: false });
    if (recheck.delete(services)) void runChecks(services);
  }
}

export async function launch(services: AppServices): Promise<void> {
  const store = services.train.getState();
  store.set({ confirm: undefined, busy: 'checking before launch…' });
  try {
    const outcome = await runLaunchJob({
      plan: plan(services),
      log: services.commandLog,
      onEvent: (e) => {
        if (e.type === 'checked') services.train.getState().set({ checks: e.checks, checkedAt: Date.now() });
        else if (e.type === 'not-launched') flash(services, `not launched: ${e.failing.length} blocking check(s) — ${e.failing[0]?.title}: ${e.failing[0]?.detail}`, 'error');
        else if (e.type === 'launched') flash(services, `launched ${e.run.name} (pid ${e.run.pid}), detached: it keeps running when the console quits`);
      },
    });
    if (outcome.run) await refreshRuns(services);
  } catch (err) {
    flash(services, `launch failed: ${(err as Error).message}`, 'error');
  } finally {
    services.train.getState().set({ busy: undefined });
  }
}

export async function stop(services: AppServices, name: string, rayStop: boolean): Promise<void> {
  services.train.getState().set({ confirm: undefined, busy: `stopping ${name}…` });
  const jobId = `train-stop-${name}`;
  services.jobs.getState().start({ id: jobId, title: `stop ${name}`, startedAt: Date.now() });
  try {
    await runStopJob({
      paths: services.paths,
      name,
      rayStop,
      log: services.commandLog,
      env: services.env,
      onEvent: (e) => {
        if (e.type !== 'stopped') return;
        const r = e.result;
        const how = r.signal === 'none' ? 'had already ended' : r.signal === 'KILL' ? 'stopped (needed KILL)' : 'stopped';
        flash(services, `${name} ${how}${r.rayStop ? `; ${r.rayStop.detail}` : ''}`, r.rayStop && !r.rayStop.ok ? 'warn' : 'info');
      },
    });
  } catch (err) {
    flash(services, `stop failed: ${(err as Error).message}`, 'error');
  } finally {
    services.jobs.getState().finish(jobId);
    services.train.getState().set({ busy: undefined });
    await refreshRuns(services);
  }
}

/** Fills RESUME_FROM_CKPT / RESUME_CKPT_ROOT / RESUME_CKPT_STEP from the latest checkpoint under SAVE_ROOT. */
export async function applyResume(services: AppServices): Promise<void> {
  const ckpt = services.train.getState().checkpoint;
  if (!ckpt) {
    flash(services, 'no checkpoint under SAVE_ROOT to resume from', 'warn');
    return;
  }
  services.train.getState().set({ values: { ...services.train.getState().values, ...resumeSettings(ckpt) } });
  recompute(services);
  await persist(services);
  flash(services, `resume set: ${ckpt.root} step ${ckpt.step}`);
}
