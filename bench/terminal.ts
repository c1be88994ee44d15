// Benchmarks 2 and 3, the built console in a pseudo-terminal (node-pty, NODE_ENV=production, CI unset):
//   2. steady-state dashboard under load — a live simulated run (128 sandboxes in flight, ~2,000 log lines/s)
//      followed by `swegym-console monitor <log>`: CPU % of one core, RSS (start/end), frames/s, CPU ms per
//      frame, bytes/s written to the terminal — next to htop in the same pty size;
//   3. start-up to first frame of the interactive console vs bare `node -e ''`.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LiveSimulator } from '../src/services/simulator/writer.js';
import { heapGrowth, heapSnapshotFiles, summarizeHeapSnapshot } from './heap.js';
import { NODE, OUT, REPO, timed, benchWorkspace, endSession, fmt, median, procSample, ptySpawn, result, sleep, smapsByKind, smapsDiff, stripAnsi, type BenchResult, type Bundle, type PtySession } from './lib.js';

const COLS = 120;
const ROWS = 40;

interface Window {
  seconds: number;
  cpuPct: number;
  rssStartMiB: number;
  rssEndMiB: number;
  rssMaxMiB: number;
  bytesPerSec: number;
  framesPerSec: number;
  cpuMsPerFrame: number;
  /** RSS every 15 s of the window, MiB. */
  rssTrend: number[];
  /** Every `sampleEverySec` seconds: seconds into the window, RSS MiB, CPU seconds used so far in the window. */
  samples: { t: number; rssMiB: number; cpuSec: number }[];
}

/** Samples a running pty session for `seconds` after `warmupMs`. */
async function measure(s: PtySession, warmupMs: number, seconds: number, onSecond?: (second: number) => void, sampleEverySec = 15): Promise<Window | undefined> {
  await sleep(warmupMs);
  const a = procSample(s.pid);
  if (!a || s.isExited()) return undefined;
  const b0 = s.bytes();
  const f0 = s.frames();
  const t0 = performance.now();
  let rssMax = a.rssMiB;
  let last = a;
  const trend = [a.rssMiB];
  const samples = [{ t: 0, rssMiB: a.rssMiB, cpuSec: 0 }];
  let tick = 0;
  while (performance.now() - t0 < seconds * 1000) {
    await sleep(1000);
    const x = procSample(s.pid);
    if (!x) return undefined;
    last = x;
    rssMax = Math.max(rssMax, x.rssMiB);
    if (++tick % 15 === 0) trend.push(x.rssMiB);
    if (tick % sampleEverySec === 0) samples.push({ t: tick, rssMiB: x.rssMiB, cpuSec: x.cpuSec - a.cpuSec });
    onSecond?.(tick);
  }
  const dt = (performance.now() - t0) / 1000;
  const frames = s.frames() - f0;
  const cpu = last.cpuSec - a.cpuSec;
  return {
    seconds: dt,
    cpuPct: (100 * cpu) / dt,
    rssStartMiB: a.rssMiB,
    rssEndMiB: last.rssMiB,
    rssMaxMiB: rssMax,
    bytesPerSec: (s.bytes() - b0) / dt,
    framesPerSec: frames / dt,
    cpuMsPerFrame: frames ? (cpu * 1000) / frames : NaN,
    rssTrend: trend,
    samples,
  };
}

function windowMetrics(res: BenchResult, who: string, w: Window): void {
  res.metrics.push({ label: `${who}: CPU (% of one core)`, value: fmt(w.cpuPct), unit: '%' });
  res.metrics.push({ label: `${who}: RSS start → end (max)`, value: `${fmt(w.rssStartMiB, 0)} → ${fmt(w.rssEndMiB, 0)} (${fmt(w.rssMaxMiB, 0)})`, unit: 'MiB' });
  if (w.rssTrend.length > 2) res.metrics.push({ label: `${who}: RSS every 15 s`, value: w.rssTrend.map((x) => fmt(x, 0)).join(' '), unit: 'MiB' });
  res.metrics.push({ label: `${who}: terminal output`, value: fmt(w.bytesPerSec / 1024, 1), unit: 'KiB/s' });
  res.metrics.push({ label: `${who}: frames/s, CPU ms per frame`, value: `${fmt(w.framesPerSec)} , ${fmt(w.cpuMsPerFrame)}` });
}

export interface DashboardOptions {
  seconds: number;
  htopSeconds: number;
  linesPerSecond: number;
  sandboxes: number;
  /** Take heap snapshots (30 s into the window and at its end) and list what grew (bench/heap.ts). */
  heap?: boolean;
  /**
   * Follow a run at the simulator's live pace (`simulate --live`: 60 s rollouts, 20 noise lines/s) sped up this
   * many times, instead of the fixed load above (`--dashboard-speed 60`, as issue #29 asks).
   */
  speed?: number;
  /** Seconds between the RSS samples written to bench/out/dashboard-rss-<date>.csv (default 15). */
  sampleEverySec?: number;
  /** With `heap`: seconds into the window of the first snapshot (default 30, or a quarter of a shorter window). */
  heapEarlySec?: number;
}

export async function benchDashboard(bundle: Bundle, opts: DashboardOptions, log: (s: string) => void): Promise<BenchResult> {
  const load = opts.speed ? `a live run at --speed ${opts.speed}` : `${opts.sandboxes} sandboxes, ${opts.linesPerSecond} lines/s`;
  const res = result('dashboard', `dashboard under load (${load}, ${opts.seconds}s, ${COLS}x${ROWS})`);
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-dash-'));
  const ws = await benchWorkspace(path.join(dir, 'ws'));
  // 128 samples in flight across a 40 s rollout; noise lines make up the rest of the rate.
  const sim = opts.speed
    ? new LiveSimulator({
        dir: path.join(dir, 'run'),
        trajLimit: 0,
        speed: opts.speed,
        // simulate --live's pace (src/cli/commands/simulate.ts), enough rollouts for any window.
        config: { seed: 9, rolloutSeconds: 60, trainSeconds: 8, startupSeconds: 6, noiseLinesPerSecond: 20, numRollouts: 100_000 },
      })
    : new LiveSimulator({
        dir: path.join(dir, 'run'),
        trajLimit: 0,
        config: { seed: 9, concurrency: opts.sandboxes, rolloutBatchSize: 8, samplesPerPrompt: 16, rolloutSeconds: 40, trainSeconds: 4, startupSeconds: 2, noiseLinesPerSecond: opts.linesPerSecond, numRollouts: 10_000 },
      });
  let session: PtySession | undefined;
  try {
    await sim.start();
    await sleep(3000);
    // The monitor dashboard when it exists; otherwise the home screen, and say so.
    // With --dashboard-heap the console writes a heap snapshot into heapDir on SIGUSR2.
    const heapDir = path.join(dir, 'heap');
    if (opts.heap) await mkdir(heapDir, { recursive: true });
    const heapEnv = opts.heap ? { env: { NODE_OPTIONS: '--heapsnapshot-signal=SIGUSR2' }, cwd: heapDir } : {};
    session = await ptySpawn(bundle.bin, ['--workspace', ws, 'monitor', sim.logFile], { cols: COLS, rows: ROWS, ...heapEnv });
    await sleep(4000);
    let target = 'monitor dashboard';
    const first = stripAnsi(session.text());
    if (session.isExited() || /not implemented|unknown command|usage/i.test(first.slice(0, 2000))) {
      await endSession(session);
      res.notes.push(`monitor dashboard not available yet (${session.isExited() ? 'exited' : 'refused'}: ${first.replace(/\s+/g, ' ').trim().slice(0, 120)}); measured the home screen instead, with the simulated run writing in the background`);
      target = 'home screen';
      session = await ptySpawn(bundle.bin, ['--workspace', ws], { cols: COLS, rows: ROWS });
    }
    log(`  measuring the console (${target}) for ${opts.seconds}s …`);
    // What the dashboard had to show: live sandboxes over the window (the simulator's live.json holds the same).
    const inFlight: number[] = [];
    const sampler = setInterval(() => inFlight.push(sim.snapshot().sandboxes.length), 1000);
    const pid = session.pid;
    const early = opts.heapEarlySec ?? Math.min(30, Math.floor(opts.seconds / 4));
    let smapsStart: Map<string, number> | undefined;
    const onSecond = (sec: number): void => {
      if (sec === 1) smapsStart = smapsByKind(pid);
      if (opts.heap && sec === early) process.kill(pid, 'SIGUSR2');
    };
    const w = await measure(session, 3000, opts.seconds, onSecond, opts.sampleEverySec ?? 15).finally(() => clearInterval(sampler));
    const smapsEnd = smapsByKind(pid);
    // A snapshot that cannot be read (cut short under load) is a note: the window's figures still count.
    if (opts.heap && w) await heapReport(res, pid, heapDir, early, opts.seconds, log).catch((err: unknown) => res.notes.push(`heap: the snapshots could not be read: ${(err as Error).message}`));
    const snap = sim.snapshot();
    if (!w) {
      res.status = 'failed';
      res.notes.push(`the console exited during the measurement: ${stripAnsi(session.text()).replace(/\s+/g, ' ').slice(-300)}`);
      return res;
    }
    res.metrics.push({ label: 'measured screen', value: target });
    const meanInFlight = inFlight.length ? inFlight.reduce((a, b) => a + b, 0) / inFlight.length : 0;
    res.metrics.push({ label: 'simulated load (lines written; live sandboxes: peak, mean over the window)', value: `${snap.linesWritten} lines; ${Math.max(0, ...inFlight)}, ${fmt(meanInFlight, 0)} sandboxes` });
    windowMetrics(res, 'console', w);
    const csv = path.join(OUT, `dashboard-rss-${new Date().toISOString().replace(/[:.]/g, '-')}.csv`);
    await writeFile(csv, 'seconds,rss_mib,cpu_s\n' + w.samples.map((x) => `${x.t},${x.rssMiB.toFixed(1)},${x.cpuSec.toFixed(2)}`).join('\n') + '\n');
    res.metrics.push({ label: `RSS every ${opts.sampleEverySec ?? 15} s`, value: csv.slice(OUT.length - 'bench/out'.length) });
    if (smapsStart && smapsEnd) {
      const smaps = csv.replace(/\.csv$/, '.smaps.txt').replace('dashboard-rss-', 'dashboard-smaps-');
      await writeFile(smaps, smapsDiff(smapsStart, smapsEnd));
      res.metrics.push({ label: 'resident memory by mapping, 1 s into the window and at its end', value: smaps.slice(OUT.length - 'bench/out'.length) });
    }
    const screen = await session.screen();
    await writeFile(path.join(OUT, 'dashboard-screen.txt'), screen + '\n');
    res.metrics.push({ label: 'last screen', value: 'bench/out/dashboard-screen.txt' });
    await endSession(session);
    session = undefined;
    if (!/\S/.test(screen)) res.notes.push('the console drew nothing readable');

    // htop in the same pty size, its default refresh (1.5 s).
    if (existsSync('/usr/bin/htop')) {
      log(`  measuring htop for ${opts.htopSeconds}s …`);
      const h = await ptySpawn('/usr/bin/htop', [], { cols: COLS, rows: ROWS });
      const hw = await measure(h, 2000, opts.htopSeconds);
      h.write('q');
      await Promise.race([h.exited, sleep(2000)]);
      if (!h.isExited()) h.kill('SIGKILL');
      if (hw) {
        windowMetrics(res, 'htop', hw);
        res.ratio = { value: w.bytesPerSec / hw.bytesPerSec, what: 'console terminal bytes/s ÷ htop bytes/s', goal: 1, pass: w.bytesPerSec <= hw.bytesPerSec };
      }
    } else {
      res.notes.push('htop is not installed (apt-get install -y htop): no terminal-bytes reference');
    }
    res.metrics.push({ label: 'goal: CPU ≤ 5% of a core', value: w.cpuPct <= 5 ? 'met' : 'NOT met' });
    // Flat = the peaks of the second half are no higher than those of the first (GC makes RSS a sawtooth).
    const half = Math.ceil(w.rssTrend.length / 2);
    if (w.rssTrend.length >= 4) {
      const first = Math.max(...w.rssTrend.slice(0, half));
      const second = Math.max(...w.rssTrend.slice(half));
      res.metrics.push({ label: 'RSS peak, first half → second half of the window', value: `${fmt(first, 0)} → ${fmt(second, 0)}`, unit: 'MiB' });
    }
    // After the first 10 minutes (caches full; at --speed 60 the model's 512 unpacked records too), the least-squares
    // slope of the samples: what one more hour of the same pace adds.
    const settled = w.samples.filter((x) => x.t >= 600);
    if (settled.length >= 10) {
      const slope = leastSquaresSlope(settled.map((x) => x.t / 3600), settled.map((x) => x.rssMiB));
      res.metrics.push({ label: `RSS slope from 10 min to the window's end (${settled.length} samples)`, value: fmt(slope, 2), unit: 'MiB an hour' });
    }
    return res;
  } finally {
    if (session) await endSession(session);
    await sim.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

function leastSquaresSlope(x: number[], y: number[]): number {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += ((x[i] as number) - mx) * ((y[i] as number) - my);
    sxx += ((x[i] as number) - mx) ** 2;
  }
  return sxx > 0 ? sxy / sxx : 0;
}

/** The second snapshot at the end of the window, then what grew between the two (heap totals and top kinds). */
async function heapReport(res: BenchResult, pid: number, heapDir: string, early: number, seconds: number, log: (s: string) => void): Promise<void> {
  process.kill(pid, 'SIGUSR2');
  const deadline = performance.now() + 120_000;
  let files: string[] = [];
  // A snapshot is complete when its size stops changing.
  let sizes = '';
  while (performance.now() < deadline) {
    await sleep(2000);
    files = await heapSnapshotFiles(heapDir);
    const now = (await Promise.all(files.map((f) => stat(f).then((x) => x.size)))).join(',');
    if (files.length >= 2 && now === sizes) break;
    sizes = now;
  }
  if (files.length < 2) {
    res.notes.push(`heap: ${files.length} snapshot(s) written, 2 needed`);
    return;
  }
  log('  reading the heap snapshots …');
  // Kept beside the results, for a diff by object and retainer.
  const kept = path.join(OUT, `dashboard-heap-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(kept, { recursive: true });
  for (const f of [files[0] as string, files[files.length - 1] as string]) await copyFile(f, path.join(kept, path.basename(f)));
  res.notes.push(`heap snapshots kept in ${path.relative(REPO, kept)}`);
  const a = await summarizeHeapSnapshot(files[0] as string);
  const b = await summarizeHeapSnapshot(files[files.length - 1] as string);
  const mib = (x: number) => fmt(x / 1048576, 1);
  res.metrics.push({ label: `heap (self sizes) at ${early} s → ${seconds} s of the window`, value: `${mib(a.totalBytes)} → ${mib(b.totalBytes)}`, unit: 'MiB' });
  for (const g of heapGrowth(a, b, 8)) res.metrics.push({ label: `heap grew: ${g.kind}`, value: `${mib(g.fromBytes)} → ${mib(g.toBytes)} MiB (${g.fromCount} → ${g.toCount})` });
}

/**
 * How far the home screen's doctor is, read from the screen (the terminal mirror, not the byte stream: Ink repaints
 * a changed line from its first changed column): 'some' once an answer is counted while others are pending
 * (`Doctor — N checking: N ok, …`), 'all' once every answer is in (`Doctor — N ok, N fail, N warn`).
 */
export function doctorProgress(screen: string): 'none' | 'some' | 'all' {
  const counted = (m: RegExpMatchArray | null) => Boolean(m && Number(m[1]) + Number(m[2]) + Number(m[3]) > 0);
  if (counted(screen.match(/Doctor — (\d+) ok, (\d+) fail, (\d+) warn/))) return 'all';
  if (counted(screen.match(/Doctor — \d+ checking: (\d+) ok, (\d+) fail, (\d+) warn/))) return 'some';
  return 'none';
}

interface HomeRun {
  firstFrame?: number;
  firstByte?: number;
  firstFrameCpu?: number;
  /** Spawn → the first doctor answer on screen, then → every answer on screen (ms). */
  firstAnswer?: number;
  complete?: number;
  text: string;
}

/**
 * One interactive start of `bin` in the pty: first frame, first doctor answer, every doctor answer. `stayMs`: how long
 * the console stays after its last answer (the untimed first start stays until the doctor has written what python3
 * told it, which the next starts answer from, as every start after a workspace's first does: src/services/doctor/
 * sitePackages.ts).
 */
async function homeRun(bin: string, ws: string, stayMs = 0): Promise<HomeRun> {
  const spawned = performance.now();
  const s = await ptySpawn(bin, ['--workspace', ws], { cols: COLS, rows: ROWS });
  const deadline = performance.now() + 15_000;
  while (s.firstFrameMs() === undefined && !s.isExited() && performance.now() < deadline) await sleep(5);
  const out: HomeRun = { firstFrame: s.firstFrameMs(), firstByte: s.firstByteMs(), firstFrameCpu: s.firstFrameCpuMs(), text: '' };
  // The screen is polled every 5 ms. A console that does not stream its doctor shows every answer at once.
  let progress: 'none' | 'some' | 'all' = 'none';
  while (progress !== 'all' && !s.isExited() && performance.now() < deadline) {
    const now = doctorProgress(await s.screen());
    if (now !== 'none' && progress === 'none') out.firstAnswer = performance.now() - spawned;
    progress = now;
    if (progress !== 'all') await sleep(5);
  }
  if (progress === 'all') out.complete = performance.now() - spawned;
  if (stayMs) await sleep(stayMs);
  out.text = s.text();
  await endSession(s);
  return out;
}

/**
 * Start-up: bare `node -e ''`, the console, and (with `baseline`, another checkout's built bin/swegym-console) that
 * console too, alternating in one run: first frame, first doctor answer and every doctor answer on the home screen.
 * Two results with a headline ratio each, so that `bench:check` guards both goals: the home screen complete
 * (`startup-home`, ≤ 4× bare node) and the first frame (`startup`, ≤ 2.5×, with every figure of the runs).
 */
export async function benchStartup(bundle: Bundle, runs: number, log: (s: string) => void, baseline?: string): Promise<[home: BenchResult, firstFrame: BenchResult]> {
  const res = result('startup', 'start-up to first frame vs bare node');
  const home = result('startup-home', 'start-up to the home screen complete (every doctor answer) vs bare node');
  home.metrics.push({ label: 'the runs', value: 'the same as start-up to first frame (below)' });
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-start-'));
  const ws = await benchWorkspace(dir);
  try {
    const targets = [{ name: 'console', bin: bundle.bin, runs: [] as HomeRun[] }];
    if (baseline) targets.push({ name: `baseline (${baseline})`, bin: baseline, runs: [] });
    const bare: number[] = [];
    const bareCpu: number[] = [];
    // One untimed start of each first, the first after the build (which wrote the UI bundle's V8 code cache,
    // src/cli/warmUiCache.tsx; had that failed, this start writes it).
    for (const t of targets) {
      const warm = await homeRun(t.bin, ws, 2000);
      res.notes.push(`${t.name}: untimed first start after the build: first frame ${fmt(warm.firstFrame ?? NaN, 0)} ms, home complete ${fmt(warm.complete ?? NaN, 0)} ms (python3 started; it stayed 2 s so that later starts answer from disk)`);
    }
    log(`  ${runs} runs each …`);
    for (let i = 0; i < runs; i++) {
      // Bare node in the same pty: spawn → exit, timed from the same origin as the console's first frame.
      const b = await ptySpawn(NODE, ['-e', ''], { cols: COLS, rows: ROWS });
      await b.exited;
      bare.push(b.exitedMs() ?? NaN);
      bareCpu.push((await timed(NODE, ['-e', ''])).cpuMs);
      // The consoles take turns going first (the run after bare node may find the machine in another state).
      for (const t of i % 2 ? [...targets].reverse() : targets) {
        const r = await homeRun(t.bin, ws);
        if (r.firstFrame === undefined) {
          res.status = 'failed';
          res.notes.push(`${t.name}: no frame within 15 s: ${stripAnsi(r.text).replace(/\s+/g, ' ').slice(0, 200)}`);
          home.status = 'failed';
          return [home, res];
        }
        t.runs.push(r);
      }
    }
    // Spawn→exit of `node -e ''` includes process teardown, the app figure stops at the first frame: the
    // comparison favours neither much; both include pty spawn.
    res.metrics.push({ label: "bare `node -e ''` spawn → exit (median)", value: fmt(median(bare), 0), unit: 'ms' });
    const ofBare = (xs: number[]) => (xs.length ? `ms = ${fmt(median(xs) / median(bare), 2)}× bare node (${xs.length}/${runs} runs)` : '');
    const pick = (rs: HomeRun[], k: keyof Omit<HomeRun, 'text'>) => rs.map((r) => r[k]).filter((x): x is number => x !== undefined);
    for (const t of targets) {
      const who = t.name;
      res.metrics.push({ label: `${who}: spawn → first complete frame (median)`, value: fmt(median(pick(t.runs, 'firstFrame')), 0), unit: ofBare(pick(t.runs, 'firstFrame')) });
      res.metrics.push({ label: `${who}: spawn → first byte (median)`, value: fmt(median(pick(t.runs, 'firstByte')), 0), unit: 'ms' });
      res.metrics.push({ label: `${who}: first-frame runs (ms)`, value: pick(t.runs, 'firstFrame').map((x) => fmt(x, 0)).join(', ') });
      const first = pick(t.runs, 'firstAnswer');
      const complete = pick(t.runs, 'complete');
      res.metrics.push({ label: `${who}: home screen, first doctor answer shown (median)`, value: first.length ? fmt(median(first), 0) : 'not seen', unit: ofBare(first) });
      res.metrics.push({ label: `${who}: home screen complete, every doctor answer shown (median)`, value: complete.length ? fmt(median(complete), 0) : 'not seen', unit: ofBare(complete) });
      res.metrics.push({ label: `${who}: home-complete runs (ms)`, value: complete.map((x) => fmt(x, 0)).join(', ') });
      // CPU time is steadier than wall time on a loaded machine: CPU used by the first frame vs all of `node -e ''`.
      res.metrics.push({ label: `${who}: CPU to first frame / whole \`node -e ''\` (medians)`, value: `${fmt(median(pick(t.runs, 'firstFrameCpu')), 0)} / ${fmt(median(bareCpu), 0)}`, unit: 'ms' });
    }
    const ratio = median(pick(targets[0]!.runs, 'firstFrame')) / median(bare);
    res.ratio = { value: ratio, what: 'first frame ÷ bare node', goal: 2.5, pass: ratio <= 2.5 };
    const complete = pick(targets[0]!.runs, 'complete');
    if (complete.length < runs) {
      home.status = 'failed';
      home.notes.push(`the home screen was complete in ${complete.length} of ${runs} runs`);
    }
    const homeRatio = median(complete) / median(bare);
    home.ratio = { value: homeRatio, what: 'home complete ÷ bare node', goal: 4, pass: homeRatio <= 4 };
    return [home, res];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
