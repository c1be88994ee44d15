// Benchmark 1: log ingestion. `swegym-console monitor LOG --once --json` against `grep -c 'SWE-Gym reward=' LOG`
// on the same file, side by side in one run: a dense log (300k per-sample lines over 39k instances in 200 MB), a
// sparse one (90k in 1 GB) and the simulator's default run (1 GB), then a 4 GB log (the dense one 20 times over,
// in /tmp, deleted after) for peak memory and linear time. Both tools write their output to a file (GNU grep stops
// at the first match when its output is /dev/null). Runs alternate; medians; each tool's time on the first 5,000
// lines of the same log is subtracted (process start-up). Also timed on each log, alternating with them: the same
// monitor with its JavaScript marker search (`SWEGYM_MONITOR_MARKER_SEARCH=js`: one indexOf pass per needle and
// readSampleBytes, the search before the WebAssembly one), whose document must be the same.
// Goals (issue #17): dense ≤ 3× and ≤ 300 MiB, sparse ≤ 3×, simulator ≤ 2×, 4 GB ≤ 300 MiB in time linear in the size.
import { createReadStream, createWriteStream, openSync, closeSync, readFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NODE, OUT, result, fmt, median, type BenchResult, type Bundle } from './lib.js';
import { benchLog, repeatedLog, type BenchLog, type LogKind } from './logs.js';

export interface IngestOptions {
  /** Size of the simulator's log (the dense and sparse logs have fixed sizes). */
  bytes: number;
  runs: number;
  seed: number;
  /** Also the 4 GB memory run. */
  big: boolean;
}

interface Timed {
  ms: number;
  cpuMs: number;
  rssMiB: number;
  code: number | null;
  out: string;
  stderr: string;
}

/** One run under /usr/bin/time with stdout going to a file: wall, CPU (user+system), peak RSS. */
function timedToFile(cmd: string, args: string[], outFile: string): Promise<Timed> {
  const timeFile = path.join(OUT, `.time-${process.pid}`);
  return new Promise((resolve, reject) => {
    const fd = openSync(outFile, 'w');
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, cmd, ...args], { stdio: ['ignore', fd, 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      closeSync(fd);
      const [u, s, m] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      resolve({ ms, cpuMs: ((u ?? NaN) + (s ?? NaN)) * 1000, rssMiB: (m ?? NaN) / 1024, code, out: readFileSync(outFile, 'utf8'), stderr });
    });
  });
}

/** The first `lines` lines of a log, for the start-up runs. */
async function headOf(file: string, out: string, lines: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const w = createWriteStream(out);
    let n = 0;
    let done = false;
    const r = createReadStream(file, { highWaterMark: 1 << 16 });
    r.on('data', (chunk) => {
      if (done) return;
      const s = chunk as Buffer;
      let i = -1;
      let cut = s.length;
      while (n < lines && (i = s.indexOf(10, i + 1)) !== -1) {
        n++;
        if (n === lines) cut = i + 1;
      }
      w.write(s.subarray(0, cut));
      if (n >= lines) {
        done = true;
        r.destroy();
        w.end(resolve);
      }
    });
    r.on('end', () => !done && w.end(resolve));
    r.on('error', reject);
  });
}

async function warmCache(file: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const r = createReadStream(file, { highWaterMark: 1 << 22 });
    r.on('data', () => {});
    r.on('end', resolve);
    r.on('error', reject);
  });
}

interface Doc {
  samples?: { total?: number; reward_one?: number };
  rollouts?: unknown[];
  series?: unknown;
}

interface Pair {
  grepNet: number;
  grepCpu: number;
  monNet: number;
  monCpu: number;
  monRss: number;
  monRuns: number[];
  grepRuns: number[];
  grepCount: number;
  /** The monitor with its JavaScript marker search (SWEGYM_MONITOR_MARKER_SEARCH=js). */
  jsNet: number;
  jsCpu: number;
  /** Whether its document is the WebAssembly search's (the clock-bound liveness block aside). */
  jsSameDoc: boolean;
  doc: Doc | undefined;
  failed?: string;
}

/** grep and the monitor on `file`, alternating, `runs` times each on the log and on its head. */
async function sideBySide(bundle: Bundle, file: string, runs: number): Promise<Pair> {
  const dir = path.dirname(file);
  const small = path.join(dir, 'head.log');
  await headOf(file, small, 5000);
  await warmCache(file);
  const grepOut = path.join(OUT, `.grep-${process.pid}.txt`);
  const monOut = path.join(OUT, `.monitor-${process.pid}.json`);
  const grep = (f: string) => timedToFile('grep', ['-c', 'SWE-Gym reward=', f], grepOut);
  const mon = (f: string) => timedToFile(NODE, [bundle.bin, 'monitor', f, '--once', '--json'], monOut);
  const jsOut = path.join(OUT, `.monitor-js-${process.pid}.json`);
  const monJs = (f: string) => timedToFile('env', ['SWEGYM_MONITOR_MARKER_SEARCH=js', NODE, bundle.bin, 'monitor', f, '--once', '--json'], jsOut);
  // What differs between two reads of the same log is the clock: the liveness (ages) and when the sandbox list was asked.
  const withoutClock = (text: string) => {
    try {
      const { liveness: _clock, sandboxes, ...rest } = JSON.parse(text) as Record<string, unknown>;
      const { at: _asked, ...listed } = (sandboxes ?? {}) as Record<string, unknown>;
      return JSON.stringify({ ...rest, sandboxes: listed });
    } catch {
      return undefined;
    }
  };
  const js: Timed[] = [];
  const jss: Timed[] = [];
  let jsSameDoc = true;
  const g: Timed[] = [];
  const gs: Timed[] = [];
  const m: Timed[] = [];
  const ms: Timed[] = [];
  let doc: Doc | undefined;
  for (let i = 0; i < runs; i++) {
    g.push(await grep(file));
    gs.push(await grep(small));
    const r = await mon(file);
    if (r.code !== 0) return { grepNet: 0, grepCpu: 0, monNet: 0, monCpu: 0, monRss: 0, monRuns: [], grepRuns: [], grepCount: 0, jsNet: 0, jsCpu: 0, jsSameDoc: false, doc: undefined, failed: `monitor exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}` };
    m.push(r);
    try {
      doc = JSON.parse(r.out) as Doc;
    } catch {
      doc = undefined;
    }
    ms.push(await mon(small));
    const j = await monJs(file);
    js.push(j);
    const jsDoc = j.code === 0 ? withoutClock(j.out) : undefined;
    if (jsDoc === undefined || jsDoc !== withoutClock(r.out)) jsSameDoc = false;
    jss.push(await monJs(small));
  }
  const med = (xs: Timed[], k: 'ms' | 'cpuMs') => median(xs.map((x) => x[k]));
  return {
    grepNet: Math.max(1, med(g, 'ms') - med(gs, 'ms')),
    grepCpu: Math.max(1, med(g, 'cpuMs') - med(gs, 'cpuMs')),
    monNet: Math.max(1, med(m, 'ms') - med(ms, 'ms')),
    monCpu: Math.max(1, med(m, 'cpuMs') - med(ms, 'cpuMs')),
    monRss: Math.max(...m.map((x) => x.rssMiB)),
    monRuns: m.map((x) => x.ms),
    grepRuns: g.map((x) => x.ms),
    grepCount: Number((g[0] as Timed).out.trim()),
    jsNet: Math.max(1, med(js, 'ms') - med(jss, 'ms')),
    jsCpu: Math.max(1, med(js, 'cpuMs') - med(jss, 'cpuMs')),
    jsSameDoc,
    doc,
  };
}

const TITLES: Record<LogKind, string> = {
  dense: 'ingestion, dense log (300k per-sample lines, 39k instances)',
  sparse: 'ingestion, sparse log (90k per-sample lines)',
  simulator: "ingestion, the simulator's run",
};
const GOALS: Record<LogKind, number> = { dense: 3, sparse: 3, simulator: 2 };

function checkCounts(res: BenchResult, doc: Doc | undefined, l: BenchLog, grepCount: number, times = 1): void {
  const want = l.manifest.counts.sampleLines * times;
  if (grepCount !== want) res.notes.push(`grep counted ${grepCount}, the simulator wrote ${want} per-sample lines`);
  if (!doc) {
    res.notes.push('monitor --json output is not one JSON document');
    res.status = 'failed';
    return;
  }
  const total = doc.samples?.total;
  res.metrics.push({ label: 'samples.total / grep / simulator', value: `${total} / ${grepCount} / ${want}` });
  if (total !== want) {
    res.notes.push(`monitor counted ${total} per-sample lines, expected ${want}`);
    res.status = 'failed';
  }
  if (doc.samples?.reward_one !== l.manifest.counts.rewardOne * times) res.notes.push(`reward_one ${doc.samples?.reward_one}, expected ${l.manifest.counts.rewardOne * times}`);
  if (times === 1 && Array.isArray(doc.rollouts)) res.metrics.push({ label: 'rollouts listed / simulator', value: `${doc.rollouts.length} / ${l.manifest.counts.rollouts}` });
}

export async function benchIngest(bundle: Bundle, opts: IngestOptions, log: (s: string) => void): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const logs: [LogKind, number][] = [
    ['dense', 200e6],
    ['sparse', 1e9],
    ['simulator', opts.bytes],
  ];
  let dense: { log: BenchLog; pair: Pair } | undefined;
  for (const [kind, bytes] of logs) {
    const l = await benchLog(kind, bytes, opts.seed, log);
    const size = (await stat(l.file)).size;
    const res = result(`ingest-${kind}`, `${TITLES[kind]}, ${fmt(size / 1e9, 2)} GB`);
    out.push(res);
    log(`  ${kind}: ${fmt(size / 1e6, 0)} MB, ${l.manifest.counts.sampleLines} per-sample lines …`);
    if (l.generatedMs !== undefined) res.metrics.push({ label: 'simulator generation', value: fmt(size / 1e6 / (l.generatedMs / 1000), 0), unit: 'MB/s' });
    const p = await sideBySide(bundle, l.file, opts.runs);
    if (p.failed) {
      res.status = 'failed';
      res.notes.push(p.failed);
      continue;
    }
    if (kind === 'dense') dense = { log: l, pair: p };
    res.metrics.push({ label: 'lines / per-sample lines', value: `${l.manifest.counts.lines} / ${l.manifest.counts.sampleLines}` });
    res.metrics.push({ label: 'grep -c wall / CPU (net of start-up)', value: `${fmt(p.grepNet, 0)} / ${fmt(p.grepCpu, 0)}`, unit: `ms (${fmt(size / 1e6 / (p.grepNet / 1000), 0)} MB/s)` });
    res.metrics.push({ label: 'monitor --once --json wall / CPU (net of start-up)', value: `${fmt(p.monNet, 0)} / ${fmt(p.monCpu, 0)}`, unit: `ms (${fmt(size / 1e6 / (p.monNet / 1000), 0)} MB/s)` });
    res.metrics.push({ label: 'the same with the JavaScript marker search, wall / CPU (net)', value: `${fmt(p.jsNet, 0)} / ${fmt(p.jsCpu, 0)}`, unit: `ms (${fmt(p.jsNet / p.grepNet, 2)}× grep; the WebAssembly search takes ${fmt(p.monNet / p.jsNet, 2)}× its time)` });
    if (!p.jsSameDoc) {
      res.notes.push('the JavaScript marker search gave another document than the WebAssembly one');
      res.status = 'failed';
    }
    res.metrics.push({ label: 'monitor peak RSS', value: fmt(p.monRss, 0), unit: 'MiB' });
    res.metrics.push({ label: 'runs, wall ms (grep | monitor)', value: `${p.grepRuns.map((x) => fmt(x, 0)).join(', ')} | ${p.monRuns.map((x) => fmt(x, 0)).join(', ')}` });
    res.metrics.push({ label: 'CPU-time ratio monitor / grep', value: fmt(p.monCpu / p.grepCpu, 2), unit: '×' });
    checkCounts(res, p.doc, l, p.grepCount);
    const ratio = p.monNet / p.grepNet;
    res.ratio = { value: ratio, what: 'monitor wall / grep wall', goal: GOALS[kind], pass: ratio <= GOALS[kind] && (kind !== 'dense' || p.monRss <= 300) };
    if (kind === 'dense') res.metrics.push({ label: 'memory goal', value: `${fmt(p.monRss, 0)} MiB ≤ 300 MiB: ${p.monRss <= 300 ? 'met' : 'NOT met'}` });
  }
  if (opts.big && dense) out.push(await bigRun(bundle, dense.log, dense.pair, log));
  return out;
}

/** The dense log 20 times over (4 GB) in /tmp: peak RSS and time against 20 × the 200 MB run. */
async function bigRun(bundle: Bundle, dense: BenchLog, pair: Pair, log: (s: string) => void): Promise<BenchResult> {
  const times = 20;
  const res = result('ingest-4gb', `ingestion, 4 GB (the dense log ${times}× over): memory and linear time`);
  const file = path.join(tmpdir(), `swegym-bench-4gb-${process.pid}.log`);
  try {
    log(`  writing ${file} …`);
    await repeatedLog(dense.file, file, times);
    const size = (await stat(file)).size;
    await warmCache(file).catch(() => {});
    const g = await timedToFile('grep', ['-c', 'SWE-Gym reward=', file], path.join(OUT, `.grep-${process.pid}.txt`));
    const m = await timedToFile(NODE, [bundle.bin, 'monitor', file, '--once', '--json'], path.join(OUT, `.monitor-${process.pid}.json`));
    if (m.code !== 0) {
      res.status = 'failed';
      res.notes.push(`monitor exited ${m.code}: ${m.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300)}`);
      return res;
    }
    res.metrics.push({ label: 'log size', value: fmt(size / 1e9, 2), unit: 'GB' });
    res.metrics.push({ label: 'grep -c wall / monitor wall', value: `${fmt(g.ms, 0)} / ${fmt(m.ms, 0)}`, unit: `ms (${fmt(m.ms / g.ms, 1)}×)` });
    res.metrics.push({ label: 'monitor CPU', value: fmt(m.cpuMs, 0), unit: 'ms' });
    res.metrics.push({ label: 'monitor peak RSS', value: fmt(m.rssMiB, 0), unit: `MiB (200 MB log: ${fmt(pair.monRss, 0)} MiB)` });
    // Linear: the 4 GB wall time against 20 × the 200 MB log's (start-up counted once).
    const linear = m.ms / (pair.monNet * times);
    res.metrics.push({ label: 'wall / (20 × the 200 MB log, net)', value: fmt(linear, 2), unit: '× (1.0 = linear)' });
    let doc: Doc | undefined;
    try {
      doc = JSON.parse(m.out) as Doc;
    } catch {}
    checkCounts(res, doc, dense, Number(g.out.trim()), times);
    res.ratio = { value: m.rssMiB / 300, what: 'peak RSS / 300 MiB', goal: 1, pass: m.rssMiB <= 300 && linear <= 1.5 };
    return res;
  } finally {
    await rm(file, { force: true });
  }
}
