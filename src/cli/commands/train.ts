// `train launch|list|status|stop`: the headless twin of the Train screen.
import { createInterface } from 'node:readline/promises';
import type { CommandContext } from '../context.js';
import { note, optFlag, optList, optString, registryOf, say, writeJson } from '../context.js';
import { ConsoleError, ExitCode, usageError } from '../../services/errors.js';
import { loadTrainSettings, parseAssignment, readEnvFile } from '../../services/train/settings.js';
import { describeDerived } from '../../services/train/derive.js';
import { buildLaunchPlan, formatDryRun, planSummary, type LaunchPlan } from '../../services/train/launch.js';
import type { LaunchCheck } from '../../services/train/checks.js';
import { effectiveLinesInLog, findLatestCheckpoint, findRun, listRuns, tailLog, type CheckpointInfo, type RunView } from '../../services/train/registry.js';
import { resumePlan } from '../../services/train/launchJob.js';
import { runsWithSources, stopRunRayJob, type RunStateSource } from '../../services/train/rayState.js';
import { SUBMISSION_ID, dashboardUrl } from '../../services/ray/jobsApi.js';
import { wandbLinesInLog, wandbRun } from '../../services/train/wandb.js';
import { runRowCells } from '../../services/train/runRow.js';
import { renderTable } from '../../ui/renderTable.js';
import { isSecretName, redact, rememberSecrets } from '../../services/secrets.js';

const SYMBOL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

async function planFromOptions(ctx: CommandContext): Promise<{ plan: LaunchPlan; resumed?: CheckpointInfo }> {
  const saved = await loadTrainSettings(ctx.paths);
  const envFileName = optString(ctx, 'env-file');
  const envFile = envFileName ? await readEnvFile(envFileName) : undefined;
  const sets: Record<string, string> = {};
  for (const item of optList(ctx, 'set')) {
    const [k, v] = parseAssignment(item, '--set');
    sets[k] = v;
  }
  // Keys given on the command line or in --env-file are secrets the console knows: masked in everything it prints.
  rememberSecrets([...Object.entries(envFile ?? {}), ...Object.entries(sets)].filter(([k]) => isSecretName(k)).map(([, v]) => v));
  const inputs = { paths: ctx.paths, env: ctx.env, saved: { ...saved.values, ...saved.secrets }, envFile, sets, allowOutsideLauncher: optFlag(ctx, 'allow-outside-launcher') };
  if (!optFlag(ctx, 'resume')) return { plan: buildLaunchPlan(inputs) };
  const { plan, checkpoint } = await resumePlan(inputs);
  return { plan, resumed: checkpoint };
}

function printChecks(ctx: CommandContext, checks: LaunchCheck[]): void {
  for (const c of checks) {
    say(ctx, `${SYMBOL[c.status]}  ${c.title}: ${c.detail}`);
    if (c.fix && (c.status === 'fail' || c.status === 'warn')) say(ctx, `        fix: ${c.fix}`);
  }
}

export async function trainLaunch(ctx: CommandContext): Promise<number> {
  const { plan, resumed } = await planFromOptions(ctx);
  const dryRun = optFlag(ctx, 'dry-run');
  const { checks, failing, run } = await (await registryOf(ctx).jobs('train')).launch({
    plan,
    dryRun,
    onEvent: (e) => {
      if (e.type === 'checking' && !ctx.global.json) note(ctx, 'checking the launch settings…');
    },
  });
  const derived = describeDerived(plan.derived);
  const summary = planSummary(plan);

  if (!run) {
    if (ctx.global.json) {
      writeJson(ctx, { dryRun, launched: false, ...summary, derived, checks, blocking: failing.length, ...(resumed ? { resume: resumed } : {}) });
    } else {
      if (resumed) say(ctx, `resume: from ${resumed.root} step ${resumed.step}`);
      say(ctx, '# command and environment (secrets masked)');
      ctx.stdout.write(formatDryRun(plan));
      say(ctx, '\n# derived');
      for (const d of derived) say(ctx, `${d.label}: ${d.value}`);
      say(ctx, '\n# the launcher will print');
      for (const l of summary.effectiveLines) say(ctx, l);
      say(ctx, '\n# checks');
      printChecks(ctx, checks);
      say(ctx, failing.length > 0 ? `\n${failing.length} blocking check(s) failed: not launching.` : dryRun ? '\ndry run: nothing started.' : '');
    }
    return failing.length > 0 ? ExitCode.precondition : ExitCode.ok;
  }

  if (ctx.global.json) {
    writeJson(ctx, { dryRun: false, launched: true, ...summary, derived, checks, run: runJson(run as RunView) });
  } else {
    printChecks(ctx, checks.filter((c) => c.status !== 'ok'));
    say(ctx, `launched ${run.name} (pid ${run.pid}, detached: it keeps running when this console exits)`);
    say(ctx, `  log:         ${run.logFile}`);
    say(ctx, `  outputs:     ${run.outputsLogDir}`);
    say(ctx, `  checkpoints: ${run.checkpointDir}`);
    say(ctx, `  watch:       swegym-console monitor ${run.name}`);
    say(ctx, `  stop:        swegym-console train stop ${run.name}`);
  }
  return ExitCode.ok;
}

function runJson(r: RunView) {
  return {
    name: r.name,
    status: r.status,
    runName: r.runName,
    exitCode: r.exitCode ?? null,
    alive: r.alive ?? false,
    pid: r.pid ?? null,
    pgid: r.pgid ?? null,
    host: r.host,
    createdAt: r.createdAt,
    startedAt: r.startedAt ?? null,
    endedAt: r.endedAt ?? null,
    stoppedAt: r.stoppedAt ?? null,
    logFile: r.logFile,
    outputsLogDir: r.outputsLogDir,
    checkpointDir: r.checkpointDir,
    ...(r.remote ? { remote: true } : {}),
    ...(r.resumedFrom ? { resumedFrom: r.resumedFrom } : {}),
  };
}

/** A run's state as the run list words it (runRow.ts), with the host of a run launched elsewhere. */
function statusText(r: RunView): string {
  const c = runRowCells(r, Date.now());
  return c.where ? `${c.status} (${c.where})` : c.status;
}

function sourceJson(s: RunStateSource) {
  return { kind: s.kind, detail: s.detail, rayJobId: s.rayJobId ?? null };
}

export async function trainList(ctx: CommandContext): Promise<number> {
  const runs = await runsWithSources(await listRuns(ctx.paths), ctx.env);
  if (ctx.global.json) {
    writeJson(ctx, { runs: runs.map((r) => ({ ...runJson(r.run), stateFrom: sourceJson(r.source) })) });
    return ExitCode.ok;
  }
  if (runs.length === 0) {
    say(ctx, 'no runs in the registry (swegym-console train launch starts one)');
    return ExitCode.ok;
  }
  const now = Date.now();
  const rows = runs.map(({ run: r, source }) => {
    // Ray's Jobs API answered for it: its state is known here, whatever host launched it.
    const c = runRowCells(source.kind === 'ray-api' ? { ...r, remote: undefined } : r, now);
    const from = source.kind === 'ray-api' ? `from Ray job ${source.rayJobId}` : source.kind === 'remote' ? 'from the registry only' : 'from local processes';
    return [c.name, c.where ? `${c.status} (${c.where})` : c.status, c.pid, `${c.age} ago`, `(${from})`];
  });
  for (const line of renderTable([{}, {}, {}, { align: 'right' }, {}], rows)) say(ctx, line);
  const notes = [...new Set(runs.filter((r) => r.source.rayJobId && r.source.kind !== 'ray-api').map((r) => r.source.detail.split('; ').slice(1).join('; ')))];
  for (const n of notes) if (n) note(ctx, `note: ${n}`);
  return ExitCode.ok;
}

export async function trainStatus(ctx: CommandContext): Promise<number> {
  const [{ run, source }] = (await runsWithSources([await findRun(ctx.paths, ctx.positionals[0])], ctx.env)) as [{ run: RunView; source: RunStateSource }];
  const [tail, printed, ckpt, wandbLines] = await Promise.all([tailLog(run.logFile, 15), effectiveLinesInLog(run.logFile), findLatestCheckpoint(run.checkpointDir), wandbLinesInLog(run.logFile)]);
  const wandb = wandbRun({ ...run.config.effective, ...run.config.explicit }, wandbLines);
  const mismatched = printed.length > 0 && printed.some((l) => !run.expectedEffectiveLines.includes(l));
  const resume = ckpt && run.status !== 'running' && run.status !== 'starting'
    ? { root: ckpt.root, step: ckpt.step, command: `swegym-console train launch --resume   # or --set RESUME_FROM_CKPT=1 --set RESUME_CKPT_ROOT=${ckpt.root} --set RESUME_CKPT_STEP=${ckpt.step}` }
    : undefined;
  if (ctx.global.json) {
    writeJson(ctx, { run: runJson(run), stateFrom: sourceJson(source), wandb: wandb ? JSON.parse(redact(JSON.stringify(wandb))) : null, effectiveLines: printed, expectedEffectiveLines: run.expectedEffectiveLines, effectiveMismatch: mismatched, checkpoint: ckpt ?? null, resume: resume ?? null, logTail: tail });
    return ExitCode.ok;
  }
  say(ctx, `${run.name}: ${statusText(source.kind === 'ray-api' ? { ...run, remote: undefined } : run)}${run.alive && run.status !== 'running' && run.status !== 'starting' ? ' (processes of its group still alive)' : ''}`);
  say(ctx, `  RUN_NAME ${run.runName}, pid/pgid ${run.pid ?? '-'}/${run.pgid ?? '-'} on ${run.host}, started ${run.startedAt ?? run.createdAt}`);
  say(ctx, `  state from ${source.detail}`);
  if (source.rayJobId) say(ctx, `  ray job ${source.rayJobId}: by hand, ray job status ${source.rayJobId} --address ${dashboardUrl(ctx.env)} (or curl ${dashboardUrl(ctx.env)}/api/jobs/${source.rayJobId})`);
  if (wandb) {
    say(ctx, `  ${redact(wandb.summary)}`);
    for (const m of wandb.manual) say(ctx, `    by hand: ${redact(m)}`);
  }
  say(ctx, `  log ${run.logFile}`);
  say(ctx, `  outputs ${run.outputsLogDir}`);
  say(ctx, `  checkpoints ${run.checkpointDir}${ckpt ? ` (latest iter ${ckpt.step}, ${ckpt.count} saved)` : ' (none yet)'}`);
  if (mismatched) say(ctx, '  warning: the effective_* lines in the log differ from what the console expected (settings changed by the environment?)');
  if (resume) say(ctx, `  resume: ${resume.command}`);
  if (tail.length) {
    say(ctx, '  last lines:');
    for (const l of tail) say(ctx, `    ${l}`);
  }
  return ExitCode.ok;
}

async function confirm(ctx: CommandContext, question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: ctx.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** `train stop raysubmit_…`: Ray's Jobs API alone (a console with a tunnel to the head and no registry entry). */
async function stopRayJobById(ctx: CommandContext, id: string): Promise<number> {
  if (!optFlag(ctx, 'yes')) {
    if (!process.stdin.isTTY) throw new ConsoleError({ what: `not stopping Ray job ${id} without confirmation`, cause: 'no terminal to ask on', fix: `pass --yes: swegym-console train stop ${id} --yes`, exitCode: ExitCode.usage });
    if (!(await confirm(ctx, `Stop Ray job ${id} through ${dashboardUrl(ctx.env)}? Checkpoints are kept.`))) {
      say(ctx, 'not stopped');
      return ExitCode.failed;
    }
  }
  const r = await stopRunRayJob(id, ctx.env);
  if (ctx.global.json) writeJson(ctx, { rayJob: id, ok: r.ok, stopped: r.stopped ?? null, detail: r.detail });
  else say(ctx, r.detail);
  if (!r.ok) throw new ConsoleError({ what: `Cannot stop Ray job ${id}.`, cause: r.detail, fix: `Open a tunnel to the head's dashboard (ssh -L 8265:127.0.0.1:8265 HEAD) or set SWEGYM_RAY_DASHBOARD; by hand on the head: ray job stop ${id}`, exitCode: ExitCode.precondition });
  return ExitCode.ok;
}

export async function trainStop(ctx: CommandContext): Promise<number> {
  const name = ctx.positionals[0];
  if (!name) throw usageError('train stop needs the run name', 'see `swegym-console train list`');
  if (SUBMISSION_ID.test(name)) return stopRayJobById(ctx, name);
  const [{ run, source }] = (await runsWithSources([await findRun(ctx.paths, name)], ctx.env)) as [{ run: RunView; source: RunStateSource }];
  const rayStop = optFlag(ctx, 'ray-stop');
  const running = run.alive || run.status === 'starting' || run.status === 'running';
  if (!running && !rayStop) {
    if (ctx.global.json) writeJson(ctx, { run: runJson(run), signal: 'none' });
    else say(ctx, `${run.name} is not running (${statusText(run)}); nothing to stop`);
    return ExitCode.ok;
  }
  if (!optFlag(ctx, 'yes')) {
    if (!process.stdin.isTTY) {
      throw new ConsoleError({
        what: `not stopping ${run.name} without confirmation`,
        cause: 'no terminal to ask on',
        fix: `pass --yes: swegym-console train stop ${run.name} --yes`,
        exitCode: ExitCode.usage,
      });
    }
    const what = running ? `Stop training run ${run.name} (pid ${run.pid})? The launcher gets TERM, then KILL; checkpoints are kept.` : `Run \`ray stop --force\` on this node?`;
    if (!(await confirm(ctx, what))) {
      say(ctx, 'not stopped');
      return ExitCode.failed;
    }
  }
  // The training is Ray's job: stop it there first (the launcher's `ray job submit` then sees it end), then the
  // launcher's own processes, if any are left on this host.
  const rayJobStop = source.kind === 'ray-api' && source.rayJobId && source.rayJob && !['STOPPED', 'SUCCEEDED', 'FAILED'].includes(source.rayJob.status) ? await stopRunRayJob(source.rayJobId, ctx.env) : undefined;
  if (rayJobStop && !ctx.global.json) say(ctx, `ray job: ${rayJobStop.detail}`);
  if (run.remote && rayJobStop) {
    if (ctx.global.json) writeJson(ctx, { run: runJson(run), signal: 'none', rayJob: { id: source.rayJobId, ok: rayJobStop.ok, stopped: rayJobStop.stopped ?? null, detail: rayJobStop.detail } });
    else say(ctx, `the launcher runs on ${run.host}: its own processes end with the job (or: swegym-console train stop ${run.name} there)`);
    return rayJobStop.ok ? ExitCode.ok : ExitCode.failed;
  }
  const result = await (await registryOf(ctx).jobs('train')).stop({ name: run.name, rayStop, onEvent: (e) => (e.type === 'progress' ? note(ctx, e.text) : undefined) });
  if (ctx.global.json) {
    writeJson(ctx, { run: runJson(result.run), signal: result.signal, rayStop: result.rayStop ?? null, ...(rayJobStop ? { rayJob: { id: source.rayJobId, ok: rayJobStop.ok, stopped: rayJobStop.stopped ?? null, detail: rayJobStop.detail } } : {}) });
  } else {
    say(ctx, result.signal === 'none' ? `${run.name} had already ended (${statusText(result.run)})` : `${run.name} stopped (${result.signal === 'KILL' ? 'needed KILL' : 'TERM'})`);
    if (result.rayStop) say(ctx, `ray: ${result.rayStop.detail}`);
    else if (result.signal !== 'none' && !rayJobStop?.ok) say(ctx, 'note: Ray (and a job it still runs) keeps going on the cluster; `swegym-console train stop RUN --ray-stop` or `ray stop --force` ends it');
  }
  return (result.rayStop && !result.rayStop.ok) || (rayJobStop && !rayJobStop.ok) ? ExitCode.failed : ExitCode.ok;
}
