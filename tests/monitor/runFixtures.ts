// Runs on disk for the liveness tests: a run log and its registry entry (.swegym-console/runs/<name>/run.json),
// written as the launcher and its wrapper write them (src/services/train/registry.ts), with a writer that is a real
// process of its own group (so that SIGKILL kills it as it would kill the launch wrapper).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { procStartTime, writeRun, type RunRecord } from '../../src/services/train/registry.js';
import type { RecipePaths } from '../../src/services/workspace/paths.js';
import { EFFECTIVE_LINES, rolloutLines } from './builders.js';
import { commandRegistry, type CommandContext } from '../../src/cli/context.js';

/** A run log: the effective_* lines and `rollouts` finished rollouts of 128 samples of 500. */
export function runLogText(rollouts = 3): string {
  const lines = ['effective_batch: num_rollout=500 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128', ...EFFECTIVE_LINES, 'Current Ray node count: 4; expected ACTOR_NUM_NODES: 4'];
  for (let r = 0; r < rollouts; r++) lines.push(...rolloutLines(r, 128));
  return lines.join('\n') + '\n';
}

/** A stand-in launch wrapper: a detached `sleep` leading its own process group. */
export function startWriter(): ChildProcess {
  const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  child.unref();
  return child;
}

export async function registerRun(paths: RecipePaths, o: { name: string; logFile: string; writer?: ChildProcess; exitCode?: number }): Promise<RunRecord> {
  const dir = path.join(paths.runsDir, o.name);
  await mkdir(dir, { recursive: true });
  const pid = o.writer?.pid;
  const record: RunRecord = {
    version: 1,
    name: o.name,
    runName: 'swegym-test',
    host: hostname(),
    createdAt: new Date(Date.now() - 3_600_000).toISOString(),
    startedAt: new Date(Date.now() - 3_600_000).toISOString(),
    ...(pid ? { pid, pgid: pid, procStart: await procStartTime(pid) } : {}),
    command: { argv: ['bash', 'launch.sh'], cwd: paths.root },
    logFile: o.logFile,
    exitFile: path.join(dir, 'exit.json'),
    outputsLogDir: path.join(paths.root, 'outputs', 'logs', 'swegym-test'),
    checkpointDir: path.join(paths.root, 'outputs', 'ckpt', 'swegym-test'),
    config: { explicit: {}, effective: {}, sources: {} },
    expectedEffectiveLines: [],
    status: 'running',
  };
  await writeRun(paths, record);
  if (o.exitCode !== undefined) await writeFile(record.exitFile, JSON.stringify({ exitCode: o.exitCode, endedAt: new Date().toISOString() }));
  return record;
}

/**
 * fetch for these tests: loopback passes through (the fake Ray dashboard); the run log's proxy
 * (https://proxy.example.com, from its effective_blackbox line) answers /health as the Dressage proxy does; anything
 * else is refused, so that no test reaches outside the machine.
 */
export const loopbackFetch = (async (input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  if (url.hostname === '127.0.0.1') return fetch(url, init);
  if (url.hostname === 'proxy.example.com' && url.pathname === '/health') return new Response(JSON.stringify({ status: 'ok', active_sessions: 12, rollout_pause: { paused: false } }), { status: 200, headers: { 'content-type': 'application/json' } });
  throw new TypeError(`fetch failed: ${url.hostname} is not reachable from the tests`);
}) as typeof fetch;

/** How often a test's follow job asks whether the writer lives (the job's default is 5 s): the same events, sooner. */
export const TEST_WRITER_POLL_MS = 200;

/** Gives a headless command a registry whose `monitor` follow job polls the writer every TEST_WRITER_POLL_MS. */
export function withFastWriterPolls(ctx: CommandContext): CommandContext {
  const registry = commandRegistry(ctx);
  ctx.registry = {
    ...registry,
    jobs: (async (domain: string) => {
      const jobs = await registry.jobs(domain as 'monitor');
      if (domain !== 'monitor') return jobs;
      return { ...jobs, follow: (t: Parameters<typeof jobs.follow>[0], o: Parameters<typeof jobs.follow>[1]) => jobs.follow(t, { ...o, pollMs: { ...o.pollMs, writer: TEST_WRITER_POLL_MS } }) };
    }) as typeof registry.jobs,
  };
  return ctx;
}
