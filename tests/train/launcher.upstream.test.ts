// Differential tests: the console's launch preview and refusals against the REAL Dressage launcher
// (../shared/upstream/dressage, run with stand-ins for ray/hostname/curl/sleep; see tests/helpers/upstreamHarness.ts).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile, cp, stat } from 'node:fs/promises';
import path from 'node:path';
import { PythonJudge, firstRolloutSkip } from '../helpers/upstreamFirstRolloutOracle.js';
import { baseEnv, builtSkip, consoleDryRun, copyLauncherTree, removeLauncherTrees, flagValue, HOST_I_LOWER, jobEnv, MODEL_CONFIG_REL, rayArgv, refusalText, runRealLauncher, seedConsoleInputs, upstreamSkip, UPSTREAM_DRESSAGE } from '../helpers/upstreamHarness.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);
after(removeLauncherTrees);

interface Case {
  name: string;
  settings: Record<string, string>;
  /** Prepares files the settings point at (relative to the copied checkout). */
  prepare?: (root: string) => Promise<void>;
}

const outsideSlime = async (root: string) => {
  const other = path.join(path.dirname(root), 'elsewhere', 'slime');
  await mkdir(path.join(other, 'scripts', 'models'), { recursive: true });
  await cp(path.join(UPSTREAM_DRESSAGE, MODEL_CONFIG_REL), path.join(other, 'scripts', 'models', 'qwen3.5-4B.sh'));
};

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

async function setUp(c: Case) {
  const tree = await copyLauncherTree();
  await seedConsoleInputs(tree);
  await c.prepare?.(tree.root);
  const settings: Record<string, string> = { DRESSAGE_SKIP_PROXY_HEALTHCHECK: '1', ...c.settings };
  if (settings.SLIME_ROOT?.startsWith('..')) settings.SLIME_ROOT = path.resolve(tree.root, settings.SLIME_ROOT);
  return { tree, env: baseEnv(tree, settings) };
}

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

// Every exit-1 path of the launcher that its settings can reach before the cluster starts.
const REFUSALS: Case[] = [
  { name: 'router on the wildcard address', settings: { SGLANG_ROUTER_HOST: '0.0.0.0' } },
  { name: 'router URL on [::]', settings: { SGLANG_ROUTER_URL: 'http://[::]:8000' } },
  { name: 'local-only proxy URL', settings: { DRESSAGE_PROXY_URL: 'http://127.:8800' } },
  { name: 'localhost proxy host', settings: { PROXY_PUBLIC_HOST: 'localhost' } },
  { name: 'proxy on 0.0.0.0', settings: { PROXY_PUBLIC_HOST: '0.0.0.0' } },
  { name: 'toggle not 0/1', settings: { NORMALIZE_ADVANTAGES: '2' } },
  { name: 'USE_KL_LOSS yes', settings: { USE_KL_LOSS: 'yes' } },
  { name: 'GPUs not divisible by TP*CP', settings: { ACTOR_NUM_GPUS_PER_NODE: '6' } },
  { name: 'compact threshold not positive', settings: { COMPACT_RESERVE_TOKENS: '70000' } },
  { name: 'explicit compact threshold 0', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '0' } },
  // Blank for Dressage (no threshold), but bash arithmetic reads it as 0 first.
  { name: 'a blank compact threshold', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '\t' } },
  { name: 'compact threshold -5 (an expression bash reads as negative)', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '10-15' } },
  { name: 'no E2B key', settings: { DRESSAGE_E2B_API_KEY: '' } },
  { name: 'custom provider without a paddock class', settings: { DRESSAGE_SANDBOX_PROVIDER: 'custom' } },
  { name: 'no MODEL_ROOT', settings: { MODEL_ROOT: '' } },
  { name: 'resume without a root', settings: { RESUME_FROM_CKPT: '1' } },
  { name: 'missing model config', settings: { MODEL_CONFIG: 'qwen-missing.sh' } },
  {
    name: 'no address from hostname -I (MASTER_ADDR not inferred)',
    settings: {},
    prepare: async (root) => writeFile(path.join(path.dirname(root), 'bin-host', 'hostname'), '#!/bin/sh\necho "hostname: invalid option -- I" >&2\nexit 1\n'),
  },
  {
    name: 'hostname -i fails (the router host default)',
    settings: {},
    prepare: async (root) =>
      writeFile(path.join(path.dirname(root), 'bin-host', 'hostname'), `#!/bin/sh\nif [ "$1" = -i ]; then echo "hostname: Name or service not known" >&2; exit 1; fi\necho '10.77.0.5'\n`),
  },
  // `find` is a recording stand-in (tests/helpers/upstreamHarness.ts): nothing is deleted even if the launcher went on.
  { name: 'clearing an unsafe trajectory dir', settings: { DRESSAGE_CLEAR_TRAJECTORY_LOGS: '1', DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR: '/' } },
  {
    name: 'HOSTFILE without RAY_SSH_USER',
    settings: { HOSTFILE: 'hosts.txt', ACTOR_NUM_NODES: '2' },
    prepare: async (root) => writeFile(path.join(root, 'hosts.txt'), '10.77.0.5\n10.77.0.6\n'),
  },
];

for (const c of REFUSALS) {
  test(`the launcher's refusal is the console's: ${c.name}`, { skip }, async () => {
    const { tree, env } = await setUp(c);
    if (env.HOSTFILE) env.HOSTFILE = path.join(tree.root, env.HOSTFILE);
    for (const [k, v] of Object.entries(c.settings)) if (v === '') delete env[k];
    const real = await runRealLauncher(tree, env);
    assert.notEqual(real.code, 0, `the real launcher accepted it:\n${real.stdout.slice(-400)}`);
    // Under set -euo pipefail a failing command substitution ends the launcher without a word of its own.
    const said = refusalText(real.stderr).split('\n')[0] || 'exits 1 there without a message';
    const ours = await consoleDryRun(tree, env);
    const failing = ours.checks.filter((x) => x.status === 'fail');
    assert.ok(
      failing.some((x) => x.detail.includes(said)),
      `console did not refuse with the launcher's words\n  launcher: ${said}\n  console:  ${failing.map((x) => x.detail).join(' | ') || '(nothing failed)'}`,
    );
  });
}

// Accepted by the launcher and by slime, but once blocked by the console.
const ACCEPTED: Case[] = [
  { name: 'a leftover CLAUDE_CODE_BBS_WHEEL_URL', settings: { CLAUDE_CODE_BBS_WHEEL_URL: 'https://example.com/bbs.whl' } },
  { name: 'KL_LOSS_TYPE outside slime choices while KL loss is off', settings: { USE_KL_LOSS: '0', KL_LOSS_TYPE: 'mse' } },
  { name: 'SAVE_DEBUG_ROLLOUT_DATA as a path template', settings: { DEBUG_ROLLOUT_ONLY: '1', SAVE_DEBUG_ROLLOUT_DATA: '/tmp/rollouts/{rollout_id}.pt' } },
  { name: 'HOSTFILE that does not exist (ignored)', settings: { HOSTFILE: '/nonexistent/hosts.txt' } },
  // Dressage strips DRESSAGE_BLACKBOX_MAX_STEPS before int() (defaults.py): 50 steps, not a refusal.
  { name: 'DRESSAGE_BLACKBOX_MAX_STEPS=" 50 "', settings: { DRESSAGE_BLACKBOX_MAX_STEPS: ' 50 ' } },
  { name: 'DRESSAGE_BLACKBOX_MAX_STEPS=0 (no limit)', settings: { DRESSAGE_BLACKBOX_MAX_STEPS: '0' } },
  { name: 'paddock mode in upper case (Dressage lower-cases it)', settings: { DRESSAGE_PADDOCK_MODE: ' BlackBox ' } },
  { name: 'an E2B port spelled with spaces (int() strips them)', settings: { DRESSAGE_E2B_BLACKBOX_PORT: ' 31000 ' } },
  // Neither the launcher nor Dressage checks it; SGLang's head split is a warning (engineRule.ts).
  { name: 'ROLLOUT_NUM_GPUS_PER_ENGINE=3', settings: { ROLLOUT_NUM_GPUS_PER_ENGINE: '3' } },
  { name: 'runtime-env keys the launcher forwards (TMPDIR, RAY_TMPDIR, WANDB_MODE)', settings: { TMPDIR: '/tmp', RAY_TMPDIR: '/tmp/ray', WANDB_MODE: 'offline' } },
  {
    name: 'hostname -I fails but MASTER_ADDR and CURRENT_NODE_IP are set',
    settings: { MASTER_ADDR: '203.0.113.8', CURRENT_NODE_IP: '203.0.113.8' },
    prepare: async (root) => writeFile(path.join(path.dirname(root), 'bin-host', 'hostname'), `#!/bin/sh\n[ "$1" = -I ] && exit 1\necho 10.77.0.9\n`),
  },
  { name: 'clearing the trajectory dirs of the run', settings: { DRESSAGE_CLEAR_TRAJECTORY_LOGS: '1' } },
  { name: 'RESUME_FROM_CKPT=yes (anything but 1 is off)', settings: { RESUME_FROM_CKPT: 'yes' } },
];

/** What the first rollout makes of what the launcher handed Ray: its runtime env and the trainer's flags. */
async function firstRolloutOf(tree: Awaited<ReturnType<typeof copyLauncherTree>>) {
  const job = await rayArgv(tree, 'job');
  const env = (JSON.parse(flagValue(job, '--runtime-env-json') ?? '{}') as { env_vars: Record<string, string> }).env_vars;
  const args = {
    max_tokens_per_gpu: Number(flagValue(job, '--max-tokens-per-gpu')),
    context_parallel_size: Number(flagValue(job, '--context-parallel-size')),
    rollout_max_response_len: Number(flagValue(job, '--rollout-max-response-len')),
    rollout_temperature: Number(flagValue(job, '--rollout-temperature')),
  };
  const reply = await judge().call('first_rollout', [args], env);
  assert.ok('ok' in reply, `oracle: ${JSON.stringify(reply)}`);
  return reply.ok as { stage: string; error?: string; sdk?: { api_key: boolean } };
}

let python: PythonJudge | undefined;
const judge = () => (python ??= new PythonJudge());
after(() => python?.close());
const rolloutSkip = skip || firstRolloutSkip() || builtSkip();

for (const c of ACCEPTED) {
  test(`accepted by the launcher and the first rollout, not blocked by the built console: ${c.name}`, { skip: rolloutSkip }, async () => {
    const { tree, env } = await setUp(c);
    const real = await runRealLauncher(tree, env);
    assert.equal(real.code, 0, `the real launcher refused: ${real.stderr.slice(-600)}`);
    const rollout = await firstRolloutOf(tree);
    assert.equal(rollout.error, undefined, `Dressage refuses it at ${rollout.stage}`);
    const ours = await consoleDryRun(tree, env, [], { built: true });
    assert.deepEqual(ours.checks.filter((x) => x.status === 'fail'), []);
    assert.deepEqual(ours.effectiveLines, real.effectiveLines);
    assert.ok(!ours.checks.some((x) => x.id === 'forwarding' && /not launcher settings/.test(x.detail)), 'a runtime-env key is called unknown');
  });
}

// Let through by the launcher, refused by Dressage's Python at the first rollout (after Ray, Megatron and SGLang are
// up): the built console refuses each before launch, in Dressage's words.
const FIRST_ROLLOUT_REFUSALS: Case[] = [
  { name: 'http://127.0.0.1:8800 (the launcher wants ":" or "/" right after "127.")', settings: { DRESSAGE_PROXY_URL: 'http://127.0.0.1:8800' } },
  { name: 'http://LOCALHOST:8800 (the launcher matches lower case)', settings: { DRESSAGE_PROXY_URL: 'http://LOCALHOST:8800' } },
  { name: 'PROXY_PUBLIC_HOST=127.0.0.1', settings: { PROXY_PUBLIC_HOST: '127.0.0.1' } },
  { name: 'HTTP://0.0.0.0:8800 (upper-case scheme)', settings: { DRESSAGE_PROXY_URL: 'HTTP://0.0.0.0:8800' } },
  { name: 'compaction threshold 3.5', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '3.5' } },
  { name: 'compaction threshold 12abc', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '12abc' } },
  { name: 'compaction threshold 0x10', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '0x10' } },
  { name: 'compaction threshold 1000+1', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '1000+1' } },
  { name: 'DRESSAGE_PADDOCK_MODE=whitebox', settings: { DRESSAGE_PADDOCK_MODE: 'whitebox' } },
  { name: 'an unknown paddock mode', settings: { DRESSAGE_PADDOCK_MODE: 'greybox' } },
  { name: 'DRESSAGE_BLACKBOX_MAX_STEPS=00', settings: { DRESSAGE_BLACKBOX_MAX_STEPS: '00' } },
  { name: 'an E2B port other than 31000', settings: { DRESSAGE_E2B_BLACKBOX_PORT: '31001' } },
];

for (const c of FIRST_ROLLOUT_REFUSALS) {
  test(`let through by the launcher, refused by the first rollout and by the built console: ${c.name}`, { skip: rolloutSkip }, async () => {
    const { tree, env } = await setUp(c);
    const real = await runRealLauncher(tree, env);
    assert.equal(real.code, 0, `the real launcher refused it itself: ${real.stderr.slice(-600)}`);
    const rollout = await firstRolloutOf(tree);
    const said = rollout.error?.replace(/^\w+: /, '');
    assert.ok(said, `Dressage accepts it (stage ${rollout.stage})`);
    const ours = await consoleDryRun(tree, env, [], { built: true });
    const failing = ours.checks.filter((x) => x.status === 'fail');
    assert.ok(failing.some((x) => x.detail.includes(said) && x.fix), `not refused in Dressage's words\n  Dressage: ${said}\n  console:  ${failing.map((x) => x.detail).join(' | ') || '(nothing failed)'}`);
  });
}

test('DRESSAGE_SANDBOX_PROVIDER=E2B without a key: the launcher lets it through, Dressage runs E2B with no key, the built console refuses', { skip: rolloutSkip }, async () => {
  const { tree, env } = await setUp({ name: 'E2B', settings: { DRESSAGE_SANDBOX_PROVIDER: 'E2B' } });
  delete env.DRESSAGE_E2B_API_KEY;
  const real = await runRealLauncher(tree, env);
  assert.equal(real.code, 0, real.stderr.slice(-600));
  const rollout = await firstRolloutOf(tree);
  assert.deepEqual([rollout.stage, rollout.sdk?.api_key], ['ok', false], JSON.stringify(rollout));
  const ours = await consoleDryRun(tree, env, [], { built: true });
  const key = ours.checks.find((x) => x.id === 'e2b-key');
  assert.equal(key?.status, 'fail');
  assert.match(key.detail, /DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b.*misses this spelling/);
});

test('compaction threshold "half": the launcher itself ends (set -u), and the built console refuses', { skip: rolloutSkip }, async () => {
  const { tree, env } = await setUp({ name: 'half', settings: { DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: 'half' } });
  const real = await runRealLauncher(tree, env);
  assert.notEqual(real.code, 0);
  assert.match(real.stderr, /half: unbound variable/);
  const ours = await consoleDryRun(tree, env, [], { built: true });
  const c = ours.checks.find((x) => x.id === 'compaction');
  assert.equal(c?.status, 'fail');
  assert.match(c.detail, /got 'half'.*unbound variable/);
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
