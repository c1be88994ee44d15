// Copy to the clipboard of the terminal people sit at (over SSH too) with OSC 52: ESC ] 52 ; c ; base64 BEL.
// Inside tmux the sequence reaches the outer terminal when tmux's set-clipboard is on (its default: external).

export function osc52(text: string): string {
  return `\u001B]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

/** Terminals that cannot take OSC 52: not a terminal at all, or TERM=dumb / linux console. */
export function supportsOsc52(env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  if (!isTTY) return false;
  const term = env.TERM ?? '';
  return term !== '' && term !== 'dumb' && term !== 'linux';
}
