// `swegym-console doctor [--json]`: exits 3 when any check fails. Results print as they come, in the doctor's order
// (a check is printed once every check before it has answered); --json prints one document at the end.
import type { CommandContext } from '../context.js';
import { registryOf, say, writeJson } from '../context.js';
import type { DoctorCheck } from '../../services/doctor/types.js';
import { ExitCode } from '../../services/errors.js';
import { redact } from '../../services/secrets.js';

const SYMBOL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

export async function doctorCommand(ctx: CommandContext): Promise<number> {
  // Defence in depth: nothing a check says may carry a secret value.
  const safe = (c: DoctorCheck): DoctorCheck => ({ ...c, detail: redact(c.detail, ctx.env), ...(c.fix ? { fix: redact(c.fix, ctx.env) } : {}) });
  const print = (c: DoctorCheck) => {
    say(ctx, `${SYMBOL[c.status]}  ${c.title}: ${c.detail}`);
    if (c.fix && (c.status === 'fail' || c.status === 'warn')) say(ctx, `        fix: ${c.fix}`);
  };
  let order: string[] = [];
  const answered = new Map<string, DoctorCheck[]>();
  let printed = 0;
  if (!ctx.global.json) say(ctx, `workspace: ${ctx.paths.root}`);
  const checks = await (await registryOf(ctx).jobs('doctor')).doctor({
    onEvent: (e) => {
      if (ctx.global.json) return;
      if (e.type === 'started') order = e.pending.map((p) => p.id);
      else if (e.type === 'result') {
        answered.set(e.id, e.checks);
        for (; printed < order.length && answered.has(order[printed] as string); printed++) for (const c of answered.get(order[printed] as string) ?? []) print(safe(c));
      }
    },
  });
  const all = checks.map(safe);
  const failed = all.some((c) => c.status === 'fail');
  if (ctx.global.json) {
    writeJson(ctx, { checks: all.map(({ id, title, status, detail, fix }) => ({ id, title, status, detail, fix: fix ?? '' })) });
  } else {
    const n = (s: string) => all.filter((c) => c.status === s).length;
    say(ctx, `\n${n('ok')} ok, ${n('warn')} warn, ${n('fail')} fail, ${n('skip')} skipped`);
  }
  return failed ? ExitCode.precondition : ExitCode.ok;
}
