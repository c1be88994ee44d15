// The home screen's refresh: the checkout and the pipeline's steps reach the store in one update. Each home frame is
// ≈ 10 ms of the one main thread at start-up, while the doctor still answers; two updates a few ms apart were two
// frames before the doctor's last answer (bench/README.md, start-up).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { HomeController } from '../../src/services/pipeline/controller.js';
import { createHomeStore, type HomeState } from '../../src/state/home.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { gatedProbeBin } from '../helpers/doctorProbe.js';
import { writeFile } from 'node:fs/promises';

test('refresh publishes the checkout and the steps together, and ends with every doctor answer and loading off', { timeout: 60_000 }, async () => {
  const ws = await fakeDressageCheckout();
  const { bin, gate } = await gatedProbeBin();
  // The probe answers at once: only the order of the store's updates is under test.
  await writeFile(gate, '');
  try {
    const store = createHomeStore();
    const updates: (keyof HomeState)[][] = [];
    store.subscribe((now, before) => updates.push((Object.keys(now) as (keyof HomeState)[]).filter((k) => now[k] !== before[k] && typeof now[k] !== 'function')));
    const env = { PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`, SWEGYM_DOCTOR_TIMEOUT_MS: '60000' };
    const controller = new HomeController({ paths: recipePaths(ws), env, provider: 'e2b', profile: { kind: 'real' }, store, flash: (text) => assert.fail(text) });
    await controller.refresh();
    const withCheckout = updates.filter((keys) => keys.includes('checkout'));
    const withSteps = updates.filter((keys) => keys.includes('steps'));
    assert.equal(withCheckout.length, 1);
    assert.deepEqual(withSteps, withCheckout, 'the checkout and the steps in one update');
    const state = store.getState();
    assert.equal(state.loading, false);
    assert.ok(state.steps.length > 0 && state.checkout !== undefined);
    assert.deepEqual(state.pendingChecks, []);
    assert.ok(state.checks.some((c) => c.id === 'py-dressage'));
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});
