// GPUs of this node through nvidia-smi (Dressage/slime log no GPU utilisation; recipe reference §6.5), with
// thresholds and capped histories, and the cluster's nodes through the Ray dashboard API when it answers.
import { runProcess } from '../process/run.js';
import { CommandLog } from '../process/commandLog.js';
import { NumberRing } from './ring.js';
import type { GpuSample, RayNode } from '../../state/types/monitor.js';
export type { GpuSample, RayNode } from '../../state/types/monitor.js';

/** The exact fields and order the console queries (the recorded fixture query-common-load-nounits.csv). */
export const GPU_FIELDS = [
  'index',
  'uuid',
  'name',
  'utilization.gpu',
  'utilization.memory',
  'memory.total',
  'memory.used',
  'memory.free',
  'temperature.gpu',
  'power.draw',
  'power.limit',
  'clocks.sm',
  'clocks.mem',
  'fan.speed',
  'pstate',
] as const;

export const NVIDIA_SMI_ARGS = [`--query-gpu=${GPU_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];

/** One CSV cell to a number; `[N/A]`, `N/A`, `[Not Supported]`, units (`42099 MiB`, `689.87 W`, `99 %`) handled. */
export function cellNumber(cell: string | undefined): number | undefined {
  if (cell === undefined) return undefined;
  const t = cell.trim();
  if (!t || t.startsWith('[') || /^n\/a$/i.test(t)) return undefined;
  const m = /^(-?\d+(?:\.\d+)?)(?:\s*(?:%|MiB|W|C|MHz|GiB))?$/.exec(t);
  return m ? Number(m[1]) : undefined;
}

function cellText(cell: string | undefined): string | undefined {
  const t = cell?.trim();
  return !t || t.startsWith('[') ? undefined : t;
}

/**
 * Parses `nvidia-smi --query-gpu=<GPU_FIELDS> --format=csv[,noheader][,nounits]` output. A header line (with or
 * without units) is recognised and skipped; malformed rows are skipped and reported.
 */
export function parseGpuCsv(text: string): { gpus: GpuSample[]; problems: string[] } {
  const gpus: GpuSample[] = [];
  const problems: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('index,') || line.startsWith('index ')) continue; // header
    const c = line.split(',').map((x) => x.trim());
    if (c.length < GPU_FIELDS.length) {
      problems.push(`unexpected nvidia-smi row (${c.length} fields, want ${GPU_FIELDS.length}): ${line.slice(0, 120)}`);
      continue;
    }
    const index = cellNumber(c[0]);
    if (index === undefined) {
      problems.push(`nvidia-smi row without a GPU index: ${line.slice(0, 120)}`);
      continue;
    }
    gpus.push({
      index,
      uuid: c[1] ?? '',
      name: c[2] ?? '',
      util: cellNumber(c[3]),
      memUtil: cellNumber(c[4]),
      memTotal: cellNumber(c[5]),
      memUsed: cellNumber(c[6]),
      memFree: cellNumber(c[7]),
      temp: cellNumber(c[8]),
      power: cellNumber(c[9]),
      powerLimit: cellNumber(c[10]),
      smClock: cellNumber(c[11]),
      memClock: cellNumber(c[12]),
      fan: cellNumber(c[13]),
      pstate: cellText(c[14]),
    });
  }
  return { gpus, problems };
}

export type Level = 'ok' | 'warn' | 'fail' | 'idle' | 'unknown';

/** Thresholds (nvitop-style light/moderate/heavy, plus the H200's thermal and memory limits). */
export const GPU_THRESHOLDS = {
  tempWarn: 83,
  tempFail: 90,
  memWarnPct: 92,
  memFailPct: 98,
  /** Utilisation below this while the run is generating or training is worth a look. */
  utilIdle: 10,
  powerWarnPct: 98,
};

export function gpuLevels(g: GpuSample): { temp: Level; mem: Level; util: Level; power: Level } {
  const T = GPU_THRESHOLDS;
  const memPct = g.memTotal && g.memUsed !== undefined ? (g.memUsed / g.memTotal) * 100 : undefined;
  const powerPct = g.powerLimit && g.power !== undefined ? (g.power / g.powerLimit) * 100 : undefined;
  return {
    temp: g.temp === undefined ? 'unknown' : g.temp >= T.tempFail ? 'fail' : g.temp >= T.tempWarn ? 'warn' : 'ok',
    mem: memPct === undefined ? 'unknown' : memPct >= T.memFailPct ? 'fail' : memPct >= T.memWarnPct ? 'warn' : 'ok',
    util: g.util === undefined ? 'unknown' : g.util < T.utilIdle ? 'idle' : 'ok',
    power: powerPct === undefined ? 'unknown' : powerPct >= T.powerWarnPct ? 'warn' : 'ok',
  };
}

export interface GpuHistory {
  util: NumberRing;
  mem: NumberRing;
  power: NumberRing;
  temp: NumberRing;
}

export type GpuRunner = () => Promise<{ ok: boolean; stdout: string; error?: string }>;

/** Repeated GPU polls are recorded here, not in the console's command log, which they would flood (one every 2 s). */
export const gpuPollLog = new CommandLog(20);

/**
 * Runs nvidia-smi once (5 s bound); a missing binary is a result, not an exception. The first run and every failed
 * run are recorded in the console's command log; the routine polls in between go to `gpuPollLog`.
 */
export function nvidiaSmiRunner(cwd: string, bin = 'nvidia-smi'): GpuRunner {
  let calls = 0;
  let lastOk = false;
  return async () => {
    const log = calls++ > 0 && lastOk ? gpuPollLog : undefined;
    const r = await runProcess(bin, NVIDIA_SMI_ARGS, { cwd, timeoutMs: 5000, keepLines: 256, note: 'monitor: GPU poll', log });
    lastOk = r.exitCode === 0;
    if (r.spawnError) return { ok: false, stdout: '', error: /ENOENT/.test(r.spawnError) ? 'nvidia-smi not found on this node' : r.spawnError };
    if (r.exitCode !== 0) return { ok: false, stdout: r.stdout.join('\n'), error: `nvidia-smi exited ${r.exitCode ?? r.signal}: ${(r.stderr[0] ?? r.stdout[0] ?? '').slice(0, 200)}` };
    return { ok: true, stdout: r.stdout.join('\n') };
  };
}

/** Polls GPUs; keeps the latest sample and a capped history per GPU. */
export class GpuMonitor {
  latest: GpuSample[] = [];
  error: string | undefined;
  problems: string[] = [];
  at: number | undefined;
  version = 0;
  readonly history = new Map<number, GpuHistory>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = true;

  constructor(private readonly runner: GpuRunner, private readonly opts: { historyLength?: number; intervalMs?: number; clock?: () => number } = {}) {}

  ingest(text: string): void {
    const { gpus, problems } = parseGpuCsv(text);
    this.latest = gpus;
    this.problems = problems;
    this.at = (this.opts.clock ?? Date.now)();
    const cap = this.opts.historyLength ?? 300;
    for (const g of gpus) {
      let h = this.history.get(g.index);
      if (!h) {
        if (this.history.size >= 64) continue;
        h = { util: new NumberRing(cap), mem: new NumberRing(cap), power: new NumberRing(cap), temp: new NumberRing(cap) };
        this.history.set(g.index, h);
      }
      h.util.push(g.util ?? NaN);
      h.mem.push(g.memTotal && g.memUsed !== undefined ? (g.memUsed / g.memTotal) * 100 : NaN);
      h.power.push(g.power ?? NaN);
      h.temp.push(g.temp ?? NaN);
    }
    this.version++;
  }

  async pollOnce(): Promise<void> {
    const r = await this.runner();
    if (!r.ok) {
      this.error = r.error;
      this.version++;
      return;
    }
    this.error = undefined;
    this.ingest(r.stdout);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      if (this.stopped) return;
      await this.pollOnce().catch((err: unknown) => {
        this.error = (err as Error).message;
      });
      // nvidia-smi missing: stop asking every few seconds.
      const slow = this.error?.includes('not found');
      if (!this.stopped) {
        this.timer = setTimeout(() => void loop(), slow ? 60_000 : (this.opts.intervalMs ?? 2000));
        this.timer.unref?.();
      }
    };
    void loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}

/**
 * Ray's state API (`GET /api/v0/nodes` on the dashboard, :8265). The response shape is Ray's (not described in the
 * Dressage reference): {result, msg, data: {result: {result: [{node_id, node_ip, state, is_head_node, node_name,
 * resources_total: {GPU}}]}}}; read defensively, older shapes tolerated.
 */
export function parseRayNodes(json: unknown): RayNode[] {
  const j = json as any;
  const list: unknown = j?.data?.result?.result ?? j?.data?.result ?? j?.data?.summary ?? j?.result;
  if (!Array.isArray(list)) return [];
  return list.slice(0, 1024).map((n: any) => ({
    id: String(n?.node_id ?? n?.raylet?.nodeId ?? ''),
    ip: String(n?.node_ip ?? n?.ip ?? n?.raylet?.nodeManagerAddress ?? ''),
    name: String(n?.node_name ?? n?.hostname ?? ''),
    state: String(n?.state ?? n?.raylet?.state ?? 'UNKNOWN'),
    isHead: Boolean(n?.is_head_node ?? n?.raylet?.isHeadNode),
    gpus: typeof n?.resources_total?.GPU === 'number' ? n.resources_total.GPU : undefined,
  }));
}

export async function fetchRayNodes(dashboardUrl: string, opts: { timeoutMs?: number; signal?: AbortSignal; fetchImpl?: typeof fetch } = {}): Promise<{ ok: true; nodes: RayNode[] } | { ok: false; error: string }> {
  const f = opts.fetchImpl ?? fetch;
  const url = `${dashboardUrl.replace(/\/+$/, '')}/api/v0/nodes?limit=1000`;
  try {
    const signals = [AbortSignal.timeout(opts.timeoutMs ?? 3000), ...(opts.signal ? [opts.signal] : [])];
    const res = await f(url, { signal: AbortSignal.any(signals) });
    if (!res.ok) return { ok: false, error: `Ray dashboard answered HTTP ${res.status}` };
    return { ok: true, nodes: parseRayNodes(await res.json()) };
  } catch (err) {
    return { ok: false, error: `Ray dashboard not reachable at ${dashboardUrl}: ${(err as Error).message}` };
  }
}
