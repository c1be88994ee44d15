// Differential tests: the console's launch preview against the REAL Dressage launcher (../shared/upstream/dressage,
// run with stand-ins for ray/hostname/curl/sleep; see tests/helpers/upstreamHarness.ts). Its refusals are in
// launcherRefusals.upstream.test.ts, the first rollout's verdicts in launcherFirstRollout.upstream.test.ts: three files
// so that the three halves of the slowest differential work run side by side.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { consoleDryRun, removeLauncherTrees, flagValue, HOST_I_LOWER, jobEnv, rayArgv, runRealLauncher, upstreamSkip, UPSTREAM_DRESSAGE } from '../helpers/upstreamHarness.js';
import { outsideSlime, setUp, type Case } from './launcherCases.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);
after(removeLauncherTrees);

// Settings that change what the effective_* lines print, through every default chain the launcher has.
const MATRIX: Case[] = [
  { name: 'defaults', settings: {} },
  { name: 'PROXY_PORT without DRESSAGE_PROXY_URL', settings: { PROXY_PORT: '9000' } },
  { name: 'explicit compact threshold', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '30000' } },
  { name: 'compact reserve and max steps', settings: { COMPACT_RESERVE_TOKENS: '4000', DRESSAGE_BLACKBOX_MAX_STEPS: '40' } },
  { name: 'topology: 4 nodes, CP 2, shorter context', settings: { ACTOR_NUM_NODES: '4', CP_SIZE: '2', MAX_TOKENS_PER_GPU: '8192', ROLLOUT_MAX_RESPONSE_LEN: '12000', STANDIN_RAY_NODES: '4' } },
  { name: 'nodes from WORLD_SIZE', settings: { WORLD_SIZE: '2', STANDIN_RAY_NODES: '2' } },
  { name: 'explicit context window and rollout context', settings: { CONTEXT_WINDOW: '40000', ROLLOUT_MAX_CONTEXT_LEN: '32000' } },
  { name: 'proxy host from CURRENT_NODE_IP', settings: { CURRENT_NODE_IP: '203.0.113.7', MASTER_ADDR: '203.0.113.8' } },
  { name: 'proxy host from MASTER_ADDR when CURRENT_NODE_IP is empty', settings: { MASTER_ADDR: '203.0.113.8', CURRENT_NODE_IP: '' } },
  { name: 'PROXY_PUBLIC_HOST and port', settings: { PROXY_PUBLIC_HOST: 'proxy.example.com', PROXY_PORT: '443' } },
  { name: 'explicit proxy URL wins over the port', settings: { DRESSAGE_PROXY_URL: 'https://tunnel.example.com', PROXY_PORT: '9000' } },
  { name: 'batch and GRPO', settings: { NUM_ROLLOUT: '20', ROLLOUT_BATCH_SIZE: '4', N_SAMPLES_PER_PROMPT: '8', GLOBAL_BATCH_SIZE: '32', USE_KL_LOSS: '0', KL_COEF: '0.01', KL_LOSS_TYPE: 'k2', NORMALIZE_ADVANTAGES: '0', EPS_CLIP_HIGH: '0.3' } },
  { name: 'Claude Code versions', settings: { CLAUDE_CODE_VERSION: '2.2.0', CLAUDE_CODE_BBS_VERSION: '1.2.0', CLAUDE_CODE_PORTABLE_PYTHON_VERSION: '3.11.9' } },
  { name: 'local_bwrap provider', settings: { DRESSAGE_SANDBOX_PROVIDER: 'local_bwrap' } },
  { name: 'transfer queue on', settings: { DRESSAGE_ENABLE_TRANSFER_QUEUE: 'yes' } },
  { name: 'SLIME_ROOT outside the checkout', settings: { SLIME_ROOT: '../elsewhere/slime' }, prepare: outsideSlime },
];

// Values the launcher exports (dressage_export_common_env and its own exports) that the console also predicts.
const EXPORTED = [
  'DRESSAGE_PROXY_URL', 'DRESSAGE_PROXY_PUBLIC_URL', 'SGLANG_ROUTER_URL', 'DRESSAGE_BLACKBOX_MAX_STEPS', 'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD',
  'DRESSAGE_SANDBOX_PROVIDER', 'DRESSAGE_SANDBOX_PREWARM', 'DRESSAGE_SANDBOX_PREWARM_AHEAD', 'DRESSAGE_PADDOCK_MODE', 'RUN_NAME', 'LOG_DIR',
  'DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR', 'DRESSAGE_TRAJECTORY_ERROR_LOG_DIR', 'DRESSAGE_ENABLE_TRANSFER_QUEUE', 'DRESSAGE_TRANSFER_QUEUE_CONFIG',
  'DRESSAGE_TRANSFER_QUEUE_RETENTION_SECONDS', 'DRESSAGE_TRANSFER_PARAMS', 'DRESSAGE_TRANSFER_QUEUE_STORE_ID', 'MASTER_ADDR', 'CURRENT_NODE_IP',
  'CONTEXT_WINDOW', 'MAX_TOKENS_PER_GPU', 'DRESSAGE_E2B_BLACKBOX_PORT', 'DRESSAGE_E2B_TIMEOUT_SEC', 'DRESSAGE_PROXY_MAX_STEPS_PER_SESSION',
  'DRESSAGE_REWARD_MODULES', 'GLOO_SOCKET_IFNAME', 'NCCL_SOCKET_IFNAME', 'NCCL_DEBUG', 'CUDA_DEVICE_MAX_CONNECTIONS', 'no_proxy', 'NO_PROXY',
];

// Trainer flags the launcher fills from settings, and the setting the console predicts for each.
const TRAINER_FLAGS: [string, string | ((e: Record<string, string>) => string)][] = [
  ['--actor-num-nodes', 'ACTOR_NUM_NODES'], ['--actor-num-gpus-per-node', 'ACTOR_NUM_GPUS_PER_NODE'], ['--hf-checkpoint', 'HF_CHECKPOINT'],
  ['--ref-load', 'REF_LOAD'], ['--save', (e) => `${e.SAVE_ROOT}/`], ['--save-interval', 'SAVE_INTERVAL'], ['--prompt-data', 'PROMPT_DATA'],
  ['--num-rollout', 'NUM_ROLLOUT'], ['--rollout-batch-size', 'ROLLOUT_BATCH_SIZE'], ['--n-samples-per-prompt', 'N_SAMPLES_PER_PROMPT'],
  ['--rollout-max-response-len', 'ROLLOUT_MAX_RESPONSE_LEN'], ['--rollout-max-context-len', 'ROLLOUT_MAX_CONTEXT_LEN'],
  ['--rollout-temperature', 'ROLLOUT_TEMPERATURE'], ['--num-steps-per-rollout', 'NUM_STEPS_PER_ROLLOUT'], ['--global-batch-size', 'GLOBAL_BATCH_SIZE'],
  ['--tensor-model-parallel-size', 'TP_SIZE'], ['--context-parallel-size', 'CP_SIZE'], ['--max-tokens-per-gpu', 'MAX_TOKENS_PER_GPU'],
  ['--log-probs-chunk-size', 'LOG_PROBS_CHUNK_SIZE'], ['--kl-coef', 'KL_COEF'], ['--entropy-coef', 'ENTROPY_COEF'], ['--eps-clip', 'EPS_CLIP'],
  ['--eps-clip-high', 'EPS_CLIP_HIGH'], ['--lr', 'LR'], ['--weight-decay', 'WEIGHT_DECAY'], ['--adam-beta1', 'ADAM_BETA1'], ['--adam-beta2', 'ADAM_BETA2'],
  ['--rollout-num-gpus-per-engine', 'ROLLOUT_NUM_GPUS_PER_ENGINE'], ['--sglang-server-concurrency', 'SGLANG_SERVER_CONCURRENCY'],
  ['--sglang-mem-fraction-static', 'SGLANG_MEM_FRACTION_STATIC'], ['--sglang-router-port', 'SGLANG_ROUTER_PORT'],
];

const RAY_START_FLAGS: [string, string][] = [
  ['--port', 'RAY_PORT'], ['--node-ip-address', 'RAY_NODE_IP_ADDRESS'], ['--num-gpus', 'RAY_NUM_GPUS_PER_NODE'], ['--dashboard-host', 'RAY_DASHBOARD_HOST'],
  ['--dashboard-port', 'RAY_DASHBOARD_PORT'], ['--temp-dir', 'RAY_TEMP_DIR'],
];

for (const c of MATRIX) {
  test(`launch preview equals the real launcher: ${c.name}`, { skip }, async () => {
    const { tree, env } = await setUp(c);
    const real = await runRealLauncher(tree, env);
    assert.equal(real.code, 0, `the real launcher failed: ${real.stderr.slice(-600)}`);
    assert.equal(real.effectiveLines.length, 5);
    const ours = await consoleDryRun(tree, env);
    assert.deepEqual(ours.effectiveLines, real.effectiveLines);
    const exported = await jobEnv(tree);
    for (const k of EXPORTED) assert.equal(ours.effective[k], exported[k] ?? '', `${k}: console ${ours.effective[k]} vs launcher ${exported[k]}`);
    // What the launcher handed Ray and the trainer, and the files it wrote, where the console predicts them.
    const job = await rayArgv(tree, 'job');
    for (const [flag, key] of TRAINER_FLAGS) {
      const want = typeof key === 'function' ? key(ours.effective) : ours.effective[key];
      assert.equal(flagValue(job, flag), want, `${flag}: launcher ${flagValue(job, flag)} vs console ${want}`);
    }
    const start = await rayArgv(tree, 'start');
    for (const [flag, key] of RAY_START_FLAGS) assert.equal(flagValue(start, flag), ours.effective[key], `ray start ${flag}`);
    for (const k of ['SAVE_ROOT', 'LOG_DIR', 'DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR', 'DRESSAGE_TRAJECTORY_ERROR_LOG_DIR', 'RAY_TEMP_DIR']) {
      assert.ok((await stat(ours.effective[k]!)).isDirectory(), `${k}=${ours.effective[k]} was not created by the launcher`);
    }
    assert.ok((await stat(ours.effective.PROXY_LOG_FILE!)).isFile(), `the proxy log is not at PROXY_LOG_FILE=${ours.effective.PROXY_LOG_FILE}`);
    // Accepted by the launcher: the console blocks nothing either.
    assert.deepEqual(ours.checks.filter((x) => x.status === 'fail'), []);
  });
}

test('the router host is `hostname -i` (not -I), as the defaults file has it', { skip }, async () => {
  const { tree, env } = await setUp({ name: 'router', settings: {} });
  const real = await runRealLauncher(tree, env);
  const ours = await consoleDryRun(tree, env);
  assert.equal((await jobEnv(tree)).SGLANG_ROUTER_URL, `http://${HOST_I_LOWER}:8000`);
  assert.equal(ours.effective.SGLANG_ROUTER_HOST, HOST_I_LOWER);
  assert.equal(real.code, 0);
});

test("the Ray runtime env: the console's forwarded list is the launcher's, and what it warns about is what Ray misses", { skip }, async () => {
  const { readFile } = await import('node:fs/promises');
  const { FORWARDED_TO_RAY } = await import('../../src/services/train/settings.js');
  const source = await readFile(path.join(UPSTREAM_DRESSAGE, 'examples', 'scripts', 'run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh'), 'utf8');
  const list = /\nkeys = \[([\s\S]*?)\n\]/.exec(source)?.[1] ?? '';
  const keys = [...list.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"/g)].map((m) => m[1] as string);
  assert.ok(keys.length > 20, `keys not found in the launcher: ${list}`);
  assert.deepEqual([...FORWARDED_TO_RAY].sort(), [...keys].sort());

  for (const extra of ['', 'DRESSAGE_SWEGYM_BLOCKED_REPOS']) {
    const { tree, env } = await setUp({ name: 'forwarding', settings: { DRESSAGE_SWEGYM_BLOCKED_REPOS: 'a/b', ...(extra ? { DRESSAGE_EXTRA_RUNTIME_ENV_KEYS: extra } : {}) } });
    const real = await runRealLauncher(tree, env);
    assert.equal(real.code, 0, real.stderr);
    const json = flagValue(await rayArgv(tree, 'job'), '--runtime-env-json') ?? '{}';
    const forwarded = Object.keys((JSON.parse(json) as { env_vars: Record<string, string> }).env_vars);
    const ours = await consoleDryRun(tree, env);
    const warned = ours.checks.some((c) => c.id === 'forwarding' && c.detail.includes('DRESSAGE_SWEGYM_BLOCKED_REPOS will not reach'));
    assert.equal(forwarded.includes('DRESSAGE_SWEGYM_BLOCKED_REPOS'), !warned, `extra=${extra}: forwarded ${forwarded.includes('DRESSAGE_SWEGYM_BLOCKED_REPOS')}, warned ${warned}`);
  }
});
