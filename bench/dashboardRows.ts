// Benchmark 2d: where the dashboard's terminal bytes go, row by row. The same live run as benchmark 2 at `--speed 60`
// and the built console in a 120×40 pty; everything it writes during the window is replayed into a terminal emulator
// (@xterm/headless) one token at a time, and each token's bytes count for the row the cursor is on when it is written:
// printable text and escape sequences apart. The table shows which panels cost what, the thing to look at before
// changing how a panel draws.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LiveSimulator } from '../src/services/simulator/writer.js';
import { benchWorkspace, endSession, fmt, ptySpawn, result, sleep, type BenchResult, type Bundle } from './lib.js';

const COLS = 120;
const ROWS = 40;
const SEQUENCE = /\u001B(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)|[@-Z\\-_])/g;

interface Emulator {
  write(data: string, cb?: () => void): void;
  buffer: { active: { cursorY: number; getLine(i: number): { translateToString(trim?: boolean): string } | undefined } };
}

/** Bytes written on each row while `window` was written after `before`: [text, escapes] per row, and the screen. */
async function bytesByRow(before: string, window: string): Promise<{ rows: [number, number][]; screen: string[] }> {
  const xmod = (await import('@xterm/headless')) as unknown as { Terminal?: new (o: object) => Emulator; default?: { Terminal: new (o: object) => Emulator } };
  const Terminal = xmod.Terminal ?? (xmod.default as { Terminal: new (o: object) => Emulator }).Terminal;
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  const write = (s: string) => new Promise<void>((resolve) => term.write(s, resolve));
  await write(before);
  const rows: [number, number][] = Array.from({ length: ROWS }, () => [0, 0]);
  let last = 0;
  const tokens: [string, number][] = [];
  for (const m of window.matchAll(SEQUENCE)) {
    if (m.index > last) tokens.push([window.slice(last, m.index), 0]);
    tokens.push([m[0], 1]);
    last = m.index + m[0].length;
  }
  if (last < window.length) tokens.push([window.slice(last), 0]);
  for (const [token, kind] of tokens) {
    const row = rows[Math.min(ROWS - 1, term.buffer.active.cursorY)] as [number, number];
    if (kind === 1) row[1] += Buffer.byteLength(token);
    else row[0] += Buffer.byteLength(token);
    await write(token);
  }
  const screen = Array.from({ length: ROWS }, (_, y) => term.buffer.active.getLine(y)?.translateToString(true) ?? '');
  return { rows, screen };
}

/** `afterSeconds`: how long the console follows the run before the window starts (the charts respread while they hold
 * fewer rollouts than pixel columns, so an early window and a late one differ). */
export async function benchDashboardRows(bundle: Bundle, seconds: number, log: (s: string) => void, afterSeconds = 8, speed = 60): Promise<BenchResult> {
  const res = result('dashboard-rows', `dashboard terminal bytes by screen row (a live run at --speed ${speed}, ${seconds}s from ${afterSeconds}s in, ${COLS}x${ROWS})`);
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-rows-'));
  const ws = await benchWorkspace(path.join(dir, 'ws'));
  const sim = new LiveSimulator({ dir: path.join(dir, 'run'), trajLimit: 0, speed, config: { seed: 9, rolloutSeconds: 60, trainSeconds: 8, startupSeconds: 6, noiseLinesPerSecond: 20, numRollouts: 100_000 } });
  try {
    await sim.start();
    await sleep(3000);
    const session = await ptySpawn(bundle.bin, ['--workspace', ws, 'monitor', sim.logFile], { cols: COLS, rows: ROWS, keepText: 64 * 1024 * 1024 });
    try {
      await sleep(afterSeconds * 1000);
      const from = session.text().length;
      const frames0 = session.frames();
      log(`  recording the console's output for ${seconds}s …`);
      await sleep(seconds * 1000);
      const text = session.text();
      const frames = session.frames() - frames0;
      const window = text.slice(from);
      const { rows, screen } = await bytesByRow(text.slice(0, from), window);
      const total = Buffer.byteLength(window);
      res.metrics.push({ label: 'terminal output over the window', value: fmt(total / seconds / 1024, 2), unit: `KiB/s (${frames} frames, ${fmt(total / Math.max(1, frames), 0)} B each)` });
      const escapes = rows.reduce((a, r) => a + r[1], 0);
      res.metrics.push({ label: 'of which escape sequences', value: fmt((100 * escapes) / Math.max(1, total), 0), unit: '%' });
      rows.forEach(([t, e], y) => {
        if (t + e === 0) return;
        res.metrics.push({ label: `row ${String(y).padStart(2)}: text + escapes, B/s`, value: `${fmt(t / seconds, 0)} + ${fmt(e / seconds, 0)}`, unit: `| ${(screen[y] as string).slice(0, 70)}` });
      });
    } finally {
      await endSession(session);
    }
    return res;
  } finally {
    await sim.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}
