// Differential tests: every exit-1 path of the REAL Dressage launcher that its settings reach before the cluster
// starts is refused by the console, in the launcher's words (cases: launcherCases.ts; harness: upstreamHarness.ts).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { consoleDryRun, refusalText, removeLauncherTrees, runRealLauncher, upstreamSkip } from '../helpers/upstreamHarness.js';
import { setUp, type Case } from './launcherCases.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);
after(removeLauncherTrees);
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
