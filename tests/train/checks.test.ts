// Every trap of reference §8 that the console can see before a launch: the check blocks it with the launcher's own
// words, and the (fake) launcher, run with the same environment, fails with the same words.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildLaunchPlan, type LaunchPlan } from '../../src/services/train/launch.js';
import { isLocalOnlyHost, isPrivateHost, probeChecks, runLaunchChecks, staticChecks, type LaunchCheck } from '../../src/services/train/checks.js';
import { detectHostIp } from '../../src/services/train/derive.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { removeDir } from '../helpers/workspace.js';
import { SECRET, trainWorkspace, type TrainWorkspace } from './helpers.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

let shared: TrainWorkspace | undefined;
async function ws(): Promise<TrainWorkspace> {
  if (!shared) {
    shared = await trainWorkspace();
    dirs.push(shared.root);
  }
  return shared;
}

function plan(w: TrainWorkspace, env: NodeJS.ProcessEnv, sets: Record<string, string> = {}): LaunchPlan {
  return buildLaunchPlan({ paths: w.paths, env, sets, hostIp: '10.1.2.3' });
}

function runFake(p: LaunchPlan): { code: number | null; stderr: string; stdout: string } {
  const r = spawnSync('bash', [p.paths.launcherScript], { cwd: p.paths.root, env: { ...p.env, FAKE_LAUNCHER_ROLLOUTS: '0', FAKE_PROXY_HEALTH_TRIES: '1' }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

function find(checks: LaunchCheck[], id: string): LaunchCheck {
  const c = checks.find((x) => x.id === id);
  assert.ok(c, `no check ${id} in ${checks.map((x) => x.id).join(',')}`);
  return c;
}

const without = (env: NodeJS.ProcessEnv, ...keys: string[]) => Object.fromEntries(Object.entries(env).filter(([k]) => !keys.includes(k)));

// [name, env change, sets, check id, exact text in the check, exact text the launcher prints (or undefined when the launcher does not validate it)]
const TRAPS: [string, (e: NodeJS.ProcessEnv) => NodeJS.ProcessEnv, Record<string, string>, string, string, string | undefined][] = [
  ['MODEL_ROOT missing', (e) => without(e, 'MODEL_ROOT'), {}, 'model-root', 'MODEL_ROOT must point to model/checkpoint files, e.g. /path/to/models', 'MODEL_ROOT must point to model/checkpoint files, e.g. /path/to/models'],
  ['toggle not 0/1', (e) => e, { USE_TIS: 'true' }, 'values', 'USE_TIS must be 0 or 1; got true', 'USE_TIS must be 0 or 1; got true'],
  ['E2B key missing', (e) => without(e, 'DRESSAGE_E2B_API_KEY'), {}, 'e2b-key', 'DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b', 'DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b'],
  [
    'only E2B_API_KEY set',
    (e) => ({ ...without(e, 'DRESSAGE_E2B_API_KEY'), E2B_API_KEY: 'e2b_templatekey1' }),
    {},
    'e2b-key',
    'E2B_API_KEY is set, but only the template tools read it',
    'DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b',
  ],
  ['custom provider without class', (e) => e, { DRESSAGE_SANDBOX_PROVIDER: 'custom' }, 'provider', 'DRESSAGE_PADDOCK_CLASS is required for DRESSAGE_SANDBOX_PROVIDER=custom', 'DRESSAGE_PADDOCK_CLASS is required for DRESSAGE_SANDBOX_PROVIDER=custom'],
  [
    'local-only proxy URL',
    (e) => e,
    { DRESSAGE_PROXY_URL: 'http://localhost:8800' },
    'proxy-url',
    'DRESSAGE_PROXY_URL must be reachable from the sandbox; got local-only URL: http://localhost:8800',
    'DRESSAGE_PROXY_URL must be reachable from the sandbox; got local-only URL: http://localhost:8800',
  ],
  ['GPU divisibility', (e) => e, { ACTOR_NUM_GPUS_PER_NODE: '6' }, 'gpus', 'total actor GPUs (6) must be divisible by TP_SIZE*CP_SIZE (8)', 'total actor GPUs (6) must be divisible by TP_SIZE*CP_SIZE (8)'],
  ['router on the wildcard address', (e) => e, { SGLANG_ROUTER_HOST: '0.0.0.0' }, 'router-url', 'SGLANG_ROUTER_URL is a proxy client target and cannot use a wildcard bind address: http://0.0.0.0:8000', 'SGLANG_ROUTER_URL is a proxy client target and cannot use a wildcard bind address: http://0.0.0.0:8000'],
  ['KL loss type outside slime choices', (e) => e, { KL_LOSS_TYPE: 'kl' }, 'kl-loss-type', "argument --kl-loss-type: invalid choice: 'kl' (choose from k1, k2, k3, low_var_kl)", undefined],
  ['compaction threshold', (e) => e, { MAX_TOKENS_PER_GPU: '1000', CP_SIZE: '4', ROLLOUT_MAX_RESPONSE_LEN: '9000', COMPACT_RESERVE_TOKENS: '4000' }, 'compaction', 'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive; got 0', 'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive; got 0'],
  ['resume without root', (e) => e, { RESUME_FROM_CKPT: '1' }, 'resume', 'RESUME_CKPT_ROOT is required when RESUME_FROM_CKPT=1', 'RESUME_CKPT_ROOT is required when RESUME_FROM_CKPT=1'],
  ['KL exclusivity', (e) => e, { KL_COEF: '0.01' }, 'kl', 'Only one of kl_coef and kl_loss_coef can be set', 'Only one of kl_coef and kl_loss_coef can be set'],
  [
    'BBS port',
    (e) => e,
    { DRESSAGE_E2B_BLACKBOX_PORT: '8080' },
    'bbs-port',
    'E2BSandboxProvider blackbox templates use the fixed internal-compatible port 31000; unset DRESSAGE_E2B_BLACKBOX_PORT or set it to 31000',
    'E2BSandboxProvider blackbox templates use the fixed internal-compatible port 31000; unset DRESSAGE_E2B_BLACKBOX_PORT or set it to 31000',
  ],
  ['E2B plan too small for the agents', (e) => e, { SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT: '10' }, 'e2b-concurrency', '16 concurrent agent sandboxes (32 with evaluation) exceed the plan limit of 10', undefined],
];

for (const [name, envChange, sets, id, checkText, launcherText] of TRAPS) {
  test(`trap: ${name}`, async () => {
    const w = await ws();
    const good = plan(w, w.env);
    assert.equal(staticChecks(good).filter((c) => c.status === 'fail').length, 0, JSON.stringify(staticChecks(good).filter((c) => c.status === 'fail')));
    const p = plan(w, envChange(w.env), sets);
    const c = find(staticChecks(p), id);
    assert.equal(c.status, 'fail', `${id}: ${c.detail}`);
    assert.ok(c.detail.includes(checkText), `check says: ${c.detail}`);
    assert.ok(!c.detail.includes(SECRET));
    if (launcherText) {
      const r = runFake(p);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.ok(r.stderr.includes(launcherText), `launcher says: ${r.stderr}`);
    }
  });
}

test('the good settings pass the fake launcher all the way (the checks are not stricter than needed)', async () => {
  const w = await ws();
  const r = runFake(plan(w, w.env));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Current Ray node count: 1; expected ACTOR_NUM_NODES: 1/);
});

test('warnings: a private proxy IP, ACTOR_NUM_NODES left at its default, several nodes without HOSTFILE, unforwarded DRESSAGE_ vars', async () => {
  const w = await ws();
  const priv = find(staticChecks(plan(w, w.env, { DRESSAGE_PROXY_URL: 'http://10.0.0.5:8800' })), 'proxy-url');
  assert.equal(priv.status, 'warn');
  assert.match(priv.detail, /E2B sandboxes cannot reach it/);
  const dflt = find(staticChecks(plan(w, without(w.env, 'ACTOR_NUM_NODES'))), 'nodes');
  assert.equal(dflt.status, 'warn');
  assert.match(dflt.detail, /default of 1 → 1 node\(s\); the 4-node recipe needs 4/);
  const four = find(staticChecks(plan(w, w.env, { ACTOR_NUM_NODES: '4' })), 'nodes');
  assert.equal(four.status, 'warn');
  assert.match(four.detail, /Timed out waiting for Ray workers to join\./);
  const fwd = find(staticChecks(plan(w, w.env, { DRESSAGE_SWEGYM_BLOCKED_REPOS: 'a/b' })), 'forwarding');
  assert.equal(fwd.status, 'warn');
  assert.match(fwd.fix ?? '', /DRESSAGE_EXTRA_RUNTIME_ENV_KEYS/);
  const listed = staticChecks(plan(w, w.env, { DRESSAGE_SWEGYM_BLOCKED_REPOS: 'a/b', DRESSAGE_EXTRA_RUNTIME_ENV_KEYS: 'DRESSAGE_SWEGYM_BLOCKED_REPOS' }));
  assert.equal(listed.find((c) => c.id === 'forwarding')?.status, 'warn');
  assert.doesNotMatch(listed.find((c) => c.id === 'forwarding')?.detail ?? '', /will not reach/);
  assert.equal(isLocalOnlyHost('localhost'), true);
  assert.equal(isLocalOnlyHost('[::1]'), true);
  assert.equal(isPrivateHost('172.20.1.1'), true);
  assert.equal(isPrivateHost('proxy.example.com'), false);
  assert.equal(isPrivateHost('8.8.8.8'), false);
});

test('launcher with fewer nodes than expected times out like the real one', async () => {
  const w = await ws();
  const r = runFake(plan(w, w.env, { ACTOR_NUM_NODES: '2' }));
  assert.equal(r.code, 1);
  assert.match(r.stdout, /Current Ray node count: 1; expected ACTOR_NUM_NODES: 2/);
  assert.match(r.stderr, /Timed out waiting for Ray workers to join\./);
});

test('probes: model checkpoints, verified JSONL, HOSTFILE coverage, resume root', async () => {
  const w = await trainWorkspace();
  dirs.push(w.root);
  let checks = await probeChecks(plan(w, w.env), { skipRay: true });
  for (const id of ['launcher', 'model', 'prompt-data', 'active-run']) assert.equal(find(checks, id).status, 'ok', `${id}: ${find(checks, id).detail}`);
  assert.match(find(checks, 'prompt-data').detail, /3 rows verified/);
  assert.equal(find(checks, 'proxy-health').status, 'skip');

  await rm(path.join(w.modelRoot, 'Qwen3.5-4B_torch_dist'), { recursive: true });
  await writeFile(w.paths.trainJsonl, '{"prompt": [}\n');
  const hosts = path.join(w.root, 'hostfile');
  await writeFile(hosts, '10.0.0.1 slots=8\n10.0.0.2 slots=8\n');
  checks = await probeChecks(plan(w, w.env, { ACTOR_NUM_NODES: '4', HOSTFILE: hosts, RAY_SSH_USER: 'ops', RESUME_FROM_CKPT: '1', RESUME_CKPT_ROOT: path.join(w.root, 'none') }), { skipRay: true });
  assert.equal(find(checks, 'model').status, 'fail');
  assert.match(find(checks, 'model').detail, /no torch_dist checkpoint/);
  assert.equal(find(checks, 'prompt-data').status, 'fail');
  assert.match(find(checks, 'prompt-data').detail, /failed verification/);
  assert.equal(find(checks, 'hostfile').status, 'fail');
  assert.match(find(checks, 'hostfile').detail, /lists 2 node\(s\) but ACTOR_NUM_NODES=4/);
  assert.equal(find(checks, 'resume').status, 'fail');
  await rm(w.paths.slimeModelConfig);
  checks = await probeChecks(plan(w, w.env), { skipRay: true });
  assert.equal(find(checks, 'launcher').detail, `Missing Slime model config: ${w.paths.slimeModelConfig}`);
});

test('a Ray head already running blocks the launch; ray missing is skipped (recorded in the command log)', async () => {
  const w = await ws();
  const bin = path.join(w.root, 'fakebin');
  await mkdir(bin, { recursive: true });
  await writeFile(path.join(bin, 'ray'), '#!/bin/sh\necho "Node status"\necho " 1 node_abc123"\necho " 1 node_def456"\nexit 0\n');
  await chmod(path.join(bin, 'ray'), 0o755);
  const log = new CommandLog();
  let checks = await probeChecks(plan(w, { ...w.env, PATH: `${bin}:${w.env.PATH}` }), { log });
  const ray = find(checks, 'ray');
  assert.equal(ray.status, 'fail');
  assert.match(ray.detail, /already running \(2 node\(s\)\)/);
  assert.deepEqual(log.entries().map((e) => e.argv), [['ray', 'status']]);
  checks = await probeChecks(plan(w, { ...w.env, PATH: '/nonexistent' }), { log });
  assert.equal(find(checks, 'ray').status, 'skip');
});

test('proxy /health from here: a leftover proxy warns, an ingress answering is ok, an unresolvable host fails, skip honoured', async (t) => {
  const ip = detectHostIp();
  if (!ip) return t.skip('no non-loopback IPv4 address on this machine');
  const w = await ws();
  let body = '{"status":"ok","active_sessions":0}';
  let code = 200;
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/health' ? code : 404, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  const port = (server.address() as AddressInfo).port;
  try {
    const env = { ...without(w.env, 'DRESSAGE_SKIP_PROXY_HEALTHCHECK') };
    let c = find(await probeChecks(plan(w, env, { DRESSAGE_PROXY_URL: `http://${ip}:${port}` }), { skipRay: true }), 'proxy-health');
    assert.equal(c.status, 'warn');
    assert.match(c.detail, /already answers/);
    code = 502;
    body = 'bad gateway';
    c = find(await probeChecks(plan(w, env, { DRESSAGE_PROXY_URL: `http://${ip}:${port}` }), { skipRay: true }), 'proxy-health');
    assert.equal(c.status, 'ok');
    assert.match(c.detail, /HTTP 502/);
    c = find(await probeChecks(plan(w, env, { DRESSAGE_PROXY_URL: 'https://no-such-host.invalid' }), { skipRay: true, timeoutMs: 3000 }), 'proxy-health');
    assert.equal(c.status, 'fail');
    assert.match(c.detail, /Dressage proxy failed; see <proxy log>/);
    c = find(await probeChecks(plan(w, w.env, { DRESSAGE_PROXY_URL: 'https://no-such-host.invalid' }), { skipRay: true }), 'proxy-health');
    assert.equal(c.status, 'skip');
  } finally {
    server.close();
  }
});

test('runLaunchChecks: the good workspace has no blocking check and no secret in any line', async () => {
  const w = await ws();
  const checks = await runLaunchChecks(plan(w, w.env), { skipRay: true });
  assert.deepEqual(checks.filter((c) => c.status === 'fail'), []);
  assert.ok(!JSON.stringify(checks).includes(SECRET));
});
