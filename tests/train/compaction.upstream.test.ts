// The console's compaction check and auto-compact percentage against Dressage's own claude_code backend options
// (../shared/upstream/dressage/dressage/paddock/blackbox/common/defaults.py, stdlib only, loaded from its file),
// and KL_LOSS_TYPE against the choices in slime's arguments.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { buildLaunchPlan } from '../../src/services/train/launch.js';
import { staticChecks } from '../../src/services/train/checks.js';
import { SLIME_KL_LOSS_TYPES } from '../../src/services/train/settings.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { SYSTEM_PATH, UPSTREAM_DRESSAGE, upstreamSkip } from '../helpers/upstreamHarness.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);

const DEFAULTS_PY = path.join(UPSTREAM_DRESSAGE, 'dressage', 'paddock', 'blackbox', 'common', 'defaults.py');

// For each case: the compaction Dressage builds for claude_code, or the ValueError it raises.
const ORACLE = `import importlib.util, json, os, sys, types
spec = importlib.util.spec_from_file_location("dressage_defaults", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
out = []
for case in json.load(sys.stdin):
    os.environ["DRESSAGE_BLACKBOX_COMPACT_THRESHOLD"] = case["threshold"]
    args = types.SimpleNamespace(max_tokens_per_gpu=int(case["max_tokens"]), context_parallel_size=int(case["cp"]), rollout_max_response_len=int(case["response"]), rollout_temperature=1.0)
    try:
        out.append({"compaction": mod.dynamic_backend_defaults_for("claude_code", args)["compaction"]})
    except ValueError as exc:
        out.append({"error": str(exc)})
print(json.dumps(out))
`;

const CASES: Record<string, string>[] = [
  {},
  { COMPACT_RESERVE_TOKENS: '4000' },
  { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '65536' },
  { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '70000' },
  { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '300' },
  { CONTEXT_WINDOW: '100000' }, // threshold 92000 > MAX_TOKENS_PER_GPU × CP_SIZE
  { CONTEXT_WINDOW: '40000' },
  { MAX_TOKENS_PER_GPU: '4000', CP_SIZE: '4', CONTEXT_WINDOW: '100000' }, // 16000 ≤ response 16000
  { MAX_TOKENS_PER_GPU: '8192', CP_SIZE: '2', ROLLOUT_MAX_RESPONSE_LEN: '12000' },
  { CP_SIZE: '1', ROLLOUT_MAX_RESPONSE_LEN: '8000' },
];

function planFor(sets: Record<string, string>) {
  const paths = recipePaths('/w/dressage');
  return buildLaunchPlan({ paths, env: { DRESSAGE_E2B_API_KEY: 'short-fake', MODEL_ROOT: '/m' }, sets, hostIp: '203.0.113.5' });
}

test("compaction: the console's verdict and auto-compact percentage are Dressage's", { skip }, async () => {
  const plans = CASES.map(planFor);
  const input = plans.map((p) => ({ threshold: p.effective.DRESSAGE_BLACKBOX_COMPACT_THRESHOLD, max_tokens: p.effective.MAX_TOKENS_PER_GPU, cp: p.effective.CP_SIZE, response: p.effective.ROLLOUT_MAX_RESPONSE_LEN }));
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    import('node:child_process').then(({ spawn }) => {
      const child = spawn('python3', ['-c', ORACLE, DEFAULTS_PY], { env: { PATH: SYSTEM_PATH, PYTHONDONTWRITEBYTECODE: '1' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(JSON.stringify(input));
    }, reject);
  });
  assert.equal(r.code, 0, r.stderr);
  const oracle = JSON.parse(r.stdout) as ({ compaction: { auto_compact_pct_override?: number } } | { error: string })[];
  let errors = 0;
  oracle.forEach((o, i) => {
    const c = staticChecks(plans[i]!).find((x) => x.id === 'compaction');
    const where = JSON.stringify(CASES[i]);
    if ('error' in o) {
      errors++;
      assert.equal(c?.status, 'fail', `${where}: Dressage raises "${o.error}", the console says ${c?.status}: ${c?.detail}`);
      assert.ok(c.detail.includes(o.error), `${where}: console "${c.detail}" vs Dressage "${o.error}"`);
    } else {
      assert.notEqual(c?.status, 'fail', `${where}: Dressage accepts it, the console refuses: ${c?.detail}`);
      assert.equal(plans[i]!.derived.autoCompactPct, o.compaction.auto_compact_pct_override, where);
    }
  });
  assert.ok(errors >= 3 && errors < oracle.length, `the cases cover both outcomes (${errors} errors)`);
});

test("KL_LOSS_TYPE: slime's --kl-loss-type choices (parsed from its arguments.py) pass, anything else is slime's refusal", { skip }, async () => {
  const source = await readFile(path.join(UPSTREAM_DRESSAGE, 'slime', 'slime', 'utils', 'arguments.py'), 'utf8');
  const block = /"--kl-loss-type",([\s\S]*?)\)/.exec(source)?.[1] ?? '';
  const choices = [...(/choices=\[([^\]]*)\]/.exec(block)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
  assert.ok(choices.length >= 2, `no choices parsed from: ${block}`);
  assert.deepEqual([...SLIME_KL_LOSS_TYPES].sort(), [...choices].sort());
  for (const t of choices) assert.equal(staticChecks(planFor({ KL_LOSS_TYPE: t })).find((x) => x.id === 'kl-loss-type'), undefined, t);
  for (const t of ['kl', 'mse', 'K1', '']) {
    const c = staticChecks(planFor({ KL_LOSS_TYPE: t, ...(t === '' ? { KL_LOSS_TYPE: ' ' } : {}) })).find((x) => x.id === 'kl-loss-type');
    assert.equal(c?.status, 'fail', `${t}: ${c?.detail}`);
    assert.match(c.detail, /argument --kl-loss-type: invalid choice/);
    // The launcher passes --kl-loss-type only with USE_KL_LOSS=1.
    assert.equal(staticChecks(planFor({ KL_LOSS_TYPE: t || ' ', USE_KL_LOSS: '0' })).find((x) => x.id === 'kl-loss-type'), undefined);
  }
});
