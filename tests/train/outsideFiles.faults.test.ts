// The launch follows files outside the workspace (issue 25, point 8), through the built binary with the fake
// launcher: a launcher script that is a symlink to a script elsewhere is refused (exit 3, the check says where it
// points; the script never runs) unless --allow-outside-launcher asks for it; DEFAULT_ENV_FILE or MODEL_CONFIG_PATH
// set to a script outside the checkout are named with where they point (a warning: Dressage allows them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, copyFile, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { trainWorkspace, killGroupIfOurs, FAKE_LAUNCHER } from '../train/helpers.js';
import { findRun } from '../../src/services/train/registry.js';

interface Check {
  id: string;
  status: string;
  detail: string;
  fix?: string;
}
const checksOf = (out: string) => (JSON.parse(out) as { checks: Check[] }).checks;

test('a launcher that is a symlink outside the checkout: refused with where it points, unless --allow-outside-launcher', { skip: builtMissing(), timeout: 90_000 }, async () => {
  const w = await trainWorkspace();
  const elsewhere = await tempDir('swegym-outside-');
  const marker = path.join(elsewhere, 'ran');
  const env = { ...w.env, FAKE_LAUNCHER_ROLLOUTS: '1', PATH: `${path.dirname(process.execPath)}:/nonexistent-ray:${w.env.PATH}` };
  let run;
  try {
    // The outside script is the fake launcher, plus a trace that it ran.
    const outside = path.join(elsewhere, 'run_other.sh');
    await copyFile(FAKE_LAUNCHER, path.join(elsewhere, 'fake.sh'));
    await writeFile(outside, `#!/usr/bin/env bash\ntouch '${marker}'\nexec bash '${path.join(elsewhere, 'fake.sh')}' "$@"\n`);
    await chmod(outside, 0o755);
    await rm(w.paths.launcherScript);
    await symlink(outside, w.paths.launcherScript);

    const dry = await runConsole(['train', 'launch', '--dry-run', '--json', '-w', w.root], env);
    assert.equal(dry.code, 3, dry.out + dry.err);
    const launcher = checksOf(dry.out).find((c) => c.id === 'launcher');
    assert.equal(launcher?.status, 'fail', JSON.stringify(checksOf(dry.out)));
    assert.match(launcher!.detail, new RegExp(`run_dressage_swegym\\S+\\.sh → ${outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is outside the checkout`));
    assert.match(launcher!.fix ?? '', /--allow-outside-launcher/);

    const refused = await runConsole(['train', 'launch', '-w', w.root], env);
    assert.equal(refused.code, 3, refused.out + refused.err);
    assert.match(refused.out + refused.err, /is outside the checkout/);
    assert.equal(existsSync(marker), false, 'the outside script never ran');

    const allowed = await runConsole(['train', 'launch', '--allow-outside-launcher', '--json', '-w', w.root], env);
    assert.equal(allowed.code, 0, allowed.out + allowed.err);
    const doc = JSON.parse(allowed.out) as { checks: Check[]; run: { name: string } };
    const warned = doc.checks.find((c) => c.id === 'launcher');
    assert.equal(warned?.status, 'warn');
    assert.match(warned!.detail, /run as asked \(--allow-outside-launcher\)/);
    run = await findRun(w.paths, doc.run.name);
    await waitFor(() => existsSync(marker), { timeoutMs: 20_000, message: () => 'the allowed outside launcher did not run' });
  } finally {
    if (run) await killGroupIfOurs(run.pgid, run.procStart);
    await removeDir(w.root);
    await removeDir(elsewhere);
  }
});

test('DEFAULT_ENV_FILE and MODEL_CONFIG_PATH outside the checkout are named with where they point', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const w = await trainWorkspace();
  const elsewhere = await tempDir('swegym-outside-');
  try {
    const envFile = path.join(elsewhere, 'defaults.sh');
    await copyFile(w.paths.envDefaults, envFile);
    // MODEL_CONFIG_PATH inside the checkout, but a symlink to a script elsewhere.
    const realConfig = path.join(elsewhere, 'qwen.sh');
    await copyFile(w.paths.slimeModelConfig, realConfig);
    await mkdir(path.join(w.root, 'configs'), { recursive: true });
    const linked = path.join(w.root, 'configs', 'qwen.sh');
    await symlink(realConfig, linked);
    const r = await runConsole(['train', 'launch', '--dry-run', '--json', '--set', `DEFAULT_ENV_FILE=${envFile}`, '--set', `MODEL_CONFIG_PATH=${linked}`, '-w', w.root], w.env);
    const checks = checksOf(r.out);
    const sourced = checks.find((c) => c.id === 'sourced-files');
    assert.equal(sourced?.status, 'warn', JSON.stringify(checks));
    assert.ok(sourced!.detail.includes(`DEFAULT_ENV_FILE=${envFile}`), sourced!.detail);
    assert.ok(sourced!.detail.includes(`MODEL_CONFIG_PATH=${linked} → ${realConfig}`), sourced!.detail);
    assert.equal(checks.find((c) => c.id === 'launcher')?.status, 'ok', 'the launcher itself is the checkout\'s');

    const inside = await runConsole(['train', 'launch', '--dry-run', '--json', '-w', w.root], w.env);
    assert.equal(checksOf(inside.out).find((c) => c.id === 'sourced-files'), undefined, 'nothing to say when they are the checkout\'s own');
  } finally {
    await removeDir(w.root);
    await removeDir(elsewhere);
  }
});
