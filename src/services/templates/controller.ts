// Drives template builds and smoke tests for the interactive app: one factory run at a time, registered in the
// jobs store with a cancel; progress is sampled and published into the templates store at ≤10 Hz.
import type { RecipePaths } from '../workspace/paths.js';
import { buildLogPath, readBuildLog } from './buildLogs.js';
import type { SandboxProvider } from '../sandbox/types.js';
import type { TemplatesStore } from '../../state/templates.js';
import type { JobsStore } from '../../state/jobs.js';
import type { JobProgress } from '../../state/types/jobs.js';
import { templatesStatus, countRows, type TemplateStatusRow } from './status.js';
import { TemplateBuildJob, buildSummary, type TemplateBuildEvent } from './buildJob.js';
import { runSmokeJob, type SmokeJobResult } from './smokeJob.js';
import { readTemplateRecords } from './records.js';
import { resolveArtifactConfig } from '../artifacts/versions.js';
import { artifactStatus } from '../artifacts/artifacts.js';
import { runArtifactsBuildJob } from '../artifacts/artifactsJob.js';
import { ConsoleError } from '../errors.js';
import { workspaceProfile, type WorkspaceProfile } from '../workspace/sample.js';
import { startTicker, type Ticker } from '../jobs/publish.js';

export interface TemplatesControllerOptions {
  paths: RecipePaths;
  store: TemplatesStore;
  jobs: JobsStore;
  openProvider: () => Promise<SandboxProvider>;
  /** The workspace's profile as the registry read it (read from the marker when not given). */
  profile?: WorkspaceProfile;
  env?: NodeJS.ProcessEnv;
  publishHz?: number;
  concurrency?: number;
}

const JOB_ID = 'templates-build';
const SMOKE_JOB_ID = 'templates-smoke';
const ARTIFACTS_JOB_ID = 'artifacts-build';
/** The log view's name for the artifacts build output. */
export const ARTIFACTS_LOG = 'artifacts build';
const ARTIFACT_LOG_LINES = 500;

function message(err: unknown): string {
  if (err instanceof ConsoleError) return [err.what, err.causeText, err.fix && `fix: ${err.fix}`].filter(Boolean).join(' — ');
  return (err as Error)?.message ?? String(err);
}

export class TemplatesController {
  private factory?: TemplateBuildJob;
  private ticker?: Ticker;
  private lastVersion = -1;
  private lastProgress?: JobProgress;
  private base: TemplateStatusRow[] = [];
  private smokeCtl?: AbortController;
  private lastFailure?: SmokeJobResult;
  private artifactsCtl?: AbortController;
  private artifactLines: string[] = [];
  private readonly profile: WorkspaceProfile;
  constructor(private readonly opts: TemplatesControllerOptions) {
    this.profile = opts.profile ?? workspaceProfile(opts.paths);
  }

  get running(): boolean {
    return Boolean(this.factory);
  }

  /** Reads the state from disk (image list, journal, map, artifacts). */
  async refresh(): Promise<void> {
    const { store, paths } = this.opts;
    try {
      const status = await templatesStatus(paths);
      this.base = status.templates;
      const config = await resolveArtifactConfig(paths, this.opts.env ?? process.env);
      const a = await artifactStatus(config);
      const sample = !a.current && this.profile.kind === 'sample';
      store.getState().set({
        rows: this.factory ? this.merge() : status.templates,
        counts: this.factory ? countRows(this.merge()) : status.counts,
        mapProblems: status.mapProblems,
        artifacts: a.current
          ? { ok: true, text: `artifacts ok: claude ${config.claudeCodeVersion}, runtime py ${config.portablePythonVersion} bbs ${config.bbsVersion} (sha256 ${a.binary.sha256?.slice(0, 12)}…)` }
          : sample
            ? // The demo built its templates from samples/tasks with stand-ins for Claude Code and the BBS.
              { ok: true, text: 'artifacts: not built — the sample templates carry local stand-ins for Claude Code and the Blackbox Server (samples/tasks/common)' }
            : { ok: false, text: `artifacts: ${a.problems.join('; ')} — run \`swegym-console artifacts build\`` },
        loading: false,
      });
    } catch (err) {
      store.getState().set({ loading: false, message: { text: message(err), tone: 'error' } });
    }
  }

  private merge(): TemplateStatusRow[] {
    const snap = this.factory?.snapshot();
    if (!snap) return this.base;
    const live = new Map(snap.records.map((r) => [r.image, r]));
    const rows = this.base.map((row) => {
      const r = live.get(row.image);
      if (!r) return row;
      return { ...row, template: r.template, state: r.state, smoke: r.smoke ?? null, error: r.state === 'failed' ? (r.reason ?? '') : '', durationMs: r.durationMs, updatedAt: r.updatedAt };
    });
    for (const r of snap.records) if (!this.base.some((b) => b.image === r.image)) rows.push({ image: r.image, template: r.template, state: r.state, smoke: r.smoke ?? null, error: r.reason ?? '', durationMs: r.durationMs, mapped: false });
    return rows;
  }

  private publish(): void {
    const f = this.factory;
    if (!f || f.version === this.lastVersion) return;
    this.lastVersion = f.version;
    const snap = f.snapshot();
    if (!snap) return;
    const rows = this.merge();
    const st = this.opts.store.getState();
    st.set({ rows, counts: countRows(rows), running: snap.running, stopping: snap.stopping, abandoning: snap.abandoning, active: snap.active, concurrency: snap.concurrency, buildProgress: this.lastProgress });
    if (st.logImage) st.set({ logLines: f.logFor(st.logImage).slice(-500) });
    const done = snap.records.filter((r) => r.state === 'built' || r.state === 'failed').length;
    this.opts.jobs.getState().progress(JOB_ID, done, snap.records.length);
  }

  /** Starts a build of every image (or `only`). Resolves when the run ends. */
  async build(opts: { only?: string[]; rebuild?: boolean } = {}): Promise<void> {
    const { store, jobs, paths } = this.opts;
    if (this.factory) return;
    const job = (this.factory = new TemplateBuildJob({
      paths,
      env: this.opts.env ?? process.env,
      openProvider: this.opts.openProvider,
      profile: this.profile,
      only: opts.only,
      rebuild: opts.rebuild,
      concurrency: this.opts.concurrency,
      onEvent: (e) => this.onBuildEvent(job, e),
    }));
    try {
      const { result } = await job.run();
      if (!result) return;
      this.publish();
      store.getState().set({ message: { text: `${buildSummary(result)}${result.fatal ? ` — ${result.fatal}` : ''}`, tone: result.failed || result.fatal ? 'warn' : 'info' } });
    } catch (err) {
      store.getState().set({ message: { text: message(err), tone: 'error' } });
    } finally {
      this.factory = undefined;
      if (this.ticker) {
        this.ticker.stop();
        this.ticker = undefined;
        jobs.getState().finish(JOB_ID);
        this.lastProgress = undefined;
        store.getState().set({ running: false, stopping: false, abandoning: false, active: 0, buildProgress: undefined });
        await this.refresh();
      }
    }
  }

  /** The screen's listener: the job's progress reaches the store through the ≤10 Hz sampler, never per event. */
  private onBuildEvent(job: TemplateBuildJob, e: TemplateBuildEvent): void {
    const { store, jobs } = this.opts;
    if (e.type === 'sample') return store.getState().set({ message: { text: e.note, tone: 'info' } });
    // Published with the next sample (≤10 Hz), like the rows.
    if (e.type === 'progress') this.lastProgress = e.progress;
    if (e.type !== 'started') return;
    jobs.getState().start({ id: JOB_ID, title: 'template builds', startedAt: Date.now(), cancel: () => job.abandon() });
    store.getState().set({ running: true, stopping: false, abandoning: false, message: undefined });
    this.ticker = startTicker(() => this.publish(), { hz: this.opts.publishHz });
  }

  /** Rebuild the failed images only. */
  retryFailed(): Promise<void> {
    const failed = this.opts.store.getState().rows.filter((r) => r.state === 'failed').map((r) => r.image);
    if (failed.length === 0) {
      this.opts.store.getState().set({ message: { text: 'no failed templates to retry', tone: 'info' } });
      return Promise.resolve();
    }
    return this.build({ only: failed });
  }

  stop(): void {
    this.factory?.stop();
    this.publish();
  }

  abandon(): void {
    this.factory?.abandon();
    this.publish();
  }

  /** Builds the BBS wheel and the sandbox artifacts; the output goes to the log view (published at ≤10 Hz). */
  async buildArtifacts(force = false): Promise<void> {
    const { store, jobs, paths } = this.opts;
    if (this.factory || this.artifactsCtl) return store.getState().set({ message: { text: 'wait for the running job to finish', tone: 'warn' } });
    const ctl = (this.artifactsCtl = new AbortController());
    this.artifactLines = [];
    let version = 0;
    let shown = -1;
    jobs.getState().start({ id: ARTIFACTS_JOB_ID, title: 'artifacts build', startedAt: Date.now(), cancel: () => ctl.abort() });
    store.getState().set({ logImage: ARTIFACTS_LOG, logLines: [], message: { text: 'building the artifacts… (Esc closes the log; the build continues)', tone: 'info' } });
    const ticker = startTicker(() => {
      if (version === shown) return;
      shown = version;
      if (store.getState().logImage === ARTIFACTS_LOG) store.getState().set({ logLines: [...this.artifactLines] });
    });
    try {
      const r = await runArtifactsBuildJob({
        paths,
        env: this.opts.env ?? process.env,
        force,
        signal: ctl.signal,
        onEvent: (e) => {
          if (e.type !== 'line') return;
          this.artifactLines.push(e.line);
          if (this.artifactLines.length > ARTIFACT_LOG_LINES) this.artifactLines.shift();
          version++;
        },
      });
      store.getState().set({ message: { text: r.skipped ? 'artifacts are present and current (A again with force is `swegym-console artifacts build --force`)' : `artifacts built in ${Math.round(r.durationMs / 1000)}s`, tone: 'info' } });
    } catch (err) {
      this.artifactLines.push(`error: ${message(err)}`);
      version++;
      store.getState().set({ message: { text: message(err), tone: 'error' } });
    } finally {
      ticker.stop();
      if (store.getState().logImage === ARTIFACTS_LOG) store.getState().set({ logLines: [...this.artifactLines] });
      this.artifactsCtl = undefined;
      jobs.getState().finish(ARTIFACTS_JOB_ID);
      await this.refresh();
    }
  }

  openLog(image: string | undefined): void {
    const st = this.opts.store.getState();
    if (!image) return st.set({ logImage: undefined, logLines: [] });
    if (image === ARTIFACTS_LOG) return st.set({ logImage: image, logLines: [...this.artifactLines] });
    const live = this.factory?.logFor(image);
    if (live && live.length) return st.set({ logImage: image, logLines: live });
    st.set({ logImage: image, logLines: ['(reading the build log…)'] });
    // The whole log of the last build, kept on disk; the journal's tail for builds from before logs were kept.
    void this.journalLog(image).then((lines) => {
      if (this.opts.store.getState().logImage === image) this.opts.store.getState().set({ logLines: lines });
    });
  }

  /** A finished build's log: the failure's last lines and reason, as kept in the journal. */
  private async journalLog(image: string): Promise<string[]> {
    const rec = (await readTemplateRecords(this.opts.paths))?.[image];
    // The whole log of the last build is kept on disk; the journal's tail serves builds from before that.
    const saved = await readBuildLog(this.opts.paths.consoleDir, image);
    if (!rec && !saved) return ['(not built yet: no build log)'];
    const lines = saved?.length ? [`(build log ${buildLogPath(this.opts.paths.consoleDir, image)})`, ...saved] : [...(rec?.logTail ?? [])];
    if (!rec) return lines;
    if (rec.reason) lines.push(`${rec.state}: ${rec.reason}`);
    if (rec.smokeError) lines.push(`smoke failed: ${rec.smokeError}`);
    if (lines.length === 0) lines.push(`${rec.state}${rec.durationMs ? ` in ${Math.round(rec.durationMs / 1000)}s` : ''}`);
    return lines;
  }

  /** Smoke-tests the given rows (built ones), recording results in the journal. */
  async smoke(rows: TemplateStatusRow[]): Promise<void> {
    const { store, jobs, paths } = this.opts;
    const targets = rows.filter((r) => r.state === 'built').map((r) => ({ image: r.image, template: r.template }));
    if (targets.length === 0) return store.getState().set({ message: { text: 'select a built template to smoke', tone: 'warn' } });
    if (this.factory || this.smokeCtl) return store.getState().set({ message: { text: 'wait for the running job to finish', tone: 'warn' } });
    const ctl = (this.smokeCtl = new AbortController());
    try {
      await runSmokeJob({
        paths,
        env: this.opts.env ?? process.env,
        openProvider: this.opts.openProvider,
        targets,
        signal: ctl.signal,
        onEvent: (e) => {
          if (e.type === 'started') {
            jobs.getState().start({ id: SMOKE_JOB_ID, title: 'smoke tests', startedAt: Date.now(), cancel: () => ctl.abort() });
            store.getState().set({ smoking: targets.length, smokeProgress: e.progress });
          } else if (e.type === 'result') {
            if (!e.result.ok) this.lastFailure ??= e.result;
            store.getState().set({ smoking: Math.max(0, store.getState().smoking - 1), smokeProgress: e.progress });
          } else {
            const first = this.lastFailure;
            store.getState().set({ message: { text: e.failed ? `smoke: ${e.failed} failed — ${first?.template}: ${first?.error}` : `smoke: ${e.passed} passed`, tone: e.failed ? 'warn' : 'info' } });
          }
        },
      });
    } catch (err) {
      store.getState().set({ message: { text: message(err), tone: 'error' } });
    } finally {
      this.smokeCtl = undefined;
      this.lastFailure = undefined;
      jobs.getState().finish(SMOKE_JOB_ID);
      store.getState().set({ smoking: 0, smokeProgress: undefined });
      await this.refresh();
    }
  }

  dispose(): void {
    this.ticker?.stop();
    this.smokeCtl?.abort();
    this.artifactsCtl?.abort();
  }
}

export interface TemplatesService {
  store: TemplatesStore;
  controller: TemplatesController;
}

/** The templates field of the app's services bag. */
export function createTemplatesService(opts: Omit<TemplatesControllerOptions, 'store'> & { store: TemplatesStore }): TemplatesService {
  return { store: opts.store, controller: new TemplatesController(opts) };
}
