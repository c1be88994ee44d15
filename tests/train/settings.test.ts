// The settings table, validation, env files, persistence (secrets kept out), and the derived values against the
// recipe reference (§1.7 effective_* lines for 4×8 GPUs) and against the fake launcher's own output.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { GROUPS, OWN_CHECK, SETTINGS, describeSecretSettings, loadTrainSettings, parseAssignment, readEnvFile, saveTrainSettings, secretsFile, validateSetting } from '../../src/services/train/settings.js';
import { deriveValues, describeDerived, resolveSettings } from '../../src/services/train/derive.js';
import { buildLaunchPlan, formatDryRun, planSummary } from '../../src/services/train/launch.js';
import { removeDir } from '../helpers/workspace.js';
import { SECRET, trainWorkspace } from './helpers.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

test('every setting has a group, a default text, an explanation; keys are unique', () => {
  const groups = new Set(GROUPS.map((g) => g.id));
  const keys = new Set<string>();
  for (const s of SETTINGS) {
    assert.ok(groups.has(s.group), s.key);
    assert.ok(s.help.length > 5 && s.defaultText.length > 0, s.key);
    assert.ok(!keys.has(s.key), `duplicate ${s.key}`);
    keys.add(s.key);
  }
  for (const g of GROUPS) assert.ok(SETTINGS.some((s) => s.group === g.id), `group ${g.id} is empty`);
  for (const k of ['MODEL_ROOT', 'PROMPT_DATA', 'ACTOR_NUM_NODES', 'TP_SIZE', 'CP_SIZE', 'DRESSAGE_PROXY_URL', 'DRESSAGE_E2B_API_KEY', 'RESUME_FROM_CKPT', 'USE_WANDB', 'KL_COEF']) {
    assert.ok(keys.has(k), k);
  }
});

test('validation uses the launcher wording for the toggles it checks; our stricter rules say they are ours', () => {
  assert.equal(validateSetting('USE_TIS', 'yes'), 'USE_TIS must be 0 or 1; got yes');
  // The launcher only compares RESUME_FROM_CKPT with "1": our rule, labelled as ours.
  assert.equal(validateSetting('RESUME_FROM_CKPT', 'yes'), `${OWN_CHECK}RESUME_FROM_CKPT must be 0 or 1 (the launcher treats anything but 1 as 0); got yes`);
  assert.equal(validateSetting('USE_TIS', '1'), undefined);
  assert.match(validateSetting('ACTOR_NUM_NODES', '0') ?? '', /positive integer/);
  assert.match(validateSetting('ACTOR_NUM_NODES', '2.5') ?? '', /positive integer/);
  assert.equal(validateSetting('ACTOR_NUM_NODES', '4'), undefined);
  assert.equal(validateSetting('LR', '1e-6'), undefined);
  assert.match(validateSetting('LR', 'fast') ?? '', /must be a number/);
  // Dressage's own rule (BlackboxAgentPaddock.__init__), in its words, with Python's repr of the value.
  assert.equal(validateSetting('DRESSAGE_PROXY_URL', 'ftp://x'), "Dressage (dressage/paddock/blackbox/common/utils.py) fails the first rollout: DRESSAGE_PROXY_URL must be an http(s) URL with a host, got: 'ftp://x'");
  assert.match(validateSetting('DRESSAGE_PROXY_URL', 'http://LOCALHOST:8800') ?? '', /cannot use a local-only host: 'http:\/\/LOCALHOST:8800'/);
  // Dressage strips DRESSAGE_BLACKBOX_MAX_STEPS and takes int(): " 50 " is 50, "00" and "abc" are refused.
  assert.equal(validateSetting('DRESSAGE_BLACKBOX_MAX_STEPS', ' 50 '), undefined);
  assert.equal(validateSetting('DRESSAGE_BLACKBOX_MAX_STEPS', '0'), undefined);
  assert.match(validateSetting('DRESSAGE_BLACKBOX_MAX_STEPS', '00') ?? '', /must be a positive integer or 0 to disable the limit, got '00'/);
  // Provider and KL loss type are checked against Dressage's and slime's own lists in checks.ts.
  assert.equal(validateSetting('DRESSAGE_SANDBOX_PROVIDER', 'local_bwrap'), undefined);
  assert.equal(validateSetting('SAVE_DEBUG_ROLLOUT_DATA', '/x/{rollout_id}.pt'), undefined);
  assert.match(validateSetting('SGLANG_MEM_FRACTION_STATIC', '1.5') ?? '', /\(0, 1\]/);
  assert.match(validateSetting('DRESSAGE_EXTRA_RUNTIME_ENV_KEYS', 'A,B-C') ?? '', /comma list/);
  assert.match(validateSetting('1BAD', 'x') ?? '', /not a valid environment variable name/);
});

test('KEY=VALUE parsing and env files (comments, export, quotes); bad lines name the file and line', async () => {
  assert.deepEqual(parseAssignment('ACTOR_NUM_NODES=4', '--set'), ['ACTOR_NUM_NODES', '4']);
  assert.deepEqual(parseAssignment('X="a b"', '--set'), ['X', 'a b']);
  assert.throws(() => parseAssignment('=4', '--set'), /--set: expected KEY=VALUE/);
  const ws = await trainWorkspace();
  dirs.push(ws.root);
  const f = path.join(ws.root, 'launch.env');
  await writeFile(f, '# comment\nexport ACTOR_NUM_NODES=4\n\nDRESSAGE_PROXY_URL="https://p.example.org"\n');
  assert.deepEqual(await readEnvFile(f), { ACTOR_NUM_NODES: '4', DRESSAGE_PROXY_URL: 'https://p.example.org' });
  await writeFile(f, 'OK=1\nnot an assignment\n');
  await assert.rejects(readEnvFile(f), (e: Error) => e.message.includes(`${f}:2`));
  await assert.rejects(readEnvFile(path.join(ws.root, 'nope.env')), /cannot read the env file/);
});

test('saved settings keep secrets out of settings.json; the opt-in secrets file is 0600; other sections survive', async () => {
  const ws = await trainWorkspace();
  dirs.push(ws.root);
  await mkdir(ws.paths.consoleDir, { recursive: true });
  await writeFile(ws.paths.settingsFile, JSON.stringify({ templates: { concurrency: 6 } }));
  await saveTrainSettings(ws.paths, { ACTOR_NUM_NODES: '4', DRESSAGE_E2B_API_KEY: SECRET, WANDB_API_KEY: 'wandb-secret-value-1' });
  const text = await readFile(ws.paths.settingsFile, 'utf8');
  assert.ok(!text.includes(SECRET) && !text.includes('wandb-secret-value-1'));
  const doc = JSON.parse(text);
  assert.deepEqual(doc.templates, { concurrency: 6 });
  assert.deepEqual(doc.train.values, { ACTOR_NUM_NODES: '4' });
  await assert.rejects(stat(secretsFile(ws.paths)));
  let loaded = await loadTrainSettings(ws.paths);
  assert.deepEqual(loaded.secrets, {});

  await saveTrainSettings(ws.paths, { ACTOR_NUM_NODES: '4', DRESSAGE_E2B_API_KEY: SECRET }, { storeSecrets: true });
  const st = await stat(secretsFile(ws.paths));
  assert.equal(st.mode & 0o777, 0o600);
  assert.ok(!(await readFile(ws.paths.settingsFile, 'utf8')).includes(SECRET));
  loaded = await loadTrainSettings(ws.paths);
  assert.equal(loaded.secrets.DRESSAGE_E2B_API_KEY, SECRET);
  assert.equal(loaded.values.ACTOR_NUM_NODES, '4');
});

test('defaults on 4 nodes × 8 GPUs give exactly the effective_* lines of the reference (§1.7) and the §6.4 concurrency', () => {
  const eff = resolveSettings({ ACTOR_NUM_NODES: '4', DRESSAGE_PROXY_URL: '<url>' }, { repoRoot: '/r', env: {}, hostIp: '10.0.0.1' });
  const d = deriveValues(eff);
  assert.deepEqual(d.effectiveLines, [
    'effective_parallelism: total_actor_gpus=32 TP_SIZE=2 CP_SIZE=4 DP_SIZE=4 CONTEXT_WINDOW=65536 ROLLOUT_MAX_CONTEXT_LEN=65536',
    'effective_blackbox: provider=e2b proxy=<url> max_steps=100 compact_threshold=57536',
    'effective_claude_code: version=2.1.207 bbs_version=1.1.0 portable_python=3.10.20',
    'effective_batch: num_rollout=500 rollout_batch_size=8 n_samples_per_prompt=16 global_batch_size=128',
    'effective_grpo: normalize_advantages=1 use_tis=1 use_kl_loss=1 kl_coef=0.0 entropy_coef=0.0 eps_clip=0.2 eps_clip_high=0.28 kl_loss_coef=0.001 kl_loss_type=low_var_kl',
  ]);
  assert.equal(d.totalGpus, 32);
  assert.equal(d.dpSize, 4);
  assert.equal(d.engines, 16);
  assert.equal(d.concurrentSamples, 64);
  assert.equal(d.sandboxesAtPeak, 128);
  assert.equal(d.autoCompactPct, 87);
  assert.equal(d.e2bFit, 'peak'); // 128 at peak > the default plan limit of 100, 64 agents fit
  assert.equal(eff.RUN_NAME, 'swegym-qwen3.5-4b-claude-code-grpo-sync');
  assert.equal(eff.SAVE_ROOT, '/r/outputs/checkpoints/swegym-qwen3.5-4b-claude-code-grpo-sync');
  assert.equal(eff.RAY_TEMP_DIR, '/r/outputs/logs/ray');
  assert.equal(eff.DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR, '/r/outputs/logs/swegym-qwen3.5-4b-claude-code-grpo-sync/traj_payload/swegym-qwen3.5-4b-claude-code-grpo-sync');

  const one = deriveValues(resolveSettings({}, { repoRoot: '/r', env: {}, hostIp: '10.0.0.1' }));
  assert.equal(one.nodes, 1, 'ACTOR_NUM_NODES defaults to 1');
  assert.equal(one.concurrentSamples, 16);
  assert.equal(deriveValues(resolveSettings({}, { repoRoot: '/r', env: { WORLD_SIZE: '2' }, hostIp: 'x' })).nodes, 2, 'WORLD_SIZE feeds the default');

  const odd = deriveValues(resolveSettings({ ACTOR_NUM_NODES: '1', ACTOR_NUM_GPUS_PER_NODE: '6' }, { repoRoot: '/r', env: {}, hostIp: 'x' }));
  assert.equal(odd.dpDivisible, false);
  assert.match(odd.effectiveLines[0] ?? '', /DP_SIZE=\?/);
  const cost = describeDerived(d).find((x) => x.label.startsWith('E2B cost'));
  assert.ok(cost && /estimate/.test(cost.label) && /\$/.test(cost.value));
});

test('the derived effective_* lines match what the (fake) launcher prints for the same settings', async () => {
  const ws = await trainWorkspace();
  dirs.push(ws.root);
  const sets = { TP_SIZE: '1', CP_SIZE: '2', MAX_TOKENS_PER_GPU: '20000', ROLLOUT_MAX_RESPONSE_LEN: '9000', NUM_ROLLOUT: '7', KL_COEF: '0.0', USE_KL_LOSS: '0' };
  const plan = buildLaunchPlan({ paths: ws.paths, env: ws.env, sets, hostIp: '10.1.2.3' });
  const out = execFileSync('bash', [ws.paths.launcherScript], {
    cwd: ws.root,
    env: { ...plan.env, FAKE_LAUNCHER_ROLLOUTS: '0' },
    encoding: 'utf8',
  });
  const printed = out.split('\n').filter((l) => l.startsWith('effective_'));
  assert.deepEqual(printed, plan.derived.effectiveLines);
});

test('the dry run shows the exact command and environment with secrets masked', async () => {
  const ws = await trainWorkspace();
  dirs.push(ws.root);
  const plan = buildLaunchPlan({ paths: ws.paths, env: ws.env, sets: { ACTOR_NUM_NODES: '4', WANDB_API_KEY: 'wandb-secret-value-1' } });
  const text = formatDryRun(plan);
  assert.ok(text.includes(`bash ${ws.paths.launcherScript}`));
  assert.match(text, /export ACTOR_NUM_NODES=4 +# set/);
  assert.match(text, /export WANDB_API_KEY=\*\*\*\* +# set/);
  assert.match(text, /# inherited: DRESSAGE_E2B_API_KEY=\*\*\*\*/);
  assert.match(text, new RegExp(`export PROMPT_DATA=${ws.paths.trainJsonl.replace(/[.]/g, '\\.')} +# console`));
  assert.ok(!text.includes(SECRET) && !text.includes('wandb-secret-value-1'));
  const json = JSON.stringify(planSummary(plan));
  assert.ok(!json.includes(SECRET) && !json.includes('wandb-secret-value-1'));
  assert.equal(plan.env.DRESSAGE_E2B_API_KEY, SECRET, 'the launcher itself still gets the key');
});

test('the store holds a secret setting only as whether it is set (describeSecretSettings)', () => {
  const shown = describeSecretSettings({ DRESSAGE_E2B_API_KEY: 'e2b_fake_key_for_tests', WANDB_API_KEY: '', NUM_ROLLOUT: '8' });
  assert.deepEqual(shown, { DRESSAGE_E2B_API_KEY: 'set (22 chars)', WANDB_API_KEY: 'not set', NUM_ROLLOUT: '8' });
});
