// Shipped tier: `monitor LOG --once --json` of the built console on a log written by the built simulator: the
// per-sample count equals grep's count of the per-sample line, and the rollouts and steps are all there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';

test('shipped: monitor --once --json reads a whole simulated run: samples as counted by grep, every rollout, phase finished', { timeout: 180_000 }, async () => {
  const dir = await tempDir('swegym-shipped-monitor-');
  try {
    const sim = await runShipped(['simulate', dir, '--rollouts', '3', '--json']);
    assert.equal(sim.code, 0, explain(sim));
    const log = path.join(dir, 'run.log');
    const text = await readFile(log, 'utf8');
    const perSample = text.split('\n').filter((l) => l.includes('SWE-Gym reward=')).length;
    assert.ok(perSample > 100, `${perSample} per-sample lines`);

    const r = await runShipped(['monitor', log, '--once', '--json']);
    assert.equal(r.code, 0, explain(r));
    const doc = JSON.parse(r.out) as { run: { phase: string }; rollouts: { rollout: number }[]; steps: unknown[]; samples: { total: number; by_reason: Record<string, number> } };
    assert.equal(doc.samples.total, perSample);
    assert.equal(Object.values(doc.samples.by_reason).reduce((a, b) => a + b, 0), perSample, 'every sample has a reason bucket');
    assert.deepEqual(doc.rollouts.map((x) => x.rollout), [0, 1, 2]);
    assert.ok(doc.steps.length >= 3);
    assert.equal(doc.run.phase, 'finished');
  } finally {
    await removeDir(dir);
  }
});
