// The doctor's events into the home store: the pending rows are published together with the answers that came in the
// same tick (checks that need no I/O), so the home screen draws its rows once rather than pending first and answered
// a few ms later; later answers are folded by the one publisher's throttle; the final list is published at once.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { doctorIntoStore } from '../../src/services/pipeline/controller.js';
import { createHomeStore } from '../../src/state/home.js';
import type { DoctorCheck } from '../../src/state/types/doctor.js';

const row = (id: string): DoctorCheck => ({ id, title: id, status: 'ok', detail: `${id} fine` });

test('started and the same tick\'s answers are one publish; a later answer is published after the tick; finished at once', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    const home = createHomeStore();
    const publishes: { checks: string[]; pending: string[] }[] = [];
    home.subscribe((s) => publishes.push({ checks: s.checks.map((c) => c.id), pending: s.pendingChecks.map((p) => p.id) }));
    const onEvent = doctorIntoStore(home);
    onEvent({ type: 'started', pending: ['node', 'python', 'uv'].map((id) => ({ id, title: id })) });
    onEvent({ type: 'result', id: 'node', checks: [row('node')] });
    assert.deepEqual(publishes, [], 'nothing drawn before the tick ends');
    mock.timers.tick(0);
    assert.deepEqual(publishes, [{ checks: ['node'], pending: ['python', 'uv'] }]);
    onEvent({ type: 'result', id: 'python', checks: [row('python')] });
    mock.timers.tick(50);
    assert.equal(publishes.length, 1, 'inside the publisher\'s 100 ms period: folded');
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
