// The dashboard's task rows: the first 1000 by solve rate, ties by instance name (collation order), computed on the
// tasks that can make the cut. Held to the plain sort of every task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { taskRowsOf } from '../../src/services/monitor/snapshotRows.js';
import { OutcomeStrip } from '../../src/services/monitor/ring.js';
import type { TaskHistory } from '../../src/services/monitor/runModel.js';

function plain(tasks: TaskHistory[]): string[] {
  return tasks
    .slice()
    .sort((a, b) => b.solved / Math.max(1, b.attempts) - a.solved / Math.max(1, a.attempts) || a.instance.localeCompare(b.instance))
    .slice(0, 1000)
    .map((t) => t.instance);
}

const task = (instance: string, attempts: number, solved: number): TaskHistory => {
  const recent = new OutcomeStrip(8);
  recent.push(attempts, solved);
  return { instance, attempts, solved: Math.min(solved, attempts), recent };
};

test('task rows: the same first 1000 in the same order as sorting every task', () => {
  // Few distinct rates (many ties at the cut), names that code-unit order and collation order differently.
  const name = fc.tuple(fc.constantFrom('django__django', 'Django_x', 'a-b', 'a_b', 'sympy__sympy', 'pandas-dev__pandas'), fc.integer({ min: 0, max: 99_999 })).map(([p, n]) => `${p}-${n}`);
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(name, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 })), { minLength: 0, maxLength: 3000, selector: ([n]) => n }), (xs) => {
      const tasks = xs.map(([n, a, s]) => task(n, a, s));
      const rows = taskRowsOf({ seen: tasks.length, always: 0, sometimes: 0, never: 0, tasks });
      assert.deepEqual(rows.map((r) => r.instance), plain(tasks));
    }),
    { numRuns: 40 },
  );
});
