// Litter after kill -9 (issue 16, point 9): the temp files of interrupted atomic writes and the local provider's
// half-built template trees are removed by the next run when their writer is dead, and kept while it lives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { templateWorkspace, imageNames } from '../templates/helpers.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(String(r.stdout).trim());
}

test('templates build sweeps the .tmp files of writers that died, and keeps a live writer\'s', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const fake = await startFakeE2b();
  const { ws, paths } = await templateWorkspace(imageNames(1));
  try {
    const dead = deadPid();
    await mkdir(paths.journalsDir, { recursive: true });
    const litter = [path.join(paths.journalsDir, `.templates.json.${dead}.0badc0de.tmp`), path.join(path.dirname(paths.templateMap), `.e2b-template-map.json.${dead}.0123abcd.tmp`)];
    const live = path.join(paths.journalsDir, `.templates.json.${process.pid}.feedbeef.tmp`);
    for (const f of [...litter, live]) await writeFile(f, '{"half":');
    const r = await runConsole(['templates', 'build', '-w', ws], { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url });
    assert.equal(r.code, 0, r.err);
    for (const f of litter) assert.equal(existsSync(f), false, `${f} swept`);
    assert.equal(existsSync(live), true, 'a live writer\'s temp file is kept');
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});

test('a local build removes half-built template trees of dead builds, not those of a live one', async () => {
  const store = await tempDir('swegym-faults-litter-');
  try {
    const templates = path.join(store, 'templates');
    const deadTree = path.join(templates, `.build-swegym-x.${deadPid()}.0badc0de`);
    const liveTree = path.join(templates, `.build-swegym-y.${process.pid}.feedbeef`);
    for (const d of [deadTree, liveTree]) {
      await mkdir(path.join(d, 'root', 'testbed'), { recursive: true });
      await writeFile(path.join(d, 'root', 'testbed', 'big.bin'), 'x'.repeat(1024));
    }
    const p = new LocalProvider({ storeDir: store });
    await assert.rejects(p.buildTemplate({ name: 'swegym-z', baseImage: path.join(store, 'no-such-base'), cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '/' }));
    assert.equal(existsSync(deadTree), false, 'the dead build\'s tree is gone');
    assert.equal(existsSync(liveTree), true, 'a live build\'s tree is kept');
  } finally {
    await removeDir(store);
  }
});
