// The convert job, written once for both faces: `convert` prints its events, the Convert screen's controller puts
// them in the convert store. Preflight → Dressage's converter → verification → a preview of the first rows; with
// `verifyOnly`, the verification of the JSONL on disk alone.
import type { RecipePaths } from '../workspace/paths.js';
import { jobEmitter, type JobListener } from '../jobs/events.js';
import { runConvert, type ConvertNotice, type ConvertPhase, type ConvertResult } from './convert.js';
import { verifyExpectationsFor } from './expectations.js';
import { manualCommand, type ConvertOptions } from './options.js';
import { readSmokeResults, verifyJsonl, type VerifyReport } from './verify.js';
import { previewRow, readRows, type RowPreview } from './jsonlRows.js';
import { readTemplateMapForChecks } from '../templates/map.js';

export const CONVERT_JOB = 'convert';

/** The steps a conversion goes through, for its progress (verify-only runs the last one). */
const STEPS: ConvertPhase[] = ['preflight', 'converting', 'verifying'];

export type ConvertJobEvent =
  | { type: 'started'; command: string; output: string; verifyOnly: boolean }
  /** A step began (done = steps finished of total), or the run ended (`done` or `failed`). */
  | { type: 'phase'; phase: ConvertPhase; done: number; total: number }
  /** One line of the converter's output. */
  | { type: 'line'; stream: 'stdout' | 'stderr'; line: string }
  /** Something the preflight or the run wants said (a warning, or a note). */
  | { type: 'notice'; notice: ConvertNotice }
  | { type: 'finished'; ok: boolean; verify: VerifyReport; preview: RowPreview[]; result?: ConvertResult }
  | { type: 'failed'; error: unknown };

export interface ConvertJobOptions {
  paths: RecipePaths;
  options: ConvertOptions;
  env: NodeJS.ProcessEnv;
  /** Verify the JSONL on disk; do not run the converter. */
  verifyOnly?: boolean;
  /** First rows to preview after a verification that found rows (default 1). */
  previewRows?: number;
  python?: string;
  signal?: AbortSignal;
  onEvent?: JobListener<ConvertJobEvent>;
}

export interface ConvertJobOutcome {
  ok: boolean;
  verify: VerifyReport;
  preview: RowPreview[];
  /** Undefined for verify-only. */
  result?: ConvertResult;
}

export async function runConvertJob(o: ConvertJobOptions): Promise<ConvertJobOutcome> {
  const emit = jobEmitter<ConvertJobEvent>(CONVERT_JOB, o.onEvent);
  const { paths, options } = o;
  const total = o.verifyOnly ? 1 : STEPS.length;
  const phase = (p: ConvertPhase) => {
    const i = STEPS.indexOf(p);
    emit({ type: 'phase', phase: p, done: p === 'done' ? total : Math.max(0, o.verifyOnly ? 0 : i), total });
  };
  emit({ type: 'started', command: manualCommand(paths, options), output: options.output, verifyOnly: Boolean(o.verifyOnly) });
  try {
    let result: ConvertResult | undefined;
    let verify: VerifyReport;
    if (o.verifyOnly) {
      phase('verifying');
      const map = options.sandboxImageMap ? await readTemplateMapForChecks(options.sandboxImageMap) : undefined;
      const { checkedAgainst, ...expectations } = await verifyExpectationsFor(paths, options);
      verify = await verifyJsonl(options.output, { ...expectations, templateMap: map, smoke: await readSmokeResults(paths) });
      if (checkedAgainst) verify = { ...verify, checkedAgainst };
      phase(verify.ok ? 'done' : 'failed');
    } else {
      result = await runConvert({
        paths,
        options,
        env: o.env,
        python: o.python,
        signal: o.signal,
        onLine: (stream, line) => emit({ type: 'line', stream, line }),
        onNotice: (notice) => emit({ type: 'notice', notice }),
        onPhase: phase,
      });
      verify = result.verify as VerifyReport;
    }
    const previewRows = o.previewRows ?? 1;
    const preview = verify.rows > 0 && previewRows > 0 ? (await readRows(options.output, { limit: previewRows }).catch(() => [])).map(previewRow) : [];
    const outcome = { ok: verify.ok, verify, preview, result };
    emit({ type: 'finished', ...outcome });
    return outcome;
  } catch (err) {
    emit({ type: 'failed', error: err });
    throw err;
  }
}
