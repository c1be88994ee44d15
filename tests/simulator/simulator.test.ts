// The run simulator: its lines follow the reference formats (recipe §1.7, §6.5, §6.6 — checked with regexes
// written here from the reference, not with the monitor's parser), it is deterministic for a seed, its reward
// curve rises like the published one, and traj files (§7) are written atomically.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pyFloat, pyRepr, pyInt } from '../../src/services/simulator/pyReprWrite.js';
import { generateOffline, LiveSimulator, type SimManifest } from '../../src/services/simulator/writer.js';
import { Rng } from '../../src/services/simulator/rng.js';
import { parseCommandLine, helpText } from '../../src/cli/args.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import type { CommandContext } from '../../src/cli/context.js';
import { ConsoleError, ExitCode } from '../../src/services/errors.js';

// ---- reference formats, as regexes -------------------------------------------------------------

const ESC = '(?:\\u001b\\[[0-9;]*m)?';
/** Ray's actor prefix `(Actor pid=…, ip=…)`, possibly coloured. */
const RAY = `${ESC}\\((\\w+) pid=\\d+, ip=\\d+\\.\\d+\\.\\d+\\.\\d+\\)${ESC} `;
/** Python logging `[%(asctime)s] %(filename)s:%(lineno)d - %(message)s`, date `YYYY-MM-DD HH:MM:SS`. */
const PYLOG = `\\[(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d)\\] ([\\w.]+\\.py):(\\d+) - `;
const RE = {
  effective: /^effective_(parallelism|blackbox|claude_code|batch|grpo): (\S+=\S*)( \S+=\S*)*$/,
  nodeCount: /^Current Ray node count: (\d+); expected ACTOR_NUM_NODES: (\d+)$/,
  router: new RegExp(`^${RAY}${PYLOG}Router launched at \\d+\\.\\d+\\.\\d+\\.\\d+:\\d+, Prometheus port: \\d+$`),
  sample: new RegExp(`^${RAY}${PYLOG}SWE-Gym reward=(\\d\\.\\d) raw=(\\d\\.\\d) integrity=(True|False) instance=([A-Za-z0-9_.-]+__[A-Za-z0-9_.-]+-\\d+) f2p=(\\d+|None)/(\\d+|None) p2p=(\\d+|None)/(\\d+|None) reason=(\\S*)$`),
  dict: new RegExp(`^${RAY}${PYLOG}(step|rollout|perf) (\\d+): (\\{.*\\})$`),
  memory: new RegExp(`^${RAY}${PYLOG}\\[Rank \\d+\\] Memory-Usage [^:]+: (\\{.*\\})$`),
  earlyStop: new RegExp(`${PYLOG}harvesting blackbox rollout after agent early stop: session_id=bbs-[0-9a-f-]{36} kind=(max_steps_exceeded|context_overflow)$`),
  aborted: new RegExp(`${PYLOG}blackbox rollout failed for session_id=bbs-[0-9a-f-]{36}: .+$`),
  freshEval: new RegExp(`${PYLOG}fresh SWE-Gym evaluation failed for instance=\\S+: .+$`),
  pollRetry: new RegExp(`${PYLOG}SWE-Gym evaluator poll failed; retrying: session_id=\\S+ attempt=\\d+ error=.+$`),
  patchRetry: new RegExp(`${PYLOG}source patch extraction failed transiently; retrying: session_id=\\S+ attempt=\\d+/\\d+ delay=[\\d.]+s status=\\d+ body=.* error=.+$`),
  groupFailed: new RegExp(`${PYLOG}rollout group exhausted retries and will be marked failed: task_error=\\w+: .+ statuses=ABORTED:\\d+,COMPLETED:\\d+ sample\\[\\d+ session_id=bbs-[0-9a-f-]{36} instance_id=\\S+\\] blackbox_error=.+$`),
  checkpoint: new RegExp(`^${RAY}saving checkpoint at iteration +(\\d+) to \\S+ in torch_dist format$`),
};
const REASONS = new Set(['', 'fail_to_pass_failure', 'pass_to_pass_regression', 'test_log_parse_failure', 'missing_official_log_parser', 'empty_generation', 'prohibited_test_modification', 'failed_apply_patch', 'patch_extract_failed', 'fresh_eval_exception', 'missing_reward_marker', 'invalid_reward_marker']);

/** A small Python-literal reader (dict/list/str/int/float/nan/inf/True/False/None), independent of the monitor's. */
function parsePy(src: string): unknown {
  let i = 0;
  const ws = () => {
    while (src[i] === ' ') i++;
  };
  const value = (): unknown => {
    ws();
    const ch = src[i];
    if (ch === '{') {
      i++;
      const out: Record<string, unknown> = {};
      ws();
      if (src[i] === '}') return i++, out;
      for (;;) {
        const k = value();
        ws();
        assert.equal(src[i++], ':', `colon expected at ${i} in ${src}`);
        out[String(k)] = value();
        ws();
        const sep = src[i++];
        if (sep === '}') return out;
        assert.equal(sep, ',', `comma expected at ${i} in ${src}`);
      }
    }
    if (ch === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (src[i] === ']') return i++, arr;
      for (;;) {
        arr.push(value());
        ws();
        const sep = src[i++];
        if (sep === ']') return arr;
        assert.equal(sep, ',');
      }
    }
    if (ch === "'" || ch === '"') {
      const q = ch;
      i++;
      let s = '';
      while (src[i] !== q) {
        if (src[i] === '\\') i++;
        s += src[i++];
        assert.ok(i < src.length, 'unterminated string');
      }
      i++;
      return s;
    }
    const m = /^(-?inf|nan|True|False|None|-?\d+(?:\.\d+)?(?:e[+-]\d+)?)/.exec(src.slice(i));
    assert.ok(m, `bad token at ${i}: ${src.slice(i, i + 20)}`);
    i += m[0].length;
    const t = m[0];
    if (t === 'nan') return NaN;
    if (t === 'inf') return Infinity;
    if (t === '-inf') return -Infinity;
    if (t === 'True') return true;
    if (t === 'False') return false;
    if (t === 'None') return null;
    return Number(t);
  };
  const v = value();
  ws();
  assert.equal(i, src.length, `trailing text in ${src}`);
  return v;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(p);
    }
  };
  await walk(dir);
  return out.sort();
}

// ---- Python repr -------------------------------------------------------------------------------

test('floats print exactly as Python repr prints them', () => {
  // Expected strings produced by CPython 3 `repr(float)`.
  const cases: [number, string][] = [
    [0.1, '0.1'], [1e-6, '1e-06'], [1.5e-5, '1.5e-05'], [0.0001, '0.0001'], [0.00012, '0.00012'],
    [123456789, '123456789.0'], [1e16, '1e+16'], [1.2345e16, '1.2345e+16'], [-0.5, '-0.5'], [2, '2.0'],
    [128, '128.0'], [1 / 3, '0.3333333333333333'], [1e-10, '1e-10'], [-2.287711526812492e-6, '-2.287711526812492e-06'],
    [9999999999999998, '9999999999999998.0'], [NaN, 'nan'], [Infinity, 'inf'], [-Infinity, '-inf'], [0, '0.0'],
    [-0, '-0.0'], [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'],
  ];
  for (const [x, want] of cases) assert.equal(pyFloat(x), want, String(x));
  assert.equal(pyRepr({ a: pyInt(1), b: 'x', c: true, d: null, "e'": [1, pyInt(2)] }), `{'a': 1, 'b': 'x', 'c': True, 'd': None, "e'": [1.0, 2]}`);
});

test('the generator is seeded and forks independent streams', () => {
  const a = new Rng(42);
  const b = new Rng(42);
  const xs = Array.from({ length: 50 }, () => a.u32());
  assert.deepEqual(Array.from({ length: 50 }, () => b.u32()), xs);
  const c = new Rng(43);
  assert.notDeepEqual(Array.from({ length: 50 }, () => c.u32()), xs);
  assert.match(new Rng(1).uuid4(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

// ---- an offline run: every line follows the reference ------------------------------------------

const SMALL = { numRollouts: 12, noiseLinesPerSecond: 0.2, seed: 7, abortRate: 0.02 };

test('an offline run follows the launcher, metric and per-sample formats', async () => {
  const dir = await tempDir('swegym-sim-');
  try {
    const m = await generateOffline({ dir, config: SMALL, trajLimit: 40, checkpoints: true });
    const text = await readFile(path.join(dir, 'run.log'), 'utf8');
    const lines = text.split('\n');
    assert.equal(lines.pop(), '', 'the log ends with a newline');
    assert.equal(m.counts.lines, lines.length);
    assert.equal(m.counts.bytes, Buffer.byteLength(text));

    // §1.7: the five effective_* lines first, in the launcher's order; node-count wait ends at the expected count.
    assert.deepEqual(lines.slice(0, 5).map((l) => RE.effective.exec(l)?.[1]), ['parallelism', 'blackbox', 'claude_code', 'batch', 'grpo']);
    assert.match(lines[3] as string, /num_rollout=12 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128/);
    const counts = lines.map((l) => RE.nodeCount.exec(l)).filter((x) => x !== null);
    assert.ok(counts.length >= 2);
    assert.equal(counts.at(-1)?.[1], counts.at(-1)?.[2]);
    assert.equal(lines.filter((l) => RE.router.test(l)).length, 1);

    // §6.6: per-sample lines, consistent fields; their count is what grep -c would print.
    const samples = lines.map((l) => RE.sample.exec(l)).filter((x) => x !== null);
    assert.equal(samples.length, lines.filter((l) => l.includes('SWE-Gym reward=')).length, 'every line with the marker text is a well-formed sample line');
    assert.equal(samples.length, m.counts.sampleLines);
    let one = 0;
    for (const s of samples) {
      const [reward, raw, integrity, , f2pA, f2pB, p2pA, p2pB, reason] = s.slice(5);
      assert.equal(s[1], 'RolloutManager');
      assert.ok(['0.0', '1.0'].includes(reward as string) && ['0.0', '1.0'].includes(raw as string));
      assert.ok(REASONS.has(reason as string), `reason ${reason}`);
      if (reward === '1.0') {
        one++;
        assert.equal(raw, '1.0');
        assert.equal(integrity, 'False');
        assert.equal(reason, '');
        assert.equal(f2pA, f2pB);
        assert.equal(p2pA, p2pB);
      }
      if (integrity === 'True') assert.equal(reward, '0.0', 'an integrity violation zeroes the reward');
      if (raw === '0.0') assert.notEqual(reason, '', 'an unresolved sample has a reason');
      assert.equal(f2pA === 'None', f2pB === 'None');
    }
    assert.equal(one, m.counts.rewardOne);

    // §6.5: step/rollout/perf dicts parse as Python literals, one of each per rollout (perf twice), in order.
    const dicts = lines.map((l) => RE.dict.exec(l)).filter((x) => x !== null);
    for (let id = 0; id < SMALL.numRollouts; id++) {
      const of = (kind: string) => dicts.filter((d) => d[5] === kind && Number(d[6]) === id).map((d) => parsePy(d[7] as string) as Record<string, unknown>);
      const [perfRm, perfTrain] = of('perf');
      const [rollout] = of('rollout');
      const [step] = of('step');
      assert.ok(perfRm && perfTrain && rollout && step, `rollout ${id} has its dict lines`);
      assert.equal(typeof perfRm['rollout/raw_reward_trajectory_mean'], 'number');
      assert.equal(typeof perfTrain['perf/step_time'], 'number');
      assert.equal(typeof rollout['rollout/raw_reward'], 'number');
      assert.equal(step['train/step'], id);
      assert.equal(step['train/global_batch_size'], 128);
      for (const k of ['train/loss', 'train/grad_norm', 'train/train_rollout_logprob_abs_diff', 'train/kl_loss']) assert.ok(k in step, k);
    }
    // The Ray actors of §6.5: the rollout manager logs perf, the train actor logs step/rollout.
    for (const d of dicts) assert.equal(d[1], d[5] === 'step' || d[5] === 'rollout' ? 'MegatronTrainRayActor' : d[1]);
    // A rollout's samples precede its first summary line.
    const firstPerf1 = lines.findIndex((l) => / perf 1: /.test(l));
    const lastSample0 = lines.findLastIndex((l) => RE.sample.test(l) && lines.indexOf(l) < firstPerf1);
    assert.ok(lastSample0 < firstPerf1);
    for (const l of lines.filter((l) => RE.memory.test(l))) parsePy(RE.memory.exec(l)?.[5] as string);

    // Checkpoints every 10 rollouts and at the last one (§6.3), on disk too.
    assert.deepEqual(lines.map((l) => RE.checkpoint.exec(l)?.[2]).filter((x) => x !== undefined).map(Number), [9, 11]);
    assert.equal((await readFile(path.join(dir, 'checkpoints', 'latest_checkpointed_iteration.txt'), 'utf8')).trim(), '11');

    // Failure lines, when present, are well formed; with abortRate 0.02 over 1,536 samples some groups fail.
    assert.ok(m.counts.failedGroups > 0);
    assert.equal(lines.filter((l) => l.includes('rollout group exhausted retries')).length, m.counts.failedGroups);
    for (const [needle, re] of [
      ['rollout group exhausted', RE.groupFailed], ['blackbox rollout failed for', RE.aborted], ['harvesting blackbox rollout', RE.earlyStop],
      ['fresh SWE-Gym evaluation failed', RE.freshEval], ['evaluator poll failed', RE.pollRetry], ['patch extraction failed transiently', RE.patchRetry],
    ] as const) {
      const hits = lines.filter((l) => l.includes(needle));
      assert.ok(hits.length > 0, `${needle} appears`);
      for (const h of hits) assert.match(h, re);
    }

    // Timestamps never go backwards.
    let last = '';
    for (const l of lines) {
      const ts = /\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?: TP\d)?\]/.exec(l)?.[1];
      if (!ts) continue;
      assert.ok(ts >= last, `timestamp ${ts} after ${last}`);
      last = ts;
    }
    assert.match(lines.at(-2) ?? '', /^Job 'raysubmit_\w+' succeeded$/);
  } finally {
    await removeDir(dir);
  }
});

test('traj_payload and traj_err files follow §7 and no temp file is left', async () => {
  const dir = await tempDir('swegym-sim-');
  try {
    const m = await generateOffline({ dir, config: { ...SMALL, numRollouts: 4, abortRate: 0.05 }, trajLimit: Infinity });
    const files = await listFiles(dir);
    assert.equal(files.filter((f) => path.basename(f).endsWith('.tmp')).length, 0);
    const run = m.config.runName;
    const payload = files.filter((f) => f.includes(`${path.sep}traj_payload${path.sep}${run}${path.sep}`));
    const errs = files.filter((f) => f.includes(`${path.sep}traj_err${path.sep}${run}${path.sep}`));
    const sessions = payload.filter((f) => f.endsWith(`${path.sep}session.json`));
    assert.equal(sessions.length, m.counts.sampleLines, 'one session.json per finished sample');
    assert.ok(errs.length > 0 && errs.every((f) => f.endsWith(`${path.sep}error.json`)));
    for (const f of sessions.slice(0, 20)) {
      const rel = path.relative(path.join(dir, 'traj_payload', run), f).split(path.sep);
      assert.equal(rel.length, 3);
      assert.match(rel[0] as string, /^[A-Za-z0-9._-]+$/);
      assert.match(rel[1] as string, /^bbs-[0-9a-f-]{36}$/);
      const s = JSON.parse(await readFile(f, 'utf8'));
      assert.equal(s.success, true);
      assert.equal(s.mode, 'trajectory');
      assert.equal(s.drained, true);
      assert.ok(Array.isArray(s.data) && s.data.length >= 1);
      for (const k of ['uid', 'trajectory_id', 'instance_id', 'segment_index', 'segment_count', 'messages', 'tokens', 'finish_reason', 'extra_info']) assert.ok(k in s.data[0], k);
      const sampleFiles = payload.filter((p) => p.startsWith(path.dirname(f) + path.sep + 'samples' + path.sep));
      assert.equal(sampleFiles.length, s.data.length, 'one samples/<i>.json per segment');
      const last = JSON.parse(await readFile(path.join(path.dirname(f), 'samples', `${s.data.length - 1}.json`), 'utf8'));
      assert.equal(last.reward, null, 'the anchor segment is written before the reward');
      const cmds = last.metadata.execute_cmds as { stage: string; name: string; cmd_result: { stdout: string } }[];
      const harness = cmds.find((c) => c.stage === 'after_agent' && c.name === 'swegym_harness');
      assert.ok(harness);
      const markerLine = harness.cmd_result.stdout.split('\n').find((l) => l.startsWith('DRESSAGE_SWEGYM_REWARD_JSON='));
      if (markerLine) assert.equal(typeof JSON.parse(markerLine.slice('DRESSAGE_SWEGYM_REWARD_JSON='.length)).resolved, 'boolean');
      assert.equal(last.metadata.swegym_eval.mode, 'fresh_sandbox');
    }
    const e = JSON.parse(await readFile(errs[0] as string, 'utf8'));
    assert.equal(e.success, false);
    for (const k of ['timestamp', 'session_id', 'trajectory_id', 'instance_id', 'blackbox_type', 'error', 'http', 'sample', 'env_args', 'state', 'agent_response']) assert.ok(k in e, k);
    for (const k of ['type', 'message', 'summary', 'traceback']) assert.ok(k in e.error, k);
  } finally {
    await removeDir(dir);
  }
});

test('same seed, same run; another seed, another run', async () => {
  const dirs = [await tempDir('swegym-sim-'), await tempDir('swegym-sim-'), await tempDir('swegym-sim-')];
  try {
    const cfg = { ...SMALL, numRollouts: 3 };
    await generateOffline({ dir: dirs[0] as string, config: cfg, trajLimit: 10 });
    await generateOffline({ dir: dirs[1] as string, config: cfg, trajLimit: 10 });
    await generateOffline({ dir: dirs[2] as string, config: { ...cfg, seed: 8 }, trajLimit: 10 });
    const read = (d: string) => readFile(path.join(d, 'run.log'), 'utf8');
    assert.equal(await read(dirs[1] as string), await read(dirs[0] as string));
    assert.notEqual(await read(dirs[2] as string), await read(dirs[0] as string));
    const rel = async (d: string) => (await listFiles(d)).filter((f) => f.includes('traj_')).map((f) => path.relative(d, f));
    const a = await rel(dirs[0] as string);
    assert.deepEqual(await rel(dirs[1] as string), a);
    for (const f of a.slice(0, 5)) assert.equal(await readFile(path.join(dirs[1] as string, f), 'utf8'), await readFile(path.join(dirs[0] as string, f), 'utf8'));
  } finally {
    for (const d of dirs) await removeDir(d);
  }
});

test('the reward curve rises like the published one (~0.27 → > 0.6 over 80 steps)', async () => {
  const dir = await tempDir('swegym-sim-');
  try {
    const m: SimManifest = await generateOffline({ dir, config: { numRollouts: 100, noiseLinesPerSecond: 0, seed: 3 } });
    const mean = (a: number, b: number) => m.rollouts.slice(a, b).reduce((s, r) => s + r.trajectoryMean, 0) / (b - a);
    const early = mean(0, 10);
    const late = mean(75, 90);
    assert.ok(early > 0.18 && early < 0.36, `early mean ${early}`);
    assert.ok(late > 0.55, `late mean ${late}`);
    // And the perf lines carry those same values.
    const text = await readFile(path.join(dir, 'run.log'), 'utf8');
    const logged = [...text.matchAll(/perf (\d+): \{'rollout\/raw_reward_trajectory_mean': ([^,]+),/g)].map((x) => Number(x[2]));
    assert.deepEqual(logged, m.rollouts.map((r) => r.trajectoryMean));
  } finally {
    await removeDir(dir);
  }
});

test('a size target grows the log with noise and keeps the sample count exact', async () => {
  const dir = await tempDir('swegym-sim-');
  try {
    const target = 3_000_000;
    const m = await generateOffline({ dir, config: { numRollouts: 40, seed: 5 }, targetBytes: target });
    const text = await readFile(path.join(dir, 'run.log'), 'utf8');
    assert.ok(Buffer.byteLength(text) >= target);
    assert.ok(Buffer.byteLength(text) < target * 1.2, `${Buffer.byteLength(text)} bytes`);
    assert.equal(text.split('\n').filter((l) => l.includes('SWE-Gym reward=')).length, m.counts.sampleLines);
  } finally {
    await removeDir(dir);
  }
});

// ---- live mode and atomic traj writes ------------------------------------------------------------

test('live mode appends at pace, reports live sandboxes, and a reader never sees a half-written traj file', async () => {
  const dir = await tempDir('swegym-sim-');
  const sim = new LiveSimulator({
    dir,
    speed: 20,
    tickMs: 20,
    config: { numRollouts: 3, rolloutSeconds: 6, trainSeconds: 1, startupSeconds: 1, noiseLinesPerSecond: 50, seed: 11, concurrency: 128 },
  });
  try {
    await sim.start();
    let parsed = 0;
    let sawSandboxes = 0;
    const seen = new Set<string>();
    // Read every traj JSON that exists right now: each must be complete (atomic rename).
    const readWhole = async () => {
      for (const f of await listFiles(path.join(dir, 'traj_payload'))) {
        if (seen.has(f)) continue;
        assert.ok(!path.basename(f).endsWith('.tmp') || !f.endsWith('.json'));
        if (!f.endsWith('.json')) continue;
        JSON.parse(await readFile(f, 'utf8'));
        seen.add(f);
        parsed++;
      }
    };
    await waitFor(
      async () => {
        const snap = sim.snapshot();
        assert.equal(snap.simulated, true);
        if (snap.phase === 'generating') sawSandboxes = Math.max(sawSandboxes, snap.sandboxes.length);
        await readWhole();
        return snap.phase === 'finished';
      },
      { timeoutMs: 60_000, message: () => JSON.stringify(sim.snapshot()).slice(0, 300) },
    );
    // The last files are written after the log's end (a loaded machine may write all of them then): read on while
    // they are, so every file is read while the writer is still at work.
    let stopped = false;
    const stopping = sim.stop().then(() => (stopped = true));
    while (!stopped) await readWhole();
    await stopping;
    await readWhole();
    assert.ok(parsed > 0, 'traj files were read whole while they were being written');
    assert.ok(sawSandboxes > 0, 'sandboxes were live during generation');
    const text = await readFile(sim.logFile, 'utf8');
    const sampleLines = text.split('\n').filter((l) => RE.sample.test(l)).length;
    assert.equal(sampleLines, sim.counts.sampleLines);
    assert.equal(sim.counts.rollouts, 3);
    const left = (await listFiles(dir)).filter((f) => f.endsWith('.tmp'));
    assert.deepEqual(left, []);
    const manifest = JSON.parse(await readFile(path.join(dir, 'simulation.json'), 'utf8'));
    assert.equal(manifest.simulated, true);
    assert.equal(manifest.complete, true);
  } finally {
    await sim.stop();
    await removeDir(dir);
  }
});

test('live mode on a machine slower than its clock: past the backlog a sample\'s trajectory files are left out and counted; the log is whole', async () => {
  const dir = await tempDir('swegym-sim-');
  const sim = new LiveSimulator({ dir, speed: 1e6, tickMs: 5, trajBacklog: 0, config: { numRollouts: 2, rolloutSeconds: 6, trainSeconds: 1, startupSeconds: 1, seed: 5 } });
  try {
    await sim.start();
    await sim.finished;
    const text = await readFile(sim.logFile, 'utf8');
    assert.equal(text.split('\n').filter((l) => RE.sample.test(l)).length, sim.counts.sampleLines);
    assert.ok(sim.counts.sampleLines > 0);
    assert.equal(sim.counts.trajFiles, 0);
    assert.ok((sim.counts.trajFilesLeftOut ?? 0) >= sim.counts.sampleLines, JSON.stringify(sim.counts));
    const manifest = JSON.parse(await readFile(path.join(dir, 'simulation.json'), 'utf8')) as { counts: { trajFilesLeftOut?: number } };
    assert.equal(manifest.counts.trajFilesLeftOut, sim.counts.trajFilesLeftOut, 'the manifest says how many were left out');
  } finally {
    await sim.stop();
    await removeDir(dir);
  }
});

test('stop() of a live run with trajectory writes queued drops the queue: every file is written or counted as left out, none half-written', async () => {
  const dir = await tempDir('swegym-sim-');
  // ~1.4 rollouts (≈ 300 files) per 5 ms tick: far more than four writers keep up with, far from the run's end.
  const sim = new LiveSimulator({ dir, speed: 2000, tickMs: 5, trajBacklog: Infinity, config: { numRollouts: 50, rolloutSeconds: 6, trainSeconds: 1, startupSeconds: 1, seed: 6, concurrency: 128 } });
  try {
    await sim.start();
    await waitFor(() => sim.counts.trajFiles > 0, { message: () => JSON.stringify(sim.counts) });
    await sim.stop();
    const written = [...(await listFiles(path.join(dir, 'traj_payload'))), ...(await listFiles(path.join(dir, 'traj_err')))].filter((f) => f.endsWith('.json'));
    assert.equal(written.length + (sim.counts.trajFilesLeftOut ?? 0), sim.counts.trajFiles, `${written.length} written, ${JSON.stringify(sim.counts)}`);
    assert.deepEqual((await listFiles(dir)).filter((f) => f.endsWith('.tmp')), []);
    assert.ok((sim.counts.trajFilesLeftOut ?? 0) > 0, 'the queued writes were dropped, not waited for');
    assert.equal(sim.snapshot().phase, 'stopped');
  } finally {
    await sim.stop();
    await removeDir(dir);
  }
});

test('live mode: a stop asked while start() is still preparing (a SIGTERM in the first moments) ends the run', { timeout: 20_000 }, async () => {
  const dir = await tempDir('swegym-sim-');
  const ac = new AbortController();
  const sim = new LiveSimulator({ dir, speed: 1, signal: ac.signal, config: { numRollouts: 50, seed: 3 } });
  try {
    const starting = sim.start();
    ac.abort();
    await starting;
    await sim.finished;
    assert.equal(sim.snapshot().phase, 'stopped');
  } finally {
    await sim.stop();
    await removeDir(dir);
  }
});

// ---- the hidden CLI command ----------------------------------------------------------------------

function ctxFor(argv: string[]): { ctx: CommandContext; out: () => string } {
  const r = parseCommandLine(argv, {}, '/');
  assert.equal(r.kind, 'command');
  if (r.kind !== 'command') throw new Error('unreachable');
  let out = '';
  const sink = { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream;
  return {
    ctx: { command: r.spec.words, positionals: r.positionals, options: r.options, global: r.global, paths: recipePaths(r.global.workspace), stdout: sink, stderr: sink, env: {}, signal: new AbortController().signal },
    out: () => out,
  };
}

test('simulate is a developer command: works, refuses to overwrite, listed apart in --help', async () => {
  assert.match(helpText('0.0.0'), /developer tools:\n {2}simulate DIR /);
  const dir = await tempDir('swegym-sim-');
  try {
    const { simulateCommand, parseSize } = await import('../../src/cli/commands/simulate.js');
    assert.equal(parseSize('1GB'), 1e9);
    assert.equal(parseSize('2GiB'), 2 * 1024 ** 3);
    assert.throws(() => parseSize('lots'), ConsoleError);
    const a = ctxFor(['simulate', dir, '--rollouts', '2', '--seed', '4', '--json', '--traj', '5']);
    assert.equal(await simulateCommand(a.ctx), 0);
    const doc = JSON.parse(a.out());
    assert.equal(doc.simulated, true);
    assert.equal(doc.counts.rollouts, 2);
    const before = await readFile(path.join(dir, 'run.log'), 'utf8');
    const b = ctxFor(['simulate', dir, '--rollouts', '3']);
    await assert.rejects(simulateCommand(b.ctx), (e: unknown) => e instanceof ConsoleError && e.exitCode === ExitCode.precondition);
    assert.equal(await readFile(path.join(dir, 'run.log'), 'utf8'), before, 'nothing lost');
    const c = ctxFor(['simulate', dir, '--rollouts', 'x']);
    await assert.rejects(simulateCommand(c.ctx), (e: unknown) => e instanceof ConsoleError && e.exitCode === ExitCode.usage);
  } finally {
    await removeDir(dir);
  }
});
