// Sandbox rows whose template names are longer than their column: the cut is in the middle, so the part that tells
// templates apart (the task number at the end) stays on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup, teardown } from './dashboardSetup.js';

test('long template names are cut in the middle: both task numbers stay readable in the sandboxes panel', async () => {
  const now = Date.now();
  const long = (n: number) => `swegym-xingyaoww-sweb-eval-getmoto-moto-${n}`;
  const x = await setup({ width: 120, height: 40 }, {
    moreSandboxes: [7365, 7366].map((n) => ({ id: `sbx-long-${n}`, template: long(n), metadata: { trajectory_id: `bbs-${n}`, paddock_mode: 'blackbox' }, startedAt: new Date(now - 30_000).toISOString(), state: 'running' as const, provider: 'memory' as const })),
  });
  try {
    await x.ui.waitForText(/swegym-xingy.*….*moto-7365/);
    const frame = x.ui.frame();
    assert.match(frame, /swegym-xingy[^\n]*…[^\n]*moto-7366/, frame);
    assert.doesNotMatch(frame, new RegExp(long(7365)), 'the whole name does not fit the column');
  } finally {
    await teardown(x);
  }
});
