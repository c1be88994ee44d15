// `templates build | smoke | status`: the template factory, smoke tests and per-image status, headless.
import os from 'node:os';
import type { CommandContext } from '../context.js';
import { note, optFlag, optInt, optList, optMinutes, optString, say, writeJson } from '../context.js';
import { MAX_SANDBOX_CONCURRENCY } from '../../services/sandbox/limits.js';
import { ConsoleError, ExitCode, usageError } from '../../services/errors.js';
import type { SandboxProvider } from '../../services/sandbox/types.js';
import { resolveArtifactConfig } from '../../services/artifacts/versions.js';
import { TemplateFactory, defaultConcurrency, E2B_BUILD_LIMIT, type FactoryEvent } from '../../services/templates/factory.js';
import { templatesStatus } from '../../services/templates/status.js';
import { smokeMany } from '../../services/templates/smoke.js';
import { templatesJournal } from '../../services/templates/records.js';
import { inspectTemplateMap } from '../../services/templates/map.js';
import { acquireLock } from '../../services/workspace/lock.js';
import { openSandboxProvider } from '../../services/templates/provider.js';
import { describeRetry } from '../../services/sandbox/retry.js';
import { redact } from '../../services/secrets.js';
import { formatAge } from '../../services/templates/format.js';
import { localBaseResolver } from '../../services/templates/localBases.js';
import { SAMPLE_TEMPLATES_NOTE, sampleWorkspaceLabel } from '../../services/workspace/sample.js';

/** Tests replace the provider (a child process running this command against a scripted provider). */
let providerOverride: ((ctx: CommandContext) => Promise<SandboxProvider>) | undefined;
export function setTemplatesProviderForTests(fn: typeof providerOverride): void {
  providerOverride = fn;
}

async function provider(ctx: CommandContext): Promise<SandboxProvider> {
  if (providerOverride) return providerOverride(ctx);
  return openSandboxProvider(ctx.global.provider, ctx.env, ctx.paths, { onRetry: (e) => note(ctx, redact(describeRetry(e))) });
}

function progressLine(e: FactoryEvent, done: () => string): string | undefined {
  switch (e.type) {
    case 'state':
      if (e.record.state === 'building') return `building  ${e.record.template}  (${e.image})`;
      if (e.record.state === 'built') {
        return e.skipped
          ? `${done()} exists    ${e.record.template}${e.record.reason?.startsWith('adopted') ? ' (adopted)' : ''}`
          : `${done()} built     ${e.record.template}  in ${formatAge(e.record.durationMs ?? 0)}`;
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
  if (sampleWorkspaceLabel(ctx.paths)) {
    note(ctx, SAMPLE_TEMPLATES_NOTE);
    return ExitCode.ok;
  }
  const p = await provider(ctx);
  const max = p.name === 'e2b' ? E2B_BUILD_LIMIT : 64;
  const concurrency = optInt(ctx, 'concurrency', Math.min(max, defaultConcurrency(p, os.availableParallelism())));
  if (concurrency > max) {
    throw usageError(`--concurrency ${concurrency} is above ${max}`, `E2B caps concurrent template builds at ${E2B_BUILD_LIMIT} on Hobby and Pro; use --concurrency ${max} or less`);
  }
  const artifacts = await resolveArtifactConfig(ctx.paths, ctx.env);
  let finished = 0;
  let total = 0;
  const done = () => `[${++finished}/${total}]`;
  const factory = new TemplateFactory({
    provider: p,
    paths: ctx.paths,
    artifacts: { artifactDir: artifacts.artifactDir, versions: artifacts },
    only: optList(ctx, 'only'),
    prefix: optString(ctx, 'prefix'),
    concurrency,
    maxConcurrency: max,
    rebuild: optFlag(ctx, 'rebuild'),
    buildTimeoutMs: optMinutes(ctx, 'build-timeout'),
    skipCache: optFlag(ctx, 'skip-cache'),
    signal: ctx.signal,
    baseFor: p.name === 'local' ? localBaseResolver(ctx.paths) : undefined,
    onEvent: (e) => {
      if (total === 0) total = factory.snapshot().records.length;
      const line = progressLine(e, done);
      if (line) note(ctx, line);
    },
  });
  // The first Ctrl-C aborts ctx.signal: no new builds, running ones finish. The second ends the process at once
  // (abandon): the journal still says "building" for those images and the next run rebuilds them.
  // A summary line every 30 s for long unattended runs (CI logs, nohup).
  const ticker = setInterval(() => {
    const snap = factory.snapshot();
    if (!snap.running) return;
    const n = (st: string) => snap.records.filter((r) => r.state === st).length;
    note(ctx, `progress: ${n('built')}/${snap.records.length} built, ${n('failed')} failed, ${snap.active} building${snap.etaMs !== undefined ? `, ETA ${formatAge(snap.etaMs)}` : ''}`);
  }, 30_000);
  ticker.unref();
  let result;
  try {
    result = await factory.run();
  } finally {
    clearInterval(ticker);
  }
  if (result.fatal) {
    throw new ConsoleError({ what: 'template builds stopped', cause: result.fatal, fix: 'set a valid E2B_API_KEY and rerun; finished templates are kept', exitCode: ExitCode.precondition });
  }
  const check = await inspectTemplateMap(ctx.paths.templateMap, result.records.map((r) => r.image));
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
      mapComplete: check.problems.length === 0,
      templates: result.records.map((r) => ({ image: r.image, template: r.template, state: r.state, error: r.state === 'failed' ? (r.reason ?? '') : '' })),
    });
  } else {
    say(ctx, `${result.built} built, ${result.skipped} already there, ${result.failed} failed${result.notStarted + result.abandoned ? `, ${result.notStarted + result.abandoned} not built (stopped)` : ''} in ${formatAge(result.durationMs)}`);
    for (const r of result.records.filter((x) => x.state === 'failed')) say(ctx, `  failed ${r.image}: ${r.reason ?? ''}`);
    say(ctx, check.problems.length === 0 ? `map: ${ctx.paths.templateMap} covers all ${result.total} images` : `map: ${check.missing.length} image(s) without a template; rerun \`swegym-console templates build\` to continue`);
  }
  return result.failed === 0 && result.notStarted === 0 && result.abandoned === 0 ? ExitCode.ok : ExitCode.failed;
}

export async function templatesSmokeCommand(ctx: CommandContext): Promise<number> {
  const names = optList(ctx, 'template');
  const all = optFlag(ctx, 'all');
  if (!all && names.length === 0) throw usageError('say which templates to smoke', 'use --template NAME (repeatable) or --all');
  const concurrency = optInt(ctx, 'concurrency', 4, 1, MAX_SANDBOX_CONCURRENCY);
  const status = await templatesStatus(ctx.paths);
  const check = await inspectTemplateMap(ctx.paths.templateMap);
  const byTemplate = new Map<string, string>();
  for (const [image, t] of Object.entries(check.map)) byTemplate.set(t, image);
  for (const r of status.templates) if (r.state === 'built' && !byTemplate.has(r.template)) byTemplate.set(r.template, r.image);
  const targets = all ? [...byTemplate.entries()].map(([template, image]) => ({ template, image })) : names.map((template) => ({ template, image: byTemplate.get(template) }));
  if (targets.length === 0) throw new ConsoleError({ what: 'no templates to smoke', cause: 'the template map is empty', fix: 'build templates first: swegym-console templates build', exitCode: ExitCode.precondition });
  const p = await provider(ctx);
  const lock = await acquireLock(ctx.paths.lockFile, 'templates smoke');
  let results;
  try {
    const journal = await templatesJournal(ctx.paths).load();
    results = await smokeMany({
      provider: p,
      journal,
      targets,
      concurrency,
      signal: ctx.signal,
      onResult: (r) => note(ctx, `${r.ok ? 'passed' : 'FAILED'}  ${r.template}${r.ok ? `  (${r.claudeVersion ?? ''}, BBS ${r.health?.version ?? '?'})` : `: ${r.error ?? ''}`}`),
    });
    await journal.flush();
  } finally {
    await lock.release();
  }
  const failed = results.filter((r) => !r.ok).length;
  // A sandbox whose kill failed is still running (and billed): never a silent success.
  const notKilled = results.filter((r) => r.sandboxId && !r.killed).map((r) => r.sandboxId as string);
  if (ctx.global.json) {
    writeJson(ctx, {
      results: results.map((r) => ({ image: r.image ?? null, template: r.template, ok: r.ok, code: r.code ?? null, error: r.error ?? '', claudeVersion: r.claudeVersion ?? null, bbsVersion: r.health?.version ?? null, sandboxId: r.sandboxId ?? null, killed: r.killed, durationMs: r.durationMs })),
      counts: { total: results.length, passed: results.length - failed, failed, notRun: targets.length - results.length, notKilled: notKilled.length },
    });
  } else {
    say(ctx, `${results.length - failed} passed, ${failed} failed${targets.length > results.length ? `, ${targets.length - results.length} not run (interrupted)` : ''}${notKilled.length ? `; ${notKilled.length} sandbox(es) could not be killed` : ''}`);
  }
  return failed === 0 && notKilled.length === 0 && results.length === targets.length ? ExitCode.ok : ExitCode.failed;
}

export async function templatesStatusCommand(ctx: CommandContext): Promise<number> {
  const status = await templatesStatus(ctx.paths);
  if (ctx.global.json) {
    writeJson(ctx, {
      templates: status.templates.map((r) => ({ image: r.image, template: r.template, state: r.state, smoke: r.smoke, error: r.error })),
      counts: status.counts,
    });
    return ExitCode.ok;
  }
  if (status.imageListMissing) say(ctx, `note: ${ctx.paths.imageList} is missing (run \`swegym-console data images\`)`);
  for (const r of status.templates) {
    say(ctx, `${r.state.padEnd(8)} ${(r.smoke ?? '-').padEnd(6)} ${r.template}  ${r.image}${r.error ? `\n         ${r.error}` : ''}`);
  }
  const c = status.counts;
  say(ctx, `\n${c.total} images: ${c.built} built, ${c.failed} failed, ${c.building} building, ${c.queued} to build; ${c.mapped} mapped; smoke ${c.smokePassed} passed, ${c.smokeFailed} failed`);
  for (const p of status.mapProblems) say(ctx, `map: ${p}`);
  return ExitCode.ok;
}
