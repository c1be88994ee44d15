// Shipped tier: a followed log that is replaced (mv over it, as rsync does) or truncated and written again is read
// again from its start with fresh totals, and the command says so; it never counts the same samples twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { builtMissing, startConsole } from '../helpers/builtCli.js';
import { waitFor } from '../helpers/wait.js';
import { runLogText } from './runFixtures.js';

const samplesIn = (text: string) => text.split('\n').filter((l) => l.includes('SWE-Gym reward=')).length;

test('shipped: headless monitor LOG — a log replaced by mv and then truncated and rewritten shows the new file\'s totals, and a note', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const dir = await tempDir('swegym-shipped-replaced-');
  const log = path.join(dir, 'run.log');
  await writeFile(log, runLogText(2));
  const c = startConsole(['monitor', log], { RAY_ADDRESS: 'http://127.0.0.1:1' });
  try {
    const first = samplesIn(runLogText(2));
    await waitFor(() => c.out().includes(`samples: ${first} `), { timeoutMs: 20_000, message: () => c.out() + c.err() });

    // The same run, one rollout further, put at the path by a rename (a new inode).
    const next = runLogText(3);
    await writeFile(path.join(dir, 'run.log.tmp'), next);
    await rename(path.join(dir, 'run.log.tmp'), log);
    await waitFor(() => /run\.log was replaced by another file/.test(c.err()), { timeoutMs: 20_000, message: () => c.out() + c.err() });
    await waitFor(() => c.out().includes(`samples: ${samplesIn(next)} `), { timeoutMs: 20_000, message: () => c.out() + c.err() });
    assert.ok(!c.out().includes(`samples: ${first + samplesIn(next)} `), 'never the two files added up');
    assert.match(c.err(), new RegExp(`earlier read had counted ${first} samples`));

    // Truncated and written again, shorter: the totals are the new text's.
    await writeFile(log, runLogText(1));
    await waitFor(() => /run\.log got shorter/.test(c.err()), { timeoutMs: 20_000, message: () => c.out() + c.err() });
    await waitFor(() => c.out().trimEnd().split('\n').at(-1)?.includes(`samples: ${samplesIn(runLogText(1))} `) === true, { timeoutMs: 20_000, message: () => c.out() + c.err() });
  } finally {
    c.child.kill('SIGINT');
    await c.exited;
    await removeDir(dir);
  }
});
