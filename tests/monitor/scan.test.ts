// The fast marker scan (LineScanner, findMarkedLines, the parallel workers) against the reference: every line of
// the log classified one by one with parseLine / RunModel.ingestLine. Same events, same `--once --json` document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LINE_MARKERS, parseLine, type LogEvent } from '../../src/services/monitor/lines.js';
import { LineScanner, scanFile } from '../../src/services/monitor/tail.js';
import { SegmentApplier, ingestOnceFile } from '../../src/services/monitor/parallel.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { SegmentScanner } from '../../src/services/monitor/segmentScan.js';
import { generateOffline } from '../../src/services/simulator/writer.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { EFFECTIVE_LINES, RM, TRAIN, metricLine, perfMetrics, pyLog, sampleLine, stepMetrics } from './builders.js';

const NOISE = '(SGLangEngine pid=4, ip=10.0.0.3) [2026-08-01 12:00:00 TP0] Decode batch. #running-req: 12, gen throughput (token/s): 1234.56 é';

/** One line of every kind classifyMessage knows (and a few shapes of some). */
const KINDS: string[] = [
  sampleLine({ reward: 1, instance: 'ü-unicode__x-1' }),
  sampleLine({ reward: 0, raw: 1, integrity: true, instance: 'pandas-dev__pandas-5', reason: 'swegym_integrity_violation' }),
  metricLine('step', 3, stepMetrics(3)),
  metricLine('perf', 3, perfMetrics(3)),
  `${TRAIN}${pyLog('model.py', 1, "eval 3: {'eval/swegym': nan, 'eval/x': -inf}")}`,
  `${metricLine('rollout', 4, { 'rollout/raw_reward_trajectory_mean': 0.5 })} [repeated 2x across cluster]`,
  ...EFFECTIVE_LINES,
  RM + pyLog('x.py', 1, 'harvesting blackbox rollout after agent early stop: session_id=bbs-1f kind=max_steps_exceeded'),
  RM + pyLog('x.py', 1, 'blackbox rollout failed for session_id=bbs-2: blackbox agent backend timeout (HTTP 504)'),
  RM + pyLog('x.py', 1, 'fresh SWE-Gym evaluation failed for instance=a__b-1: RuntimeError: boom'),
  RM + pyLog('x.py', 1, 'SWE-Gym evaluator poll failed; retrying: session_id=swegym-eval-ab attempt=2 error=ReadTimeout'),
  RM + pyLog('x.py', 1, 'source patch extraction failed transiently; retrying: session_id=bbs-3 attempt=1/5 delay=2.0s status=503'),
  RM + pyLog('x.py', 1, 'resubmitting rollout group for retry (attempt 1/2): task_error=X: y'),
  RM + pyLog('x.py', 1, 'rollout group exhausted retries and will be marked failed: task_error=RuntimeError: x statuses=ABORTED:1,COMPLETED:15'),
  RM + pyLog('x.py', 1, 'Dressage sync rollout produced no trainable samples'),
  'Current Ray node count: 2; expected ACTOR_NUM_NODES: 4',
  'Timed out waiting for Ray workers to join.',
  'Starting Ray worker on 10.0.0.7',
  RM + pyLog('router.py', 3, 'Router launched at 10.0.0.1:8000, Prometheus port: 29000'),
  TRAIN + pyLog('memory.py', 9, "[Rank 3] Memory-Usage after offload: {'gpu': '0', 'total_GB': 139.8}"),
  'Dressage proxy failed; see /w/outputs/logs/r/proxy/r.log',
  TRAIN + pyLog('checkpointing.py', 5, 'saving checkpoint at iteration      10 to /ckpt/run'),
  TRAIN + pyLog('checkpointing.py', 6, '  successfully saved checkpoint from iteration      10 to /ckpt/run'),
  "Job 'raysubmit_abc' succeeded",
  "Job 'raysubmit_abc' was stopped",
  'Traceback (most recent call last):',
  'DRESSAGE_PROXY_URL must be reachable from the sandbox',
  'ERROR: PROMPT_DATA must point to a jsonl file',
  'MODEL_ROOT must point to a directory',
  'MASTER_ADDR is required',
  'Missing Slime model config for qwen',
  'Missing Dressage default env file /x/.env',
  'RAY_SSH_USER is required when ACTOR_NUM_NODES > 1',
  'total actor GPUs (6) must be divisible by 4',
  'DRESSAGE_E2B_API_KEY is required',
  'unsupported DRESSAGE_SANDBOX_PROVIDER=foo',
  "Reward function 'swegym' not found",
  'ray.exceptions.RayTaskError: boom',
  // torch's ProcessGroupNCCL (hang signatures).
  `${TRAIN}[rank3]:[E1201 10:15:32.123456789 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.`,
  `${TRAIN}[rank0]:[E1201 10:45:00.000000000 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=2`,
  `${TRAIN}[rank0]:[F1201 10:45:00.000000000 ProcessGroupNCCL.cpp:1448] [PG ID 0 PG GUID 0(default_pg) Rank 0] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.`,
  `${TRAIN}torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, remote process exited or there was a network error, NCCL version 2.21.5`,
  // Another logger's ISO prefix in front of a known message.
  '2026-08-01 12:00:00,123 INFO launcher Current Ray node count: 1; expected ACTOR_NUM_NODES: 1',
  // ANSI colour and CRLF.
  `\u001b[36m(RolloutManager pid=7, ip=10.0.0.2)\u001b[0m ${pyLog('x.py', 1, 'SWE-Gym reward=1.0 raw=1.0 integrity=False instance=a__b-3 f2p=1/1 p2p=2/2 reason=')}\r`,
  `${metricLine('step', 4, stepMetrics(4))}\r`,
];

/** The reference: the log cut at newlines, each line classified on its own (a partial last line counts). */
function referenceEvents(text: string): LogEvent[] {
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((l) => parseLine(l).event).filter((e): e is LogEvent => e !== undefined);
}

function referenceJson(text: string, name?: string): unknown {
  const m = new RunModel({ name });
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  for (const l of parts) m.ingestLine(l);
  return m.toJson();
}

/** The scanner fed `bytes` in pieces of the given sizes (cycled). */
function scannedLines(bytes: Buffer, sizes: number[]): string[] {
  const seen: string[] = [];
  const s = new LineScanner((l) => seen.push(l));
  for (let p = 0, i = 0; p < bytes.length; i++) {
    const n = sizes[i % sizes.length] as number;
    s.push(bytes.subarray(p, p + n));
    p += n;
  }
  s.end();
  return seen;
}

function scannedEvents(bytes: Buffer, sizes: number[]): LogEvent[] {
  return scannedLines(bytes, sizes).map((l) => parseLine(l).event).filter((e): e is LogEvent => e !== undefined);
}

test('every kind of line is classified, and contains a marker', () => {
  const kinds = new Set<string>();
  for (const line of KINDS) {
    const ev = parseLine(line).event;
    assert.ok(ev, `classified: ${JSON.stringify(line)}`);
    kinds.add(ev.kind);
    assert.ok(LINE_MARKERS.some(([t]) => line.includes(t)), `a marker in ${JSON.stringify(line)}`);
  }
  for (const k of ['summary', 'sample', 'early_stop', 'sample_failed', 'eval_failed', 'eval_poll_retry', 'patch_retry', 'group_retry', 'group_failed', 'no_trainable', 'effective', 'ray_nodes', 'ray_timeout', 'ray_worker', 'router', 'memory', 'proxy_failed', 'checkpoint', 'job_end', 'fatal', 'hang']) {
    assert.ok(kinds.has(k), `KINDS covers ${k}`);
  }
});

test('markers split across chunks (every cut, chunk sizes 1..13) give the same lines and events as line by line', () => {
  const text = [NOISE, ...KINDS.flatMap((l) => [l, NOISE])].join('\n');
  const bytes = Buffer.from(text); // no final newline: the partial last line counts at end()
  const want = referenceEvents(text);
  assert.equal(want.length, KINDS.length);
  for (let size = 1; size <= 13; size++) assert.deepStrictEqual(scannedEvents(bytes, [size]), want, `chunks of ${size}`);
  for (let cut = 0; cut <= bytes.length; cut += 5) assert.deepStrictEqual(scannedEvents(bytes, [cut || 1, bytes.length]), want, `cut at ${cut}`);
  // Only lines with a marker reach the sink; noise is never decoded.
  const lines = scannedLines(bytes, [4096]);
  assert.equal(lines.length, KINDS.length);
  assert.ok(!lines.includes(NOISE));
});

test('a marker-like needle hit that is not a marker, at window and chunk edges, finds nothing', () => {
  const lookalikes = ['SWE-Gym', 'SWE-Gymx', ':{', ': [', 'effective', 'Job "', 'Router launched', 'Traceback', 'Error'.slice(0, 4), 'total actor GPU', 'kpoint', 'E', '{', 'k', 'f', 'D', 'C', 'U', 'J'];
  const text = lookalikes.map((l) => `${l}\n`).join('') + 'Erro';
  assert.deepStrictEqual(scannedLines(Buffer.from(text), [1]), []);
  assert.deepStrictEqual(scannedLines(Buffer.from(text), [3, 7]), []);
  assert.deepStrictEqual(scannedLines(Buffer.from(text), [text.length]), []);
});

async function simulatedLog(dir: string, config: Record<string, unknown>): Promise<string> {
  await generateOffline({ dir, config: { numRollouts: 6, noiseLinesPerSecond: 3, seed: 11, abortRate: 0.05, ...config }, checkpoints: true });
  return readFile(path.join(dir, 'run.log'), 'utf8');
}

test('differential on simulated runs: scanner, small chunks, CRLF/ANSI variants and the parallel workers match line by line', async () => {
  const dir = await tempDir();
  try {
    const text = await simulatedLog(path.join(dir, 'sim'), {});
    const variants: [string, string][] = [
      ['as written', text],
      ['CRLF', text.replace(/\n/g, '\r\n')],
      ['ANSI around lines', text.split('\n').map((l, i) => (l && i % 3 === 0 ? `\u001b[1;32m${l}\u001b[0m` : l)).join('\n')],
      ['no final newline', text.replace(/\n+$/, '')],
    ];
    for (const [label, t] of variants) {
      const bytes = Buffer.from(t);
      const want = referenceEvents(t);
      assert.ok(want.some((e) => e.kind === 'sample') && want.some((e) => e.kind === 'summary') && want.some((e) => e.kind === 'checkpoint'), label);
      assert.deepStrictEqual(scannedEvents(bytes, [bytes.length]), want, `${label}: one chunk`);
      assert.deepStrictEqual(scannedEvents(bytes, [4093, 17, 65536 + 3]), want, `${label}: odd chunks`);
      const file = path.join(dir, 'run.log');
      await writeFile(file, bytes);
      const wantJson = referenceJson(t, 'x');
      const seq = new RunModel({ name: 'x' });
      await scanFile(file, new LineScanner((l) => seq.ingestLine(l)), { final: true, chunkBytes: 1000 });
      assert.deepStrictEqual(JSON.stringify(seq.toJson()), JSON.stringify(wantJson), `${label}: scanFile`);
      const r = await ingestOnceFile(file, { name: 'x', workers: 3, minBytes: 0, segmentBytes: 8191 });
      assert.equal(r.workers, 3);
      assert.ok(r.segments > 10, 'many segments, cut inside lines');
      assert.deepStrictEqual(JSON.stringify(r.model.toJson()), JSON.stringify(wantJson), `${label}: parallel`);
      const one = await ingestOnceFile(file, { name: 'x', workers: 1, segmentBytes: 100_003 });
      assert.equal(one.workers, 1);
      assert.deepStrictEqual(JSON.stringify(one.model.toJson()), JSON.stringify(wantJson), `${label}: segments on the main thread`);
      // --json: the events the document never shows are dropped in the scanners; the document is the same.
      const doc = await ingestOnceFile(file, { name: 'x', workers: 2, minBytes: 0, segmentBytes: 8191, documentOnly: true });
      assert.deepStrictEqual(JSON.stringify(doc.model.toJson()), JSON.stringify(wantJson), `${label}: parallel, document only`);
      assert.equal(doc.model.failures.size, 0, `${label}: the failure feed was not built`);
      assert.equal(doc.model.taskSummary().seen, 0, `${label}: nor the task tally`);
      const docOne = await ingestOnceFile(file, { name: 'x', workers: 1, segmentBytes: 100_003, documentOnly: true });
      assert.deepStrictEqual(JSON.stringify(docOne.model.toJson()), JSON.stringify(wantJson), `${label}: main thread, document only`);
    }
  } finally {
    await removeDir(dir);
  }
});

test('differential on fuzz inputs: look-alikes, binary, ANSI, CR and marker fragments between valid lines', () => {
  let seed = 4242;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pieces = [...LINE_MARKERS.map(([t]) => t), ...LINE_MARKERS.map(([t]) => t.slice(0, Math.ceil(t.length / 2))), ...KINDS, 'step 3: {', "rollout 1: {'a': 1}", '}', "'", '\\', 'nan', '[repeated 3x across cluster]', '(RolloutManager pid=1, ip=2) ', '\u001b[31m', '\u0000', '\r', 'é', '\ud83d\ude00', '[2026-08-01 12:00:00] a.py:1 - ', '2026-08-01 12:00:00 INFO x '];
  for (let round = 0; round < 40; round++) {
    const lines: string[] = [];
    for (let i = 0; i < 150; i++) {
      let s = '';
      const n = Math.floor(rnd() * 6);
      for (let k = 0; k < n; k++) s += rnd() < 0.7 ? (pieces[Math.floor(rnd() * pieces.length)] as string) : String.fromCharCode(32 + Math.floor(rnd() * 200));
      lines.push(s.replace(/\n/g, ' '));
    }
    const text = lines.join('\n') + (rnd() < 0.5 ? '\n' : '');
    const bytes = Buffer.from(text);
    const want = referenceEvents(text);
    const sizes = [1 + Math.floor(rnd() * 40), 1 + Math.floor(rnd() * 3000)];
    assert.deepStrictEqual(scannedEvents(bytes, sizes), want, `round ${round}`);
    const m = new RunModel();
    const s = new LineScanner((l) => m.ingestLine(l));
    s.push(bytes);
    s.end();
    assert.deepStrictEqual(JSON.stringify(m.toJson()), JSON.stringify(referenceJson(text)), `round ${round} json`);
    assert.deepStrictEqual(JSON.stringify(segmentJson(bytes, 1 + Math.floor(rnd() * 500))), JSON.stringify(referenceJson(text)), `round ${round} segments`);
    assert.deepStrictEqual(JSON.stringify(segmentJson(bytes, 1 + Math.floor(rnd() * 500), true)), JSON.stringify(referenceJson(text)), `round ${round} segments, document only`);
  }
});

test('--json document only: each kind of line, between sample lines and last, gives the document of classifying every line', () => {
  const samples = [sampleLine({ reward: 1, instance: 'a__b-1' }), sampleLine({ reward: 0, instance: 'a__b-2', reason: 'fail_to_pass_failure' })];
  for (const line of KINDS) {
    for (const text of [[...samples, line, ...samples].join('\n'), [...samples, line].join('\n') + '\n']) {
      const bytes = Buffer.from(text);
      const want = JSON.stringify(referenceJson(text));
      assert.deepStrictEqual(JSON.stringify(segmentJson(bytes, bytes.length, true)), want, `document only: ${JSON.stringify(line)}`);
      assert.deepStrictEqual(JSON.stringify(segmentJson(bytes, 97, true)), want, `document only, small segments: ${JSON.stringify(line)}`);
    }
  }
});

test('scanFile reads ahead while scanning: an abort stops at a chunk edge, a throwing sink rejects with its error', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines = Array.from({ length: 400 }, (_, i) => (i % 4 === 0 ? sampleLine({ reward: 1, instance: `t-${i}` }) : NOISE));
    await writeFile(file, lines.join('\n') + '\n');
    const ac = new AbortController();
    let seen = 0;
    const r = await scanFile(file, new LineScanner(() => seen++), { chunkBytes: 4096, signal: ac.signal, onProgress: (n) => n >= 8192 && ac.abort() });
    assert.equal(r.bytes, 8192);
    assert.equal(r.offset, 8192);
    assert.ok(seen > 0 && seen < 100);
    const all = await scanFile(file, new LineScanner(() => {}), { chunkBytes: 4096, offset: r.offset });
    assert.equal(r.offset + all.bytes, Buffer.byteLength(lines.join('\n') + '\n'));
    let calls = 0;
    await assert.rejects(
      scanFile(file, new LineScanner(() => { if (++calls === 30) throw new Error('sink broke'); }), { chunkBytes: 4096, final: true }),
      /sink broke/,
    );
  } finally {
    await removeDir(dir);
  }
});

/** The --once segment scan of `bytes` cut into segments of `size` bytes, applied in order (as the workers' results are). */
function segmentJson(bytes: Buffer, size: number, documentOnly = false): unknown {
  const applier = new SegmentApplier(undefined);
  const scanner = new SegmentScanner(documentOnly);
  for (let start = 0, index = 0; start < bytes.length; start += size, index++) {
    const end = Math.min(bytes.length, start + size);
    // The lines that start in [start, end), whole (as readSegment cuts a file).
    let from = start;
    if (start > 0 && bytes[start - 1] !== 10) {
      const nl = bytes.indexOf(10, start);
      if (nl < 0 || nl + 1 >= end) continue;
      from = nl + 1;
    }
    let stop = bytes.indexOf(10, end - 1);
    if (stop < 0) stop = bytes.length;
    applier.apply(0, scanner.scan(index, bytes, from, stop));
  }
  return applier.model.toJson();
}
