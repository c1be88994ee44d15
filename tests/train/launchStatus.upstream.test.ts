// A real launch of the REAL launcher (stand-ins for the cluster commands, see tests/helpers/upstreamHarness.ts) through the BUILT binary:
// `train status` then compares the effective_* lines the launcher printed with the ones the console predicted.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { baseEnv, copyLauncherTree, removeLauncherTrees, REPO, runConsole, seedConsoleInputs, SYSTEM_PATH, upstreamSkip } from '../helpers/upstreamHarness.js';
import { waitFor } from '../helpers/wait.js';

const skip = upstreamSkip() || (existsSync(path.join(REPO, 'dist', 'swegym-console.mjs')) ? false : 'dist/ is not built (npm run build): skipped');
if (skip) console.log(`# ${skip}`);
after(removeLauncherTrees);

for (const [name, settings] of [
  ['defaults', {}],
  ['PROXY_PORT and a compact threshold', { PROXY_PORT: '9000', DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '50000' }],
] as const) {
  test(`after a real launch, train status finds the printed effective lines equal to the predicted ones: ${name}`, { skip, timeout: 120_000 }, async () => {
    const tree = await copyLauncherTree();
    await seedConsoleInputs(tree);
    const env = {
      ...baseEnv(tree, { DRESSAGE_SKIP_PROXY_HEALTHCHECK: '1', ACTOR_NUM_NODES: '1', ...settings }),
      PATH: `${tree.hostBin}:${tree.clusterBin}:${SYSTEM_PATH}`,
      STANDIN_RAY_STATE: path.dirname(tree.rayLog),
    };
    const launched = await runConsole(['--workspace', tree.root, '--json', 'train', 'launch'], { cwd: tree.root, env, built: true });
    assert.equal(launched.code, 0, `launch refused: ${launched.stdout.slice(-1500)}${launched.stderr.slice(-800)}`);
    const doc = JSON.parse(launched.stdout) as { launched: boolean; effectiveLines: string[]; run: { name: string } };
    assert.equal(doc.launched, true);
    let status: { run: { status: string; exitCode: number | null }; effectiveLines: string[]; expectedEffectiveLines: string[]; effectiveMismatch: boolean } | undefined;
    await waitFor(
      async () => {
        const r = await runConsole(['--workspace', tree.root, '--json', 'train', 'status', doc.run.name], { cwd: tree.root, env, built: true });
        status = JSON.parse(r.stdout);
        return status?.run.status === 'exited';
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(status!.run.exitCode, 0, 'the real launcher ran to its end (job submitted to the ray stand-in)');
    assert.equal(status!.effectiveLines.length, 5);
    assert.deepEqual(status!.effectiveLines, doc.effectiveLines);
    assert.equal(status!.effectiveMismatch, false);
  });
}
