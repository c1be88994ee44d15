// The doctor's events into the home store: the start opens the publisher's 100 ms period, so a doctor that answers
// within it is drawn once (every row answered) rather than its pending rows, its first answers and then the rest;
// a slower one shows its rows at 100 ms and later answers folded per period; the final list is published at once.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { doctorIntoStore } from '../../src/services/pipeline/controller.js';
import { createHomeStore } from '../../src/state/home.js';
import type { DoctorCheck } from '../../src/state/types/doctor.js';

const row = (id: string): DoctorCheck => ({ id, title: id, status: 'ok', detail: `${id} fine` });

/** A home store fed by doctorIntoStore, its publishes recorded; the doctor started on three checks, node answered. */
function startedWithNodeAnswered() {
  const home = createHomeStore();
  const publishes: { checks: string[]; pending: string[] }[] = [];
  home.subscribe((s) => publishes.push({ checks: s.checks.map((c) => c.id), pending: s.pendingChecks.map((p) => p.id) }));
  const onEvent = doctorIntoStore(home);
  onEvent({ type: 'started', pending: ['node', 'python', 'uv'].map((id) => ({ id, title: id })) });
  onEvent({ type: 'result', id: 'node', checks: [row('node')] });
  return { publishes, onEvent };
}

test('a doctor that answers within the period is one publish: the final list, nothing pending before it', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    const { publishes, onEvent } = startedWithNodeAnswered();
    mock.timers.tick(0);
    assert.deepEqual(publishes, [], 'the start opens a period: the first answers wait for it');
    onEvent({ type: 'result', id: 'python', checks: [row('python')] });
    mock.timers.tick(40);
    onEvent({ type: 'result', id: 'uv', checks: [row('uv')] });
    onEvent({ type: 'finished', checks: ['node', 'python', 'uv'].map(row) });
    assert.deepEqual(publishes, [{ checks: ['node', 'python', 'uv'], pending: [] }]);
    mock.timers.tick(1_000);
    assert.equal(publishes.length, 1, 'the marked publish was dropped by finished');
  } finally {
    mock.timers.reset();
  }
});

test('a slower doctor shows its rows and answers at the end of the period, later answers folded per period; finished at once', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    const { publishes, onEvent } = startedWithNodeAnswered();
    mock.timers.tick(99);
    assert.deepEqual(publishes, []);
    mock.timers.tick(1);
    assert.deepEqual(publishes, [{ checks: ['node'], pending: ['python', 'uv'] }]);
    onEvent({ type: 'result', id: 'python', checks: [row('python')] });
    mock.timers.tick(50);
    assert.equal(publishes.length, 1, "inside the publisher's 100 ms period: folded");
    mock.timers.tick(50);
    assert.deepEqual(publishes.at(-1), { checks: ['node', 'python'], pending: ['uv'] });
    onEvent({ type: 'result', id: 'uv', checks: [row('uv')] });
    onEvent({ type: 'finished', checks: ['node', 'python', 'uv'].map(row) });
    assert.deepEqual(publishes.at(-1), { checks: ['node', 'python', 'uv'], pending: [] }, 'the final list at once');
    const count = publishes.length;
    mock.timers.tick(1_000);
    assert.equal(publishes.length, count, 'the marked publish was dropped by finished');
  } finally {
    mock.timers.reset();
  }
});
