// `swegym-console keys`: the key reference, from the one intent table (src/ui/intents.ts), with the user's keys.json
// applied (`--defaults`: without it). docs/KEYS.md holds the defaults' table (tests/ui/keyReference.test.ts).
import { optFlag, say, writeJson, type CommandContext } from '../context.js';
import { keyReference, keyReferenceMarkdown } from '../../ui/keymap.js';
import { loadUserKeymap } from '../../app/keymap.js';
import { padEnd } from '../../ui/text.js';

export async function keysCommand(ctx: CommandContext): Promise<number> {
  if (optFlag(ctx, 'markdown')) {
    ctx.stdout.write(keyReferenceMarkdown());
    return 0;
  }
  const defaults = optFlag(ctx, 'defaults');
  const user = defaults ? undefined : await loadUserKeymap(ctx.env);
  const rows = keyReference(user?.overrides);
  if (ctx.global.json) {
    writeJson(ctx, { ok: true, file: user?.path, problems: user?.problems ?? [], keys: rows.map((r) => ({ intent: r.intent, keys: r.keys, description: r.description, where: r.where, overridden: r.overridden })) });
    return 0;
  }
  for (const p of user?.problems ?? []) ctx.stderr.write(`swegym-console: ${p}\n`);
  const iw = Math.max(...rows.map((r) => r.intent.length)) + 2;
  const kw = Math.max(...rows.map((r) => r.keys.join(' / ').length)) + 2;
  let where = '';
  for (const r of rows) {
    if (r.where !== where) {
      if (where) say(ctx, '');
      where = r.where;
      say(ctx, `${where}:`);
    }
    say(ctx, `  ${padEnd(r.intent, iw)}${padEnd(r.keys.join(' / '), kw)}${r.description}${r.overridden ? '  (keys.json)' : ''}`);
  }
  if (user) say(ctx, `\nyour keys: ${user.path} (a JSON object of intent → a key or a list of keys)`);
  return 0;
}
