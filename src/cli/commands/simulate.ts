// `swegym-console simulate DIR` (hidden dev command): writes a simulated Dressage SWE-Gym run into DIR —
// run.log, traj_payload/traj_err files, simulation.json — offline as fast as possible (optionally to a target
// size, e.g. a multi-GB log for benchmarks) or live at the pace of a run (`--live`, sped up with `--speed`).
import path from 'node:path';
import type { CommandContext } from '../context.js';
import { note, optFlag, optString, say, writeJson } from '../context.js';
import { ExitCode, usageError } from '../../services/errors.js';
import { generateOffline, LiveSimulator, SIM_LOG_NAME, type SimManifest } from '../../services/simulator/writer.js';
import type { SimConfig } from '../../services/simulator/runGenerator.js';
import { formatBytes } from '../../services/util/format.js';

const SIZE = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KIB|MIB|GIB)?$/i;
const UNITS: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 };

export function parseSize(raw: string): number {
  const m = SIZE.exec(raw.trim());
  if (!m) throw usageError(`--size must be a size like 1GB, 500MB or 2GiB, got "${raw}"`);
  return Math.round(Number(m[1]) * (UNITS[(m[2] ?? 'B').toUpperCase()] ?? 1));
}

function num(ctx: CommandContext, name: string, min: number, integer: boolean): number | undefined {
  const raw = optString(ctx, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw usageError(`--${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got "${raw}"`);
  }
  return n;
}

function configFrom(ctx: CommandContext, live: boolean): Partial<SimConfig> {
  const c: Partial<SimConfig> = live
    ? { rolloutSeconds: 60, trainSeconds: 8, startupSeconds: 6, noiseLinesPerSecond: 20 }
    : {};
  const set = <K extends keyof SimConfig>(k: K, v: SimConfig[K] | undefined) => {
    if (v !== undefined) c[k] = v;
  };
  set('seed', num(ctx, 'seed', 0, true));
  set('numRollouts', num(ctx, 'rollouts', 1, true));
  set('rolloutBatchSize', num(ctx, 'prompts', 1, true));
  set('samplesPerPrompt', num(ctx, 'samples-per-prompt', 1, true));
  set('concurrency', num(ctx, 'concurrency', 1, true));
  set('rolloutSeconds', num(ctx, 'rollout-seconds', 1, false));
  set('trainSeconds', num(ctx, 'train-seconds', 0, false));
  set('startupSeconds', num(ctx, 'startup-seconds', 0, false));
  set('noiseLinesPerSecond', num(ctx, 'noise-rate', 0, false));
  set('runName', optString(ctx, 'run-name'));
  if (optFlag(ctx, 'no-ansi')) c.ansi = false;
  return c;
}

function trajLimit(ctx: CommandContext, live: boolean): number {
  const raw = optString(ctx, 'traj');
  if (raw === undefined) return live ? Infinity : 0;
  if (raw === 'all') return Infinity;
  if (raw === 'none') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw usageError(`--traj must be all, none or a number of samples, got "${raw}"`);
  return n;
}

function summary(ctx: CommandContext, dir: string, m: Pick<SimManifest, 'counts' | 'complete'>): void {
  const c = m.counts;
  say(ctx, `simulated run in ${dir} (${m.complete ? 'complete' : 'partial'}):`);
  say(ctx, `  ${path.join(dir, SIM_LOG_NAME)}: ${c.lines} lines, ${formatBytes(c.bytes)}`);
  say(ctx, `  ${c.rollouts} rollouts, ${c.sampleLines} per-sample lines (${c.rewardOne} reward=1.0), ${c.failedGroups} failed groups, ${c.trajFiles} traj files, checkpoints at ${c.checkpoints.length ? c.checkpoints.join(',') : 'none'}`);
}

export async function simulateCommand(ctx: CommandContext): Promise<number> {
  const dirArg = ctx.positionals[0];
  if (!dirArg || ctx.positionals.length > 1) throw usageError('simulate needs exactly one DIR (where run.log and the traj files go)', 'e.g. swegym-console simulate /tmp/sim-run --rollouts 20');
  const dir = path.resolve(dirArg);
  const live = optFlag(ctx, 'live');
  const config = configFrom(ctx, live);
  const force = optFlag(ctx, 'force');
  const checkpoints = optFlag(ctx, 'checkpoints');
  if (!live) {
    const size = optString(ctx, 'size');
    const started = Date.now();
    let lastNote = 0;
    const manifest = await generateOffline({
      dir,
      config,
      force,
      checkpoints,
      trajLimit: trajLimit(ctx, false),
      ...(size !== undefined ? { targetBytes: parseSize(size) } : {}),
      signal: ctx.signal,
      onProgress: (bytes, rollout) => {
        if (!ctx.global.json && Date.now() - lastNote > 2000) {
          lastNote = Date.now();
          note(ctx, `  rollout ${rollout}, ${formatBytes(bytes)}`);
        }
      },
    });
    if (ctx.global.json) writeJson(ctx, { dir, seconds: (Date.now() - started) / 1000, ...manifest, log: path.join(dir, SIM_LOG_NAME), rollouts: undefined });
    else summary(ctx, dir, manifest);
    return ExitCode.ok;
  }
  if (optString(ctx, 'size') !== undefined) throw usageError('--size is for offline generation; leave out --live');
  const speed = num(ctx, 'speed', 0.001, false) ?? 1;
  const sim = new LiveSimulator({ dir, config, force, checkpoints, trajLimit: trajLimit(ctx, true), speed, signal: ctx.signal });
  await sim.start();
  if (!ctx.global.json) note(ctx, `simulating live into ${sim.logFile} (speed ×${speed}); Ctrl-C stops`);
  await sim.finished;
  await sim.stop();
  const snap = sim.snapshot();
  if (ctx.global.json) writeJson(ctx, { dir, log: sim.logFile, phase: snap.phase, counts: sim.counts });
  else summary(ctx, dir, { counts: sim.counts, complete: snap.phase === 'finished' });
  return ExitCode.ok;
}
