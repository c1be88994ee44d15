// The factory and smoke tests for real on this machine: the local bubblewrap provider builds directory templates
// from small task trees with the stand-in artifacts (the same recipe: copies, unpack + `claude --version`, BBS
// start command ready on 31000/health), and smoke starts real sandboxes and probes /health inside them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { TemplateFactory } from '../../src/services/templates/factory.js';
import { smokeMany } from '../../src/services/templates/smoke.js';
import { templatesJournal } from '../../src/services/templates/records.js';
import { readTemplateMap } from '../../src/services/templates/map.js';
import { localBaseResolver, localImagesFile } from '../../src/services/templates/localBases.js';
import { writeSampleArtifacts } from '../../src/services/artifacts/sample.js';
import { templateWorkspace, VERSIONS, readJournal } from './helpers.js';
import { removeDir } from '../helpers/workspace.js';

function hasBwrap(): boolean {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('local provider: directory templates built by the factory, smoke runs for real, sandboxes are gone afterwards', {
    timeout: 180_000,
    skip: hasBwrap() ? false : 'bubblewrap cannot run here',
  }, async () => {
  const images = ['sample/sweb.eval.x86_64.task_s_a-1:latest', 'sample/sweb.eval.x86_64.task_s_b-2:latest', 'sample/missing:latest'];
  const { ws, paths } = await templateWorkspace(images);
  try {
    await writeSampleArtifacts(paths.artifactDir, VERSIONS);
    for (const t of ['a', 'b']) {
      const dir = path.join(ws, 'sample-tasks', t);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'app.py'), `print("task ${t}")\n`);
    }
    await mkdir(paths.consoleDir, { recursive: true });
    await writeFile(localImagesFile(paths), JSON.stringify({ [images[0]!]: 'sample-tasks/a', [images[1]!]: 'sample-tasks/b', [images[2]!]: 'sample-tasks/none' }));
    const provider = new LocalProvider({ storeDir: path.join(paths.consoleDir, 'local-sandboxes') });
    const result = await new TemplateFactory({
      provider,
      paths,
      artifacts: { artifactDir: paths.artifactDir, versions: VERSIONS },
      concurrency: 2,
      baseFor: localBaseResolver(paths),
    }).run();
    assert.equal(result.built, 2, JSON.stringify(result.records.map((r) => [r.state, r.reason, r.logTail?.slice(-5)])));
    assert.equal(result.failed, 1);
    assert.match(result.records[2]!.reason ?? '', /not a directory/);
    const map = await readTemplateMap(paths.templateMap, images.slice(0, 2));
    assert.equal(Object.keys(map).length, 2);

    const journal = await templatesJournal(paths).load();
    const smoke = await smokeMany({ provider, journal, targets: images.slice(0, 2).map((image) => ({ image, template: map[image]! })), concurrency: 2 });
    for (const r of smoke) {
      assert.equal(r.ok, true, r.error);
      assert.equal(r.health?.version, '1.1.0');
      assert.match(r.claudeVersion ?? '', /^2\.1\.207/);
      assert.equal(r.killed, true);
    }
    assert.deepEqual(await provider.list({}), [], 'no sandbox left running');
    const saved = await readJournal(journal.file);
    assert.equal(saved.items[images[0]!].smoke, 'passed');
  } finally {
    await removeDir(ws);
  }
});
