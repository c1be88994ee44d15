// The data of a shareable run report (`swegym-console report RUN -o run.html`): read from the same RunModel that
// `monitor --once --json` prints (the same line parser and records), so the report's numbers are the document's.
// Everything here is plain JSON: the HTML page (html.ts) draws it in the browser.
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { RunModel, phaseLabel, type RolloutRecord } from '../monitor/runModel.js';
import { modelLineScanner, scanFile, followRayJob } from '../monitor/tail.js';
import { isSimulatedRun, type MonitorTarget } from '../monitor/resolve.js';
import { metricSeries, sortedRecords } from '../monitor/curves.js';
import { CHARTS } from '../monitor/session.js';
import { readRun } from '../train/registry.js';
import { SETTING_BY_KEY, isSecretSetting } from '../train/settings.js';
import { MASK, redact } from '../secrets.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { RAY_DASHBOARD_PORT } from '../recipe.js';
import type { SampleStats } from '../../state/types/monitor.js';

export const REPORT_VERSION = 1;

/** A value that JSON can carry: NaN and ±Infinity become null (a gap in the chart). */
type Num = number | null;
const num = (v: number | undefined): Num => (v === undefined || !Number.isFinite(v) ? null : v);

export interface ReportCurve {
  key: string;
  label: string;
  source: 'step' | 'rollout';
  /** The rollout axis (train steps at step / steps-per-rollout, as the dashboard draws them). */
  x: number[];
  y: Num[];
}

export interface ReportGroups {
  /** Rollouts with their groups known (a rollout thinned out of the series or read without groups is absent). */
  x: number[];
  /** Per rollout: groups whose every sample got reward 1, some did, none did (GRPO learns only from the middle). */
  allSolved: number[];
  mixed: number[];
  noneSolved: number[];
  /** Mean reward over the rollout's groups' samples, per rollout. */
  meanReward: Num[];
  /** The last rollout's groups: instance, samples, solved. */
  last: { rollout: number; groups: { instance: string; n: number; solved: number }[] } | undefined;
}

export interface ReportReasons {
  x: number[];
  /** Per failure reason (graded samples that did not resolve, as the reward lines name them): count per rollout. */
  series: { reason: string; counts: number[] }[];
  /** Samples aborted before grading (`blackbox rollout failed`) and groups that exhausted their retries. */
  aborted: number[];
  failedGroups: number[];
}

export interface ReportTask {
  instance: string;
  attempts: number;
  solved: number;
}

export interface ReportCost {
  /** Samples so far: graded (reward lines) plus aborted. */
  samples: number;
  agentMinutes: number;
  evalMinutes: number;
  pricePerSandboxHour: number;
  sandboxHours: number;
  usd: number;
  /** Where the assumptions came from: the run's launch settings or the console's defaults. */
  from: 'launch settings' | 'defaults';
}

export interface ReportSetting {
  key: string;
  value: string;
  source: string;
}

export interface ReportData {
  version: number;
  generatedAt: string;
  run: { name: string; phase: string; source: MonitorTarget['source']; simulated: boolean; log: string | undefined };
  counts: { rollouts: number; steps: number; lines: number };
  samples: SampleStats;
  inProgress: { rollout: number; samples: SampleStats };
  curves: ReportCurve[];
  groups: ReportGroups;
  reasons: ReportReasons;
  tasks: { seen: number; always: number; sometimes: number; never: number; rows: ReportTask[] };
  cost: ReportCost;
  settings: { from: 'registry' | 'log'; rows: ReportSetting[]; effective: Record<string, Record<string, string>> };
}

/** Reads the whole run into a RunModel: the log file, or `ray job logs` of a Ray job. */
export async function readRunModel(target: MonitorTarget, opts: { cwd: string; signal?: AbortSignal; rayBin?: string }): Promise<RunModel> {
  const model = new RunModel({ name: target.runName ?? target.name });
  if (target.logFile) {
    const scanner = modelLineScanner(model);
    await scanFile(target.logFile, scanner, { offset: 0, signal: opts.signal });
    scanner.end();
    return model;
  }
  if (target.rayJob) {
    const r = await followRayJob(target.rayJob, (l) => model.ingestLine(l), { cwd: opts.cwd, signal: opts.signal, follow: false, rayBin: opts.rayBin });
    if (r.spawnError || r.exitCode !== 0) {
      throw new ConsoleError({
        what: `\`ray job logs ${target.rayJob}\` failed.`,
        cause: r.spawnError ?? (r.stderr.slice(-3).join(' ') || `exit ${r.exitCode ?? r.signal}`),
        fix: `Run it where Ray's dashboard (:${RAY_DASHBOARD_PORT}) is reachable, or pass the run log file instead.`,
        exitCode: ExitCode.precondition,
      });
    }
    return model;
  }
  throw new ConsoleError({
    what: `${target.name} has no run log to report on.`,
    cause: target.runDir ? `no log file found in ${target.runDir}` : 'the target names no log file',
    fix: 'Pass the run log file: swegym-console report <LOG_FILE> -o run.html.',
    exitCode: ExitCode.precondition,
  });
}

function groupsOf(rollouts: RolloutRecord[]): ReportGroups {
  const out: ReportGroups = { x: [], allSolved: [], mixed: [], noneSolved: [], meanReward: [], last: undefined };
  for (const r of rollouts) {
    if (r.groups.length === 0) continue;
    let all = 0;
    let none = 0;
    let n = 0;
    let solved = 0;
    for (const g of r.groups) {
      if (g.solved === 0) none++;
      else if (g.solved >= g.n) all++;
      n += g.n;
      solved += g.solved;
    }
    out.x.push(r.rollout);
    out.allSolved.push(all);
    out.noneSolved.push(none);
    out.mixed.push(r.groups.length - all - none);
    out.meanReward.push(n > 0 ? solved / n : null);
    out.last = { rollout: r.rollout, groups: r.groups.map((g) => ({ instance: g.instance, n: g.n, solved: g.solved })) };
  }
  return out;
}

function reasonsOf(rollouts: RolloutRecord[]): ReportReasons {
  const names = new Set<string>();
  for (const r of rollouts) for (const k of Object.keys(r.samples.by_reason)) if (k !== '') names.add(k);
  // Most frequent first (the legend reads in that order).
  const total = (k: string) => rollouts.reduce((s, r) => s + (r.samples.by_reason[k] ?? 0), 0);
  const ordered = [...names].sort((a, b) => total(b) - total(a) || a.localeCompare(b));
  return {
    x: rollouts.map((r) => r.rollout),
    series: ordered.map((reason) => ({ reason, counts: rollouts.map((r) => r.samples.by_reason[reason] ?? 0) })),
    aborted: rollouts.map((r) => r.failures.aborted_samples),
    failedGroups: rollouts.map((r) => r.failures.failed_groups),
  };
}

/** A launch setting's value as the run used it: the registry's effective config, else the setting's default. */
function settingNumber(effective: Record<string, string> | undefined, key: string): { value: number; fromLaunch: boolean } {
  const launched = Number(effective?.[key]);
  if (effective?.[key] !== undefined && Number.isFinite(launched) && launched >= 0) return { value: launched, fromLaunch: true };
  return { value: Number(SETTING_BY_KEY.get(key)?.defaultText), fromLaunch: false };
}

/**
 * E2B cost so far, estimated the way `train launch` estimates it per rollout (train/derive.ts): each sample holds its
 * agent sandbox for the agent minutes and, while its fresh evaluation sandbox runs, two sandboxes for the eval minutes.
 */
export function costSoFar(model: RunModel, effective: Record<string, string> | undefined): ReportCost {
  const agent = settingNumber(effective, 'SWEGYM_CONSOLE_AGENT_MINUTES');
  const evalMin = settingNumber(effective, 'SWEGYM_CONSOLE_EVAL_MINUTES');
  const price = settingNumber(effective, 'SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR');
  let aborted = model.pendingFailures.aborted_samples;
  for (const r of model.rollouts.values()) aborted += r.failures.aborted_samples;
  const samples = model.totals.total + aborted;
  const sandboxHours = (samples * (agent.value + 2 * evalMin.value)) / 60;
  return {
    samples,
    agentMinutes: agent.value,
    evalMinutes: evalMin.value,
    pricePerSandboxHour: price.value,
    sandboxHours,
    usd: sandboxHours * price.value,
    from: agent.fromLaunch || evalMin.fromLaunch || price.fromLaunch ? 'launch settings' : 'defaults',
  };
}

/** A setting's value for the report: a secret setting masked whole, any other value through redact. */
export function maskSetting(key: string, value: string, env: NodeJS.ProcessEnv): string {
  if (isSecretSetting(key)) return value === '' ? '' : MASK;
  return redact(value, env);
}

export async function buildReportData(
  target: MonitorTarget,
  model: RunModel,
  opts: { paths: RecipePaths; env: NodeJS.ProcessEnv; now?: Date; taskRows?: number },
): Promise<ReportData> {
  const env = opts.env;
  const record = target.registryName ? await readRun(opts.paths, target.registryName).catch(() => undefined) : undefined;
  const recs = sortedRecords(model);
  const rollouts = recs.rollouts;
  const tasks = model.taskSummary();
  const taskRows = tasks.tasks
    .map((t) => ({ instance: t.instance, attempts: t.attempts, solved: t.solved }))
    .sort((a, b) => b.attempts - a.attempts || b.solved / b.attempts - a.solved / a.attempts || a.instance.localeCompare(b.instance))
    .slice(0, opts.taskRows ?? 5000);
  const settingsRows: ReportSetting[] = record
    ? Object.entries(record.config.effective)
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([key, value]) => ({ key, value: maskSetting(key, value, env), source: record.config.sources[key] ?? (key in record.config.explicit ? 'set' : 'default') }))
    : [];
  const effective: Record<string, Record<string, string>> = {};
  for (const [name, values] of Object.entries(model.effective)) {
    effective[name] = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, maskSetting(k, v, env)]));
  }
  const logShown = target.logFile ? redact(path.relative(opts.paths.root, target.logFile).startsWith('..') ? target.logFile : path.relative(opts.paths.root, target.logFile), env) : undefined;
  return {
    version: REPORT_VERSION,
    generatedAt: (opts.now ?? new Date()).toISOString(),
    run: { name: redact(target.name, env), phase: redact(phaseLabel(model.phase), env), source: target.source, simulated: await isSimulatedRun(target), log: logShown },
    counts: { rollouts: model.rollouts.count, steps: model.steps.count, lines: model.lines },
    samples: model.totals,
    inProgress: { rollout: model.inProgressRollout, samples: model.pending },
    curves: CHARTS.map(([key, label, source]) => {
      const s = metricSeries(recs, source, key, label, Number.MAX_SAFE_INTEGER);
      return { key, label, source, x: s.x, y: s.y.map((v) => num(v)) };
    }),
    groups: groupsOf(rollouts),
    reasons: reasonsOf(rollouts),
    tasks: { seen: tasks.seen, always: tasks.always, sometimes: tasks.sometimes, never: tasks.never, rows: taskRows },
    cost: costSoFar(model, record?.config.effective),
    settings: { from: record ? 'registry' : 'log', rows: settingsRows, effective },
  };
}
