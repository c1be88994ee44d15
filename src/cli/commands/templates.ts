// `templates build | smoke | status`: the template factory, smoke tests and per-image status, headless.
import type { CommandContext } from '../context.js';
import { optFlag, optInt, optList, optMinutes, optString, registryOf, say, writeJson } from '../context.js';
import { MAX_SANDBOX_CONCURRENCY } from '../../services/sandbox/limits.js';
import { ConsoleError, ExitCode, usageError } from '../../services/errors.js';
import { buildSummary, type TemplateBuildEvent } from '../../services/templates/buildJob.js';
import { progressReporter } from '../progress.js';
import { smokeTargetsByName } from '../../services/templates/smokeJob.js';
import { templatesStatus } from '../../services/templates/status.js';
import { formatElapsed } from '../../services/util/format.js';
import { renderTable } from '../../ui/renderTable.js';

function progressLine(e: TemplateBuildEvent, done: () => string): string | undefined {
  switch (e.type) {
    case 'state':
      if (e.record.state === 'building') return `building  ${e.record.template}  (${e.image})`;
      if (e.record.state === 'built') {
        return e.skipped
          ? `${done()} exists    ${e.record.template}${e.record.reason?.startsWith('adopted') ? ' (adopted)' : ''}`
          : `${done()} built     ${e.record.template}  in ${formatElapsed(e.record.durationMs ?? 0)}`;
      }
      if (e.record.state === 'failed') return `${done()} FAILED    ${e.record.template}: ${e.record.reason ?? ''}`;
      return undefined;
    case 'retry':
      return `retry     ${e.image}: attempt ${e.attempt + 1} in ${(e.delayMs / 1000).toFixed(1)}s (${e.reason})`;
    case 'stopping':
      return `stopping: no new builds; waiting for ${e.running} running build(s) (Ctrl-C again to abandon them — they are rebuilt next time)`;
    case 'abandoning':
      return `abandoning ${e.running} running build(s)`;
    default:
      return undefined;
  }
}

export async function templatesBuildCommand(ctx: CommandContext): Promise<number> {
  let finished = 0;
  let total = 0;
  const done = () => `[${++finished}/${total}]`;
  const requested = optString(ctx, 'concurrency') === undefined ? undefined : optInt(ctx, 'concurrency', 1);
  const progress = progressReporter(ctx, 'progress:');
  const job = (await registryOf(ctx).jobs('templates')).build({
    only: optList(ctx, 'only'),
    prefix: optString(ctx, 'prefix'),
    concurrency: requested,
    rebuild: optFlag(ctx, 'rebuild'),
    buildTimeoutMs: optMinutes(ctx, 'build-timeout'),
    skipCache: optFlag(ctx, 'skip-cache'),
    signal: ctx.signal,
    onEvent: (e) => {
      if (e.type === 'sample') return progress.note(e.note);
      if (e.type === 'started') total = e.total;
      const line = progressLine(e, done);
      if (line) progress.note(line);
      if (e.type === 'progress') progress.update(e.progress, ` (${e.failed} failed, ${e.active} building)`);
    },
  });
  // The first Ctrl-C aborts ctx.signal: no new builds, running ones finish. The second ends the process at once
  // (abandon): the journal still says "building" for those images and the next run rebuilds them.
  let outcome;
  try {
    outcome = await job.run();
  } finally {
    progress.end();
  }
  const result = outcome.result;
  if (!result) return ExitCode.ok;
  if (result.fatal) {
    throw new ConsoleError({ what: 'template builds stopped', cause: result.fatal, fix: 'set a valid E2B_API_KEY and rerun; finished templates are kept', exitCode: ExitCode.precondition });
  }
  if (ctx.global.json) {
    writeJson(ctx, {
      built: result.built,
      skipped: result.skipped,
      failed: result.failed,
      notStarted: result.notStarted,
      abandoned: result.abandoned,
      stopped: result.stopped,
      durationMs: result.durationMs,
      map: ctx.paths.templateMap,
      mapComplete: outcome.mapComplete,
      templates: result.records.map((r) => ({ image: r.image, template: r.template, state: r.state, error: r.state === 'failed' ? (r.reason ?? '') : '' })),
    });
  } else {
    say(ctx, `${buildSummary(result)} in ${formatElapsed(result.durationMs)}`);
    for (const r of result.records.filter((x) => x.state === 'failed')) say(ctx, `  failed ${r.image}: ${r.reason ?? ''}`);
    say(ctx, outcome.mapComplete ? `map: ${ctx.paths.templateMap} covers all ${result.total} images` : `map: ${outcome.missing} image(s) without a template; rerun \`swegym-console templates build\` to continue`);
  }
  return result.failed === 0 && result.notStarted === 0 && result.abandoned === 0 ? ExitCode.ok : ExitCode.failed;
}

export async function templatesSmokeCommand(ctx: CommandContext): Promise<number> {
  const names = optList(ctx, 'template');
  const all = optFlag(ctx, 'all');
  if (!all && names.length === 0) throw usageError('say which templates to smoke', 'use --template NAME (repeatable) or --all');
  const concurrency = optInt(ctx, 'concurrency', 4, 1, MAX_SANDBOX_CONCURRENCY);
  const targets = await smokeTargetsByName(ctx.paths, names, all);
  const progress = progressReporter(ctx, 'smoking');
  let outcome;
  try {
    outcome = await (await registryOf(ctx).jobs('templates')).smoke({
      targets,
      concurrency,
      signal: ctx.signal,
      onEvent: (e) => {
        if (e.type === 'finished') return progress.end();
        if (e.type === 'result') {
          const r = e.result;
          progress.note(`${r.ok ? 'passed' : 'FAILED'}  ${r.template}${r.ok ? `  (${r.claudeVersion ?? ''}, BBS ${r.health?.version ?? '?'})` : `: ${r.error ?? ''}`}`);
        }
        progress.update(e.progress);
      },
    });
  } finally {
    progress.end();
  }
  const { results, failed, notRun, notKilled } = outcome;
  if (ctx.global.json) {
    writeJson(ctx, {
      results: results.map((r) => ({ image: r.image ?? null, template: r.template, ok: r.ok, code: r.code ?? null, error: r.error ?? '', claudeVersion: r.claudeVersion ?? null, bbsVersion: r.health?.version ?? null, sandboxId: r.sandboxId ?? null, killed: r.killed, durationMs: r.durationMs })),
      counts: { total: results.length, passed: results.length - failed, failed, notRun, notKilled: notKilled.length },
    });
  } else {
    say(ctx, `${results.length - failed} passed, ${failed} failed${notRun > 0 ? `, ${notRun} not run (interrupted)` : ''}${notKilled.length ? `; ${notKilled.length} sandbox(es) could not be killed` : ''}`);
  }
  return failed === 0 && notKilled.length === 0 && notRun === 0 ? ExitCode.ok : ExitCode.failed;
}

export async function templatesStatusCommand(ctx: CommandContext): Promise<number> {
  const status = await templatesStatus(ctx.paths);
  if (status.mapRefusal) throw status.mapRefusal;
  if (ctx.global.json) {
    writeJson(ctx, {
      templates: status.templates.map((r) => ({ image: r.image, template: r.template, state: r.state, smoke: r.smoke, error: r.error })),
      counts: status.counts,
    });
    return ExitCode.ok;
  }
  if (status.imageListMissing) say(ctx, `note: ${ctx.paths.imageList} is missing (run \`swegym-console data images\`)`);
  const lines = renderTable([{ minWidth: 8 }, { minWidth: 6 }, {}, {}], status.templates.map((r) => [r.state, r.smoke ?? '-', r.template, r.image]));
  status.templates.forEach((r, i) => say(ctx, `${lines[i]}${r.error ? `\n         ${r.error}` : ''}`));
  const c = status.counts;
  say(ctx, `\n${c.total} images: ${c.built} built, ${c.failed} failed, ${c.building} building, ${c.queued} to build; ${c.mapped} mapped; smoke ${c.smokePassed} passed, ${c.smokeFailed} failed`);
  for (const p of status.mapProblems) say(ctx, `map: ${p}`);
  return ExitCode.ok;
}
