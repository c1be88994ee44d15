// Monitor classification of log lines built from upstream's real format strings: Dressage's logger calls formatted
// by slime's configure_logger in python3 (with real tracebacks for exc_info=True), the group-failure summary built by
// Dressage's own _group_failure_summary, and the launcher's refusal lines taken from the launcher scripts. Every line
// goes through the fast scanner (LineScanner), as a run log does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { LineScanner } from '../../src/services/monitor/tail.js';
import { computeAlerts } from '../../src/services/monitor/alerts.js';
import { parseLine } from '../../src/services/monitor/lines.js';
import { DRESSAGE, oracle, oracleOne, upstreamSkipReason } from '../helpers/upstreamOracle.js';

const skip = upstreamSkipReason();
const RM = '(RolloutManager pid=4242, ip=10.0.0.1) ';
const LAUNCHER = 'examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh';
const DEFAULTS = 'examples/scripts/default/dressage_env_defaults.sh';

/** Ray prefixes every line an actor prints. */
const fromActor = (text: string, prefix = RM) => text.split('\n').map((l) => prefix + l);

function feed(lines: string[]): RunModel {
  const model = new RunModel();
  const scanner = new LineScanner((l) => model.ingestLine(l));
  scanner.push(Buffer.from(lines.join('\n') + '\n'));
  scanner.end();
  return model;
}

async function logged(rel: string, contains: string, args: unknown[], exc: string | null = null): Promise<string> {
  const r = await oracleOne('log_record', [rel, contains, args, exc]);
  assert.ok('ok' in r, `upstream log_record: ${JSON.stringify(r)}`);
  return r.ok as string;
}

test('the group-failure summary of Dressage keeps every status count', { skip }, async () => {
  const samples = [
    { status: 'ABORTED', index: 3, metadata: { blackbox_error: 'sandbox create failed', session_id: 'bbs-1', instance_id: 'getmoto__moto-1' } },
    ...Array.from({ length: 15 }, (_, i) => ({ status: 'COMPLETED', index: 10 + i })),
  ];
  const [withSample, withError] = await oracle([
    { fn: 'group_summary', args: [samples, null] },
    { fn: 'group_summary', args: [[{ status: 'TRUNCATED' }, { status: 'ABORTED' }], 'RuntimeError: boom; more'] },
  ]);
  for (const [reply, want, errorType] of [
    [withSample, { ABORTED: 1, COMPLETED: 15 }, ''],
    [withError, { ABORTED: 1, TRUNCATED: 1 }, 'RuntimeError'],
  ] as const) {
    const summary = (reply as { ok: string }).ok;
    const line = await logged('dressage/rollout/sync_rollout.py', 'exhausted retries and will be marked failed', [summary]);
    const m = feed(fromActor(line));
    const ev = parseLine(fromActor(line)[0] as string).event;
    assert.ok(ev?.kind === 'group_failed', line);
    assert.deepEqual(ev.statuses, want, line);
    assert.equal(ev.errorType, errorType);
    assert.equal(m.pendingFailures.failed_groups, 1);
  }
});

test('the traceback logged with a routine evaluation failure (exc_info=True) is not an error in the log', { skip }, async () => {
  const text = await logged('dressage/recipes/swegym/evaluator.py', 'fresh SWE-Gym evaluation failed', ['getmoto__moto-7', 'background SWE-Gym evaluator did not finish within 1260.0s; poll_attempts=84 poll_errors=[]'], 'TimeoutError: background SWE-Gym evaluator did not finish within 1260.0s')
  assert.match(text, /\nTraceback \(most recent call last\):\n/, 'upstream logs a traceback with it');
  const other = '(RolloutManager pid=4243, ip=10.0.0.2) ' + (await logged('dressage/rollout/sync_rollout.py', 'resubmitting rollout group', [1, 2, 'statuses=ABORTED:1']));
  // Two evaluation failures, another actor's line in between, as Ray interleaves actors.
  const m = feed([...fromActor(text), other, ...fromActor(text)]);
  assert.equal(m.pendingFailures.eval_failures, 2);
  assert.equal(m.fatal.size, 0, `no fatal line: ${JSON.stringify(m.fatal.tail(5))}`);
  assert.ok(!computeAlerts({ model: m, now: Date.now(), live: false }).some((a) => a.id === 'fatal'));
  assert.notEqual(m.phase.kind, 'failed');

  // An uncaught traceback that no logged failure announced is still reported.
  const crash = feed(['Traceback (most recent call last):', '  File "train.py", line 1, in <module>', 'RuntimeError: CUDA out of memory']);
  assert.equal(crash.fatal.size, 1);
  // …also right after a logged failure of another actor.
  const interleaved = feed([...fromActor(text).slice(0, 1), '(MegatronTrainRayActor pid=9) Traceback (most recent call last):']);
  assert.equal(interleaved.fatal.size, 1);
});

/** The launcher's refusals: each first `echo "…" >&2` of a block that ends in `exit 1`, and `${VAR:?message}`. */
function launcherRefusals(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const values: Record<string, string> = { MODEL_CONFIG_PATH: '/w/slime/scripts/models/qwen3.5-4B.sh', DEFAULT_ENV_FILE: '/w/examples/scripts/default/dressage_env_defaults.sh', toggle_name: 'USE_TIS', toggle_value: '2', TOTAL_ACTOR_GPUS: '6', MODEL_PARALLEL_SIZE: '4', DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '-1', PROXY_LOG_FILE: '/w/outputs/logs/r/dressage-proxy.log', DRESSAGE_PROXY_URL: 'http://127.0.0.1:8800', SGLANG_ROUTER_URL: 'http://0.0.0.0:30000', PROXY_PUBLIC_HOST: '10.0.0.1', TRAJECTORY_LOG_DIR_VAR: 'DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR', TRAJECTORY_LOG_DIR: '/' };
  const fill = (s: string) => s.replace(/\$\{(\w+)\}/g, (_, k: string) => values[k] ?? `<${k}>`);
  for (const rel of [LAUNCHER, DEFAULTS]) {
    const lines = readFileSync(path.join(DRESSAGE, rel), 'utf8').split('\n');
    lines.forEach((l, i) => {
      const param = /^\s*: "\$\{(\w+):\?([^}]*)\}"/.exec(l);
      if (param) out.push({ file: rel, text: `${rel}: line ${i + 1}: ${param[1]}: ${fill(param[2] as string)}` });
      const echo = /^\s*echo "(.*)" >&2\s*$/.exec(l);
      if (!echo || /^\s*echo .*>&2/.test(lines[i - 1] ?? '')) return;
      const rest = lines.slice(i + 1, i + 4).map((x) => x.trim());
      const end = rest.findIndex((x) => !/^echo .*>&2$/.test(x));
      if (rest[end] === 'exit 1') out.push({ file: rel, text: fill(echo[1] as string) });
    });
  }
  return out;
}

test('each refusal of the launcher, and its exit code, marks the run failed', { skip }, () => {
  const refusals = launcherRefusals();
  assert.ok(refusals.length >= 15, `found ${refusals.length} refusals in the launcher scripts`);
  for (const r of refusals) {
    const m = feed(['effective_batch: num_rollout=100 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128', r.text]);
    assert.equal(m.phase.kind, 'failed', `${r.file}: ${r.text}`);
    const exited = feed([r.text, '[swegym-console] launcher exited with code 1']);
    assert.equal(exited.phase.kind, 'failed');
    if (!/Timed out waiting|Dressage proxy failed/.test(r.text)) assert.equal(exited.phase.detail, r.text, 'the refusal, not the exit code, explains it');
  }
});

test('a run whose launcher exited never shows phase starting', () => {
  const effective = 'effective_batch: num_rollout=100 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128';
  const failed = feed([effective, 'Current Ray node count: 4; expected ACTOR_NUM_NODES: 4', '[swegym-console] launcher exited with code 137']);
  assert.deepEqual(failed.phase, { kind: 'failed', detail: 'launcher exited with code 137' });
  const clean = feed([effective, '[swegym-console] launcher exited with code 0']);
  assert.equal(clean.phase.kind, 'finished');
  assert.equal(feed([effective]).phase.kind, 'starting');
});

test("every rollout line the monitor reads, from Dressage's own logger calls, is classified with its fields", { skip }, async () => {
  const summary = 'statuses=ABORTED:2,COMPLETED:14; sample[0 session_id=bbs-1 instance_id=a__b-1] blackbox_error=boom';
  const calls: [string, string, unknown[]][] = [
    ['dressage/recipes/swegym/reward.py', 'SWE-Gym reward=', [0.0, 1.0, true, 'getmoto__moto-7', 1, 1, 3, 3, 'swegym_integrity_violation']],
    ['dressage/rollout/generate/blackbox_dispatch_swegym.py', 'harvesting blackbox rollout after agent early stop', ['bbs-1f', 'max_steps_exceeded']],
    ['dressage/rollout/generate/blackbox_dispatch_swegym.py', 'blackbox rollout failed for session_id=', ['bbs-2', 'BlackboxAgentFailure: blackbox agent backend timeout (HTTP 504): Backend call exceeded backend_timeout.']],
    ['dressage/recipes/swegym/evaluator.py', 'SWE-Gym evaluator poll failed; retrying', ['swegym-eval-ab', 2, 'httpx.ReadTimeout: timed out']],
    ['dressage/recipes/swegym/evaluator.py', 'source patch extraction failed transiently', ['bbs-3', 1, 5, 2.0, 503, 'busy', 'Server error 503']],
    ['dressage/rollout/sync_rollout.py', 'resubmitting rollout group for retry', [1, 2, summary]],
  ];
  const lines = await Promise.all(calls.map(([rel, contains, args]) => logged(rel, contains, args)));
  const events = lines.map((l) => parseLine(fromActor(l)[0] as string).event);
  assert.deepEqual(events[0], { kind: 'sample', reward: 0, raw: 1, integrity: true, instance: 'getmoto__moto-7', f2p: [1, 1], p2p: [3, 3], reason: 'swegym_integrity_violation' });
  assert.deepEqual(events[1], { kind: 'early_stop', session: 'bbs-1f', stopKind: 'max_steps_exceeded' });
  assert.deepEqual(events[2], { kind: 'sample_failed', session: 'bbs-2', summary: 'BlackboxAgentFailure: blackbox agent backend timeout (HTTP 504): Backend call exceeded backend_timeout.' });
  assert.deepEqual(events[3], { kind: 'eval_poll_retry', session: 'swegym-eval-ab', attempt: '2', error: 'httpx.ReadTimeout: timed out' });
  assert.deepEqual(events[4], { kind: 'patch_retry', session: 'bbs-3', attempt: '1/5', status: '503' });
  assert.deepEqual(events[5], { kind: 'group_retry', attempt: 1, max: 2, summary });
  // And all of them reach the model through the fast scanner.
  const m = feed(lines.flatMap((l) => fromActor(l)));
  assert.deepEqual(m.pending.by_reason, { swegym_integrity_violation: 1 });
  assert.deepEqual(m.pendingFailures, { aborted_samples: 1, failed_groups: 0, group_retries: 1, eval_failures: 0, early_stops: { max_steps_exceeded: 1 }, transient_retries: 2 });
});
