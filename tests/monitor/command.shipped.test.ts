import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { monitorCommand } from '../../src/cli/commands/monitor.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import type { CommandContext } from '../../src/cli/context.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { ConsoleError } from '../../src/services/errors.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { EFFECTIVE_LINES, metricLine, rolloutLines, sampleLine } from './builders.js';

function ctxFor(ws: string, positionals: string[], options: Record<string, boolean>, json = true) {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d) => (stdout += d));
  err.on('data', (d) => (stderr += d));
  const ctx: CommandContext = {
    command: ['monitor'],
    positionals,
    options,
    global: { workspace: ws, provider: 'e2b', debug: false, color: false, json },
    paths: recipePaths(ws),
    stdout: out,
    stderr: err,
    env: {},
    signal: new AbortController().signal,
  };
  return { ctx, out: () => stdout, err: () => stderr };
}

test('monitor LOG_FILE --once --json prints exactly the issue #8 shape', async () => {
  const ws = await tempDir();
  try {
    const log = path.join(ws, 'launch.log');
    const lines = [
      'effective_batch: num_rollout=500 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128',
      ...EFFECTIVE_LINES,
      'Current Ray node count: 4; expected ACTOR_NUM_NODES: 4',
      ...rolloutLines(0, 128),
      metricLine('step', 0, { 'train/grad_norm': NaN }),
      sampleLine({ reward: 0, integrity: true, reason: 'swegym_integrity_violation' }),
      `${sampleLine({ reward: 1 })} [repeated 2x across cluster]`,
    ];
    await writeFile(log, lines.join('\n') + '\n');
    const c = ctxFor(ws, [log], { once: true });
    assert.equal(await monitorCommand(c.ctx), 0);
    const doc = JSON.parse(c.out());
    // Every field of issue #8 unchanged, in its place; `liveness` (issue 18), then what the dashboard shows beside
    // the log (issue 27): trajectories, sandboxes, cluster, the hang signatures, and whether the log is the one the
    // run's launch record knows (none here: a log file has no record).
    assert.deepEqual(Object.keys(doc), ['run', 'effective', 'steps', 'rollouts', 'in_progress', 'samples', 'liveness', 'trajectories', 'sandboxes', 'cluster', 'hangs', 'log_since_record']);
    assert.equal(doc.trajectories.files, 0, 'a log outside a run folder has no trajectories');
    assert.deepEqual([doc.log_since_record.checked, doc.log_since_record.replaced, doc.log_since_record.truncated], [false, null, null]);
    assert.deepEqual(Object.keys(doc.run), ['name', 'phase']);
    assert.equal(doc.run.phase, 'rollout 1 generating 3/128');
    assert.equal(doc.effective.claude_code.version, '2.1.207');
    assert.equal(doc.steps[0].metrics['train/grad_norm'], null, 'a later line for the same step merges');
    assert.deepEqual(Object.keys(doc.rollouts[0]), ['rollout', 'metrics', 'samples']);
    assert.deepEqual(Object.keys(doc.rollouts[0].samples), ['total', 'reward_one', 'raw_one', 'integrity_violations', 'by_reason']);
    assert.deepEqual(doc.in_progress, { rollout: 1, samples: { total: 3, reward_one: 2, raw_one: 2, integrity_violations: 1, by_reason: { swegym_integrity_violation: 1, '': 2 } } });
    assert.equal(doc.samples.total, 131);
    assert.equal(c.err(), '');
  } finally {
    await removeDir(ws);
  }
});

test('monitor resolves registry runs (logFile, defensively) and run directories', async () => {
  const ws = await tempDir();
  try {
    const log = path.join(ws, 'outputs', 'logs', 'myrun', 'launcher.log');
    await mkdir(path.dirname(log), { recursive: true });
    await writeFile(log, rolloutLines(0, 2).join('\n') + '\n');
    await mkdir(path.join(ws, '.swegym-console', 'runs', 'myrun-20260801-120000'), { recursive: true });
    await writeFile(path.join(ws, '.swegym-console', 'runs', 'myrun-20260801-120000', 'run.json'), JSON.stringify({ name: 'myrun-20260801-120000', runName: 'myrun', logFile: log, createdAt: '2026-08-01T12:00:00Z' }));
    for (const arg of [['myrun-20260801-120000'], [], [path.join(ws, 'outputs', 'logs', 'myrun')], ['myrun']]) {
      const c = ctxFor(ws, arg, { once: true });
      assert.equal(await monitorCommand(c.ctx), 0, String(arg));
      const doc = JSON.parse(c.out());
      assert.equal(doc.rollouts.length, 1, String(arg));
    }
    const bad = ctxFor(ws, ['no-such-run'], { once: true });
    await assert.rejects(monitorCommand(bad.ctx), (e: unknown) => e instanceof ConsoleError && /Nothing to monitor/.test(e.what) && e.exitCode === 2);
    await writeFile(path.join(ws, '.swegym-console', 'runs', 'myrun-20260801-120000', 'run.json'), '{oops');
    await assert.rejects(monitorCommand(ctxFor(ws, ['myrun-20260801-120000'], { once: true }).ctx), /not valid JSON/);
  } finally {
    await removeDir(ws);
  }
});

test('monitor --once without --json prints a readable summary', async () => {
  const ws = await tempDir();
  try {
    const log = path.join(ws, 'x.log');
    await writeFile(log, rolloutLines(0, 6).join('\n') + '\n');
    const c = ctxFor(ws, [log], { once: true }, false);
    assert.equal(await monitorCommand(c.ctx), 0);
    assert.match(c.out(), /rollouts: 1 · steps: 1 · samples: 6 \(reward=1: 2\)/);
    assert.match(c.out(), /fail_to_pass_failure=4/);
    assert.doesNotMatch(c.out(), /SIMULATED/);
    // The same log with the simulator's manifest beside it is labelled; the JSON document keeps its exact shape.
    await writeFile(path.join(ws, 'simulation.json'), JSON.stringify({ simulated: true }));
    const sim = ctxFor(ws, [log], { once: true }, false);
    assert.equal(await monitorCommand(sim.ctx), 0);
    assert.match(sim.out(), /^run: x\.log \(SIMULATED: written by the console's run simulator, not training output\)$/m);
    const json = ctxFor(ws, [log], { once: true });
    assert.equal(await monitorCommand(json.ctx), 0);
    assert.equal('simulated' in JSON.parse(json.out()), false);
  } finally {
    await removeDir(ws);
  }
});

test('monitor raysubmit_<id> --once --json reads `ray job logs <id>` (fake ray), and reports a failing ray', async () => {
  const ws = await tempDir();
  try {
    const { chmod } = await import('node:fs/promises');
    const logs = path.join(ws, 'job.txt');
    await writeFile(logs, [...rolloutLines(0, 3), sampleLine({ reward: 1 })].join('\n') + '\n');
    const ray = path.join(ws, 'ray');
    await writeFile(ray, `#!/bin/sh\n[ "$1 $2" = "job logs" ] || exit 9\nfor a in "$@"; do [ "$a" = "-f" ] && exit 8; done\n[ "$3" = "raysubmit_abc123" ] || { echo "no such job" >&2; exit 1; }\ncat ${JSON.stringify(logs)}\n`);
    await chmod(ray, 0o755);
    const c = ctxFor(ws, ['raysubmit_abc123'], { once: true });
    c.ctx.env = { SWEGYM_RAY_BIN: ray };
    assert.equal(await monitorCommand(c.ctx), 0);
    const doc = JSON.parse(c.out());
    assert.equal(doc.rollouts.length, 1);
    assert.equal(doc.in_progress.samples.total, 1);
    const bad = ctxFor(ws, ['raysubmit_zzz'], { once: true });
    bad.ctx.env = { SWEGYM_RAY_BIN: ray };
    await assert.rejects(monitorCommand(bad.ctx), /ray job logs raysubmit_zzz` failed/);
  } finally {
    await removeDir(ws);
  }
});

/** 40 rollouts of 32 samples between Ray noise, repeated to at least `bytes`. */
function runLogOf(bytes: number): string {
  const noise = '(SGLangEngine pid=4, ip=10.0.0.3) [2026-08-01 12:00:00 TP0] Decode batch. #running-req: 12, gen throughput (token/s): 1234.56';
  const lines: string[] = [...EFFECTIVE_LINES];
  for (let r = 0; r < 40; r++) for (const l of rolloutLines(r, 32)) lines.push(l, noise, noise);
  const body = lines.join('\n') + '\n';
  return body.repeat(Math.ceil(bytes / body.length));
}

test('monitor --once --json through the built binary: the bundled scan workers give the document of classifying every line', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    // Several segments (2 MiB), so that both workers scan and the results are put back in order.
    const text = runLogOf(9 * 1024 * 1024);
    await writeFile(file, text);
    const reference = new RunModel({ name: 'run.log' });
    for (const l of text.split('\n').slice(0, -1)) reference.ingestLine(l);
    const { execFile } = await import('node:child_process');
    const bin = path.resolve('bin/swegym-console');
    const want = JSON.parse(JSON.stringify(reference.toJson()));
    // The WebAssembly marker search (the default), findMarkedLines on request, and findMarkedLines where the runtime
    // has no WebAssembly (Node's --jitless): the same document.
    for (const [search, asked, nodeFlags] of [['wasm', 'wasm', []], ['js', 'js', []], ['js', 'wasm', ['--jitless']]] as const) {
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        // Workers only (the main thread could scan all of this small file before a worker has started).
        const env = { ...process.env, SWEGYM_MONITOR_WORKERS: '2', SWEGYM_MONITOR_MAIN_SCANS: '0', ...(asked === 'js' ? { SWEGYM_MONITOR_MARKER_SEARCH: 'js' } : {}) };
        execFile(process.execPath, [...nodeFlags, bin, '--debug', 'monitor', file, '--once', '--json'], { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
        );
      });
      assert.equal(result.code, 0, result.stderr);
      const scanned = /in (\d+) segments with 2 thread\(s\) \((\d+) by worker threads(, one started by the entry)?\), marker search: (\w+)/.exec(result.stderr);
      assert.ok(scanned, result.stderr);
      assert.equal(scanned[3], undefined, 'a log under 48 MiB: the entry starts no worker of its own');
      assert.ok(Number(scanned[1]) >= 3, 'several segments');
      assert.equal(scanned[2], scanned[1], 'every segment scanned by the bundled worker threads');
      assert.equal(scanned[4], search);
      // The model's document, plus the run's liveness (issue 18), which is not the model's.
      const { liveness, trajectories: _t, sandboxes: _s, cluster: _c, hangs: _h, log_since_record: _l, ...doc } = JSON.parse(result.stdout) as Record<string, unknown>;
      assert.equal((liveness as { state: string }).state, 'running');
      assert.deepEqual(doc, want, `marker search ${search} ${nodeFlags.join(' ')}`);
    }
  } finally {
    await removeDir(dir);
  }
});

test('monitor LARGE_LOG --once --json through the built binary: the scan adopts the worker the entry started, same document', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    // Just past the 48 MiB from which the scan uses worker threads (and the entry starts one beforehand).
    await writeFile(file, runLogOf(48 * 1024 * 1024 + 1));
    const { execFile } = await import('node:child_process');
    const bin = path.resolve('bin/swegym-console');
    const once = (env: NodeJS.ProcessEnv) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [bin, '--debug', 'monitor', file, '--once', '--json'], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
        );
      });
    // Two threads whatever the machine's cores (the main thread and one worker).
    const parallel = await once({ SWEGYM_MONITOR_WORKERS: '2' });
    assert.equal(parallel.code, 0, parallel.stderr);
    assert.match(parallel.stderr, /with 2 thread\(s\) \([1-9]\d* by worker threads, one started by the entry\)/);
    const alone = await once({ SWEGYM_MONITOR_WORKERS: '1' });
    assert.equal(alone.code, 0, alone.stderr);
    assert.match(alone.stderr, /with 1 thread\(s\) \(0 by worker threads\)/);
    const doc = (text: string) => {
      const { sandboxes: _s, liveness: _l, ...rest } = JSON.parse(text) as Record<string, unknown>;
      return rest;
    };
    assert.deepEqual(doc(parallel.stdout), doc(alone.stdout));
  } finally {
    await removeDir(dir);
  }
});
