// `swegym-console validate harness [--instance ID]… [--all] [--concurrency N] [--json]` and
// `swegym-console validate agent --instance ID --router URL [--json]`.
// Exit: 0 every task validated, 1 a task failed, 2 usage, 3 preconditions.
import type { CommandContext } from '../context.js';
import { note, optFlag, optInt, optList, optString, registryOf, say, writeJson } from '../context.js';
import { MAX_SANDBOX_CONCURRENCY } from '../../services/sandbox/limits.js';
import { ConsoleError, ExitCode, usageError } from '../../services/errors.js';
import { redact } from '../../services/secrets.js';
import { sandboxConsoleError, type Sandbox } from '../../services/sandbox/index.js';
import { harnessResultsJson, type HarnessValidationResult } from '../../services/validate/harness.js';
import { VALIDATE_PURPOSE } from '../../services/validate/domain.js';
import { progressReporter } from '../progress.js';
import { validateAgent, type AgentProgress } from '../../services/validate/agent.js';
import { launcherRolloutContext } from '../../services/validate/backendOptions.js';
import { loadTrainSettings } from '../../services/train/settings.js';
import { readRows } from '../../services/convert/jsonlRows.js';
import { count, formatDuration } from '../../services/util/format.js';
import { setting } from '../../services/config/envSettings.js';

function markerCell(m: Record<string, unknown> | null): string {
  if (!m) return '—';
  if (m.parse_failure) return String(m.failure_reason);
  const f2p = `${m.fail_to_pass_success ?? '?'}/${m.fail_to_pass_total ?? '?'}`;
  const p2p = `${m.pass_to_pass_success ?? '?'}/${m.pass_to_pass_total ?? '?'}`;
  if (m.fresh_sandbox) return `unresolved (${String(m.failure_reason)})`;
  return `${m.resolved === true ? 'resolved' : 'unresolved'} F2P ${f2p} P2P ${p2p}${m.failure_reason ? ` ${String(m.failure_reason)}` : ''}`;
}

export function formatHarnessLine(r: HarnessValidationResult): string {
  return `${r.ok ? 'ok  ' : 'FAIL'} ${r.instance_id}  gold: ${markerCell(r.gold)}  control: ${markerCell(r.control)}  (${formatDuration(r.durationMs)})`;
}

/** Prints the validation job's events: the plan, one line per finished task with the progress line, the summary. */
export async function validateHarnessCommand(ctx: CommandContext): Promise<number> {
  const concurrency = optInt(ctx, 'concurrency', ctx.global.provider === 'local' ? 2 : 8, 1, MAX_SANDBOX_CONCURRENCY / 2);
  const progress = progressReporter(ctx, 'validating');
  let outcome;
  try {
    outcome = await (await registryOf(ctx).jobs('validate')).harness({
      ids: optList(ctx, 'instance'),
      all: optFlag(ctx, 'all'),
      concurrency,
      signal: ctx.signal,
      onEvent: (e) => {
        if (e.type === 'started') {
          progress.note(`validating ${e.ids.length} task(s) on ${e.provider} with concurrency ${e.concurrency}: gold patch → resolved, untouched repo → unresolved`);
          progress.update(e.progress);
        } else if (e.type === 'result') {
          progress.note(`[${e.progress.done}/${e.progress.total}] ${redact(formatHarnessLine(e.result))}`);
          if (e.result.error && !ctx.global.json) progress.note(`       ${redact(e.result.error)}`);
          progress.update(e.progress);
        } else if (e.type === 'finished') {
          progress.end();
          if (e.interrupted) note(ctx, `interrupted: ${e.results.length} of ${e.results.length + e.notRun} task(s) finished and journaled`);
        }
      },
    });
  } finally {
    progress.end();
  }
  const { results, total, passed } = outcome;
  if (ctx.global.json) writeJson(ctx, harnessResultsJson(results));
  else {
    for (const r of results) say(ctx, redact(formatHarnessLine(r)));
    say(ctx, `\n${passed}/${results.length} task(s) validated${results.length < total ? ` (${total - results.length} not run)` : ''}; journal: .swegym-console/journals/validate-harness.json`);
  }
  return outcome.ok ? ExitCode.ok : ExitCode.failed;
}

/**
 * A sandbox port as Dressage reaches it: `https://<port>-<sandbox id>.<E2B_DOMAIN>` (the e2b SDK's host for a port).
 * SWEGYM_SANDBOX_PORT_URL overrides it for tunnels and self-hosted proxies: a URL in which `{port}` and `{id}` are
 * replaced (e.g. `http://127.0.0.1:{port}` for a port forwarded to this machine).
 */
export function e2bEndpoint(env: NodeJS.ProcessEnv) {
  const template = setting(env, 'SWEGYM_SANDBOX_PORT_URL');
  return (sandbox: Sandbox, port: number) =>
    template ? template.replaceAll('{port}', String(port)).replaceAll('{id}', sandbox.id) : `https://${port}-${sandbox.id}.${env.E2B_DOMAIN || 'e2b.app'}`;
}

export async function validateAgentCommand(ctx: CommandContext): Promise<number> {
  const id = optString(ctx, 'instance');
  const router = optString(ctx, 'router');
  if (!id) throw usageError('--instance ID is required');
  if (ctx.global.provider === 'local') return validateAgentLocal(ctx, id, router);
  if (!router) throw usageError('--router URL is required (the Dressage proxy, e.g. http://<public host>:8800, or any compatible endpoint)');
  let url: URL;
  try {
    url = new URL(router);
  } catch {
    throw usageError(`--router is not a URL: ${router}`);
  }
  if (/^(localhost|127\.|0\.0\.0\.0|\[?::1\]?)/.test(url.hostname)) {
    throw new ConsoleError({
      what: `--router ${url.host} is local-only; Claude Code inside the E2B sandbox cannot reach it`,
      fix: 'pass a sandbox-reachable URL (an ingress or tunnel to the Dressage proxy)',
      exitCode: ExitCode.precondition,
    });
  }
  const [row] = await readRows(ctx.paths.trainJsonl, { ids: [id] });
  if (!row) throw usageError(`instance ${id} is not in ${ctx.paths.trainJsonl}`);
  // The backend options are derived as the training run would derive them: saved train settings, then the env.
  const saved = await loadTrainSettings(ctx.paths).catch(() => ({ values: {} as Record<string, string> }));
  const rollout = launcherRolloutContext({ ...saved.values, ...ctx.env });
  let last = '';
  const result = await validateAgent({
    // For E2B a missing E2B_API_KEY is a precondition error before the task starts.
    provider: await registryOf(ctx).deps.providers.open({ purpose: VALIDATE_PURPOSE }),
    row,
    router,
    endpointFor: e2bEndpoint(ctx.env),
    rollout,
    env: ctx.env,
    signal: ctx.signal,
    onProgress: (p: AgentProgress) => {
      const line = `${p.phase}${p.turnStatus ? ` (${p.turnStatus})` : ''}: ${count(p.steps, 'step')}, ${count(p.toolCalls, 'tool call')}, ${p.inputTokens}+${p.outputTokens} tokens${p.lastTool ? `, last: ${p.lastTool}` : ''} [${formatDuration(p.elapsedMs)}]`;
      if (line !== last) note(ctx, redact(line));
      last = line;
    },
  });
  if (ctx.global.json) writeJson(ctx, { ...result, error: result.error ?? null });
  else {
    say(ctx, `${result.ok ? 'ok  ' : 'FAIL'} ${result.instance_id}: ${result.summary ?? ''}${result.reward ? ` → reward ${result.reward.reward}` : ''}`);
    if (result.agent.earlyStop) say(ctx, `     agent stopped early (${result.agent.earlyStop}); its patch was harvested and graded, as Dressage does`);
    if (result.reward?.integrity_violation) say(ctx, `     integrity violation: ${(result.integrity && result.integrity.checked ? result.integrity.violations.map((v) => `${v.tool} ${v.reason}${v.path ? ` ${v.path}` : ''}${v.repo ? ` ${v.repo}` : ''}`) : []).join('; ')} → reward 0`);
    if (result.integrity && !result.integrity.checked) say(ctx, `     integrity not checked: ${redact(result.integrity.reason)}`);
    if (result.error) say(ctx, `     ${redact(result.error)}`);
    if (result.patch) {
      say(ctx, `\npatch (${result.patchFiles.length} file(s): ${result.patchFiles.join(', ')}):`);
      say(ctx, redact(result.patch.length > 20_000 ? result.patch.slice(0, 20_000) + '\n… (truncated)' : result.patch));
    }
  }
  return result.ok ? ExitCode.ok : ExitCode.failed;
}

/**
 * `validate agent --provider local`: the real Claude Code CLI in a bubblewrap sandbox of the task, its model the
 * scripted replay of a sample task's gold patch (labelled), or the Anthropic-compatible --router URL.
 */
async function validateAgentLocal(ctx: CommandContext, id: string, router: string | undefined): Promise<number> {
  if (router) {
    try {
      new URL(router);
    } catch {
      throw usageError(`--router is not a URL: ${router}`);
    }
  }
  const [jobs, { agentProgressText }] = await Promise.all([registryOf(ctx).jobs('demo'), import('../../services/validate/agentRecord.js')]);
  const { run: r } = await jobs.validateAgent({
    instanceId: id,
    router,
    apiKey: ctx.env.ANTHROPIC_API_KEY,
    signal: ctx.signal,
    onEvent: (e) => {
      if (e.type === 'started' && e.scripted) note(ctx, e.modelLabel);
      else if (e.type === 'phase') note(ctx, e.phase);
      else if (e.type === 'progress') note(ctx, redact(`  ${agentProgressText(e.progress)}`));
    },
  }).catch((err: unknown) => {
    throw err instanceof ConsoleError ? err : sandboxConsoleError(err, 'the local agent run stopped');
  });
  const { log: _log, ...doc } = r;
  if (ctx.global.json) writeJson(ctx, { ...doc, error: doc.error ?? null });
  else {
    say(ctx, `${r.ok ? 'ok  ' : 'FAIL'} ${r.instance_id}: ${r.summary ?? ''}${r.reward ? ` → reward ${r.reward.reward}` : ''}`);
    say(ctx, `     model: ${r.model}${r.scripted ? ' (SCRIPTED)' : ''} · Claude Code ${r.cliVersion}: ${r.claudeCode.status}, ${count(r.claudeCode.model_turns, 'model turn')}, ${count(r.claudeCode.tool_calls.length, 'tool call')}${r.claudeCode.cause ? ` — ${r.claudeCode.cause}` : ''}`);
    if (r.error) say(ctx, `     ${redact(r.error)}`);
    say(ctx, `     log: ${r.logFile} (swegym-console agent-log ${r.logFile})`);
    if (r.patch) say(ctx, `\npatch (${r.patchFiles.length} file(s): ${r.patchFiles.join(', ')}):\n${redact(r.patch.length > 20_000 ? r.patch.slice(0, 20_000) + '\n… (truncated)' : r.patch)}`);
  }
  return r.ok ? ExitCode.ok : ExitCode.failed;
}
