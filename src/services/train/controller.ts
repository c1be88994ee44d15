// The Train screen's actions: the launch form (load, commit, reset, secrets on disk), the checks, launch and stop
// as the jobs both faces run (launchJob.ts), resume from the latest checkpoint. It publishes into the train store;
// the services own the launcher (detached), `ray status` and `ray stop`. Moved here from the screen: a screen is
// selectors and these actions.
import type { RecipePaths } from '../workspace/paths.js';
import type { TrainStore } from '../../state/train.js';
import type { AppStore } from '../../state/app.js';
import type { JobsStore } from '../../state/jobs.js';
import type { CommandLog } from '../process/commandLog.js';
import { GROUPS, SETTINGS, describeSecretSettings, isSecretSetting, loadTrainSettings, saveTrainSettings, validateSetting } from './settings.js';
import { buildLaunchPlan, type LaunchPlan } from './launch.js';
import { runLaunchChecks, staticChecks, type LaunchCheck } from './checks.js';
import { findLatestCheckpoint, resumeSettings } from './registry.js';
import { refreshRuns } from './discovery.js';
import { runLaunchJob, runStopJob } from './launchJob.js';
import { redact } from '../secrets.js';

/** Setting keys in form order (grouped). */
export const FIELD_KEYS: string[] = GROUPS.flatMap((g) => SETTINGS.filter((s) => s.group === g.id).map((s) => s.key));

const ORDER = { fail: 0, warn: 1, skip: 2, ok: 3 } as const;

/**
 * The launch checks as the Train screen shows them: the probes know more than the pure checks, but a pure failure
 * stands; failures first. One function, so that the panel and `l` (which refuses while anything blocks) agree.
 */
export function mergedChecks(pure: readonly LaunchCheck[], probed: readonly LaunchCheck[]): LaunchCheck[] {
  const merged = new Map(pure.map((c) => [c.id, c]));
  for (const c of probed) if (merged.get(c.id)?.status !== 'fail') merged.set(c.id, c);
  return [...merged.values()].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
}

/** A form value's problem (what the form shows in red), none for an unset value. */
export function settingProblem(key: string, value: string | undefined): string | undefined {
  return value === undefined ? undefined : validateSetting(key, value);
}

export interface TrainControllerDeps {
  paths: RecipePaths;
  store: TrainStore;
  /** For the one-line message and the run list's discovery. */
  app: AppStore;
  jobs: JobsStore;
  commandLog: CommandLog;
  /** The console's environment (never put into the store: it holds secrets). */
  env: NodeJS.ProcessEnv;
}

export class TrainController {
  /** Settings changed while the checks ran: they run again once this run ends. */
  private recheck = false;

  constructor(private readonly d: TrainControllerDeps) {}

  private get st() {
    return this.d.store.getState();
  }

  private plan(): LaunchPlan {
    return buildLaunchPlan({ paths: this.d.paths, env: this.d.env, saved: this.st.values });
  }

  private flash(text: string, tone: 'info' | 'warn' | 'error' = 'info'): void {
    this.d.app.getState().setFlash(redact(text, this.d.env), tone);
  }

  /** The blocking checks now (the pure ones and the last probed ones, merged): `l` launches only when none. */
  blocking(): LaunchCheck[] {
    return mergedChecks(this.st.staticChecks, this.st.checks).filter((c) => c.status === 'fail');
  }

  /** Re-reads the run registry into the store. */
  refreshRuns(): Promise<void> {
    return refreshRuns({ paths: this.d.paths, env: this.d.env, train: this.d.store, app: this.d.app });
  }

  /** Recomputes effective values, derived values and the pure checks for the current form. */
  recompute(): void {
    const p = this.plan();
    this.st.set({ effective: describeSecretSettings(p.effective), sources: p.sources, derived: p.derived, staticChecks: staticChecks(p) });
    void findLatestCheckpoint(p.checkpointDir).then((checkpoint) => this.st.set({ checkpoint }));
  }

  async init(): Promise<void> {
    try {
      const saved = await loadTrainSettings(this.d.paths);
      this.st.set({ values: { ...saved.values, ...saved.secrets }, storeSecrets: saved.storeSecrets, loaded: true });
    } catch (err) {
      this.st.set({ loaded: true });
      this.flash(`settings not loaded: ${(err as Error).message}`, 'error');
    }
    this.recompute();
    // The same set of checks as `train launch --dry-run` (files, proxy, runs, Ray), so that the screen's count is the
    // headless one from the start, not the settings' checks alone until C.
    void this.runChecks();
    await this.refreshRuns();
  }

  private async persist(): Promise<void> {
    const { values, storeSecrets } = this.st;
    try {
      await saveTrainSettings(this.d.paths, values, { storeSecrets });
    } catch (err) {
      this.flash(`settings not saved: ${(err as Error).message}`, 'error');
    }
  }

  /** Commits one field; an invalid value is refused (the draft stays for correction). Empty = back to the default. */
  async commitField(key: string, value: string): Promise<boolean> {
    const trimmed = value.trim();
    const problem = trimmed === '' ? undefined : validateSetting(key, trimmed);
    if (problem) {
      this.flash(problem, 'error');
      return false;
    }
    const values = { ...this.st.values };
    if (trimmed === '') delete values[key];
    else values[key] = trimmed;
    // The probed checks were for the old value: they go, and run again for the new one.
    this.st.set({ values, editing: undefined, checks: [], checkedAt: undefined });
    this.recompute();
    void this.runChecks();
    await this.persist();
    if (isSecretSetting(key) && trimmed !== '' && !this.st.storeSecrets) {
      this.flash(`${key} kept in memory only (p stores secrets in a 0600 file)`, 'info');
    }
    return true;
  }

  async resetField(key: string): Promise<void> {
    await this.commitField(key, '');
  }

  async toggleStoreSecrets(): Promise<void> {
    const next = !this.st.storeSecrets;
    this.st.set({ storeSecrets: next });
    await this.persist();
    this.flash(next ? 'secrets are saved in .swegym-console/train-secrets.env (mode 0600)' : 'secrets are no longer saved to disk');
  }

  async runChecks(): Promise<void> {
    const store = this.st;
    if (store.checking) {
      this.recheck = true;
      return;
    }
    store.set({ checking: true });
    const asked = { values: store.values };
    try {
      const checks = await runLaunchChecks(this.plan(), { log: this.d.commandLog });
      const now = this.st;
      // Answers for settings that have changed since are not shown as today's.
      if (now.values === asked.values) now.set({ checks, checkedAt: Date.now() });
      else this.recheck = true;
    } catch (err) {
      this.flash(`checks failed to run: ${(err as Error).message}`, 'error');
    } finally {
      this.st.set({ checking: false });
      if (this.recheck) {
        this.recheck = false;
        void this.runChecks();
      }
    }
  }

  async launch(): Promise<void> {
    this.st.set({ confirm: undefined, busy: 'checking before launch…' });
    try {
      const outcome = await runLaunchJob({
        plan: this.plan(),
        log: this.d.commandLog,
        onEvent: (e) => {
          if (e.type === 'checked') this.st.set({ checks: e.checks, checkedAt: Date.now() });
          else if (e.type === 'not-launched') this.flash(`not launched: ${e.failing.length} blocking check(s) — ${e.failing[0]?.title}: ${e.failing[0]?.detail}`, 'error');
          else if (e.type === 'launched') this.flash(`launched ${e.run.name} (pid ${e.run.pid}), detached: it keeps running when the console quits`);
        },
      });
      if (outcome.run) await this.refreshRuns();
    } catch (err) {
      this.flash(`launch failed: ${(err as Error).message}`, 'error');
    } finally {
      this.st.set({ busy: undefined });
    }
  }

  async stop(name: string, rayStop: boolean): Promise<void> {
    this.st.set({ confirm: undefined, busy: `stopping ${name}…` });
    const jobId = `train-stop-${name}`;
    this.d.jobs.getState().start({ id: jobId, title: `stop ${name}`, startedAt: Date.now() });
    try {
      await runStopJob({
        paths: this.d.paths,
        name,
        rayStop,
        log: this.d.commandLog,
        env: this.d.env,
        onEvent: (e) => {
          if (e.type !== 'stopped') return;
          const r = e.result;
          const how = r.signal === 'none' ? 'had already ended' : r.signal === 'KILL' ? 'stopped (needed KILL)' : 'stopped';
          this.flash(`${name} ${how}${r.rayStop ? `; ${r.rayStop.detail}` : ''}`, r.rayStop && !r.rayStop.ok ? 'warn' : 'info');
        },
      });
    } catch (err) {
      this.flash(`stop failed: ${(err as Error).message}`, 'error');
    } finally {
      this.d.jobs.getState().finish(jobId);
      this.st.set({ busy: undefined });
      await this.refreshRuns();
    }
  }

  /** The question's yes: launch, or stop the run it asked about (`Y`: and `ray stop --force`). */
  confirmYes(rayStop: boolean): void {
    const c = this.st.confirm;
    if (!c) return;
    if (c.kind === 'launch') {
      if (rayStop) return;
      void this.launch();
    } else void this.stop(c.run, rayStop);
  }

  /** Fills RESUME_FROM_CKPT / RESUME_CKPT_ROOT / RESUME_CKPT_STEP from the latest checkpoint under SAVE_ROOT. */
  async applyResume(): Promise<void> {
    const ckpt = this.st.checkpoint;
    if (!ckpt) {
      this.flash('no checkpoint under SAVE_ROOT to resume from', 'warn');
      return;
    }
    this.st.set({ values: { ...this.st.values, ...resumeSettings(ckpt) } });
    this.recompute();
    await this.persist();
    this.flash(`resume set: ${ckpt.root} step ${ckpt.step}`);
  }
}
