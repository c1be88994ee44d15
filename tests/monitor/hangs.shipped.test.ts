// `monitor --once --json` and `monitor --once` through the built binary on a log with NCCL watchdog timeouts: the
// `hangs` section and the text summary's hang line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { builtMissing } from '../helpers/builtCli.js';
import { runLogText } from './runFixtures.js';
import { olderWatchdog, watchdog } from './hangLines.js';

test('monitor --once --json through the built binary: the `hangs` section, and the text summary\'s hang line', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const dir = await tempDir();
  try {
    const log = path.join(dir, 'run.log');
    await writeFile(log, runLogText(1) + [watchdog(0, '10.0.0.2'), watchdog(5, '10.0.0.3'), olderWatchdog].join('\n') + '\n');
    const env = { RAY_ADDRESS: 'http://127.0.0.1:1' };
    const r = await runShipped(['monitor', log, '--once', '--json'], { env });
    assert.equal(r.code, 0, explain(r));
    const doc = JSON.parse(r.out) as { hangs: { signature: string; ranks: number[]; nodes: string[]; lines: number }[] };
    assert.deepEqual(doc.hangs.map((h) => [h.signature, h.ranks, h.nodes, h.lines]), [['nccl-watchdog-timeout', [0, 5, 7], ['10.0.0.2', '10.0.0.3'], 3]]);
    const t = await runShipped(['monitor', log, '--once'], { env });
    assert.match(t.out, /hang: NCCL watchdog timeout on ranks 0, 5, 7 on nodes 10\.0\.0\.2, 10\.0\.0\.3/);
  } finally {
    await removeDir(dir);
  }
});
