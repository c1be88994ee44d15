// Differential test: the backend options `validate agent` registers (src/services/validate/backendOptions.ts)
// against the real merge_backend_options of dressage/paddock/blackbox/common/defaults.py, over a matrix of backends,
// row options, rollout arguments and the two environment variables it reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launcherRolloutContext, mergeBackendOptions, registeredBackendOptions, COMPACT_THRESHOLD_ENV, MAX_STEPS_ENV, DEFAULT_SERVER_CONFIG, type RolloutArgs } from '../../src/services/validate/backendOptions.js';
import { ConsoleError } from '../../src/services/errors.js';
import { oracle, upstreamSkipReason } from '../helpers/upstreamOracle.js';

const skip = upstreamSkipReason();

const ROW_OPTIONS = {
  working_directory: '/testbed',
  max_turns: 80,
  permission_mode: 'acceptEdits',
  setting_sources: 'user',
  system_prompt_mode: 'append',
  compaction: { auto: true },
  compat: { disable_prompt_caching: true, disable_nonessential_traffic: true },
  subagents: { enabled: false },
};

const TYPES = ['claude_code', ' Claude_Code ', 'opencode', 'openclaw', 'codex', 'unknown_agent', null];
const OPTIONS: unknown[] = [null, {}, ROW_OPTIONS, { proxy: { max_steps: 7, default_temperature: 0.5 } }, { compaction: 'off', proxy: null }, { model_limit: 1, compaction: 2, proxy: 3, context_window: 4, max_tokens: 5, request: 6 }, ['not', 'a', 'dict'], 'text'];
const ARGS: (RolloutArgs | null)[] = [
  null,
  { max_tokens_per_gpu: 16384, context_parallel_size: 4, rollout_max_response_len: 16000, rollout_temperature: 1.0 },
  { max_tokens_per_gpu: '8192', cp_size: '2', rollout_max_response_len: '4096', rollout_temperature: '0.7' },
  { max_tokens_per_gpu: 4096, rollout_max_response_len: 4096 },
  { max_tokens_per_gpu: 4096, context_parallel_size: 2, rollout_max_response_len: 1024, rollout_temperature: null },
  { rollout_max_response_len: 1024 },
  { max_tokens_per_gpu: 4096, context_parallel_size: 0, rollout_max_response_len: 1024 },
  { max_tokens_per_gpu: 4096, context_parallel_size: 1, rollout_max_response_len: 1024, rollout_temperature: -1 },
];
const ENVS: Record<string, string | null>[] = [
  { [MAX_STEPS_ENV]: null, [COMPACT_THRESHOLD_ENV]: null },
  { [MAX_STEPS_ENV]: '100', [COMPACT_THRESHOLD_ENV]: '57536' },
  { [MAX_STEPS_ENV]: '0', [COMPACT_THRESHOLD_ENV]: '3000' },
  { [MAX_STEPS_ENV]: ' 50 ', [COMPACT_THRESHOLD_ENV]: '' },
  { [MAX_STEPS_ENV]: 'abc', [COMPACT_THRESHOLD_ENV]: null },
  { [MAX_STEPS_ENV]: '-3', [COMPACT_THRESHOLD_ENV]: null },
  { [MAX_STEPS_ENV]: null, [COMPACT_THRESHOLD_ENV]: '99999999' },
  { [MAX_STEPS_ENV]: null, [COMPACT_THRESHOLD_ENV]: 'half' },
];

function envOf(e: Record<string, string | null>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(e).filter(([, v]) => v !== null)) as NodeJS.ProcessEnv;
}

function ours(fn: () => unknown): { ok: unknown } | { error: string } {
  try {
    return { ok: fn() };
  } catch (err) {
    if (err instanceof ConsoleError) return { error: err.message };
    throw err;
  }
}

test('merge_backend_options: ours equals upstream on the whole matrix (with and without rollout arguments)', { skip }, async () => {
  const cases: { type: unknown; options: unknown; args: RolloutArgs | null; env: Record<string, string | null> }[] = [];
  for (const type of TYPES) for (const options of OPTIONS) for (const args of ARGS) for (const env of ENVS) cases.push({ type, options, args, env });
  const replies = await oracle(cases.map((c) => ({ fn: 'merge_backend_options', args: [c.type, c.options, c.args], env: c.env })));
  let errors = 0;
  cases.forEach((c, i) => {
    const want = replies[i] as { ok?: unknown; error?: string };
    const got = ours(() => mergeBackendOptions(c.type, c.options, { args: c.args ?? undefined, env: envOf(c.env) }));
    const label = JSON.stringify(c);
    if (want.error) {
      errors++;
      assert.ok('error' in got, `${label}: upstream raised ${want.error}, ours returned ${JSON.stringify((got as { ok: unknown }).ok)}`);
      // Same refusal text (upstream: "ValueError: <message>").
      assert.equal((got as { error: string }).error, want.error.replace(/^ValueError: /, ''), label);
    } else {
      assert.ok('ok' in got, `${label}: ours raised ${(got as { error: string }).error}`);
      assert.deepEqual(got.ok, want.ok, label);
    }
  });
  assert.ok(errors > 100 && errors < cases.length - 500, `${errors}/${cases.length} refused`);
});

test('what a SWE-Gym rollout registers (two merges, launcher defaults) equals upstream', { skip }, async () => {
  const settings = [{}, { MAX_TOKENS_PER_GPU: '8192', CP_SIZE: '2', ROLLOUT_MAX_RESPONSE_LEN: '4096' }, { DRESSAGE_BLACKBOX_MAX_STEPS: '0', DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '30000', ROLLOUT_TEMPERATURE: '0.6' }];
  for (const values of settings) {
    const ctx = launcherRolloutContext(values);
    const env = Object.fromEntries(Object.entries(ctx.env).map(([k, v]) => [k, v ?? null]));
    const [first] = await oracle([{ fn: 'merge_backend_options', args: ['claude_code', ROW_OPTIONS, ctx.args], env }]);
    const [second, server] = await oracle([
      { fn: 'merge_backend_options', args: ['claude_code', (first as { ok: unknown }).ok, null], env },
      { fn: 'server_config_for', args: ['claude_code'] },
    ]);
    assert.deepEqual(registeredBackendOptions('claude_code', ROW_OPTIONS, ctx.args, ctx.env), (second as { ok: unknown }).ok, JSON.stringify(values));
    assert.deepEqual(DEFAULT_SERVER_CONFIG, (server as { ok: unknown }).ok);
  }
  // The launcher's defaults: max_steps 100, compaction at (65536 − 8000) / 65536 of the context.
  const opts = registeredBackendOptions('claude_code', ROW_OPTIONS, launcherRolloutContext({}).args, launcherRolloutContext({}).env) as Record<string, any>;
  assert.deepEqual(opts.proxy, { max_steps: 100, default_temperature: 1 });
  assert.deepEqual(opts.compaction, { auto: true, auto_compact_pct_override: 87 });
  assert.equal(opts.max_turns, 80, "the row's own options win");
});
