import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LINE_MARKERS, parseLine, splitPrefixes, stripAnsi } from '../../src/services/monitor/lines.js';
import { metricLine, sampleLine, stepMetrics, perfMetrics, RM, TRAIN, pyLog, EFFECTIVE_LINES } from './builders.js';

test('Ray prefixes, ANSI colour and Python logging prefixes are removed', () => {
  const line = `\u001b[36m(RolloutManager pid=2211, ip=10.0.0.1)\u001b[0m [2026-08-01 12:00:05] reward.py:88 - hello`;
  const p = splitPrefixes(line);
  assert.equal(p.message, 'hello');
  assert.equal(p.actor, 'RolloutManager');
  assert.equal(p.time, Date.parse('2026-08-01T12:00:05Z'));
  assert.equal(splitPrefixes('(pid=12) x').message, 'x');
  assert.equal(splitPrefixes('(raylet, ip=10.0.0.9) y').message, 'y');
  assert.equal(stripAnsi('\u001b[1;31mred\u001b[0m'), 'red');
});

test('step/rollout/perf/eval lines give their dicts with keys exactly as logged', () => {
  const ev = parseLine(metricLine('step', 7, stepMetrics(7))).event;
  assert.equal(ev?.kind, 'summary');
  if (ev?.kind !== 'summary') return;
  assert.equal(ev.type, 'step');
  assert.equal(ev.n, 7);
  assert.equal(ev.metrics['train/grad_norm'], 0.31);
  assert.equal(ev.metrics['train/lr-pg_0'], 1e-6);
  const perf = parseLine(metricLine('perf', 7, perfMetrics(7))).event;
  assert.equal(perf?.kind === 'summary' && perf.metrics['rollout/zero_std/count_0.0'], 3);
  const ev2 = parseLine(`${TRAIN}${pyLog('model.py', 1, "eval 3: {'eval/swegym': nan, 'eval/x': -inf}")}`).event;
  assert.ok(ev2?.kind === 'summary' && ev2.type === 'eval' && Number.isNaN(ev2.metrics['eval/swegym']));
});

test('per-sample lines: all fields, empty reason, integrity=True', () => {
  const ev = parseLine(sampleLine({ reward: 0, raw: 1, integrity: true, instance: 'pandas-dev__pandas-5', f2p: '2/3', p2p: '40/41', reason: 'swegym_integrity_violation' })).event;
  assert.deepEqual(ev, { kind: 'sample', reward: 0, raw: 1, integrity: true, instance: 'pandas-dev__pandas-5', f2p: [2, 3], p2p: [40, 41], reason: 'swegym_integrity_violation' });
  const ok = parseLine(sampleLine({ reward: 1 })).event;
  assert.ok(ok?.kind === 'sample' && ok.reason === '' && ok.reward === 1);
});

test('[repeated Nx across cluster] folding still parses and carries the count', () => {
  const p = parseLine(`${sampleLine({ reward: 1 })} [repeated 3x across cluster]`);
  assert.equal(p.repeat, 3);
  assert.equal(p.event?.kind, 'sample');
  const s = parseLine(`${metricLine('step', 2, { 'train/loss': 0.5 })} [repeated 2x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)`);
  assert.ok(s.event?.kind === 'summary' && s.event.metrics['train/loss'] === 0.5);
});

test('failure, retry, launcher and infrastructure lines', () => {
  const k = (l: string) => parseLine(l).event;
  assert.deepEqual(k(RM + pyLog('x.py', 1, 'harvesting blackbox rollout after agent early stop: session_id=bbs-1f kind=max_steps_exceeded')), { kind: 'early_stop', session: 'bbs-1f', stopKind: 'max_steps_exceeded' });
  assert.deepEqual(k(RM + pyLog('x.py', 1, 'blackbox rollout failed for session_id=bbs-2: blackbox agent backend timeout (HTTP 504): Backend call exceeded backend_timeout.')), { kind: 'sample_failed', session: 'bbs-2', summary: 'blackbox agent backend timeout (HTTP 504): Backend call exceeded backend_timeout.' });
  assert.deepEqual(k(RM + pyLog('x.py', 1, 'fresh SWE-Gym evaluation failed for instance=a__b-1: RuntimeError: boom')), { kind: 'eval_failed', instance: 'a__b-1', error: 'RuntimeError: boom' });
  assert.equal(k(RM + pyLog('x.py', 1, 'SWE-Gym evaluator poll failed; retrying: session_id=swegym-eval-ab attempt=2 error=ReadTimeout'))?.kind, 'eval_poll_retry');
  assert.equal(k(RM + pyLog('x.py', 1, 'source patch extraction failed transiently; retrying: session_id=bbs-3 attempt=1/5 delay=2.0s status=503 body=x error=y'))?.kind, 'patch_retry');
  assert.deepEqual(k(RM + pyLog('x.py', 1, 'resubmitting rollout group for retry (attempt 1/2): task_error=X: y')), { kind: 'group_retry', attempt: 1, max: 2, summary: 'task_error=X: y' });
  const gf = k(RM + pyLog('x.py', 1, 'rollout group exhausted retries and will be marked failed: task_error=RuntimeError: sandbox create failed statuses=ABORTED:1,COMPLETED:15 sample[3 session_id=bbs-9 instance_id=a__b-2] blackbox_error=boom'));
  assert.ok(gf?.kind === 'group_failed');
  if (gf?.kind === 'group_failed') {
    assert.deepEqual(gf.statuses, { ABORTED: 1, COMPLETED: 15 });
    assert.equal(gf.errorType, 'RuntimeError');
  }
  assert.deepEqual(k(EFFECTIVE_LINES[3] as string), { kind: 'effective', name: 'batch', values: { num_rollout: '500', rollout_batch_size: '8', n_samples_per_prompt: '16', global_batch_size: '128' } });
  assert.deepEqual(k('Current Ray node count: 2; expected ACTOR_NUM_NODES: 4'), { kind: 'ray_nodes', count: 2, expected: 4 });
  assert.deepEqual(k('Timed out waiting for Ray workers to join.'), { kind: 'ray_timeout' });
  assert.deepEqual(k(RM + pyLog('router.py', 3, 'Router launched at 10.0.0.1:8000, Prometheus port: 29000')), { kind: 'router', host: '10.0.0.1', port: 8000, prometheus: 29000 });
  const mem = k(TRAIN + pyLog('memory.py', 9, "[Rank 3] Memory-Usage after offload: {'gpu': '0', 'total_GB': 139.8, 'free_GB': 120.1, 'used_GB': 19.7}"));
  assert.ok(mem?.kind === 'memory' && mem.rank === 3 && mem.label === 'after offload' && mem.values['free_GB'] === 120.1);
  assert.deepEqual(k('Dressage proxy failed; see /w/outputs/logs/r/proxy/r.log'), { kind: 'proxy_failed', log: '/w/outputs/logs/r/proxy/r.log' });
  assert.equal(k("Job 'raysubmit_abc' failed")?.kind, 'job_end');
  assert.equal(k('Traceback (most recent call last):')?.kind, 'fatal');
  assert.equal(k('DRESSAGE_PROXY_URL must be reachable from the sandbox; got local-only URL: http://127.0.0.1:8800')?.kind, 'fatal');
});

test('garbage, truncated and look-alike lines are skipped', () => {
  for (const l of [
    '',
    'step 3: {broken',
    "step 3: {'a': 1} trailing junk",
    'SWE-Gym reward=1.0 raw=1.0 integ',
    'the rollout 3 went fine',
    '\u0000\u0001\u0002',
    '(RolloutManager pid=1, ip=x) ',
    "{'train/loss': 1}",
  ]) {
    assert.equal(parseLine(l).event, undefined, JSON.stringify(l));
  }
});

test('fuzz: random garbage (incl. look-alikes and binary) between valid lines never throws and never loses a valid line', async () => {
  const { RunModel } = await import('../../src/services/monitor/runModel.js');
  const { LineScanner } = await import('../../src/services/monitor/tail.js');
  let seed = 99;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pieces = ['SWE-Gym reward=', 'step 3: {', "rollout 1: {'a': ", 'perf ', ': {', '}', "'", '"', '\\', 'nan', 'effective_', '[repeated 3x across cluster]', '(RolloutManager pid=1, ip=2) ', '\u001b[31m', '\u0000', 'é', '\ud83d\ude00', 'checkpoint', 'Job \'', 'blackbox rollout failed for session_id=', 'Traceback'];
  const garbage = () => {
    let s = '';
    const n = Math.floor(rnd() * 12);
    for (let i = 0; i < n; i++) s += rnd() < 0.6 ? (pieces[Math.floor(rnd() * pieces.length)] as string) : String.fromCharCode(32 + Math.floor(rnd() * 200));
    return s.replace(/\n/g, ' ');
  };
  for (let round = 0; round < 30; round++) {
    const lines: string[] = [];
    let samples = 0;
    let steps = 0;
    for (let i = 0; i < 200; i++) {
      lines.push(garbage());
      if (rnd() < 0.3) {
        lines.push(sampleLine({ reward: rnd() < 0.5 ? 1 : 0, instance: `t-${i}` }));
        samples++;
      }
      if (rnd() < 0.05) {
        lines.push(metricLine('step', 1000 + steps, { 'train/loss': rnd() }));
        steps++;
      }
    }
    const m = new RunModel();
    const s = new LineScanner((l) => m.ingestLine(l));
    const bytes = Buffer.from(lines.join('\n') + '\n');
    for (let p = 0; p < bytes.length; ) {
      const n = 1 + Math.floor(rnd() * 5000);
      s.push(bytes.subarray(p, p + n));
      p += n;
    }
    s.end();
    // Look-alike fragments never form a whole sample line, and no valid line is lost or doubled.
    assert.equal(m.totals.total, samples, `round ${round}`);
    const validSteps = [...m.steps.keys()].filter((k) => k >= 1000).length;
    assert.equal(validSteps, steps, `round ${round}`);
  }
});

test('launcher refusals and the launch wrapper exit line are classified, and carry a scan marker', () => {
  const k = (l: string) => parseLine(l).event;
  assert.deepEqual(k('[swegym-console] launcher exited with code 1'), { kind: 'launcher_exit', code: 1 });
  for (const l of [
    'REPO_ROOT is required when this script is not inside examples/scripts/.',
    'USE_TIS must be 0 or 1; got 2',
    'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive; got -1',
    'SGLANG_ROUTER_URL is a proxy client target and cannot use a wildcard bind address: http://0.0.0.0:30000',
    'Refusing to clear unsafe DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR: /',
    'run.sh: line 36: PROMPT_DATA: PROMPT_DATA must point to Claude Code SWE-Gym Dressage JSONL',
  ]) {
    assert.deepEqual(k(l), { kind: 'fatal', text: l, exit: true }, l);
    assert.ok(LINE_MARKERS.some(([t]) => l.includes(t)), `a marker in ${l}`);
  }
  assert.deepEqual(k('Traceback (most recent call last):'), { kind: 'fatal', text: 'Traceback (most recent call last):' }, 'a traceback alone does not end the run');
  const gf = k('rollout group exhausted retries and will be marked failed: statuses=ABORTED:1,COMPLETED:15; sample[3 session_id=bbs-1 instance_id=a__b-1] blackbox_error=x');
  assert.ok(gf?.kind === 'group_failed');
  assert.deepEqual(gf.statuses, { ABORTED: 1, COMPLETED: 15 });
});
