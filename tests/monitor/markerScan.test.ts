// The WebAssembly marker search (markerScan.ts, wasm/markerScan.ts) against findMarkedLines, the reference: the same
// line starts for any bytes and any window, whatever the fingerprint table says; its per-sample reader against
// readSampleBytes. That the committed module is the one its source compiles to is the typecheck stage's (build-wasm --check).
import { test } from 'node:test';
import fc from '../helpers/property.js';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LINE_MARKERS, parseLine, type ParsedEvent } from '../../src/services/monitor/lines.js';
import { LineScanner } from '../../src/services/monitor/tail.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { generateOffline } from '../../src/services/simulator/writer.js';
import { DROPPED_MARKERS, NOT_IN_DOCUMENT, SegmentScanner, droppableInDocument } from '../../src/services/monitor/segmentScan.js';
import { ingestOnceFile } from '../../src/services/monitor/parallel.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { compileMarkers, findMarkedLines } from '../../src/services/monitor/markers.js';
import {
  MarkerScan,
  RECORD,
  R_END,
  R_F2P_END,
  R_F2P_START,
  R_INSTANCE_END,
  R_INSTANCE_START,
  R_INTEGRITY,
  R_P2P_END,
  R_P2P_START,
  R_RAW_END,
  R_RAW_START,
  R_REASON_END,
  R_REASON_START,
  R_REWARD_END,
  R_REWARD_START,
  R_RUN,
  R_RUN_INTEGRITY,
  R_RUN_LINES,
  R_RUN_PAIRS,
  R_RUN_RAW_ONE,
  R_RUN_REASONS,
  R_RUN_REWARD_ONE,
  R_SAMPLE,
  R_START,
  R_ESCAPE,
  R_SUMMARY,
  R_TEXTS_HIGH,
  R_TEXTS_LOW,
  markedLineSearch,
} from '../../src/services/monitor/markerScan.js';
import { emptySampleBytes, isOne, readSampleBytes } from '../../src/services/monitor/sampleBytes.js';
import { fuzzSampleLines, hardSampleLines, usualSampleLines } from './sampleLineCases.js';
import { EFFECTIVE_LINES, metricLine, sampleLine, stepMetrics } from './builders.js';
import { MARKER_FINGERPRINTS } from '../../src/services/monitor/markerFingerprints.js';
import { shapeHolds, shapeOf, summaryShapeHolds } from '../../src/services/monitor/markerShapes.js';

/** The marker text in the least of its shape that ends where the text ends, or after it (markerShapes.ts). */
function shaped(text: string): string {
  if (text === ': {') return 'Memory-Usage: {';
  if (text === 'Error') return 'ray.exceptions.XError';
  if (text === 'SWE-Gym ') return 'SWE-Gym reward=';
  assert.equal(shapeOf(text), 0, `a shaped instance of ${JSON.stringify(text)}`);
  return text;
}

/** Does `line` hold `text` in its shape, somewhere? */
function holds(line: string, text: string): boolean {
  const buf = Buffer.from(line, 'latin1');
  for (let at = line.indexOf(text); at >= 0; at = line.indexOf(text, at + 1)) if (shapeHolds(buf, shapeOf(text), at, 0, buf.length)) return true;
  return false;
}

/** Does some `: {` of `line` have SUMMARY's shape on its own (markerShapes.ts summaryShapeHolds)? */
function holdsSummaryShape(line: string): boolean {
  const buf = Buffer.from(line, 'latin1');
  for (let at = line.indexOf(': {'); at >= 0; at = line.indexOf(': {', at + 1)) if (summaryShapeHolds(buf, at, 0, buf.length)) return true;
  return false;
}

const groups = compileMarkers(LINE_MARKERS);

function reference(buf: Buffer, from: number, end: number, groupsFor = groups): number[] {
  const out: number[] = [];
  findMarkedLines(buf, from, end, groupsFor, out);
  return out;
}

function scanned(scan: MarkerScan, buf: Buffer, from: number, end: number): number[] {
  const out: number[] = [];
  scan.find(buf, from, end, out);
  return out;
}

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

function wasmScan(markers = LINE_MARKERS): MarkerScan {
  const scan = MarkerScan.create(markers);
  assert.ok(scan, 'Node 22+ runs WebAssembly SIMD: the WebAssembly search must load');
  return scan;
}

test('every marker text has a fingerprint inside it and a bucket of the eight', () => {
  for (const [text] of LINE_MARKERS) {
    const entry = MARKER_FINGERPRINTS[text];
    assert.ok(entry, `no fingerprint for ${JSON.stringify(text)}: run scripts/marker-fingerprints.ts`);
    const [at, bucket] = entry;
    assert.ok(at >= 0 && at + Math.min(4, text.length) <= text.length, `${JSON.stringify(text)}: fingerprint at ${at}`);
    assert.ok(Number.isInteger(bucket) && bucket >= 0 && bucket < 8, `${JSON.stringify(text)}: bucket ${bucket}`);
  }
});

test('fuzz: marker texts, their fragments, look-alikes and binary bytes, in random windows, give the reference lines', () => {
  const rnd = rng(1717);
  const texts = LINE_MARKERS.map(([t]) => t);
  const pieces = [
    ...texts,
    ...texts.map((t) => t.slice(0, Math.max(1, t.length - 1))),
    ...texts.map((t) => t.slice(1)),
    ...texts.map((t) => t.slice(0, Math.ceil(t.length / 2))),
    'E-Gy', 'Erro', 'Dres', 'DRES', 'heck', ': ', '{', 'x ro', '\u001b[31m', '\u0000', '\r', 'é', '\ud83d\ude00', ' ', 'SWE-Gym',
  ];
  const scan = wasmScan();
  for (let round = 0; round < 300; round++) {
    const lines: string[] = [];
    const count = 1 + Math.floor(rnd() * 60);
    for (let i = 0; i < count; i++) {
      let s = '';
      const n = Math.floor(rnd() * 7);
      for (let k = 0; k < n; k++) s += rnd() < 0.6 ? (pieces[Math.floor(rnd() * pieces.length)] as string) : String.fromCharCode(Math.floor(rnd() * 256));
      lines.push(s.replace(/\n/g, ' '));
    }
    const buf = Buffer.from(lines.join('\n') + (rnd() < 0.5 ? '\n' : ''));
    // A window: from a line start to a newline (or the end), as the scanners cut them.
    const starts = [0, ...[...buf.keys()].filter((i) => buf[i - 1] === 10)];
    const from = starts[Math.floor(rnd() * starts.length)] as number;
    const ends = [...buf.keys()].filter((i) => i >= from && buf[i] === 10).concat(buf.length);
    const end = ends[Math.floor(rnd() * ends.length)] as number;
    assert.deepStrictEqual(scanned(scan, buf, from, end), reference(buf, from, end), `round ${round}: ${JSON.stringify(buf.toString('latin1', from, end))}`);
  }
});

test('texts at the edges of a window: one that ends at its end is found, one cut by it or before its start is not', () => {
  const scan = wasmScan();
  for (const [marker] of LINE_MARKERS) {
    const text = shaped(marker);
    const line = `ab ${text}`;
    const buf = Buffer.from(`x\n${line}\nnoise\n`);
    const lineStart = 2;
    const lineEnd = lineStart + line.length;
    assert.deepStrictEqual(scanned(scan, buf, lineStart, lineEnd), [lineStart], `${JSON.stringify(text)} at the end`);
    assert.deepStrictEqual(scanned(scan, buf, lineStart, lineEnd - 1), reference(buf, lineStart, lineEnd - 1), `${JSON.stringify(text)} cut by the end`);
    assert.deepStrictEqual(scanned(scan, buf, lineStart + 3, lineEnd), [lineStart + 3], `${JSON.stringify(text)} at the start`);
    assert.deepStrictEqual(scanned(scan, buf, lineStart + 4, lineEnd), reference(buf, lineStart + 4, lineEnd), `${JSON.stringify(text)} cut by the start`);
  }
});

test('more marked lines than the output holds at once: the search resumes and finds every one', () => {
  const lines = Array.from({ length: 70_000 }, (_, i) => (i % 3 === 2 ? 'noise here' : i % 3 === 0 ? 'ray.exceptions.RayTaskError' : "x Job 'r' succeeded"));
  const buf = Buffer.from(lines.join('\n'));
  const want = reference(buf, 0, buf.length);
  assert.equal(want.length, 46_667);
  assert.deepStrictEqual(scanned(wasmScan(), buf, 0, buf.length), want);
});

test('a window larger than the memory it starts with: the memory grows and the lines are the same', () => {
  const rnd = rng(99);
  const lines = Array.from({ length: 120_000 }, (_, i) => (rnd() < 0.01 ? `[x] ${LINE_MARKERS[i % LINE_MARKERS.length]?.[0]} tail` : 'some ordinary log line with words 0123'));
  const buf = Buffer.from(lines.join('\n') + '\n');
  assert.ok(buf.length > 4_000_000);
  const scan = wasmScan();
  assert.deepStrictEqual(scanned(scan, buf, 0, buf.length - 1), reference(buf, 0, buf.length - 1));
  // And a small window after it reads no stale bytes of the big one as its own.
  const small = Buffer.from('nothing to see\n');
  assert.deepStrictEqual(scanned(scan, small, 0, small.length - 1), []);
});

test('markers missing from the fingerprint table are still found, and the table only changes the candidates counted', () => {
  const extra: [string, string][] = [['zq marker not in the table', 'z'], ['ab', 'a'], ['Q', 'Q']];
  const markers = [...LINE_MARKERS, ...extra];
  const scan = wasmScan(markers);
  const buf = Buffer.from(['a zq marker not in the table here', 'xxab', 'no', 'Q', 'SWE-Gym reward=1', 'nothing'].join('\n'));
  const want = reference(buf, 0, buf.length, compileMarkers(markers));
  assert.deepStrictEqual(want, [0, 34, 42, 44]);
  assert.deepStrictEqual(scanned(scan, buf, 0, buf.length), want);
  assert.ok(scan.candidates >= want.length, 'each found line was a candidate first');
});

test('markedLineSearch: the WebAssembly search by default, findMarkedLines on request, the same lines', () => {
  const rnd = rng(5);
  const lines = Array.from({ length: 3000 }, () => (rnd() < 0.2 ? `(RolloutManager pid=1) ${LINE_MARKERS[Math.floor(rnd() * LINE_MARKERS.length)]?.[0]}` : 'GET /health 200 OK'));
  const buf = Buffer.from(lines.join('\n'));
  const a: number[] = [];
  const b: number[] = [];
  markedLineSearch(LINE_MARKERS)(buf, 0, buf.length, a);
  markedLineSearch(LINE_MARKERS, 'js')(buf, 0, buf.length, b);
  assert.ok(a.length > 400);
  assert.deepStrictEqual(a, b);
});

/** The WebAssembly reader's record of the one marked line of `line` between two noise lines, or undefined. */
function wasmSample(scan: MarkerScan, line: string): { buf: Buffer; start: number; end: number; record: number[] | undefined } {
  const head = 'GET /health 200 OK\n';
  const buf = Buffer.from(`${head}${line}\nGET /health 200 OK`);
  const start = Buffer.byteLength(head);
  const end = start + Buffer.byteLength(line);
  let record: number[] | undefined;
  scan.lines(buf, 0, buf.length, true, (r, count) => {
    for (let k = 0; k < count; k++) {
      const rec = Array.from(r.subarray(k * RECORD, (k + 1) * RECORD));
      if (rec[R_START] === start) record = rec;
    }
  });
  return { buf, start, end, record };
}

test('per-sample lines read by the WebAssembly reader: the answers and fields of readSampleBytes, on every case', () => {
  const scan = wasmScan();
  let accepted = 0;
  const lines = [...usualSampleLines(), ...hardSampleLines(), ...fuzzSampleLines(20_000, 99), ...fuzzSampleLines(20_000, 7)];
  for (const line of lines) {
    const { buf, start, end, record } = wasmSample(scan, line);
    const want = emptySampleBytes();
    const ok = readSampleBytes(buf, start, end, want);
    const label = JSON.stringify(line);
    if (!record) {
      // Not marked at all: then not a sample line either.
      assert.equal(ok, false, `unmarked but read as a sample: ${label}`);
      continue;
    }
    assert.equal(record[R_END], end, `line end of ${label}`);
    assert.equal(record[R_SAMPLE], ok ? 1 : 0, `sample or not: ${label}`);
    if (!ok) continue;
    accepted++;
    assert.equal(isOne(buf, record[R_REWARD_START] as number, record[R_REWARD_END] as number), want.rewardOne, `reward of ${label}`);
    assert.equal(isOne(buf, record[R_RAW_START] as number, record[R_RAW_END] as number), want.rawOne, `raw of ${label}`);
    assert.equal(record[R_INTEGRITY] === 1, want.integrity, `integrity of ${label}`);
    assert.deepStrictEqual([record[R_INSTANCE_START], record[R_INSTANCE_END]], [want.instanceStart, want.instanceEnd], `instance of ${label}`);
    assert.deepStrictEqual([record[R_REASON_START], record[R_REASON_END]], [want.reasonStart, want.reasonEnd], `reason of ${label}`);
  }
  assert.ok(accepted > 4000, `a good share is read on the bytes (${accepted})`);
});

test("fast-check: per-sample lines of any bytes, fields long and short, read by the WebAssembly reader as readSampleBytes reads them", () => {
  const scan = wasmScan();
  // Bytes at the edges of the reader's classes (control, space, DEL, ≥ 0x80) among printable ones, in runs that cross
  // its 16-byte loads.
  const byte = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) }, { weight: 1, arbitrary: fc.constantFrom(0x00, 0x09, 0x0d, 0x1b, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff) });
  const field = fc.oneof({ weight: 6, arbitrary: fc.array(fc.integer({ min: 0x21, max: 0x7e }), { maxLength: 40 }) }, { weight: 1, arbitrary: fc.array(byte, { maxLength: 40 }) }).map((b) => Buffer.from(b).toString('latin1'));
  const name = (n: string) => fc.oneof({ weight: 12, arbitrary: fc.constant(n) }, { weight: 1, arbitrary: fc.constantFrom(n.slice(0, -1), n.toUpperCase(), ` ${n}`) });
  let accepted = 0;
  fc.assert(
    fc.property(fc.constantFrom('', 'x ', '(RolloutManager pid=1, ip=2) ', '\u001b[36m(R pid=1)\u001b[0m '), fc.array(field, { minLength: 8, maxLength: 8 }), fc.tuple(name(' raw='), name(' instance='), name(' reason=')), (prefix, f, [raw, instance, reason]) => {
      const line = `${prefix}SWE-Gym reward=${f[0]}${raw}${f[1]} integrity=${f[2]}${instance}${f[3]} f2p=${f[4]} p2p=${f[5]}${reason}${f[6]}${f[7]}`.replace(/\n/g, ' ');
      const head = Buffer.from('GET /health 200 OK\n');
      const body = Buffer.from(line, 'latin1');
      const buf = Buffer.concat([head, body, Buffer.from('\nGET /x')]);
      const start = head.length;
      const end = start + body.length;
      const want = emptySampleBytes();
      const ok = readSampleBytes(buf, start, end, want);
      let record: number[] | undefined;
      scan.lines(buf, 0, buf.length, true, (r, count) => {
        for (let k = 0; k < count; k++) if (r[k * RECORD + R_START] === start) record = Array.from(r.subarray(k * RECORD, (k + 1) * RECORD));
      });
      if (!record) return assert.equal(ok, false, JSON.stringify(line));
      assert.equal(record[R_SAMPLE], ok ? 1 : 0, JSON.stringify(line));
      if (!ok) return;
      accepted++;
      assert.deepStrictEqual([record[R_INSTANCE_START], record[R_INSTANCE_END], record[R_REASON_START], record[R_REASON_END]], [want.instanceStart, want.instanceEnd, want.reasonStart, want.reasonEnd], JSON.stringify(line));
      assert.equal(isOne(buf, record[R_REWARD_START] as number, record[R_REWARD_END] as number), want.rewardOne);
    }),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 600, `lines read as samples (${accepted})`);
});

test('without per-sample reading, records say nothing of samples', () => {
  const scan = wasmScan();
  const buf = Buffer.from(usualSampleLines().join('\n'));
  let records = 0;
  scan.lines(buf, 0, buf.length, false, (r, count) => {
    for (let k = 0; k < count; k++, records++) assert.equal(r[k * RECORD + R_SAMPLE], 0);
  });
  assert.equal(records, usualSampleLines().length);
});

test('each record names every marker text its line holds and where its first escape byte is', () => {
  const rnd = rng(2024);
  const texts = LINE_MARKERS.map(([t]) => t);
  const pieces = [...texts, ...texts.map((t) => t.slice(1)), '\u001b[0m', '\u001b', 'x', ' ', 'é', 'Memory-Usage', ' step 3', "{'a': 1}", " step 3: {'a': 1}", "[Rank 1] Memory-Usage x: {'a': 1}"];
  const scan = wasmScan();
  let multi = 0;
  let summaries = 0;
  let memoryOnly = 0;
  for (let round = 0; round < 200; round++) {
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => {
      let s = '';
      for (let k = Math.floor(rnd() * 8); k > 0; k--) s += pieces[Math.floor(rnd() * pieces.length)];
      return s;
    });
    const buf = Buffer.from(lines.join('\n'));
    scan.lines(buf, 0, buf.length, round % 2 === 0, (r, count) => {
      for (let k = 0; k < count; k++) {
        const rec = r.subarray(k * RECORD, (k + 1) * RECORD);
        const line = buf.toString('latin1', rec[R_START], rec[R_END]);
        let low = 0;
        let high = 0;
        texts.forEach((t, i) => {
          if (!holds(line, t)) return;
          if (i < 32) low |= 1 << i;
          else high |= 1 << (i - 32);
        });
        assert.deepStrictEqual([rec[R_TEXTS_LOW], rec[R_TEXTS_HIGH]], [low | 0, high | 0], `texts of ${JSON.stringify(line)}`);
        if ((low & (low - 1)) !== 0 || high !== 0) multi++;
        const summary = holdsSummaryShape(line);
        assert.equal(rec[R_SUMMARY], summary ? 1 : 0, `summary shape of ${JSON.stringify(line)}`);
        if (summary) summaries++;
        else if (line.includes(': {') && line.includes('Memory-Usage')) memoryOnly++;
        const esc = buf.indexOf(27, rec[R_START]);
        assert.equal(rec[R_ESCAPE], esc >= 0 && esc < (rec[R_END] as number) ? esc : -1, `escape of ${JSON.stringify(line)}`);
      }
    });
  }
  assert.ok(multi > 100, `lines with several texts were tried (${multi})`);
  assert.ok(summaries > 20 && memoryOnly > 20, `both readings of \`: {\` were drawn (summary shape ${summaries}, Memory-Usage only ${memoryOnly})`);
});

test('lines holding only DROPPED_MARKERS texts classify as nothing or as kinds the --json document never prints', () => {
  const rnd = rng(31);
  const kept = LINE_MARKERS.map(([t]) => t).filter((t) => !DROPPED_MARKERS.includes(t));
  // Pieces of the kinds' own lines and of every kept marker, and whole lines of the kinds the document keeps: a line
  // that ends up holding a kept marker text is skipped below, so these only count if a text is wrongly listed.
  const whole = [
    sampleLine({ reward: 1 }), metricLine('step', 3, stepMetrics(3)), "[Rank 3] Memory-Usage after offload: {'gpu': '0'}", EFFECTIVE_LINES[0] as string,
    'Current Ray node count: 2; expected ACTOR_NUM_NODES: 4', 'Timed out waiting for Ray workers to join.', "Job 'raysubmit_abc' succeeded",
    'saving checkpoint at iteration      10 to /ckpt/run', 'Dressage proxy failed; see /x.log', 'Dressage sync rollout produced no trainable samples',
    '[swegym-console] launcher exited with code 1', 'ray.exceptions.RayTaskError: boom', 'fresh SWE-Gym evaluation failed for instance=a__b-1: E',
    ...LINE_MARKERS.map(([t]) => t),
  ];
  const tails = [...whole, ' kind=max_steps_exceeded', ' attempt=2 error=ReadTimeout', ': task_error=RuntimeError: x statuses=ABORTED:1', ' 10.0.0.7', '10.0.0.1:8000, Prometheus port: 29000', ' status=503', 'x', ' ', '1/2): y', ...kept.map((t) => t.slice(0, -1)), ...kept.map((t) => t.slice(1))];
  const prefixes = ['', '(RolloutManager pid=1, ip=2) ', '[2026-08-01 12:00:00] rollout.py:9 - ', '2026-08-01 12:00:00,1 INFO x ', 'Traceback ', '(raylet) '];
  let lines = 0;
  for (let i = 0; i < 20_000; i++) {
    let line = prefixes[Math.floor(rnd() * prefixes.length)] as string;
    for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
      line += DROPPED_MARKERS[Math.floor(rnd() * DROPPED_MARKERS.length)];
      for (let j = Math.floor(rnd() * 3); j > 0; j--) line += tails[Math.floor(rnd() * tails.length)];
    }
    if (rnd() < 0.2) line += ' [repeated 3x across cluster]';
    if (kept.some((t) => line.includes(t))) continue;
    lines++;
    const ev = parseLine(line).event;
    assert.ok(ev === undefined || NOT_IN_DOCUMENT.has(ev.kind), `${JSON.stringify(line)} gave ${ev?.kind}`);
  }
  assert.ok(lines > 5_000, `enough lines were tried (${lines})`);
});

test('segments read into the search memory, and a line longer than a segment: the documents of the JavaScript search', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'run.log');
    const lines: string[] = [];
    for (let r = 0; r < 30; r++) {
      for (let i = 0; i < 300; i++) lines.push(i % 3 === 0 ? sampleLine({ reward: i % 2, instance: `t-${r}-${i}` }) : 'GET /health 200 OK');
      // Longer than a segment and than the read slack: the scanner reads it into a larger buffer.
      if (r === 10) lines.push(`noise ${'x'.repeat(300_000)} ${sampleLine({ reward: 1 })}`);
      lines.push(metricLine('rollout', r, { 'rollout/raw_reward_trajectory_mean': r / 30 }));
    }
    await writeFile(file, lines.join('\n') + '\n');
    for (const workers of [1, 2]) {
      const opts = { name: 'x', workers, minBytes: 0, segmentBytes: 100_003, documentOnly: true } as const;
      const wasm = await ingestOnceFile(file, { ...opts, markerSearch: 'wasm' });
      const js = await ingestOnceFile(file, { ...opts, markerSearch: 'js' });
      assert.equal(wasm.markerSearch, 'wasm');
      assert.equal(js.markerSearch, 'js');
      assert.deepStrictEqual(JSON.stringify(wasm.model.toJson()), JSON.stringify(js.model.toJson()), `${workers} thread(s)`);
      assert.equal((wasm.model.toJson() as { samples: { total: number } }).samples.total, 30 * 100 + 1);
    }
  } finally {
    await removeDir(dir);
  }
});

test('per-sample lines read on the bytes by the line scanner: the event, time, repeat and actor parseLine gives', () => {
  const prefixes = ['', '(RolloutManager pid=1, ip=2) ', '\u001b[36m(RolloutManager pid=7, ip=10.0.0.1)\u001b[0m [2026-08-01 12:00:09] rollout.py:3 - ', '[2026-08-01 12:00:00,123] r.py:1 - ', '2026-08-01 12:00:00,1 INFO x ', '(pid=3) (raylet) '];
  const lines = [...usualSampleLines(), ...hardSampleLines(), ...fuzzSampleLines(20_000, 5)];
  prefixes.forEach((p) => lines.push(...usualSampleLines().map((l) => p + l)));
  let read = 0;
  const got: { line: string; parsed: ParsedEvent }[] = [];
  for (const line of lines) {
    const scanner = new LineScanner(() => {}, { onSample: (parsed) => got.push({ line, parsed }) });
    scanner.push(Buffer.from(`GET /x\n${line}\nGET /y\n`));
    scanner.end();
  }
  for (const { line, parsed } of got) {
    read++;
    const { message: _message, ...want } = parseLine(line);
    assert.deepStrictEqual(parsed, want, JSON.stringify(line));
  }
  assert.ok(read > 1500, `lines read on the bytes (${read})`);
});

test('a model fed by the line scanner reading samples on the bytes is the model of classifying every line', async () => {
  const dir = await tempDir();
  try {
    await generateOffline({ dir, config: { numRollouts: 6, noiseLinesPerSecond: 3, seed: 11, abortRate: 0.05 }, checkpoints: true });
    const text = await readFile(path.join(dir, 'run.log'), 'utf8');
    const want = new RunModel();
    for (const l of text.split('\n')) if (l) want.ingestLine(l);
    const model = new RunModel();
    let onBytes = 0;
    const scanner = new LineScanner((l) => model.ingestLine(l), { onSample: (p) => (onBytes++, model.ingestParsed(p)) });
    const buf = Buffer.from(text);
    for (let i = 0; i < buf.length; i += 7919) scanner.push(buf.subarray(i, i + 7919));
    scanner.end();
    assert.ok(onBytes > 200, `samples read on the bytes (${onBytes})`);
    assert.deepStrictEqual(JSON.stringify(model.toJson()), JSON.stringify(want.toJson()));
    assert.deepStrictEqual(model.feed.toArray(), want.feed.toArray());
  } finally {
    await removeDir(dir);
  }
});

test('a line the --once scan drops on its bytes gives no event the document keeps (held on the classifier, coloured lines too)', () => {
  const rnd = rng(4242);
  const kept = LINE_MARKERS.map(([t]) => t).filter((t) => !DROPPED_MARKERS.includes(t));
  const colour = ['\u001b[36m', '\u001b[0m', '\u001b[1m', '\u001b[39m', '\u001b]0;t\u0007', '\u001b'];
  const pieces = [
    ...DROPPED_MARKERS, 'SWE-Gym ', 'SWE-Gym evaluator poll failed; retrying: session_id=s-1 attempt=2 error=ReadTimeout: timed out', 'fresh SWE-Gym evaluation failed for instance=a__b-1: boom',
    'SWE-Gym rew', 'ard=1 raw=1 integrity=False instance=a__b-1 f2p=1/1 p2p=2/2 reason=ok', sampleLine({ reward: 1 }), ' kind=context_overflow', ' [repeated 3x across cluster]', 'x', ' ', ':', ')',
    ...kept.map((t) => t.slice(0, Math.ceil(t.length / 2))), ...kept.map((t) => t.slice(Math.ceil(t.length / 2))),
    // Shapes cut where a colour code may go: the exception's name, a metric line's word and number, an evaluator's text.
    'ray.exce', 'ptions.RayTaskError: boom', 'ray.exceptions.RayTask', 'Error: boom', ' step', ' 1', '2: {\'a\': 1}', 'SWE-Gym evaluator poll', ' failed; retrying: session_id=s-2 attempt=1 error=x',
    // Memory lines, whole and cut where a colour code may go, next to a metric line's parts.
    "[Rank 3] Memory-Usage after offload model: {'gpu': '0', 'used_GB': 41.7}", 'Memory-Usage before wake_up', "Memory-Usage after init model: {'gpu': '1'}", ': {', "{'a': 1}", 'Memory-', 'Usage', 'rollout 4', ' eval 2', " step 3: {'a': 1}", "rollout 4: {'x': 0.5}",
  ];
  const prefixes = ['', '\u001b[36m(RolloutManager pid=1, ip=10.0.0.1)\u001b[0m [2026-11-20 08:18:22] fresh_eval.py:318 - ', '(RolloutManager pid=1, ip=2) ', '2026-08-01 12:00:00,1 INFO x '];
  const scan = wasmScan();
  let droppedSweGym = 0;
  let droppedMemory = 0;
  let keptSummaries = 0;
  let dropped = 0;
  let keptKinds = 0;
  for (let round = 0; round < 400; round++) {
    const lines = Array.from({ length: 40 }, () => {
      let s = prefixes[Math.floor(rnd() * prefixes.length)] as string;
      for (let k = 1 + Math.floor(rnd() * 4); k > 0; k--) {
        if (rnd() < 0.3) s += colour[Math.floor(rnd() * colour.length)];
        s += pieces[Math.floor(rnd() * pieces.length)];
      }
      return s;
    });
    const buf = Buffer.from(lines.join('\n'));
    scan.lines(buf, 0, buf.length, true, (r, count) => {
      for (let k = 0; k < count * RECORD; k += RECORD) {
        const line = buf.toString('utf8', r[k + R_START], r[k + R_END]);
        const ev = parseLine(line).event;
        if (!droppableInDocument(buf, r[k + R_START] as number, r[k + R_END] as number, r, k)) {
          if (ev && !NOT_IN_DOCUMENT.has(ev.kind)) keptKinds++;
          if (ev?.kind === 'summary') keptSummaries++;
          continue;
        }
        dropped++;
        if (line.includes('SWE-Gym ')) droppedSweGym++;
        if (line.includes('Memory-Usage') && line.includes(': {')) droppedMemory++;
        assert.ok(ev === undefined || NOT_IN_DOCUMENT.has(ev.kind), `dropped, but ${JSON.stringify(line)} gives ${ev?.kind}`);
      }
    });
  }
  assert.ok(dropped > 1_000 && droppedSweGym > 300 && droppedMemory > 300 && keptKinds > 300 && keptSummaries > 100, `both kinds of line were drawn (${dropped} dropped, ${droppedSweGym} of them evaluator lines, ${droppedMemory} memory lines; ${keptKinds} kept events, ${keptSummaries} summaries)`);
});

/** A record's fields that hold something: a line that is not a sample's leaves the sample fields as they were. */
function meaningful(rec: number[]): number[] {
  const sampleFields = [R_REWARD_START, R_REWARD_END, R_RAW_START, R_RAW_END, R_INTEGRITY, R_INSTANCE_START, R_INSTANCE_END, R_REASON_START, R_REASON_END, R_F2P_START, R_F2P_END, R_P2P_START, R_P2P_END];
  return rec.map((v, f) => (rec[R_SAMPLE] !== 1 && sampleFields.includes(f) ? 0 : v));
}

/** Per-sample lines for the run records: plain and other number forms, reasons in the table or not, among other lines. */
function runCaseLine(): fc.Arbitrary<string> {
  const num = fc.oneof({ weight: 12, arbitrary: fc.constantFrom('0', '1', '0.0', '1.0') }, { weight: 1, arbitrary: fc.constantFrom('1.00', '0.5', '+1', '1e0') });
  const reason = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('fail_to_pass_failure', 'passed', '', 'timeout', 'prohibited_test_modification', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7') },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(47), 'y'.repeat(48), 'z'.repeat(49), 'a b  c', ' padded ') },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 60 }).map((n) => `many_${n}`) },
  );
  const sample = fc
    .tuple(num, num, fc.boolean(), reason, fc.constantFrom('', 'x ', '\u001b[36m(RolloutManager pid=1, ip=2)\u001b[0m ', '\u001b[31'))
    .map(([rw, raw, integrity, why, prefix]) => `${prefix}SWE-Gym reward=${rw} raw=${raw} integrity=${integrity ? 'True' : 'False'} instance=a__b-1 f2p=1/2 p2p=3/3 reason=${why}`);
  const other = fc.constantFrom(
    'GET /health 200 OK',
    "rollout 3: {'rollout/raw_reward_trajectory_mean': 0.5}",
    'harvesting blackbox rollout after agent early stop: session_id=s-1 kind=max_steps_exceeded',
    'fresh SWE-Gym evaluation failed for instance=a__b-1: boom',
    `SWE-Gym reward=1 raw=1 integrity=False instance=a f2p=1 p2p=1 reason=x [repeated 2x across cluster]`,
  );
  return fc.oneof({ weight: 8, arbitrary: sample }, { weight: 1, arbitrary: other });
}

test('fast-check: run records count the per-sample lines they stand for, in order; every other line keeps its own record', () => {
  let runs = 0;
  let longest = 0;
  fc.assert(
    fc.property(fc.array(runCaseLine(), { minLength: 1, maxLength: 80 }), fc.constantFrom(0, 2, 8, 40), (lines, known) => {
      const scan = wasmScan();
      // Some reasons in the table before the search (as a scanner puts them there after a line's own record).
      ['fail_to_pass_failure', 'passed', '', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'x'.repeat(47), 'y'.repeat(48), 'z'.repeat(49), ...Array.from({ length: 40 }, (_, n) => `many_${n}`)]
        .slice(0, known)
        .forEach((reason) => {
          const b = Buffer.from(reason);
          scan.addReason(b, 0, b.length);
        });
      const buf = Buffer.from(lines.join('\n'));
      const each: number[][] = [];
      scan.lines(buf, 0, buf.length, true, (r, count) => {
        for (let k = 0; k < count; k++) each.push(Array.from(r.subarray(k * RECORD, (k + 1) * RECORD)));
      });
      const got: number[][] = [];
      scan.lines(buf, 0, buf.length, true, (r, count) => {
        for (let k = 0; k < count; k++) got.push(Array.from(r.subarray(k * RECORD, (k + 1) * RECORD)));
      }, 1 << 20);
      let i = 0;
      for (const rec of got) {
        if (rec[R_SAMPLE] !== R_RUN) {
          assert.deepStrictEqual(meaningful(rec), meaningful(each[i] as number[]), `own record of ${JSON.stringify(buf.toString('latin1', rec[R_START], rec[R_END]))}`);
          i++;
          continue;
        }
        runs++;
        const lines = rec[R_RUN_LINES] as number;
        longest = Math.max(longest, lines);
        const taken = each.slice(i, i + lines);
        i += lines;
        assert.equal(taken.length, lines);
        assert.deepStrictEqual([rec[R_START], rec[R_END]], [taken[0]?.[R_START], taken[lines - 1]?.[R_END]]);
        const reasons = new Map<string, number>();
        let [rewardOne, rawOne, integrity] = [0, 0, 0];
        for (const t of taken) {
          assert.equal(t[R_SAMPLE], 1, 'a run takes per-sample lines only');
          if (isOne(buf, t[R_REWARD_START] as number, t[R_REWARD_END] as number)) rewardOne++;
          if (isOne(buf, t[R_RAW_START] as number, t[R_RAW_END] as number)) rawOne++;
          integrity += t[R_INTEGRITY] as number;
          const reason = buf.toString('latin1', t[R_REASON_START], t[R_REASON_END]);
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        }
        assert.deepStrictEqual([rec[R_RUN_REWARD_ONE], rec[R_RUN_RAW_ONE], rec[R_RUN_INTEGRITY]], [rewardOne, rawOne, integrity]);
        const pairs: [string, number][] = [];
        for (let p = 0; p < (rec[R_RUN_REASONS] as number); p++) pairs.push([scan.reasonText(rec[R_RUN_PAIRS + 2 * p] as number), rec[R_RUN_PAIRS + 2 * p + 1] as number]);
        // In order of first appearance, as the scanner's own run keeps them.
        assert.deepStrictEqual(pairs, [...reasons]);
      }
      assert.equal(i, each.length, 'every line of the per-line reading is accounted for');
    }),
    { numRuns: 400 },
  );
  assert.ok(runs > 300 && longest >= 6, `runs were drawn (${runs}, the longest ${longest} lines)`);
});

test('fast-check: the --json scan of segments gives the results of the JavaScript search line by line, runs or not', () => {
  fc.assert(
    fc.property(fc.array(runCaseLine(), { minLength: 1, maxLength: 120 }), fc.integer({ min: 1, max: 4 }), (lines, cuts) => {
      const buf = Buffer.from(lines.join('\n') + '\n');
      // One scanner of each search over the same segments, cut at line starts.
      const wasm = new SegmentScanner(true, 'wasm');
      const js = new SegmentScanner(true, 'js');
      const starts = [0, ...[...buf.keys()].filter((i) => buf[i - 1] === 10 && i < buf.length)];
      const at = [...new Set([0, ...Array.from({ length: cuts }, (_, k) => starts[Math.floor((k * starts.length) / cuts)] as number)])].sort((a, b) => a - b);
      at.forEach((from, k) => {
        const stop = k + 1 < at.length ? (at[k + 1] as number) - 1 : buf.length - 1;
        assert.deepStrictEqual(wasm.scan(k, buf, from, stop), js.scan(k, buf, from, stop), `segment ${k}`);
      });
    }),
    { numRuns: 300 },
  );
});
