// The dashboard's first read of a large log (issue 29): numbers on the screen while the log is read, front to back,
// growing to exactly what `monitor LOG --once --json` counts. The log is the simulator's dense shape with look-alike
// lines; it is read in small chunks so that a few MB give many `reading` events. Time is the injected clock.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore, type MonitorSnapshot } from '../../src/state/monitor.js';
import { monitorCommand } from '../../src/cli/commands/monitor.js';
import type { CommandContext } from '../../src/cli/context.js';
import { generateOffline } from '../../src/services/simulator/writer.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { loopbackFetch } from './runFixtures.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

let made: Promise<{ ws: string; log: string; samples: number }> | undefined;
/** One dense-shaped log of ≈ 3 MB (≈ 190 rollouts, 14 % look-alike bytes), shared by the tests. */
function denseLog() {
  made ??= (async () => {
    const ws = await tempDir();
    dirs.push(ws);
    const dir = path.join(ws, 'run');
    const m = await generateOffline({ dir, targetBytes: 3e6, lookAlikeShare: 0.14, config: { seed: 29, tasks: 5000, rolloutBatchSize: 17, samplesPerPrompt: 7, numRollouts: 190, noiseLinesPerSecond: 0.5 } });
    return { ws, log: path.join(dir, 'run.log'), samples: m.counts.sampleLines };
  })();
  return made;
}

async function onceJson(ws: string, log: string): Promise<{ samples: MonitorSnapshot['totals']; rollouts: { rollout: number; samples: unknown; metrics: unknown }[]; in_progress: unknown }> {
  let stdout = '';
  const out = new PassThrough();
  out.on('data', (d) => (stdout += d));
  const ctx: CommandContext = {
    command: ['monitor'],
    positionals: [log],
    options: { once: true },
    global: { workspace: ws, provider: 'e2b', debug: false, color: false, json: true },
    paths: recipePaths(ws),
    stdout: out,
    stderr: new PassThrough(),
    env: { RAY_ADDRESS: 'http://127.0.0.1:1' },
    signal: new AbortController().signal,
  };
  assert.equal(await monitorCommand(ctx), 0);
  return JSON.parse(stdout);
}

function service(ws: string, o: { clock: () => number; readingRefreshMs?: number }) {
  return new MonitorService({
    paths: recipePaths(ws),
    store: createMonitorStore(),
    fetchImpl: loopbackFetch,
    rayDashboardUrl: 'http://127.0.0.1:1',
    gpuRunner: async () => ({ ok: false, stdout: '', error: 'nvidia-smi not found on this node' }),
    clock: o.clock,
    readingRefreshMs: o.readingRefreshMs,
    readChunkBytes: 64 * 1024,
    pollMs: { log: 60_000, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, agents: 60_000, stream: 60_000, ray: 60_000, cluster: 60_000, writer: 60_000 },
  });
}

test('the first read publishes what it has read so far, front to back, and ends on exactly the --once totals', { timeout: 120_000 }, async () => {
  const { ws, log, samples } = await denseLog();
  const m = service(ws, { clock: () => 1_800_000_000_000, readingRefreshMs: 0 });
  const seen: { status: string; reading: boolean; total: number; rollouts: number; bytes: number }[] = [];
  const unsubscribe = m.store.subscribe((s) => {
    const snap = s.snapshot;
    if (snap && seen.at(-1)?.total !== snap.totals.total) seen.push({ status: s.status, reading: snap.header.reading !== undefined, total: snap.totals.total, rollouts: snap.rollouts.length, bytes: snap.header.reading?.bytes ?? -1 });
  });
  try {
    await m.open(log, { live: false });
    const final = m.store.getState().snapshot as MonitorSnapshot;
    const doc = await onceJson(ws, log);
    assert.equal(doc.samples.total, samples, 'the --once document counts every per-sample line the simulator wrote');
    // Before the read was done: snapshots with partial counts, each one holding more than the one before.
    const during = seen.filter((x) => x.reading);
    assert.ok(during.length >= 10, `snapshots during the read: ${during.length}`);
    assert.ok(during.every((x) => x.status === 'loading'), 'published while the log is still being read');
    assert.ok(during[0]!.total > 0 && during[0]!.total < samples / 4, `the first numbers come from the log's first chunks: ${during[0]!.total} of ${samples}`);
    for (let i = 1; i < during.length; i++) {
      assert.ok(during[i]!.total > during[i - 1]!.total && during[i]!.bytes > during[i - 1]!.bytes, 'front to back: the counts and the bytes read only grow');
      assert.ok(during[i]!.rollouts >= during[i - 1]!.rollouts);
    }
    // Then exactly the whole log's numbers, as `monitor --once --json` gives them.
    assert.equal(final.header.reading, undefined);
    assert.equal(m.store.getState().status, 'offline');
    assert.deepEqual(final.totals, doc.samples);
    const model = m.model!.toJson() as typeof doc;
    assert.deepEqual(model.samples, doc.samples);
    assert.deepEqual(model.rollouts, doc.rollouts);
    assert.deepEqual(model.in_progress, doc.in_progress);
    assert.ok(during.at(-1)!.total < final.totals.total || during.at(-1)!.total === final.totals.total);
  } finally {
    unsubscribe();
    await m.close();
  }
});

test('during the first read a snapshot is published at once, then no more often than readingRefreshMs of the clock', { timeout: 120_000 }, async () => {
  const { ws, log } = await denseLog();
  // The clock moves 1 ms each time it is read: a 10-minute refresh never comes due within this read.
  let now = 1_800_000_000_000;
  const m = service(ws, { clock: () => now++, readingRefreshMs: 600_000 });
  let during = 0;
  const unsubscribe = m.store.subscribe((s, prev) => {
    if (s.snapshot && s.snapshot !== prev.snapshot && s.snapshot.header.reading) during++;
  });
  try {
    await m.open(log, { live: false });
    assert.equal(during, 1);
    assert.ok(m.store.getState().snapshot!.totals.total > 0);
  } finally {
    unsubscribe();
    await m.close();
  }
});
