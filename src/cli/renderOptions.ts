// How the full-screen console renders with Ink: the interactive console, `monitor` in a terminal and the build's
// off-screen warm-up of the UI code cache (which must take the same paths) all use these.
import { PacedStdin } from './pacedStdin.js';

export const CONSOLE_RENDER_OPTIONS = {
  alternateScreen: true,
  incrementalRendering: true,
  maxFps: 15,
  patchConsole: false,
  exitOnCtrlC: false,
  // CI=true would make Ink non-interactive; a TTY is a TTY.
  interactive: true,
} as const;

/** The options for a console on this process's terminal: its input one key per read (src/cli/pacedStdin.ts). */
export function terminalRenderOptions() {
  return { ...CONSOLE_RENDER_OPTIONS, stdin: new PacedStdin(process.stdin) as unknown as NodeJS.ReadStream };
}
