// V8's heap sizing for a console that stays up for hours (the interactive console, the dashboard). After each full
// collection V8 lets the old generation grow to a multiple of what survived (up to 4×, by how fast it collects), and
// keeps the pages it grew into: following a live run at --speed 60 with one malloc arena, V8's pages went 35 → 81 MiB
// in 30 minutes (RSS 109 → 155, peak 161) while malloc's held still; with a fixed 20 % they went 36 → 53 MiB (RSS
// 114 → 133, peak 133, no steps) at 2.3 % of a core against 2.5 % (bench/README.md, seventh pass). Commands that
// read a log once and exit keep V8's default: their heap is short-lived and its growth is speed.
/** How far past the last full collection's survivors the old generation may grow, in percent. */
export const LONG_SESSION_HEAP_GROWING_PERCENT = 20;

/** Call once an interactive console has drawn its first frame (node:v8 is not loaded before it). */
export function tuneHeapForLongSession(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(`--heap-growing-percent=${LONG_SESSION_HEAP_GROWING_PERCENT}`);
}
