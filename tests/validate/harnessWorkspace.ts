// A fake Dressage checkout ready for harness validation on the local provider: two task templates (built from real
// git repos), their JSONL rows and a parquet with the gold patches. calc-1 validates; calc-2 is already fixed, so
// its control arm resolves and the task fails validation.
import path from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { createProvider } from '../../src/services/sandbox/index.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import type { RecipePaths } from '../../src/services/workspace/paths.js';
import { parquetBytes } from '../fixtures/parquetFixtures.js';
import { makeTaskRepo, type TaskRepo } from './taskRepo.js';

export async function writeHarnessTasks(paths: RecipePaths, tag: string): Promise<void> {
  const good = await makeTaskRepo(path.join(paths.root, 'repos'), 'sample__calc-1', `tpl-${tag}-1`);
  const trivial = await makeTaskRepo(path.join(paths.root, 'repos'), 'sample__calc-2', `tpl-${tag}-2`, 'already-fixed');
  const local = createProvider('local', { workspace: paths.root, local: { log: new CommandLog() } });
  for (const t of [good, trivial]) {
    await local.buildTemplate({ name: t.spec.template, baseImage: t.dir, cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
  }
  await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
  await writeFile(paths.trainJsonl, [good, trivial].map((t) => JSON.stringify(sampleRow(t.spec))).join('\n') + '\n');
  await mkdir(paths.sourceDir, { recursive: true });
  const inst = (t: TaskRepo) => ({ instance_id: t.spec.instance_id, repo: t.spec.repo, base_commit: t.spec.base_commit, patch: t.goldPatch, test_patch: t.spec.test_patch, problem_statement: t.spec.problem_statement, version: '1.0', FAIL_TO_PASS: t.spec.FAIL_TO_PASS, PASS_TO_PASS: t.spec.PASS_TO_PASS, hints_text: '', created_at: '2024-01-01T00:00:00Z' });
  await writeFile(paths.parquet('train'), await parquetBytes([inst(good), inst(trivial)]));
}
