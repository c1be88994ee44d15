// `swegym-console completion bash|zsh|fish`: the completion script for that shell, generated from the command table.
import { say, type CommandContext } from '../context.js';
import { usageError } from '../../services/errors.js';
import { SHELLS, completionScript, type Shell } from '../completion.js';

export async function completionCommand(ctx: CommandContext): Promise<number> {
  const [shell, ...rest] = ctx.positionals;
  if (!shell || rest.length || !(SHELLS as readonly string[]).includes(shell)) {
    throw usageError(`completion needs one shell: ${SHELLS.join(', ')}${shell ? ` (got "${shell}")` : ''}`, 'bash: source <(swegym-console completion bash) · zsh: source <(swegym-console completion zsh) · fish: swegym-console completion fish | source');
  }
  say(ctx, completionScript(shell as Shell).trimEnd());
  return 0;
}
