// `swegym-console completion bash|zsh|fish`: the completion script for that shell, generated from the command table
// (which commandTable.ts hands over when it loads this command).
import { say, type CommandContext } from '../context.js';
import { usageError } from '../../services/errors.js';
import { SHELLS, completionScript, type CompletionTable, type Shell } from '../completion.js';

export function completionCommand(table: CompletionTable): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const [shell, ...rest] = ctx.positionals;
    if (!shell || rest.length || !(SHELLS as readonly string[]).includes(shell)) {
      throw usageError(`completion needs one shell: ${SHELLS.join(', ')}${shell ? ` (got "${shell}")` : ''}`, 'bash: source <(swegym-console completion bash) · zsh: source <(swegym-console completion zsh) · fish: swegym-console completion fish | source');
    }
    say(ctx, completionScript(shell as Shell, table).trimEnd());
    return 0;
  };
}
