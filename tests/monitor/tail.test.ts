import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, writeFile, truncate, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { LineScanner, FileFollower, scanFile } from '../../src/services/monitor/tail.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { ingestFile } from '../../src/services/monitor/ingest.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { metricLine, rolloutLines, sampleLine, stepMetrics } from './builders.js';

const NOISE = '(SGLangEngine pid=4, ip=10.0.0.3) [2026-08-01 12:00:00 TP0] Decode batch. #running-req: 12, gen throughput (token/s): 1234.56';

test('scanner: lines split across chunks at every byte position are seen once and whole', () => {
  const text = [NOISE, sampleLine({ reward: 1, instance: 'ü-unicode__x-1' }), NOISE, metricLine('step', 3, stepMetrics(3)), NOISE].join('\n') + '\n';
  const bytes = Buffer.from(text);
  for (let cut = 0; cut <= bytes.length; cut += 7) {
    const seen: string[] = [];
    const s = new LineScanner((l) => seen.push(l));
    s.push(bytes.subarray(0, cut));
    s.push(bytes.subarray(cut));
    s.end();
    assert.equal(seen.length, 2, `cut at ${cut}`);
    assert.ok(seen[0]?.includes('instance=ü-unicode__x-1'));
    assert.ok(seen[1]?.startsWith('(MegatronTrainRayActor'));
  }
});

test('scanner: only anchored lines are decoded; a final line without newline is kept at end()', () => {
  const seen: string[] = [];
  const s = new LineScanner((l) => seen.push(l));
  s.push(Buffer.from(`${NOISE}\n${NOISE}\n${sampleLine({ reward: 0 })}`));
  assert.equal(seen.length, 0);
  assert.equal(s.hasPartial, true);
  s.end();
  assert.equal(seen.length, 1);
});

test('scanFile over a large file with small chunks equals the whole-file result', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [];
    for (let r = 0; r < 5; r++) for (const l of rolloutLines(r, 128)) lines.push(NOISE, l);
    await writeFile(file, lines.join('\n') + '\n');
    const a = new RunModel();
    await scanFile(file, new LineScanner((l) => a.ingestLine(l)), { chunkBytes: 333, final: true });
    const b = new RunModel();
    for (const l of lines) b.ingestLine(l);
    assert.deepEqual(a.toJson(), b.toJson());
    assert.equal((a.toJson() as any).rollouts.length, 5);
  } finally {
    await removeDir(dir);
  }
});

test('follower: many small appends, each polled, are each read once (no false truncation)', async () => {
  const dir = await tempDir();
  try {
    for (const prefixBytes of [0, 10_000]) {
      const file = path.join(dir, `small-${prefixBytes}.log`);
      // A log that already holds more than the follower's 4 KiB signature, or almost nothing.
      await writeFile(file, 'x'.repeat(prefixBytes) + (prefixBytes ? '\n' : ''));
      const model = new RunModel();
      let truncated = 0;
      const f = new FileFollower(file, new LineScanner((l) => model.ingestLine(l)), { onTruncate: () => truncated++ });
      await f.poll();
      for (let i = 0; i < 30; i++) {
        // One short line per poll: what a quiet run writes between polls.
        await appendFile(file, sampleLine({ reward: i % 2, instance: `quiet__task-${i}` }) + '\n');
        await f.poll();
        assert.equal(model.totals.total, i + 1, `after append ${i} (prefix ${prefixBytes} bytes)`);
      }
      assert.equal(truncated, 0);
      await f.stop();
    }
  } finally {
    await removeDir(dir);
  }
});

test('follower: partial writes, truncation and rotation', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    await writeFile(file, '');
    const model = new RunModel();
    const scanner = new LineScanner((l) => model.ingestLine(l));
    let truncated = 0;
    let rotated = 0;
    const f = new FileFollower(file, scanner, { onTruncate: () => truncated++, onRotate: () => rotated++ });
    const line = sampleLine({ reward: 1 });
    // A half-written line is not parsed until its newline arrives.
    await appendFile(file, line.slice(0, 40));
    await f.poll();
    assert.equal(model.totals.total, 0);
    await appendFile(file, line.slice(40) + '\n');
    await f.poll();
    assert.equal(model.totals.total, 1);
    // Truncation: the writer restarted the file.
    await truncate(file, 0);
    await appendFile(file, sampleLine({ reward: 0 }) + '\n');
    await f.poll();
    assert.equal(truncated, 1);
    assert.equal(model.totals.total, 2);
    // Rotation: the old file is renamed, its last lines are still read, then the new file from 0.
    await appendFile(file, sampleLine({ reward: 1 }) + '\n');
    await rename(file, file + '.1');
    await writeFile(file, sampleLine({ reward: 1 }) + '\n' + sampleLine({ reward: 1 }) + '\n');
    await f.poll();
    assert.equal(rotated, 1);
    assert.equal(model.totals.total, 5);
    assert.equal(model.totals.reward_one, 4);
    await f.stop();
    // Missing file: no throw, flagged.
    await rm(file);
    const g = new FileFollower(file, new LineScanner(() => {}));
    assert.equal(await g.poll(), 0);
    assert.equal(g.missing, true);
  } finally {
    await removeDir(dir);
  }
});

test('follower loop picks up appended lines live', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    await writeFile(file, rolloutLines(0, 4).join('\n') + '\n');
    const ing = await ingestFile(file);
    assert.equal(ing.model.rollouts.size, 1);
    const f = new FileFollower(file, ing.scanner, { offset: ing.offset, intervalMs: 20 });
    f.start();
    await appendFile(file, rolloutLines(1, 4).join('\n') + '\n');
    await waitFor(() => ing.model.rollouts.size === 2, { timeoutMs: 5000 });
    await f.stop();
  } finally {
    await removeDir(dir);
  }
});

test('ingestFile with tailBytes skips the cut line and reads the rest', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines = rolloutLines(0, 100);
    await writeFile(file, lines.join('\n') + '\n');
    const tailBytes = Buffer.byteLength(lines.slice(-10).join('\n') + '\n') + 20; // cuts inside line -11
    const { model } = await ingestFile(file, { tailBytes });
    assert.equal(model.pending.total + (model.rollouts.get(0)?.samples.total ?? 0), 7);
    await assert.rejects(ingestFile(path.join(dir, 'nope.log')), /Cannot read the run log/);
  } finally {
    await removeDir(dir);
  }
});
