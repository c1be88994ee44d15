import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scanFileParallel, lineAlignedCuts } from '../../src/services/monitor/parallel.js';
import { RunModel } from '../../src/services/monitor/model.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { EFFECTIVE_LINES, rolloutLines, sampleLine } from './builders.js';

const NOISE = '(SGLangEngine pid=4, ip=10.0.0.3) [2026-08-01 12:00:00 TP0] Decode batch. #running-req: 12, gen throughput (token/s): 1234.56 é';

test('cuts fall on line starts', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'a.log');
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}`).join('\n') + '\n';
    await writeFile(file, text);
    const size = Buffer.byteLength(text);
    const cuts = await lineAlignedCuts(file, size, 7);
    assert.equal(cuts[0], 0);
    assert.equal(cuts[cuts.length - 1], size);
    for (const c of cuts.slice(1, -1)) assert.equal(text[c - 1], '\n');
  } finally {
    await removeDir(dir);
  }
});

test('the parallel scan gives the same document as the sequential one (worker threads, cuts inside rollouts, no final newline)', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [...EFFECTIVE_LINES];
    for (let r = 0; r < 12; r++) for (const l of rolloutLines(r, 64)) lines.push(NOISE, l, NOISE);
    lines.push(sampleLine({ reward: 1, instance: 'ünïcode__last-1' }));
    await writeFile(file, lines.join('\n')); // no trailing newline
    const seq = new RunModel();
    for (const l of lines) seq.ingestLine(l);
    for (const workers of [2, 3, 5]) {
      const par = new RunModel();
      const r = await scanFileParallel(file, (l) => par.ingestLine(l), { workers, minBytes: 0 });
      assert.equal(r.workers, workers, 'ran on worker threads');
      assert.deepEqual(par.toJson(), seq.toJson(), `workers=${workers}`);
    }
    const small = new RunModel();
    assert.equal((await scanFileParallel(file, (l) => small.ingestLine(l))).workers, 1, 'small files stay on the main thread');
    assert.deepEqual(small.toJson(), seq.toJson());
  } finally {
    await removeDir(dir);
  }
});
