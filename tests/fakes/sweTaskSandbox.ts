// One SWE-Gym-like task (sample/calc) played by the fake E2B server's command hook, as the grading commands of a
// Dressage row see it: per-sandbox state (the patch written through commands, whether `git apply` succeeded, the
// background harness) and the marker the grading driver would print for that state. Used wherever harness
// validation runs against the fake E2B (adapter tests and the shipped binary).
import type { FakeExecPlan, FakeExecRequest } from './e2bServer.js';
import { MARKER_PREFIX } from '../../src/services/marker/marker.js';

export const CALC_GOLD = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
export const CALC_BASE = 'a'.repeat(40);

/** The task spec that `sampleRow` turns into a Dressage row for this player. */
export const CALC_SPEC = {
  instance_id: 'sample__calc-1',
  repo: 'sample/calc',
  base_commit: CALC_BASE,
  problem_statement: 'add is wrong',
  test_patch: '',
  test_cmd: 'pytest -rA',
  FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
  PASS_TO_PASS: ['tests/test_calc.py::test_mul'],
  template: 'tpl-calc',
};

interface SandboxState {
  b64: string;
  patch?: string;
  patched: boolean;
  harness?: { polls: number };
}

function marker(patched: boolean): string {
  const p = { resolved: patched, fail_to_pass_success: patched ? 1 : 0, fail_to_pass_total: 1, pass_to_pass_success: 1, pass_to_pass_total: 1, parsed_tests: 2, eval_returncode: 0, harness: 'swegym', log_parser_repo: 'sample/calc', ...(patched ? {} : { failure_reason: 'fail_to_pass_failure' }) };
  return MARKER_PREFIX + JSON.stringify(p);
}

/** A command hook for startFakeE2b({ exec }); `seen` records the grading stages in order. */
export function calcTaskPlayer(): { play: (req: FakeExecRequest) => FakeExecPlan; seen: string[] } {
  const states = new Map<string, SandboxState>();
  const seen: string[] = [];
  const play = (req: FakeExecRequest): FakeExecPlan => {
    const st = states.get(req.sandboxId) ?? { b64: '', patched: false };
    states.set(req.sandboxId, st);
    const c = req.command;
    const out = (data: string, exitCode = 0): FakeExecPlan => ({ chunks: data ? [{ stream: exitCode ? 'stderr' : 'stdout', data }] : [], exitCode });
    if (c.startsWith("bash -lc 'set -e; cd /testbed;")) {
      seen.push('sanitize');
      return out(c.includes(CALC_BASE) ? `SWE-Gym git sanitize completed at ${CALC_BASE}\n` : 'SWE-Gym git sanitize failed: missing base commit\n', c.includes(CALC_BASE) ? 0 : 2);
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
      if (st.patch === CALC_GOLD) {
        st.patched = true;
        return out(`HEAD is now at ${CALC_BASE.slice(0, 7)} base\nChecking patch calc.py...\nApplied patch calc.py cleanly.\n`);
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
  };
  return { play, seen };
}
