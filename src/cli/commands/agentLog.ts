// `agent-log FILE|SANDBOX_ID [--follow] [--json]`: Claude Code's progress from its stream-json log, read by the
// one reader (services/agent/streamJson.ts). --json prints the progress document; with --follow, one compact
// document per update (JSON lines), the last one once the CLI's stream has ended (agentLog.ts streamEnded: the
// process gone, or a last result with no background task open and nothing written since).
import { optFlag, registryOf, say, note, writeJson, type CommandContext } from '../context.js';
import { ConsoleError, ExitCode, usageError } from '../../services/errors.js';
import { readAgentLog, resolveLogSource } from '../../services/agent/agentLog.js';
import { countsText, progressJson, type StreamJsonProgress } from '../../services/agent/streamJson.js';
import { redact } from '../../services/secrets.js';
import { count } from '../../services/util/format.js';

export async function agentLogCommand(ctx: CommandContext): Promise<number> {
  const [target, ...rest] = ctx.positionals;
  if (!target || rest.length) throw usageError('agent-log needs one FILE or SANDBOX_ID', 'swegym-console agent-log logs/claude_code.stdout.log, or agent-log <sandbox id> --provider e2b');
  const follow = optFlag(ctx, 'follow');
  const source = await resolveLogSource(target, () => registryOf(ctx).deps.providers.plain(), ctx.signal);
  if (follow && !ctx.global.json) note(ctx, `following ${source.label} until Claude Code's stream ends: its process exits, or its last result is followed by nothing for a few seconds (Ctrl-C stops)`);
  const final = await readAgentLog(source, {
    follow,
    intervalMs: source.label.startsWith('sandbox ') ? 2000 : 500,
    // The CLI writes held-back results together (milliseconds apart): quiet this long after a result is the end
    // where nothing else can tell (a sandbox answers whether the CLI's process still runs).
    settleMs: source.label.startsWith('sandbox ') ? 6000 : 2000,
    signal: ctx.signal,
    onUpdate: ({ progress, newEvents }) => {
      if (!follow) return;
      if (ctx.global.json) ctx.stdout.write(JSON.stringify(progressJson(progress)) + '\n');
      else for (const e of newEvents) say(ctx, redact(`${e.tone === 'error' ? '✗ ' : e.tone === 'warn' ? '! ' : '  '}${e.type.padEnd(17)} ${e.text}`).slice(0, 240));
    },
  });
  // Lines, but not one JSON event among them: not a Claude Code stream-json log (a README, a shell log).
  if (final.events === 0 && final.skipped > 0) {
    throw new ConsoleError({
      what: `${source.label} is not a Claude Code stream-json log: none of its ${final.skipped} line${final.skipped === 1 ? ' is a JSON event' : 's is a JSON event'}`,
      cause: 'agent-log reads the output of `claude --output-format stream-json` (one JSON event per line)',
      fix: "pass the agent's stdout log (e.g. logs/claude_code.stdout.log in the run's trajectory folder), or a sandbox id with --provider",
      exitCode: ExitCode.failed,
    });
  }
  if (ctx.global.json) {
    if (!follow) writeJson(ctx, progressJson(final));
  } else say(ctx, summary(final, source.label));
  return final.status === 'running' || final.status === 'success' ? ExitCode.ok : ExitCode.failed;
}

function summary(p: StreamJsonProgress, label: string): string {
  const lines = [
    `Claude Code (${label}): ${p.status}${p.cause ? ` — ${p.cause}` : ''}`,
    `  ${countsText(p)}`,
  ];
  if (p.results > 1) lines.push(`  ${p.results} result events (a background task or a resumed turn): the totals cover all of them`);
  if (p.openTasks > 0) lines.push(`  ${count(p.openTasks, 'background task')} still open`);
  if (p.lastTool) lines.push(`  last tool: ${p.lastTool}`);
  if (p.apiRetries.length) lines.push(`  API retries: ${p.apiRetries.length} (${p.apiRetries.map((r) => r.error_status ?? 'no response').join(', ')})`);
  if (p.apiErrorStatus !== null) lines.push(`  API error status: ${p.apiErrorStatus}`);
  if (p.permissionDenials.length) lines.push(`  permission denials: ${p.permissionDenials.length} (${p.permissionDenials.map((d) => d.tool_name).join(', ')})`);
  if (p.status === 'running') lines.push('  no result event yet: the agent is still running, or it was stopped before it could finish');
  if (p.skipped) lines.push(`  ${count(p.skipped, 'line')} ${p.skipped === 1 ? 'was' : 'were'} not JSON events (cut or foreign) and skipped`);
  return redact(lines.join('\n'));
}

