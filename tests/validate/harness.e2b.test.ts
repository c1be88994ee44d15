// Harness validation through the E2B adapter and the real `e2b` SDK against the fake E2B server: sandboxes are
// created from the row's template, the harness runs in the background with polling (as Dressage does on E2B), and
// every sandbox is killed. The fake's command hook plays one task's sandbox: it keeps per-sandbox state (the patch
// written through commands, whether `git apply` succeeded, the background harness) and prints the marker the
// grading driver would print for that state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeE2b, type FakeE2b, type FakeExecPlan, type FakeExecRequest } from '../fakes/e2bServer.js';
import { E2bProvider } from '../../src/services/sandbox/e2b.js';
import { sampleRow } from '../../src/services/demo/rows.js';
import { validateHarness } from '../../src/services/validate/harness.js';
import { MARKER_PREFIX } from '../../src/services/marker/marker.js';

const GOLD = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
const BASE = 'a'.repeat(40);

interface SbxState {
  b64: string;
  patch?: string;
  patched: boolean;
  harness?: { polls: number };
}

let fake: FakeE2b;
let provider: E2bProvider;
const states = new Map<string, SbxState>();
const seen: string[] = [];

function marker(patched: boolean): string {
  const p = { resolved: patched, fail_to_pass_success: patched ? 1 : 0, fail_to_pass_total: 1, pass_to_pass_success: 1, pass_to_pass_total: 1, parsed_tests: 2, eval_returncode: 0, harness: 'swegym', log_parser_repo: 'sample/calc', ...(patched ? {} : { failure_reason: 'fail_to_pass_failure' }) };
  return MARKER_PREFIX + JSON.stringify(p);
}

function play(req: FakeExecRequest): FakeExecPlan {
  const st = states.get(req.sandboxId) ?? { b64: '', patched: false };
  states.set(req.sandboxId, st);
  const c = req.command;
  const out = (data: string, exitCode = 0): FakeExecPlan => ({ chunks: data ? [{ stream: exitCode ? 'stderr' : 'stdout', data }] : [], exitCode });
  if (c.startsWith("bash -lc 'set -e; cd /testbed;")) {
    seen.push('sanitize');
    return out(c.includes(BASE) ? `SWE-Gym git sanitize completed at ${BASE}\n` : 'SWE-Gym git sanitize failed: missing base commit\n', c.includes(BASE) ? 0 : 2);
  }
  let m = /^printf '%s' '([A-Za-z0-9+/=]*)' (>>?) \/tmp\/dressage_swegym_model\.patch\.b64$/.exec(c);
  if (m) {
    st.b64 = m[2] === '>' ? (m[1] as string) : st.b64 + m[1];
    return out('');
  }
  if (c.startsWith('base64 -d /tmp/dressage_swegym_model.patch.b64 > /tmp/dressage_swegym_model.patch')) {
    st.patch = Buffer.from(st.b64, 'base64').toString('utf8');
    return out('');
  }
  if (c.includes('git reset --hard') && c.includes('git apply --binary -v /tmp/dressage_swegym_model.patch')) {
    seen.push('apply');
    if (st.patch === GOLD) {
      st.patched = true;
      return out(`HEAD is now at ${BASE.slice(0, 7)} base\nChecking patch calc.py...\nApplied patch calc.py cleanly.\n`);
    }
    return out('error: corrupt patch at line 3\n', 1);
  }
  if (c.startsWith('nohup bash -lc ')) {
    seen.push('harness-start');
    st.harness = { polls: 0 };
    return out('4242\n');
  }
  m = /^if \[ -f \/tmp\/dressage_swegym_eval_[0-9a-f]{32}\.done \]; then/.exec(c);
  if (m && st.harness) {
    seen.push('poll');
    st.harness.polls++;
    if (st.harness.polls < 2) return out('__DRESSAGE_SWEGYM_EVAL_PENDING__\n');
    return out(`__DRESSAGE_SWEGYM_EVAL_DONE__=0\n+ pytest -rA\nPASSED tests/test_calc.py::test_mul\n${marker(st.patched)}\n`);
  }
  return out(`fake sandbox: unexpected command: ${c.slice(0, 120)}\n`, 127);
}

before(async () => {
  fake = await startFakeE2b({ templates: ['tpl-calc'], exec: play });
  provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url, retry: { attempts: 3, baseMs: 5, maxMs: 20 } });
});
after(async () => fake.close());

const spec = {
  instance_id: 'sample__calc-1',
  repo: 'sample/calc',
  base_commit: BASE,
  problem_statement: 'add is wrong',
  test_patch: '',
  test_cmd: 'pytest -rA',
  FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
  PASS_TO_PASS: ['tests/test_calc.py::test_mul'],
  template: 'tpl-calc',
};

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
