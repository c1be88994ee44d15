// Template maps that must not pass (issue 16, point 5), through the built binary: a map that is not JSON and a map
// that gives one template to two images are errors naming the file and the fix, in `convert --verify-only` and in
// the launch checks — never skipped in silence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { removeDir } from '../helpers/workspace.js';
import { trainWorkspace } from '../train/helpers.js';

const cases = [
  { name: 'not JSON', content: () => '{"xingyaoww/sweb.eval.x86_64.getmoto_s_moto-2000:latest": "tpl-moto-2000",', what: /invalid sandbox image map .*e2b-template-map\.json/, fix: /fix .*e2b-template-map\.json|templates build/ },
  {
    name: 'two images on one template',
    content: (map: Record<string, string>) => JSON.stringify({ ...map, 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-2001:latest': 'tpl-moto-2000' }),
    what: /gives template 'tpl-moto-2000' to 2 images/,
    fix: /remove the wrong entries from .*e2b-template-map\.json/,
  },
];

for (const c of cases) {
  test(`a template map that is ${c.name}: convert --verify-only and the launch checks fail with the file and the fix`, { skip: builtMissing(), timeout: 60_000 }, async () => {
    const w = await trainWorkspace();
    try {
      const good = JSON.parse(await readFile(w.paths.templateMap, 'utf8')) as Record<string, string>;
      await writeFile(w.paths.templateMap, c.content(good));
      const verify = await runConsole(['convert', '--verify-only', '-w', w.root], w.env);
      assert.notEqual(verify.code, 0, verify.out + verify.err);
      assert.doesNotMatch(verify.out, /^ok /m);
      assert.match(verify.err, c.what);
      assert.match(verify.err, c.fix);
      const launch = await runConsole(['train', 'launch', '--dry-run', '--json', '-w', w.root], { ...w.env, DRESSAGE_SANDBOX_PROVIDER: 'e2b' });
      assert.equal(launch.code, 3, launch.err);
      const doc = JSON.parse(launch.out) as { checks: { id: string; status: string; detail: string; fix?: string }[] };
      const check = doc.checks.find((x) => x.id === 'prompt-data');
      assert.equal(check?.status, 'fail', JSON.stringify(doc.checks));
      assert.match(check!.detail, c.what);
    } finally {
      await removeDir(w.root);
    }
  });
}
