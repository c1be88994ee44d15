// `sandboxes list` and `sandboxes kill`: only sandboxes tagged as this console's are ever listed or touched; other
// sandboxes on the same E2B account (Dressage's own, other tools') are invisible here.
import { createInterface } from 'node:readline/promises';
import { optFlag, optString, registryOf, say, note, writeJson, type CommandContext } from '../context.js';
import { ExitCode, usageError, preconditionError } from '../../services/errors.js';
import { consoleTag, sandboxConsoleError, CONSOLE_TAG_KEY, CONSOLE_TAG_VALUE, type SandboxInfo, type SandboxProvider } from '../../services/sandbox/index.js';
import { SESSION_TAG_KEY } from '../../services/sandbox/sessions.js';
import { sandboxLedger } from '../../services/sandbox/ledger.js';
import { summarizeUsage, usageLine, type SandboxUsage } from '../../services/sandbox/usage.js';
import { renderTable } from '../../ui/renderTable.js';

/** The same in the E2B CLI's own words (`e2b sandbox list/kill … --metadata …`). */
const E2B_CLI_LIST = `e2b sandbox list --metadata ${CONSOLE_TAG_KEY}=${CONSOLE_TAG_VALUE}`;
const E2B_CLI_KILL_ALL = `e2b sandbox kill --all --metadata ${CONSOLE_TAG_KEY}=${CONSOLE_TAG_VALUE}`;

/** Each sandbox's CPU/memory from the service's own metrics (E2B), a few at a time; none where it has none. */
async function usageOf(p: SandboxProvider, items: SandboxInfo[], signal: AbortSignal): Promise<(SandboxUsage | undefined)[]> {
  const metrics = p.metrics?.bind(p);
  if (!metrics) return items.map(() => undefined);
  return mapLimit(items, 8, async (s) => {
    try {
      return summarizeUsage(await metrics(s.id, { signal }));
    } catch {
      return undefined;
    }
  });
}

/** The provider as configured (listing and killing need no purpose), from the registry. */
function provider(ctx: CommandContext): Promise<SandboxProvider> {
  return registryOf(ctx).deps.providers.plain();
}

async function listConsole(ctx: CommandContext, p: SandboxProvider): Promise<SandboxInfo[]> {
  try {
    const all = await p.list({ metadata: consoleTag(), signal: ctx.signal });
    // Belt and braces: never show a sandbox without our tag, whatever the service's filter did.
    return all.filter((s) => s.metadata[CONSOLE_TAG_KEY] === '1');
  } catch (err) {
    throw sandboxConsoleError(err, `could not list ${ctx.global.provider} sandboxes`);
  }
}

function age(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

function left(iso: string | undefined): string {
  if (!iso) return '-';
  const s = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (s <= 0) return 'expiring';
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

function tags(s: SandboxInfo): string {
  return Object.entries(s.metadata)
    .filter(([k]) => !k.startsWith(CONSOLE_TAG_KEY))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

export async function listCommand(ctx: CommandContext): Promise<number> {
  const p = await provider(ctx);
  const items = await listConsole(ctx, p);
  const usage = await usageOf(p, items, ctx.signal);
  if (ctx.global.json) {
    writeJson(ctx, { provider: p.name, count: items.length, sandboxes: items.map((s, i) => ({ ...s, usage: usage[i] ?? null })), ...(p.name === 'e2b' ? { e2bCli: { list: E2B_CLI_LIST, killAll: E2B_CLI_KILL_ALL } } : {}) });
    return ExitCode.ok;
  }
  if (items.length === 0) {
    say(ctx, `no ${p.name} sandboxes of this console are running`);
    if (p.name === 'e2b') say(ctx, `by hand: ${E2B_CLI_LIST}`);
    return ExitCode.ok;
  }
  const columns = ['ID', 'TEMPLATE', 'STATE', 'AGE', 'LEFT', 'SESSION', 'USAGE (E2B)', 'TAGS'].map((title) => ({ title }));
  const rows = items.map((s, i) => { const u = usage[i]; return [s.id, s.template, s.state, age(s.startedAt), left(s.endAt), s.metadata[SESSION_TAG_KEY] ?? '-', u ? usageLine(u) : '-', tags(s)]; });
  say(ctx, renderTable(columns, rows).join('\n'));
  say(ctx, `${items.length} sandbox${items.length === 1 ? '' : 'es'} (${p.name})`);
  if (p.name === 'e2b') say(ctx, `by hand: ${E2B_CLI_LIST}   ·   ${E2B_CLI_KILL_ALL}`);
  return ExitCode.ok;
}

async function confirm(ctx: CommandContext, question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `, { signal: ctx.signal });
    return /^y(es)?$/i.test(answer.trim());
  } catch {
    return false;
  } finally {
    rl.close();
  }
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function killCommand(ctx: CommandContext): Promise<number> {
  const session = optString(ctx, 'session');
  const all = optFlag(ctx, 'all-console') || session !== undefined;
  const ids = [...new Set(ctx.positionals)];
  if (optFlag(ctx, 'all-console') && session !== undefined) throw usageError('give --all-console or --session, not both', 'swegym-console sandboxes kill --session ID');
  if (session !== undefined && !/^[0-9a-f]{6,64}$/.test(session)) throw usageError(`'${session}' is not a console session id (hex, as the exit printed it)`, 'swegym-console sandboxes list  shows each sandbox\'s session');
  if (all && ids.length > 0) throw usageError('give sandbox ids or --all-console/--session, not both', 'swegym-console sandboxes kill ID… | --all-console | --session ID');
  if (!all && ids.length === 0) throw usageError('which sandboxes? give their ids, --all-console or --session ID', 'swegym-console sandboxes list  shows the ids');

  const p = await provider(ctx);
  const ours = (await listConsole(ctx, p)).filter((s) => session === undefined || s.metadata[SESSION_TAG_KEY] === session);
  const byId = new Map(ours.map((s) => [s.id, s]));
  // Asked for by id, already killed on the way in: a console that is gone had left it (the ledger reaped it).
  const reaped = all ? [] : ids.filter((id) => !byId.has(id) && sandboxLedger.reapedIds.has(id));
  const refused = all ? [] : ids.filter((id) => !byId.has(id) && !reaped.includes(id));
  const targets = all ? ours.map((s) => s.id) : ids.filter((id) => byId.has(id));
  for (const id of reaped) note(ctx, `${id} was already killed: a console that is gone had left it`);
  for (const id of refused) note(ctx, `refusing ${id}: not a running sandbox of this console (only sandboxes tagged ${CONSOLE_TAG_KEY}=1 are touched)`);

  if (targets.length === 0) {
    if (ctx.global.json) writeJson(ctx, { provider: p.name, killed: reaped, gone: [], failed: [], refused });
    else say(ctx, refused.length ? 'nothing killed' : reaped.length ? 'nothing else to kill' : `no ${p.name} sandboxes of this console are running`);
    return refused.length ? ExitCode.failed : ExitCode.ok;
  }

  if (!optFlag(ctx, 'yes')) {
    const interactive = Boolean(process.stdin.isTTY) && ctx.stdout === process.stdout && !ctx.global.json;
    if (!interactive) throw preconditionError(`would kill ${targets.length} ${p.name} sandbox(es); refusing without confirmation`, 'no terminal to ask on (or --json)', 'add --yes');
    if (!(await confirm(ctx, `Kill ${targets.length} ${p.name} sandbox${targets.length === 1 ? '' : 'es'} of this console (${targets.slice(0, 3).join(', ')}${targets.length > 3 ? ', …' : ''})?`))) {
      say(ctx, 'nothing killed');
      return ExitCode.ok;
    }
  }

  const results = await mapLimit(targets, 8, async (id) => {
    try {
      return { id, state: (await p.killById(id)) ? ('killed' as const) : ('gone' as const) };
    } catch (err) {
      return { id, state: 'failed' as const, error: sandboxConsoleError(err, `kill ${id}`).what };
    }
  });
  const killed = results.filter((r) => r.state === 'killed').map((r) => r.id);
  const gone = results.filter((r) => r.state === 'gone').map((r) => r.id);
  const failed = results.filter((r) => r.state === 'failed').map((r) => ({ id: r.id, error: r.error }));
  if (ctx.global.json) {
    writeJson(ctx, { provider: p.name, killed: [...reaped, ...killed], gone, failed, refused });
  } else {
    for (const id of killed) say(ctx, `killed ${id}`);
    for (const id of gone) say(ctx, `${id} was already gone`);
    for (const f of failed) note(ctx, `failed to kill ${f.id}: ${f.error}`);
  }
  return failed.length || refused.length ? ExitCode.failed : ExitCode.ok;
}
