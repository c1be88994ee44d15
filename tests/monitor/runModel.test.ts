import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunModel, phaseLabel } from '../../src/services/monitor/runModel.js';
import { EFFECTIVE_LINES, metricLine, rolloutLines, sampleLine, stepMetrics, RM, pyLog } from './builders.js';

function feed(model: RunModel, lines: string[]): void {
  for (const l of lines) model.ingestLine(l);
}

test('samples logged before a rollout\'s first summary line belong to it; the rest are in progress', () => {
  const m = new RunModel({ name: 'r' });
  feed(m, EFFECTIVE_LINES);
  feed(m, rolloutLines(0, 128));
  feed(m, rolloutLines(1, 128));
  for (let i = 0; i < 10; i++) m.ingestLine(sampleLine({ reward: i < 4 ? 1 : 0, reason: i < 4 ? '' : 'pass_to_pass_regression' }));
  const j = m.toJson() as any;
  assert.equal(j.rollouts.length, 2);
  assert.deepEqual(j.rollouts[0].samples, { total: 128, reward_one: 43, raw_one: 43, integrity_violations: 0, by_reason: { '': 43, fail_to_pass_failure: 85 } });
  assert.equal(j.rollouts[0].metrics['rollout/raw_reward_trajectory_mean'], 0.3);
  assert.equal(j.rollouts[0].metrics['rollout/raw_reward'], 0.33, 'rollout N and perf N keys merge');
  assert.deepEqual(j.in_progress, { rollout: 2, samples: { total: 10, reward_one: 4, raw_one: 4, integrity_violations: 0, by_reason: { '': 4, pass_to_pass_regression: 6 } } });
  assert.equal(j.samples.total, 266);
  assert.equal(j.steps.length, 2);
  assert.equal(j.steps[1].metrics['train/step'], 1);
  assert.equal(j.run.phase, 'rollout 2 generating 10/128');
  assert.deepEqual(j.effective.batch, { num_rollout: '500', rollout_batch_size: '8', n_samples_per_prompt: '16', global_batch_size: '128' });
});

test('phase: starting → waiting for workers → generating → training → saving → failed/finished', () => {
  const m = new RunModel();
  assert.equal(phaseLabel(m.phase), 'starting');
  m.ingestLine('Current Ray node count: 1; expected ACTOR_NUM_NODES: 4');
  assert.equal(phaseLabel(m.phase), 'waiting for workers (1/4 nodes)');
  m.ingestLine('Current Ray node count: 4; expected ACTOR_NUM_NODES: 4');
  assert.equal(m.phase.kind, 'starting');
  m.ingestLine(sampleLine({ reward: 1 }));
  assert.equal(phaseLabel(m.phase), 'rollout 0 generating 1/128');
  m.ingestLine(metricLine('perf', 0, { 'rollout/raw_reward_trajectory_mean': 1.0 }));
  assert.equal(phaseLabel(m.phase), 'training (rollout 0)');
  m.ingestLine(metricLine('step', 0, stepMetrics(0)));
  assert.equal(phaseLabel(m.phase), 'rollout 1 generating 0/128');
  m.ingestLine('saving checkpoint at iteration       9 to /ckpt in torch_dist format');
  assert.equal(m.phase.kind, 'saving');
  m.ingestLine('successfully saved checkpoint from iteration       9 to /ckpt');
  assert.equal(m.lastCheckpoint?.iteration, 9);
  assert.equal(m.phase.kind, 'generating');
  m.ingestLine("Job 'raysubmit_1' failed");
  assert.equal(phaseLabel(m.phase), 'failed: ray job failed');

  const done = new RunModel();
  feed(done, ['effective_batch: num_rollout=2 rollout_batch_size=1 n_samples_per_prompt=2 global_batch_size=2']);
  feed(done, rolloutLines(0, 2));
  assert.equal(phaseLabel(done.phase), 'rollout 1 generating 0/2');
  feed(done, rolloutLines(1, 2));
  assert.equal(done.phase.kind, 'finished');

  const t = new RunModel();
  t.ingestLine('Timed out waiting for Ray workers to join.');
  assert.equal(phaseLabel(t.phase), 'failed: timed out waiting for Ray workers');
});

test('failures are counted per rollout; error streaks; per-task history', () => {
  const m = new RunModel();
  for (let i = 0; i < 12; i++) m.ingestLine(RM + pyLog('x.py', 1, `blackbox rollout failed for session_id=bbs-${i}: claude_code exited with code 1`));
  assert.equal(m.errorStreak, 12);
  m.ingestLine(RM + pyLog('x.py', 1, 'rollout group exhausted retries and will be marked failed: task_error=RuntimeError: x statuses=ABORTED:1,COMPLETED:15'));
  m.ingestLine(RM + pyLog('x.py', 1, 'harvesting blackbox rollout after agent early stop: session_id=bbs-1 kind=context_overflow'));
  m.ingestLine(sampleLine({ reward: 1, instance: 'a' }));
  assert.equal(m.errorStreak, 0);
  assert.equal(m.maxErrorStreak, 12);
  m.ingestLine(metricLine('perf', 0, {}));
  const r0 = m.rollouts.get(0)!;
  assert.equal(r0.failures.aborted_samples, 12);
  assert.equal(r0.failures.failed_groups, 1);
  assert.deepEqual(r0.failures.early_stops, { context_overflow: 1 });
  m.ingestLine(sampleLine({ reward: 0, instance: 'a' }));
  m.ingestLine(sampleLine({ reward: 0, instance: 'b' }));
  m.ingestLine(sampleLine({ reward: 1, instance: 'c' }));
  m.ingestLine(metricLine('perf', 1, {}));
  const s = m.taskSummary();
  assert.deepEqual([s.always, s.sometimes, s.never], [1, 1, 1]);
  assert.equal(m.tasks.get('a')?.recent.text(), '█·');
});

test('non-finite metrics are JSON strings; folded sample lines count N times', () => {
  const m = new RunModel();
  m.ingestLine(metricLine('step', 0, { 'train/grad_norm': NaN, 'train/x': Infinity, 'train/y': -Infinity }));
  m.ingestLine(`${sampleLine({ reward: 1 })} [repeated 4x across cluster]`);
  const j = m.toJson() as any;
  assert.deepEqual(j.steps[0].metrics, { 'train/grad_norm': null, 'train/x': null, 'train/y': null });
  assert.equal(j.samples.total, 4);
  assert.equal(j.samples.reward_one, 4);
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(j)));
});

test('interleaved actors and garbage lines do not lose the next good line', () => {
  const m = new RunModel();
  const lines = [
    sampleLine({ reward: 1 }),
    "(MegatronTrainRayActor pid=3301, ip=10.0.0.2) [2026-08-01 12:00:00] model.py:1 - step 0: {'train/loss': 0.1, 'train/bad': ",
    sampleLine({ reward: 0, reason: 'empty_generation' }),
    '\u001b[33m(SGLangEngine pid=9) garbage {{{{ SWE-Gym reward=x',
    metricLine('perf', 0, { 'rollout/raw_reward_trajectory_mean': 0.5 }),
    metricLine('step', 0, stepMetrics(0)),
  ];
  feed(m, lines);
  const j = m.toJson() as any;
  assert.equal(j.rollouts[0].samples.total, 2);
  assert.equal(j.rollouts[0].samples.by_reason.empty_generation, 1);
  assert.equal(j.steps.length, 1);
  assert.equal(j.steps[0].metrics['train/loss'], 0.0123);
});

test('memory stays bounded: many rollouts, tasks and samples keep every buffer capped', () => {
  const m = new RunModel({ limits: { steps: 50, rollouts: 50, feed: 100, failures: 20, tasks: 30, taskHistory: 5 } });
  for (let r = 0; r < 400; r++) {
    for (let i = 0; i < 16; i++) m.ingestLine(sampleLine({ reward: i % 2, instance: `t-${r}-${i}` }));
    m.ingestLine(RM + pyLog('x.py', 1, `blackbox rollout failed for session_id=bbs-${r}: x`));
    m.ingestLine(metricLine('perf', r, { 'rollout/raw_reward_trajectory_mean': 0.5 }));
    m.ingestLine(metricLine('step', r, { 'train/loss': r }));
  }
  // Steps and rollouts are thinned, not cut: every 8th of 400 plus the newest; counts stay exact.
  assert.equal(m.steps.size, 51);
  assert.equal(m.rollouts.size, 51);
  assert.equal(m.steps.count, 400);
  assert.equal(m.rollouts.count, 400);
  assert.equal(m.feed.size, 100);
  assert.equal(m.failures.size, 20);
  assert.ok(m.tasks.size <= 30);
  assert.deepEqual([m.sortedSteps()[0]?.step, m.sortedSteps()[1]?.step, m.sortedSteps().at(-1)?.step], [0, 8, 399], 'the whole run, thinned, and the newest');
  assert.equal(m.totals.total, 400 * 16);
  const t = new RunModel({ limits: { taskHistory: 5 } });
  for (let r = 0; r < 40; r++) {
    t.ingestLine(sampleLine({ instance: 'same' }));
    t.ingestLine(metricLine('perf', r, {}));
  }
  assert.equal(t.tasks.get('same')?.recent.size, 5);
  assert.equal(t.tasks.get('same')?.attempts, 40);
});

test('ETA from rollout timestamps', () => {
  const m = new RunModel();
  m.ingestLine('effective_batch: num_rollout=10 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128');
  for (let r = 0; r < 3; r++) feed(m, rolloutLines(r, 4, { sec: r * 1000 }));
  assert.equal(m.secondsPerRollout(), 1000);
  assert.equal(m.etaSeconds(), 7000);
});
