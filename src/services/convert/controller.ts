// Drives the convert step for the interactive app: form → checked options → the convert job (convertJob.ts, the one
// the headless command prints): its output kept in a capped ring, published at ≤10 Hz, then verification and a row
// preview. One run at a time, cancellable from the jobs store; a failed run leaves the previous JSONL untouched
// (the converter renames atomically).
import { stat } from 'node:fs/promises';
import type { RecipePaths, Split } from '../workspace/paths.js';
import type { JobsStore } from '../../state/jobs.js';
import type { ConvertForm, ConvertStore } from '../../state/convert.js';
import { ConsoleError, usageError } from '../errors.js';
import { defaultConvertOptions, manualCommand, validateConvertOptions, type ConvertOptions } from './options.js';
import { runConvertJob, type ConvertJobEvent } from './convertJob.js';
import { previewRow, readRows } from './jsonlRows.js';
import { countLines } from '../pipeline/pipeline.js';
import { startTicker, type Ticker } from '../jobs/publish.js';

const JOB_ID = 'convert';
const MAX_LINES = 500;
/** Rows the screen's preview pages through. */
const PREVIEW_ROWS = 20;

function message(err: unknown): string {
  if (err instanceof ConsoleError) return [err.what, err.causeText, err.fix && `fix: ${err.fix}`].filter(Boolean).join(' — ');
  return (err as Error)?.message ?? String(err);
}

function int(name: string, raw: string): number {
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n <= 0) throw usageError(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/** The form as converter options (throws usage errors with the converter's wording). */
export function optionsFromForm(paths: RecipePaths, f: ConvertForm, provider: 'e2b' | 'local'): ConvertOptions {
  if (f.split !== 'train' && f.split !== 'validation') throw usageError(`split must be train or validation, got "${f.split}"`);
  const o = defaultConvertOptions(paths, { split: f.split as Split, provider: provider === 'local' ? 'custom' : 'e2b' });
  o.input = paths.parquet(f.split as Split);
  if (f.limit.trim()) o.limit = int('limit', f.limit);
  o.maxTurns = int('max turns', f.maxTurns);
  o.permissionMode = f.permissionMode.trim();
  o.testTimeout = int('test timeout', f.testTimeout);
  o.commandTimeout = int('command timeout', f.commandTimeout);
  o.sandboxTimeout = int('sandbox timeout', f.sandboxTimeout);
  o.gitSanitizeTimeout = int('sanitize timeout', f.gitSanitizeTimeout);
  validateConvertOptions(o);
  return o;
}

export class ConvertController {
  private ctl?: AbortController;
  private lines: string[] = [];
  private dirty = false;
  private ticker?: Ticker;

  constructor(private readonly opts: { paths: RecipePaths; store: ConvertStore; jobs: JobsStore; provider: 'e2b' | 'local'; env?: NodeJS.ProcessEnv; python?: string }) {}

  get running(): boolean {
    return Boolean(this.ctl);
  }

  /** The manual command for the current form (or the form's problem). */
  describe(): void {
    const { store, paths } = this.opts;
    try {
      store.getState().set({ command: manualCommand(paths, optionsFromForm(paths, store.getState().form, this.opts.provider)), message: undefined });
    } catch (err) {
      store.getState().set({ message: { text: message(err), tone: 'warn' } });
    }
  }

  /**
   * What an earlier session or a headless run left: the JSONL's rows, size and age, whether the split or the
   * template map changed since, and its first rows for the preview. Cheap (one read of the file); not a verification.
   */
  async inspectDisk(): Promise<void> {
    const { store, paths } = this.opts;
    const file = paths.trainJsonl;
    const info = await stat(file).catch(() => undefined);
    if (!info) {
      store.getState().set({ onDisk: null });
      return;
    }
    const rows = (await countLines(file)) ?? 0;
    const newer: string[] = [];
    for (const [name, input] of [['the split parquet', paths.parquet('train')], ['the template map', paths.templateMap]] as const) {
      const t = await stat(input).then((s) => s.mtimeMs, () => undefined);
      if (t !== undefined && t > info.mtimeMs) newer.push(name);
    }
    store.getState().set({ onDisk: { rows, bytes: info.size, mtimeMs: info.mtimeMs, staleBecause: newer.length ? `${newer.join(' and ')} changed since` : undefined } });
    if (!store.getState().previews.length && !this.ctl) await this.preview(file);
  }

  private async preview(file: string): Promise<void> {
    const rows = await readRows(file, { limit: PREVIEW_ROWS }).catch(() => []);
    this.opts.store.getState().set({ previews: rows.map(previewRow), previewIndex: 0 });
  }

  /** Runs the convert job; its events go to the store (output lines through the ≤10 Hz publisher). */
  async run(): Promise<void> {
    if (this.ctl) return;
    const { store, paths, jobs } = this.opts;
    let options: ConvertOptions;
    try {
      options = optionsFromForm(paths, store.getState().form, this.opts.provider);
    } catch (err) {
      store.getState().set({ message: { text: message(err), tone: 'error' } });
      return;
    }
    const ctl = new AbortController();
    this.ctl = ctl;
    this.lines = [];
    store.getState().set({ phase: 'preflight', lines: [], notices: [], report: undefined, command: manualCommand(paths, options), message: { text: 'checking what would make the converter fail…', tone: 'info' } });
    jobs.getState().start({ id: JOB_ID, title: 'convert to Dressage JSONL', startedAt: Date.now(), cancel: () => ctl.abort() });
    this.ticker = startTicker(() => {
      if (!this.dirty) return;
      this.dirty = false;
      store.getState().set({ lines: [...this.lines] });
    });
    try {
      const r = await runConvertJob({ paths, options, env: this.opts.env ?? process.env, python: this.opts.python, signal: ctl.signal, previewRows: PREVIEW_ROWS, onEvent: (e) => this.onEvent(e) });
      store.getState().set({ report: r.verify, message: { text: r.ok ? `verified: ${r.verify.rows} rows, no problems` : `the JSONL has problems (${Object.entries(r.verify.counts).map(([k, n]) => `${k} ${n}`).join(', ')})`, tone: r.ok ? 'info' : 'error' } });
    } catch (err) {
      store.getState().set({ phase: 'failed', message: { text: message(err), tone: 'error' } });
    } finally {
      await this.inspectDisk().catch(() => {});
      this.ticker?.stop();
      this.ticker = undefined;
      store.getState().set({ lines: [...this.lines] });
      this.ctl = undefined;
      jobs.getState().finish(JOB_ID);
    }
  }

  /** The screen's listener of the convert job. */
  private onEvent(e: ConvertJobEvent): void {
    const st = this.opts.store.getState();
    if (e.type === 'line') {
      this.lines.push(e.line);
      if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
      this.dirty = true;
    } else if (e.type === 'notice') st.set({ notices: [...st.notices, e.notice] });
    else if (e.type === 'phase') st.set({ phase: e.phase });
    else if (e.type === 'finished') st.set({ previews: e.preview, previewIndex: 0 });
  }

  /** Verifies the JSONL on disk without running the converter. */
  async verifyOnly(): Promise<void> {
    const { store, paths } = this.opts;
    try {
      const options = optionsFromForm(paths, store.getState().form, this.opts.provider);
      const { verify: report } = await runConvertJob({ paths, options, env: this.opts.env ?? process.env, verifyOnly: true, previewRows: PREVIEW_ROWS, onEvent: (e) => (e.type === 'finished' ? this.onEvent(e) : undefined) });
      store.getState().set({ report, phase: report.ok ? 'done' : 'failed', message: { text: report.ok ? `verified ${report.rows} rows on disk` : `the JSONL on disk has problems`, tone: report.ok ? 'info' : 'error' } });
    } catch (err) {
      store.getState().set({ message: { text: message(err), tone: 'error' } });
    }
  }

  stop(): void {
    this.ctl?.abort();
  }

  dispose(): void {
    this.ctl?.abort();
    this.ticker?.stop();
  }
}
