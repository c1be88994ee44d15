// Drives harness validation for the interactive app: rows from the JSONL merged with the journal, one run at a time
// registered in the jobs store with a cancel. It listens to the validation job (harnessJob.ts, the same job the
// headless command prints) and publishes rows and progress into the validate store at ≤10 Hz.
import type { RecipePaths } from '../workspace/paths.js';
import { workspaceProfile, type WorkspaceProfile } from '../workspace/sample.js';
import type { SandboxProvider } from '../sandbox/types.js';
import type { JobsStore } from '../../state/jobs.js';
import type { ValidateRow, ValidateStore } from '../../state/validate.js';
import { ConsoleError } from '../errors.js';
import { readRows } from '../convert/jsonlRows.js';
import { validateHarnessJournal } from './harness.js';
import { runValidateHarnessJob, type ValidateHarnessEvent } from './harnessJob.js';
import type { JobProgress } from '../../state/types/jobs.js';
import { readAgentRunRecord } from './agentRecord.js';
import type { ValidateAgentEvent } from '../../state/types/validate.js';
import { startTicker, type Ticker } from '../jobs/publish.js';

export interface ValidateControllerOptions {
  paths: RecipePaths;
  store: ValidateStore;
  jobs: JobsStore;
  openProvider: () => Promise<SandboxProvider>;
  /** The workspace's profile as the registry read it (read from the marker when not given). */
  profile?: WorkspaceProfile;
  concurrency?: number;
  /** The environment the job reads (DRESSAGE_SWEGYM_PATCH_TIMEOUT_SEC); the app's. */
  env?: NodeJS.ProcessEnv;
  publishHz?: number;
  /**
   * The `validate agent` job (services/demo/agentJob.ts's runValidateAgentJob), handed over by the composition root:
   * the demo domain owns the local Claude Code run and imports validate, so validate cannot import it.
   */
  runAgentJob?: (o: { paths: RecipePaths; instanceId: string; openProvider: () => Promise<SandboxProvider>; env?: NodeJS.ProcessEnv; signal?: AbortSignal; onEvent?: (e: ValidateAgentEvent) => void }) => Promise<unknown>;
}

const JOB_ID = 'validate-harness';
const AGENT_JOB_ID = 'validate-agent';

function message(err: unknown): string {
  if (err instanceof ConsoleError) return [err.what, err.causeText, err.fix && `fix: ${err.fix}`].filter(Boolean).join(' — ');
  return (err as Error)?.message ?? String(err);
}

export class ValidateController {
  private ctl?: AbortController;
  private rows = new Map<string, ValidateRow>();
  private order: string[] = [];
  private dirty = false;
  private ticker?: Ticker;
  private pendingProgress?: JobProgress;
  private agentCtl?: AbortController;

  constructor(private readonly opts: ValidateControllerOptions) {}

  get running(): boolean {
    return Boolean(this.ctl);
  }

  /** A `validate agent` run is going. */
  get agentRunning(): boolean {
    return Boolean(this.agentCtl);
  }

  private publish(force = false): void {
    if (!force && !this.dirty) return;
    this.dirty = false;
    const progress = this.pendingProgress;
    this.pendingProgress = undefined;
    this.opts.store.getState().set({ rows: this.order.map((id) => ({ ...(this.rows.get(id) as ValidateRow) })), ...(progress && this.ctl ? { progress } : {}) });
  }

  /** Rows from the JSONL, results from the journal. */
  async refresh(): Promise<void> {
    const { store, paths } = this.opts;
    try {
      const [rows, journal] = await Promise.all([readRows(paths.trainJsonl).catch((err: unknown) => (err instanceof ConsoleError ? err : Promise.reject(err))), validateHarnessJournal(paths).load()]);
      if (rows instanceof ConsoleError) {
        store.getState().set({ loading: false, rows: [], message: { text: `${rows.what} — ${rows.fix ?? ''}`, tone: 'warn' } });
        return;
      }
      if (!this.ctl) {
        this.rows.clear();
        this.order = rows.map((r) => r.metadata.instance_id);
        for (const r of rows) {
          const result = journal.get(r.metadata.instance_id);
          this.rows.set(r.metadata.instance_id, { instance_id: r.metadata.instance_id, template: r.metadata.sandbox_image, status: result ? (result.ok ? 'ok' : 'failed') : 'untested', result });
        }
      }
      const profile = this.opts.profile ?? workspaceProfile(paths);
      const sampleLabel = profile.kind === 'sample' ? profile.label : undefined;
      const records = await Promise.all(rows.map((r) => readAgentRunRecord(paths, r.metadata.instance_id)));
      const agentRuns = Object.fromEntries(records.filter((r) => r !== undefined).map((r) => [r.instance_id, r]));
      store.getState().set({ loading: false, source: paths.trainJsonl, sampleLabel, agentRuns });
      this.publish(true);
    } catch (err) {
      store.getState().set({ loading: false, message: { text: message(err), tone: 'error' } });
    }
  }

  /** Validates the given instances (all rows when empty): the validation job, its events put in the store. */
  async run(ids: string[] = []): Promise<void> {
    if (this.ctl) return;
    const { store, jobs, paths } = this.opts;
    const ctl = new AbortController();
    this.ctl = ctl;
    store.getState().set({ running: true, progress: undefined, message: { text: 'starting: reading rows and gold patches…', tone: 'info' } });
    let done = 0;
    let total = 0;
    try {
      await runValidateHarnessJob({
        paths,
        ids,
        all: ids.length === 0,
        openProvider: this.opts.openProvider,
        concurrency: this.opts.concurrency,
        env: this.opts.env,
        signal: ctl.signal,
        onEvent: (e) => this.onEvent(e, ctl, (d, t) => ((done = d), (total = t))),
      });
      const failed = [...this.rows.values()].filter((r) => r.status === 'failed').length;
      store.getState().set({ message: { text: ctl.signal.aborted ? `stopped: ${done} of ${total} finished and journaled` : `done: ${done} task(s) validated, ${failed} failing overall`, tone: failed ? 'warn' : 'info' } });
    } catch (err) {
      store.getState().set({ message: { text: message(err), tone: 'error' } });
    } finally {
      for (const row of this.rows.values()) if (row.status === 'queued' || row.status === 'running') Object.assign(row, { status: row.result ? (row.result.ok ? 'ok' : 'failed') : 'untested', gold: undefined, control: undefined });
      this.ticker?.stop();
      this.ticker = undefined;
      this.ctl = undefined;
      jobs.getState().finish(JOB_ID);
      store.getState().set({ running: false, progress: undefined });
      this.publish(true);
    }
  }

  /** The screen's listener: rows change per event, the store gets them through the ≤10 Hz publisher. */
  private onEvent(e: ValidateHarnessEvent, ctl: AbortController, count: (done: number, total: number) => void): void {
    const { store, jobs } = this.opts;
    if (e.type === 'started') {
      for (const id of e.ids) {
        const row = this.rows.get(id);
        if (row) Object.assign(row, { status: 'queued', gold: 'queued', control: 'queued' });
      }
      this.dirty = true;
      this.ticker = startTicker(() => this.publish(), { hz: this.opts.publishHz });
      count(0, e.ids.length);
      jobs.getState().start({ id: JOB_ID, title: `validate ${e.ids.length} task(s)`, startedAt: e.progress.startedAt, cancel: () => ctl.abort() });
      store.getState().set({ progress: e.progress, message: { text: `validating ${e.ids.length} task(s) on ${e.provider}: gold → resolved, untouched → unresolved`, tone: 'info' } });
    } else if (e.type === 'phase') {
      const row = this.rows.get(e.instanceId);
      if (!row) return;
      row[e.arm] = e.phase;
      if (e.phase !== 'queued' && row.status === 'queued') row.status = 'running';
      this.dirty = true;
    } else if (e.type === 'result') {
      const row = this.rows.get(e.result.instance_id);
      if (row) Object.assign(row, { status: e.result.ok ? 'ok' : 'failed', result: e.result });
      count(e.progress.done, e.progress.total);
      jobs.getState().progress(JOB_ID, e.progress.done, e.progress.total);
      this.pendingProgress = e.progress;
      this.dirty = true;
    }
  }

  /**
   * `validate agent` on one task: the real Claude Code CLI in a local sandbox (the scripted replay for a sample
   * task), its progress and graded result put in the store as the job says them. One agent run at a time.
   */
  async runAgent(instanceId: string): Promise<void> {
    if (this.agentCtl) return;
    const { store, jobs, paths, runAgentJob } = this.opts;
    if (!runAgentJob) {
      store.getState().set({ message: { text: 'validate agent is not available in this console (no agent job was handed over)', tone: 'error' } });
      return;
    }
    const ctl = new AbortController();
    this.agentCtl = ctl;
    store.getState().set({ agent: { instanceId, running: true, phase: 'starting' }, message: { text: `validate agent ${instanceId}: starting the real Claude Code CLI in a local sandbox…`, tone: 'info' } });
    const view = () => store.getState().agent ?? { instanceId, running: true, phase: 'starting' };
    try {
      await runAgentJob({
        paths,
        instanceId,
        openProvider: this.opts.openProvider,
        env: this.opts.env,
        signal: ctl.signal,
        onEvent: (e: ValidateAgentEvent) => {
          if (e.type === 'started') {
            jobs.getState().start({ id: AGENT_JOB_ID, title: `validate agent ${instanceId}`, startedAt: Date.now(), cancel: () => ctl.abort() });
            store.getState().set({ agent: { ...view(), model: e.modelLabel, scripted: e.scripted } });
          } else if (e.type === 'phase') store.getState().set({ agent: { ...view(), phase: e.phase } });
          else if (e.type === 'progress') store.getState().set({ agent: { ...view(), progress: e.progress } });
          else if (e.type === 'finished') {
            // The verdict goes into the status line in the same update as the record, so no frame shows the graded
            // result under a status line that still says the run is starting.
            const r = e.record;
            store.getState().set({
              agent: { ...view(), running: false, record: r, progress: r.claudeCode },
              agentRuns: { ...store.getState().agentRuns, [instanceId]: r },
              message: { text: `validate agent ${instanceId}: ${r.resolved ? 'resolved' : 'not resolved'}${r.reward !== null ? ` (reward ${r.reward})` : ''}`, tone: r.resolved ? 'info' : 'warn' },
            });
          }
        },
      });
    } catch (err) {
      const text = ctl.signal.aborted ? 'stopped' : message(err);
      store.getState().set({ agent: { ...view(), running: false, error: text }, message: { text: `validate agent ${instanceId}: ${text}`, tone: ctl.signal.aborted ? 'warn' : 'error' } });
    } finally {
      this.agentCtl = undefined;
      jobs.getState().finish(AGENT_JOB_ID);
    }
  }

  stop(): void {
    this.ctl?.abort();
    this.agentCtl?.abort();
  }

  dispose(): void {
    this.ctl?.abort();
    this.agentCtl?.abort();
    this.ticker?.stop();
  }
}
