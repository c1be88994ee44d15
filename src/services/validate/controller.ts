// Drives harness validation for the interactive app: rows from the JSONL merged with the journal, one run at a time
// registered in the jobs store with a cancel, phases sampled and published into the validate store at ≤10 Hz.
import type { RecipePaths } from '../workspace/paths.js';
import { sampleWorkspaceLabel } from '../workspace/sample.js';
import type { SandboxProvider } from '../sandbox/types.js';
import type { JobsStore } from '../../state/jobs.js';
import type { ValidateRow, ValidateStore } from '../../state/validate.js';
import { ConsoleError } from '../errors.js';
import { readRows } from '../convert/rows.js';
import { validateHarness, validateHarnessJournal, type Arm, type ArmPhase, type HarnessValidationResult } from './harness.js';
import { loadHarnessTasks } from './tasks.js';

export interface ValidateControllerOptions {
  paths: RecipePaths;
  store: ValidateStore;
  jobs: JobsStore;
  openProvider: () => Promise<SandboxProvider>;
  concurrency?: number;
  publishHz?: number;
}

const JOB_ID = 'validate-harness';

function message(err: unknown): string {
  if (err instanceof ConsoleError) return [err.what, err.causeText, err.fix && `fix: ${err.fix}`].filter(Boolean).join(' — ');
  return (err as Error)?.message ?? String(err);
}

export class ValidateController {
  private ctl?: AbortController;
  private rows = new Map<string, ValidateRow>();
  private order: string[] = [];
  private dirty = false;
  private timer?: ReturnType<typeof setInterval>;

  constructor(private readonly opts: ValidateControllerOptions) {}

  get running(): boolean {
    return Boolean(this.ctl);
  }

  private publish(force = false): void {
    if (!force && !this.dirty) return;
    this.dirty = false;
    this.opts.store.getState().set({ rows: this.order.map((id) => ({ ...(this.rows.get(id) as ValidateRow) })) });
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
      const sampleLabel = sampleWorkspaceLabel(paths);
      store.getState().set({ loading: false, source: paths.trainJsonl, sampleLabel });
      this.publish(true);
    } catch (err) {
      store.getState().set({ loading: false, message: { text: message(err), tone: 'error' } });
    }
  }

  /** Validates the given instances (all rows when empty). */
  async run(ids: string[] = []): Promise<void> {
    if (this.ctl) return;
    const { store, jobs, paths } = this.opts;
    const ctl = new AbortController();
    this.ctl = ctl;
    store.getState().set({ running: true, message: { text: 'starting: reading rows and gold patches…', tone: 'info' } });
    try {
      const tasks = await loadHarnessTasks(paths, { ids, all: ids.length === 0 });
      const provider = await this.opts.openProvider();
      const journal = await validateHarnessJournal(paths).load();
      for (const t of tasks) {
        const row = this.rows.get(t.row.metadata.instance_id);
        if (row) Object.assign(row, { status: 'queued', gold: 'queued', control: 'queued' });
      }
      this.dirty = true;
      this.timer = setInterval(() => this.publish(), Math.round(1000 / (this.opts.publishHz ?? 10)));
      let done = 0;
      jobs.getState().start({ id: JOB_ID, title: `validate ${tasks.length} task(s)`, startedAt: Date.now(), cancel: () => ctl.abort() });
      store.getState().set({ message: { text: `validating ${tasks.length} task(s) on ${provider.name}: gold → resolved, untouched → unresolved`, tone: 'info' } });
      await validateHarness({
        provider,
        tasks,
        lockFile: paths.lockFile,
        concurrency: this.opts.concurrency ?? (provider.name === 'local' ? 2 : 8),
        journal,
        signal: ctl.signal,
        onPhase: (id: string, arm: Arm, phase: ArmPhase) => {
          const row = this.rows.get(id);
          if (!row) return;
          row[arm] = phase;
          if (phase !== 'queued' && row.status === 'queued') row.status = 'running';
          this.dirty = true;
        },
        onResult: (r: HarnessValidationResult) => {
          const row = this.rows.get(r.instance_id);
          if (row) Object.assign(row, { status: r.ok ? 'ok' : 'failed', result: r });
          done++;
          jobs.getState().progress(JOB_ID, done, tasks.length);
          this.dirty = true;
        },
      });
      const failed = [...this.rows.values()].filter((r) => r.status === 'failed').length;
      store.getState().set({ message: { text: ctl.signal.aborted ? `stopped: ${done} of ${tasks.length} finished and journaled` : `done: ${done} task(s) validated, ${failed} failing overall`, tone: failed ? 'warn' : 'info' } });
    } catch (err) {
      store.getState().set({ message: { text: message(err), tone: 'error' } });
    } finally {
      for (const row of this.rows.values()) if (row.status === 'queued' || row.status === 'running') Object.assign(row, { status: row.result ? (row.result.ok ? 'ok' : 'failed') : 'untested', gold: undefined, control: undefined });
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      this.ctl = undefined;
      jobs.getState().finish(JOB_ID);
      store.getState().set({ running: false });
      this.publish(true);
    }
  }

  stop(): void {
    this.ctl?.abort();
  }

  dispose(): void {
    this.ctl?.abort();
    if (this.timer) clearInterval(this.timer);
  }
}
