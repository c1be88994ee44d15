// The Validate screen (hotkey 5): the matrix from the JSONL and the journal, the failures filter, and a real
// validation of the selected task on the local provider started with `v`, shown live and journaled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import path from 'node:path';
import { writeFile, mkdir } from 'node:fs/promises';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { validateHarnessJournal } from '../../src/services/validate/harness.js';
import { createProvider } from '../../src/services/sandbox/index.js';
import { makeTaskRepo } from './taskRepo.js';
import { waitFor } from '../helpers/wait.js';

test('matrix from disk, failures filter, v validates the selected task for real', async () => {
  const ws = await fakeDressageCheckout();
  const paths = recipePaths(ws);
  try {
    const repo = await makeTaskRepo(path.join(ws, 'repos'), 'sample__calc-1', 'tpl-screen-calc');
    const local = createProvider('local', { workspace: ws, local: { log: new CommandLog() } });
    await local.buildTemplate({ name: 'tpl-screen-calc', baseImage: repo.dir, cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
    const rows = [sampleRow(repo.spec), sampleRow({ ...repo.spec, instance_id: 'sample__calc-2' }), sampleRow({ ...repo.spec, instance_id: 'sample__calc-3' })];
    await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
    await writeFile(paths.trainJsonl, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // The gold patches come from the parquet: write a one-row split with the fixture writer.
    const { parquetBytes } = await import('../fixtures/parquetFixtures.js');
    await mkdir(paths.sourceDir, { recursive: true });
    const inst = { instance_id: 'sample__calc-1', repo: 'sample/calc', base_commit: repo.spec.base_commit, patch: repo.goldPatch, test_patch: repo.spec.test_patch, problem_statement: repo.spec.problem_statement, version: '1.0', FAIL_TO_PASS: repo.spec.FAIL_TO_PASS, PASS_TO_PASS: repo.spec.PASS_TO_PASS, hints_text: '', created_at: '2024-01-01T00:00:00Z' };
    await writeFile(paths.parquet('train'), await parquetBytes([inst]));
    const journal = await validateHarnessJournal(paths).load();
    await journal.set('sample__calc-2', {
      instance_id: 'sample__calc-2',
      template: 'tpl-screen-calc',
      ok: false,
      gold: { resolved: false, fail_to_pass_success: 0, fail_to_pass_total: 1, pass_to_pass_success: 1, pass_to_pass_total: 1, parsed_tests: 2, eval_returncode: 0, harness: 'swegym', log_parser_repo: 'sample/calc', failure_reason: 'fail_to_pass_failure' },
      control: { resolved: false, fail_to_pass_success: 0, fail_to_pass_total: 1, pass_to_pass_success: 1, pass_to_pass_total: 1, parsed_tests: 2, eval_returncode: 0, harness: 'swegym', log_parser_repo: 'sample/calc', failure_reason: 'fail_to_pass_failure' },
      error: 'gold patch not resolved: unresolved (fail_to_pass_failure) F2P 0/1 P2P 1/1',
      durationMs: 4200,
      validatedAt: '2026-01-01T00:00:00.000Z',
    });

    const services = createAppServices({ workspace: ws, provider: 'local', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
    const ui = renderInk(<App services={services} size={{ width: 140, height: 30 }} />);
    try {
      await ui.press('5');
      await ui.waitForText('3 tasks: 0 ✓ validated, 1 ✗ failing, 2 not run');
      assert.match(ui.frame(), /✗ sample__calc-2\s+U 0\/1 1\/1\s+U 0\/1 1\/1\s+4\.2s/);
      await ui.press('o');
      await ui.waitForText('[only failures]');
      await ui.waitForText('✗ gold patch not resolved: unresolved (fail_to_pass_failure)');
      assert.doesNotMatch(ui.frame(), /sample__calc-1/);
      await ui.press('o');
      await waitFor(() => !ui.frame().includes('[only failures]'));
      await ui.press('e'); // the first row (sample__calc-1) is selected
      await ui.waitForText('3 tasks: 1 ✓ validated, 1 ✗ failing, 1 not run', 120_000);
      await ui.waitForText(/✓ sample__calc-1\s+R 1\/1 1\/1\s+U 0\/1 1\/1/, 5000);
      await ui.waitForText('grading works for sample__calc-1');
      const reread = await validateHarnessJournal(paths).load();
      assert.equal(reread.get('sample__calc-1')?.ok, true);
      await ui.press(KEYS.escape);
    } finally {
      ui.unmount();
      services.dispose();
    }
  } finally {
    await removeDir(ws);
  }
});
