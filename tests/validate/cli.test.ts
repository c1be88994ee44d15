// `validate harness` through the real entry on the local provider: --json shape, exit codes, journal; usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { createProvider } from '../../src/services/sandbox/index.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { validateHarnessJournal } from '../../src/services/validate/harness.js';
import { makeTaskRepo } from './taskRepo.js';
import { runCli } from '../helpers/cli.js';

test('validate harness --json on the local provider: one ok, one failing → exit 1, journaled', async () => {
  const ws = await fakeDressageCheckout();
  const paths = recipePaths(ws);
  try {
    const good = await makeTaskRepo(path.join(ws, 'repos'), 'sample__calc-1', 'tpl-cli-calc-1');
    const trivial = await makeTaskRepo(path.join(ws, 'repos'), 'sample__calc-2', 'tpl-cli-calc-2', 'already-fixed');
    const local = createProvider('local', { workspace: ws, local: { log: new CommandLog() } });
    for (const t of [good, trivial]) {
      await local.buildTemplate({ name: t.spec.template, baseImage: t.dir, cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
    }
    await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
    await writeFile(paths.trainJsonl, [good, trivial].map((t) => JSON.stringify(sampleRow(t.spec))).join('\n') + '\n');
    const { parquetBytes } = await import('../fixtures/parquetFixtures.js');
    await mkdir(paths.sourceDir, { recursive: true });
    const inst = (t: typeof good) => ({ instance_id: t.spec.instance_id, repo: t.spec.repo, base_commit: t.spec.base_commit, patch: t.goldPatch, test_patch: t.spec.test_patch, problem_statement: t.spec.problem_statement, version: '1.0', FAIL_TO_PASS: t.spec.FAIL_TO_PASS, PASS_TO_PASS: t.spec.PASS_TO_PASS, hints_text: '', created_at: '2024-01-01T00:00:00Z' });
    await writeFile(paths.parquet('train'), await parquetBytes([inst(good), inst(trivial)]));

    const usage = await runCli(['validate', 'harness', '-w', ws, '--provider', 'local']);
    assert.equal(usage.code, 2);
    assert.match(usage.err, /--instance ID \(repeatable\) or --all/);
    const unknown = await runCli(['validate', 'harness', '-w', ws, '--provider', 'local', '--instance', 'nope__x-1']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /instance\(s\) not in .*: nope__x-1/);

    const r = await runCli(['validate', 'harness', '--all', '--json', '-w', ws, '--provider', 'local', '--concurrency', '2']);
    assert.equal(r.code, 1, r.err);
    const json = JSON.parse(r.out) as { results: { instance_id: string; ok: boolean; error: string | null; gold: any; control: any }[] };
    assert.deepEqual(json.results.map((x) => [x.instance_id, x.ok]), [['sample__calc-1', true], ['sample__calc-2', false]]);
    assert.equal(json.results[0]?.gold.resolved, true);
    assert.equal(json.results[0]?.control.resolved, false);
    assert.match(json.results[1]?.error ?? '', /control resolved without the fix/);
    assert.match(r.err, /\[2\/2\]/);
    const journal = await validateHarnessJournal(paths).load();
    assert.equal(journal.get('sample__calc-1')?.ok, true);
    assert.equal(journal.get('sample__calc-2')?.ok, false);
  } finally {
    await removeDir(ws);
  }
});
