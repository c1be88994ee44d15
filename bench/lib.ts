// Shared pieces of the benchmark suite: results, timing, the machine, a private build of the bundle, pty
// sessions that count what crosses the terminal, and /proc sampling. Benchmarks are measurements, not tests.
import { spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile, copyFile, chmod } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(REPO, 'bench', 'out');
export const NODE = process.execPath;

export type Status = 'ok' | 'not available yet' | 'failed' | 'skipped';

export interface Metric {
  label: string;
  value: number | string;
  unit?: string;
}

export interface BenchResult {
  id: string;
  title: string;
  status: Status;
  /** The headline ratio (measured / reference), with its goal when the issue sets one. */
  ratio?: { value: number; what: string; goal?: number; pass?: boolean };
  metrics: Metric[];
  notes: string[];
}

export function result(id: string, title: string): BenchResult {
  return { id, title, status: 'ok', metrics: [], notes: [] };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export function fmt(v: number, digits = 1): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 100) return v.toFixed(0);
  return v.toFixed(digits);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export interface Machine {
  date: string;
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  loadavg: string;
}

export function machine(): Machine {
  let load = '';
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {}
  return {
    date: new Date().toISOString(),
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    loadavg: load,
  };
}

/** Runs a command to completion; wall time in ms measured from spawn to exit. */
export function timeCommand(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd ?? REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-2_000_000)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ ms: performance.now() - t0, code, stdout, stderr });
    });
  });
}

export interface Run {
  ms: number;
  cpuMs: number;
  rssMiB: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

/** One run under /usr/bin/time: wall (from here), CPU (user+system) and peak RSS of the command. */
export async function timed(cmd: string, args: string[]): Promise<Run> {
  if (!existsSync('/usr/bin/time')) {
    const r = await timeCommand(cmd, args, { timeoutMs: 600_000 });
    return { ...r, cpuMs: NaN, rssMiB: NaN };
  }
  mkdirSync(OUT, { recursive: true });
  const out = path.join(OUT, `.time-${process.pid}`);
  const r = await timeCommand('/usr/bin/time', ['-f', '%U %S %M', '-o', out, cmd, ...args], { timeoutMs: 600_000 });
  const [u, sy, m] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { ...r, cpuMs: ((u ?? NaN) + (sy ?? NaN)) * 1000, rssMiB: (m ?? NaN) / 1024 };
}

// ---- a private build of the bundle -------------------------------------------------------------

export interface Bundle {
  /** The entry script to run (a copy of bin/swegym-console next to the private dist/). */
  bin: string;
  note: string;
}

/**
 * Builds the console exactly as `npm run build` does (scripts/build.mjs --outdir bench/out/build/dist), so the
 * benchmark measures the working tree without touching the dist/ other people use.
 */
export async function buildBundle(): Promise<Bundle> {
  const benchRoot = path.join(OUT, 'build');
  await mkdir(path.join(benchRoot, 'bin'), { recursive: true });
  // Run from the repo so that esbuild and the sources resolve.
  const r = await timeCommand(NODE, [path.join(REPO, 'scripts', 'build.mjs'), '--outdir', path.join(benchRoot, 'dist')], { cwd: REPO, timeoutMs: 180_000 });
  if (r.code !== 0) throw new Error(`build failed: ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  const bin = path.join(benchRoot, 'bin', 'swegym-console');
  await copyFile(path.join(REPO, 'bin', 'swegym-console'), bin);
  await chmod(bin, 0o755);
  return { bin, note: 'built from the working tree with scripts/build.mjs into bench/out/build/dist' };
}

// ---- processes: CPU and memory from /proc -------------------------------------------------------

const CLK_TCK = 100;

/** CPU seconds (user+system, including waited-for children) and RSS in MiB of a live process. */
export function procSample(pid: number): { cpuSec: number; rssMiB: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is state (field 3); utime is field 14 → index 11.
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
    return { cpuSec: ticks / CLK_TCK, rssMiB: rss };
  } catch {
    return undefined;
  }
}

/**
 * A live process's resident memory by mapping, in KiB: `[heap]` (glibc's main arena), `[stack]`, each file
 * (the node binary, shared libraries), and anonymous mappings by size (V8's pages and malloc's mmap'd blocks).
 * Read at a window's start and end, the difference names what grew.
 */
export function smapsByKind(pid: number): Map<string, number> | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const kinds = new Map<string, number>();
  let kind = '';
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const sizeKiB = (parseInt(head[2]!, 16) - parseInt(head[1]!, 16)) / 1024;
      const name = head[3]!.trim();
      kind = name ? (name.startsWith('/') ? path.basename(name) : name) : `anon ${anonBucket(sizeKiB)}`;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kinds.set(kind, (kinds.get(kind) ?? 0) + Number(rss[1]));
  }
  return kinds;
}

function anonBucket(sizeKiB: number): string {
  if (sizeKiB <= 256) return '≤ 256 KiB';
  if (sizeKiB <= 1024) return '≤ 1 MiB';
  if (sizeKiB <= 65536) return '≤ 64 MiB';
  return '> 64 MiB';
}

/** Two smaps readings side by side, largest growth first. */
export function smapsDiff(a: Map<string, number>, b: Map<string, number>): string {
  const names = [...new Set([...a.keys(), ...b.keys()])];
  const rows = names.map((n) => ({ n, a: a.get(n) ?? 0, b: b.get(n) ?? 0 })).filter((r) => r.a || r.b);
  rows.sort((x, y) => y.b - y.a - (x.b - x.a) || y.b - x.b);
  const total = (m: Map<string, number>): number => [...m.values()].reduce((s, v) => s + v, 0);
  const line = (n: string, x: number, y: number): string => `${n.padEnd(28)} ${String(x).padStart(8)} ${String(y).padStart(8)} ${String(y - x).padStart(8)}`;
  const head = `${'mapping (Rss KiB)'.padEnd(28)} ${'start'.padStart(8)} ${'end'.padStart(8)} ${'growth'.padStart(8)}`;
  return [head, ...rows.map((r) => line(r.n, r.a, r.b)), line('total', total(a), total(b))].join('\n') + '\n';
}

// ---- a pseudo-terminal session ------------------------------------------------------------------

export interface PtySession {
  pid: number;
  /** Output bytes so far. */
  bytes: () => number;
  /** Frames so far: synchronized-output blocks (`ESC[?2026h`) Ink wraps each write in. */
  frames: () => number;
  text: () => string;
  firstFrameMs: () => number | undefined;
  /** CPU time (user+system) the process had used when its first frame was complete, ms. */
  firstFrameCpuMs: () => number | undefined;
  firstByteMs: () => number | undefined;
  /** When the process exited, ms after the spawn. */
  exitedMs: () => number | undefined;
  exited: Promise<{ exitCode: number; signal?: number }>;
  isExited: () => boolean;
  write: (s: string) => void;
  kill: (signal?: string) => void;
  /** The screen as text (an @xterm/headless mirror of everything written). */
  screen: () => Promise<string>;
}

interface XTerm {
  rows: number;
  write(data: string, cb?: () => void): void;
  buffer: { active: { viewportY: number; getLine(i: number): { translateToString(trim?: boolean): string } | undefined } };
}

const BSU = '\u001b[?2026h';
const ESU = '\u001b[?2026l';

export async function ptySpawn(file: string, args: string[], opts: { cols?: number; rows?: number; env?: NodeJS.ProcessEnv; cwd?: string; keepText?: number } = {}): Promise<PtySession> {
  const mod = (await import('@lydell/node-pty')) as unknown as { spawn?: typeof import('@lydell/node-pty').spawn; default?: { spawn: typeof import('@lydell/node-pty').spawn } };
  const pty = { spawn: mod.spawn ?? (mod.default as { spawn: typeof import('@lydell/node-pty').spawn }).spawn };
  const env = { ...process.env, TERM: 'xterm-256color', NODE_ENV: 'production', ...opts.env } as Record<string, string>;
  delete env.CI; // CI=true makes Ink non-interactive
  // Everything the session needs is set up before the spawn, so that t0 is the spawn itself for every figure below.
  const xmod = (await import('@xterm/headless')) as unknown as { Terminal?: new (o: object) => XTerm; default?: { Terminal: new (o: object) => XTerm } };
  const XT = xmod.Terminal ?? (xmod.default as { Terminal: new (o: object) => XTerm }).Terminal;
  const term = new XT({ cols: opts.cols ?? 120, rows: opts.rows ?? 40, allowProposedApi: true });
  let bytes = 0;
  let frames = 0;
  let text = '';
  let firstFrame: number | undefined;
  let firstFrameCpu: number | undefined;
  let firstByte: number | undefined;
  let exitedAt: number | undefined;
  let carry = '';
  let exited = false;
  const keep = opts.keepText ?? 200_000;
  const t0 = performance.now();
  const p = pty.spawn(file, args, { name: 'xterm-256color', cols: opts.cols ?? 120, rows: opts.rows ?? 40, env, cwd: opts.cwd ?? REPO });
  p.onData((d: string) => {
    const now = performance.now() - t0;
    term.write(d);
    firstByte ??= now;
    bytes += Buffer.byteLength(d);
    const scan = carry + d;
    let i = scan.indexOf(BSU);
    while (i !== -1) {
      frames++;
      i = scan.indexOf(BSU, i + BSU.length);
    }
    if (firstFrame === undefined && scan.includes(ESU)) {
      firstFrame = now;
      const cpu = procSample(p.pid);
      if (cpu) firstFrameCpu = cpu.cpuSec * 1000;
    }
    carry = scan.slice(-8);
    text = (text + d).slice(-keep);
  });
  const done = new Promise<{ exitCode: number; signal?: number }>((resolve) =>
    p.onExit((e: { exitCode: number; signal?: number }) => {
      exitedAt = performance.now() - t0;
      exited = true;
      resolve(e);
    }),
  );
  return {
    pid: p.pid,
    bytes: () => bytes,
    frames: () => frames,
    text: () => text,
    firstFrameMs: () => firstFrame,
    firstFrameCpuMs: () => firstFrameCpu,
    firstByteMs: () => firstByte,
    exitedMs: () => exitedAt,
    exited: done,
    isExited: () => exited,
    write: (s) => p.write(s),
    screen: () =>
      new Promise<string>((resolve) =>
        term.write('', () => {
          const b = term.buffer.active;
          resolve(Array.from({ length: term.rows }, (_, i) => b.getLine(b.viewportY + i)?.translateToString(true) ?? '').join('\n'));
        }),
      ),
    kill: (signal) => {
      try {
        p.kill(signal);
      } catch {}
    },
  };
}

/** Ends a pty session: `q` (and `y` if it asks), then TERM, then KILL; never leaves it running. */
export async function endSession(s: PtySession, graceMs = 3000): Promise<void> {
  if (s.isExited()) return;
  s.write('q');
  const deadline = performance.now() + graceMs;
  while (!s.isExited() && performance.now() < deadline) {
    await sleep(50);
    if (/quit|leave|exit\?/i.test(s.text().slice(-2000))) s.write('y');
  }
  if (!s.isExited()) s.kill('SIGTERM');
  await Promise.race([s.exited, sleep(2000)]);
  if (!s.isExited()) s.kill('SIGKILL');
  await Promise.race([s.exited, sleep(2000)]);
}

export function stripAnsi(s: string): string {
  return s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\u001b[()][0-9A-Za-z]/g, '').replace(/\u001b[=>78]/g, '');
}

/** A minimal Dressage-looking checkout for the interactive console (the home screen needs a workspace). */
export async function benchWorkspace(dir: string): Promise<string> {
  const files: Record<string, string> = {
    'pyproject.toml': '[project]\nname = "dressage"\nversion = "0.1.0"\n',
    'examples/data/swegym/prepare_swegym_e2b.py': '# bench\n',
    'examples/data/swegym/prepare_swegym_data.py': '# bench\n',
    'dressage/recipes/swegym/prepare_claude_code_sandbox_artifacts.sh': '#!/bin/bash\n',
    'examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh': '#!/bin/bash\n',
    'examples/scripts/default/dressage_env_defaults.sh': '# defaults\n',
    'blackbox_server/pyproject.toml': '[project]\nname = "dressage-blackbox-server"\nversion = "1.1.0"\n',
    'slime/scripts/models/qwen3.5-4B.sh': 'MODEL_ARGS=()\n',
  };
  for (const [rel, content] of Object.entries(files)) {
    const f = path.join(dir, rel);
    await mkdir(path.dirname(f), { recursive: true });
    await writeFile(f, content);
  }
  return dir;
}
