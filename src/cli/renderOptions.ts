// How the full-screen console renders with Ink: the interactive console, `monitor` in a terminal and the build's
// off-screen warm-up of the UI code cache (which must take the same paths) all use these.
export const CONSOLE_RENDER_OPTIONS = {
  alternateScreen: true,
  incrementalRendering: true,
  maxFps: 15,
  patchConsole: false,
  exitOnCtrlC: false,
  // CI=true would make Ink non-interactive; a TTY is a TTY.
  interactive: true,
} as const;
