// Harness validation through the E2B adapter and the real `e2b` SDK against the fake E2B server: sandboxes are
// created from the row's template, the harness runs in the background with polling (as Dressage does on E2B), and
// every sandbox is killed. The fake's command hook plays one task's sandbox: it keeps per-sandbox state (the patch
// written through commands, whether `git apply` succeeded, the background harness) and prints the marker the
// grading driver would print for that state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { CALC_GOLD, CALC_SPEC, calcTaskPlayer } from '../fakes/sweTaskSandbox.js';
import { E2bProvider } from '../../src/services/sandbox/e2b.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { validateHarness } from '../../src/services/validate/harness.js';

const GOLD = CALC_GOLD;
const { play, seen } = calcTaskPlayer();
let fake: FakeE2b;
let provider: E2bProvider;

before(async () => {
  fake = await startFakeE2b({ templates: ['tpl-calc'], exec: play });
  provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url, retry: { attempts: 3, baseMs: 5, maxMs: 20 } });
});
after(async () => fake.close());

const spec = CALC_SPEC;

test('on E2B: background harness with polling, gold → resolved, control → unresolved, sandboxes killed', async () => {
  const results = await validateHarness({ provider, tasks: [{ row: sampleRow(spec), goldPatch: GOLD }], pollIntervalMs: 20 });
  const r = results[0]!;
  assert.equal(r.ok, true, JSON.stringify(r, null, 1));
  assert.equal(r.gold?.resolved, true);
  assert.equal(r.control?.resolved, false);
  assert.ok(seen.includes('harness-start') && seen.filter((s) => s === 'poll').length >= 4, seen.join(','));
  // Two sandboxes (gold, control) were created from the row's template, tagged as the console's, and are gone.
  const created = [...fake.sandboxes.values()];
  assert.equal(created.length, 2);
  assert.ok(created.every((s) => s.alias === 'tpl-calc' && s.metadata.swegym_console === '1'));
  assert.deepEqual(fake.alive(), []);
});

test('on E2B: a patch that does not apply gives failed_apply_patch; a missing template is a clear error', async () => {
  const [bad] = await validateHarness({ provider, tasks: [{ row: sampleRow({ ...spec, instance_id: 'sample__calc-2' }), goldPatch: GOLD.replace('a - b', 'a * b') }], pollIntervalMs: 20 });
  assert.equal(bad?.ok, false);
  assert.equal(bad?.gold?.failure_reason, 'failed_apply_patch');
  assert.match(String(bad?.gold?.stderr_tail), /corrupt patch/);
  const [missing] = await validateHarness({ provider, tasks: [{ row: sampleRow({ ...spec, instance_id: 'sample__calc-3', template: 'tpl-nope' }), goldPatch: GOLD }], pollIntervalMs: 20 });
  assert.equal(missing?.ok, false);
  assert.match(missing?.error ?? '', /could not start a sandbox from template tpl-nope: not_found/);
  assert.deepEqual(fake.alive(), []);
});
