// Template maps that must not pass (issue 16, point 5), through the built binary: a map that is not JSON and a map
// that gives one template to two images are errors naming the file and the fix, in `convert --verify-only` and in
// the launch checks — never skipped in silence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { removeDir } from '../helpers/workspace.js';
import { trainWorkspace } from '../train/helpers.js';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { templateWorkspace, imageNames } from '../templates/helpers.js';

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

// Issue 25, point 6: every reader of the map refuses a map that is not JSON, in the same words (what and fix), with
// the precondition exit code: `templates smoke --all` no longer smokes the journal's templates past it, and
// `templates status` no longer prints counts as if nothing were wrong; the build and doctor say the same.
test('a template map that is not JSON: smoke --all, status, status --json, build and doctor all refuse it alike', { skip: builtMissing(), timeout: 90_000 }, async () => {
  const images = imageNames(3);
  const { ws, paths } = await templateWorkspace(images);
  const fake = await startFakeE2b({ templates: images.map((_, i) => `swegym-t${i}`) });
  const env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url };
  try {
    const now = new Date().toISOString();
    await mkdir(paths.journalsDir, { recursive: true });
    await writeFile(
      path.join(paths.journalsDir, 'templates.json'),
      JSON.stringify({ version: 1, updatedAt: now, items: Object.fromEntries(images.map((image, i) => [image, { image, state: 'built', template: `swegym-t${i}`, updatedAt: now }])) }),
    );
    await writeFile(paths.templateMap, `{"${images[0]}": "swegym-t0",`);
    const what = /invalid sandbox image map .*e2b-template-map\.json/;
    const fix = /fix: +fix .*e2b-template-map\.json \(a JSON object of image → template name\) or move it away/;
    const runs = {
      'smoke --all': await runConsole(['templates', 'smoke', '--all', '-w', ws], env),
      status: await runConsole(['templates', 'status', '-w', ws], env),
      'status --json': await runConsole(['templates', 'status', '--json', '-w', ws], env),
      build: await runConsole(['templates', 'build', '-w', ws], env),
    };
    for (const [name, r] of Object.entries(runs)) {
      assert.equal(r.code, 3, `${name}: ${r.out}${r.err}`);
      assert.match(r.err, what, name);
      assert.match(r.err, fix, name);
      assert.doesNotMatch(r.out, /passed|built, /, `${name} reports no counts past a damaged map`);
    }
    assert.equal(fake.sandboxes.size, 0, 'nothing was smoked');
    const doctor = await runConsole(['doctor', '--json', '-w', ws], env);
    const checks = (JSON.parse(doctor.out) as { checks: { title: string; status: string; detail: string; fix?: string }[] }).checks;
    const mapCheck = checks.find((c) => c.title === 'Template map coverage');
    assert.equal(mapCheck?.status, 'fail', doctor.out);
    assert.match(mapCheck!.detail, what);
    assert.match(`fix:  ${mapCheck!.fix}`, fix);
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});
