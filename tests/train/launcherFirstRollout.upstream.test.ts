// Differential tests: settings the REAL Dressage launcher lets through, judged by Dressage's own Python at the first
// rollout (upstreamFirstRolloutOracle.ts) and by the built console: accepted by both, or refused by both in Dressage's
// words (cases: launcherCases.ts; harness: upstreamHarness.ts).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PythonJudge, firstRolloutSkip } from '../helpers/upstreamFirstRolloutOracle.js';
import { builtSkip, consoleDryRun, copyLauncherTree, flagValue, rayArgv, removeLauncherTrees, runRealLauncher, upstreamSkip } from '../helpers/upstreamHarness.js';
import { setUp, type Case } from './launcherCases.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);
after(removeLauncherTrees);

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
