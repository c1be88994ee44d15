// `swegym-console doctor [--json]`: exits 3 when any check fails.
import type { CommandContext } from '../context.js';
import { say, writeJson } from '../context.js';
import { runDoctor } from '../../services/doctor/doctor.js';
import { ExitCode } from '../../services/errors.js';
import { redact } from '../../services/secrets.js';

const SYMBOL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

export async function doctorCommand(ctx: CommandContext): Promise<number> {
  const checks = await runDoctor({ paths: ctx.paths, env: ctx.env, provider: ctx.global.provider });
  // Defence in depth: nothing a check says may carry a secret value.
  const safe = checks.map((c) => ({ ...c, detail: redact(c.detail, ctx.env), ...(c.fix ? { fix: redact(c.fix, ctx.env) } : {}) }));
  const failed = safe.some((c) => c.status === 'fail');
  if (ctx.global.json) {
    writeJson(ctx, { checks: safe.map(({ id, title, status, detail, fix }) => ({ id, title, status, detail, fix: fix ?? '' })) });
  } else {
    say(ctx, `workspace: ${ctx.paths.root}`);
    for (const c of safe) {
      say(ctx, `${SYMBOL[c.status]}  ${c.title}: ${c.detail}`);
      if (c.fix && (c.status === 'fail' || c.status === 'warn')) say(ctx, `        fix: ${c.fix}`);
    }
    const n = (s: string) => safe.filter((c) => c.status === s).length;
    say(ctx, `\n${n('ok')} ok, ${n('warn')} warn, ${n('fail')} fail, ${n('skip')} skipped`);
  }
  return failed ? ExitCode.precondition : ExitCode.ok;
}
