// Marker texts counted only inside their shapes (markerShapes.ts, wasm/markerScan.ts): every line classifyMessage
// accepts is still found, by both searches alike, and the look-alikes real logs carry (and the simulator writes) are
// not found at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from '../helpers/property.js';
import { LINE_MARKERS, parseLine } from '../../src/services/monitor/lines.js';
import { compileMarkers, findMarkedLines } from '../../src/services/monitor/markers.js';
import { MarkerScan, RECORD, R_START, R_END, R_SUMMARY } from '../../src/services/monitor/markerScan.js';
import { MARKER_SHAPES, summaryShapeHolds } from '../../src/services/monitor/markerShapes.js';
import { ingestOnceFile } from '../../src/services/monitor/parallel.js';
import { NOT_IN_DOCUMENT, droppableInDocument } from '../../src/services/monitor/segmentScan.js';
import { RunModel as MonitorModel } from '../../src/services/monitor/runModel.js';
import { lookAlikeMessage } from '../../src/services/simulator/lookAlikes.js';
import { Rng } from '../../src/services/simulator/rng.js';
import { generateOffline } from '../../src/services/simulator/writer.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { RM, TRAIN, metricLine, pyLog, stepMetrics } from './builders.js';

const groups = compileMarkers(LINE_MARKERS);
const scan = MarkerScan.create(LINE_MARKERS);

function reference(buf: Buffer): number[] {
  const out: number[] = [];
  findMarkedLines(buf, 0, buf.length, groups, out);
  return out;
}

function wasm(buf: Buffer): number[] {
  assert.ok(scan, 'Node 22+ runs WebAssembly SIMD');
  const out: number[] = [];
  scan.find(buf, 0, buf.length, out);
  return out;
}

/** Line starts of `lines` joined by newlines. */
function starts(lines: string[]): number[] {
  const out: number[] = [];
  let at = 0;
  for (const l of lines) {
    out.push(at);
    at += Buffer.byteLength(l) + 1;
  }
  return out;
}

test('the shaped marker texts are marker texts', () => {
  for (const text of Object.keys(MARKER_SHAPES)) assert.ok(LINE_MARKERS.some(([t]) => t === text), text);
});

test("the simulator's look-alikes hold marker texts, classify as nothing and are found by neither search", () => {
  const rng = new Rng(29);
  const lines: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const msg = lookAlikeMessage(rng, rng.int(3000));
    const prefix = i % 3 === 0 ? `\u001b[36m${RM.trim()}\u001b[0m ` : i % 3 === 1 ? TRAIN : '';
    lines.push(i % 2 === 0 ? prefix + pyLog('train.py', 12, msg) : prefix + msg);
  }
  for (const l of lines) {
    assert.ok(LINE_MARKERS.some(([t]) => l.includes(t)), `a marker text in ${JSON.stringify(l)}`);
    assert.equal(parseLine(l).event, undefined, JSON.stringify(l));
  }
  const buf = Buffer.from(lines.join('\n'));
  assert.deepStrictEqual(reference(buf), []);
  assert.deepStrictEqual(wasm(buf), []);
});

// Lines from parts: prefixes as Ray, Python logging and other loggers write them, around bodies that are real
// metric/memory/fatal/SWE-Gym lines, their look-alikes and mutations of both (a word for the number, the dict cut,
// text after it, colour codes, Unicode spaces). A colour code inside a marker text itself (`:\u001b[0m {`) hides it
// from both searches, as it always has.
const prefix = fc.constantFrom('', RM, TRAIN, '(pid=7)', '\u001b[36m(RolloutManager pid=1, ip=2)\u001b[0m ', '[2026-08-01 12:00:00] train.py:3 - ', '2026-08-01 12:00:00,123 INFO x ', '\u001b[0m', 'x', '>', ' ', '\u00a0', '\u3000', '\t');
const word = fc.constantFrom('step', 'rollout', 'perf', 'eval', 'steps', 'Step', 'skipped', 'train_step', 'args', 'Memory-Usage after offload', '[Rank 1] Memory-Usage', 'ray.exceptions.RayTask', 'ray.exceptions.', 'xray.exceptions.A', 'ValueError', 'Error', 'SWE-Gym', 'fresh SWE-Gym');
const number = fc.constantFrom(' 3', ' 12', ' x', '', '3', ' 3 ', ' 0003', ' \u001b[0m4');
const tail = fc.constantFrom(
  ": {'a': 1}",
  ": {'train/loss': 0.5, 'x': nan}",
  ": {'a': 1",
  ': {',
  ": {'a': {'b': 2}}",
  ": {'a': 1} tail",
  ": {'a': 1}   ",
  ": {'a': 1}\r",
  ": {'a': 1} [repeated 3x across cluster]",
  ": {'a': 1}\u001b[0m",
  ": {'a': 1}\u00a0",
  'Error: boom',
  'Error',
  ' reward=1.0 raw=1.0 integrity=False instance=a__b-1 f2p=1/1 p2p=2/2 reason=',
  ' evaluation failed for instance=a__b-1: boom',
  ' evaluator poll failed; retrying: session_id=s attempt=2 error=x',
  ' dataset loaded',
);
const line = fc.tuple(prefix, word, number, tail, fc.boolean()).map(([p, w, n, t, twice]) => {
  const body = `${w}${n}${t}`;
  return twice ? `${p}${body} ${body}` : `${p}${body}`;
});

test('fast-check: the two searches give the same lines, and every line the classifier accepts is among them', () => {
  let accepted = 0;
  let rejected = 0;
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => {
      const buf = Buffer.from(lines.join('\n'));
      const found = reference(buf);
      assert.deepStrictEqual(wasm(buf), found);
      const at = starts(lines);
      lines.forEach((l, i) => {
        if (parseLine(l).event) {
          accepted++;
          assert.ok(found.includes(at[i] as number), `classified and not found: ${JSON.stringify(l)}`);
        } else if (LINE_MARKERS.some(([t]) => l.includes(t)) && !found.includes(at[i] as number)) rejected++;
      });
    }),
    { numRuns: 400, seed: 2029 },
  );
  assert.ok(accepted > 100 && rejected > 100, `both kinds were tried (accepted ${accepted}, look-alikes rejected ${rejected})`);
});

test('a metric line with its dict cut, or a word for its number, is not found; the whole line is', () => {
  const whole = metricLine('step', 7, stepMetrics(7));
  const cut = whole.slice(0, whole.length - 9);
  const worded = whole.replace('step 7: {', 'step seven: {');
  const buf = Buffer.from([cut, worded, whole].join('\n'));
  const want = [starts([cut, worded, whole])[2] as number];
  assert.deepStrictEqual(reference(buf), want);
  assert.deepStrictEqual(wasm(buf), want);
});

test('a simulated run with look-alikes: the --json document of classifying every line, and the counts the simulator wrote', async () => {
  const dir = await tempDir();
  try {
    const manifest = await generateOffline({ dir, config: { numRollouts: 4, noiseLinesPerSecond: 1, lookAlikeLinesPerSecond: 1, seed: 29 } });
    const file = path.join(dir, 'run.log');
    const text = await readFile(file, 'utf8');
    const want = new MonitorModel({ name: 'x' });
    for (const l of text.split('\n')) if (l) want.ingestLine(l);
    const r = await ingestOnceFile(file, { name: 'x', workers: 2, minBytes: 0, segmentBytes: 65_521, documentOnly: true });
    assert.deepStrictEqual(JSON.stringify(r.model.toJson()), JSON.stringify(want.toJson()));
    const doc = r.model.toJson() as { samples: { total: number } };
    assert.equal(doc.samples.total, manifest.counts.sampleLines);
    assert.ok(text.includes('step skipped: {') || text.includes('args: {'), 'look-alikes were written');
  } finally {
    await removeDir(dir);
  }
});

/** Does some `: {` of `line` have SUMMARY's shape on its own (not only `Memory-Usage` before it)? */
function summaryShapeIn(line: string): boolean {
  const buf = Buffer.from(line);
  for (let at = buf.indexOf(': {'); at >= 0; at = buf.indexOf(': {', at + 1)) if (summaryShapeHolds(buf, at, 0, buf.length)) return true;
  return false;
}

test("fast-check: a record says whether a `: {` had SUMMARY's shape, as markerShapes.ts reads it; where none had, the line is no summary, and a line --once drops gives no kept event", () => {
  assert.ok(scan, 'Node 22+ runs WebAssembly SIMD');
  let summaries = 0;
  let memoryOnly = 0;
  let dropped = 0;
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => {
      const buf = Buffer.from(lines.join('\n'));
      scan.lines(buf, 0, buf.length, true, (r, count) => {
        for (let k = 0; k < count * RECORD; k += RECORD) {
          const text = buf.toString('utf8', r[k + R_START], r[k + R_END]);
          assert.equal(r[k + R_SUMMARY], summaryShapeIn(text) ? 1 : 0, JSON.stringify(text));
          const ev = parseLine(text).event;
          if (droppableInDocument(buf, r[k + R_START] as number, r[k + R_END] as number, r, k)) {
            dropped++;
            assert.ok(ev === undefined || NOT_IN_DOCUMENT.has(ev.kind), `dropped, but ${JSON.stringify(text)} gives ${ev?.kind}`);
          }
          if (r[k + R_SUMMARY] === 1) {
            if (ev?.kind === 'summary') summaries++;
            continue;
          }
          if (text.includes('Memory-Usage') && text.includes(': {')) memoryOnly++;
          assert.notEqual(ev?.kind, 'summary', `a summary without its shape: ${JSON.stringify(text)}`);
        }
      });
    }),
    { numRuns: 1000, seed: 2030 },
  );
  assert.ok(summaries > 100 && memoryOnly > 100 && dropped > 100, `both kinds were drawn (summaries ${summaries}, \`: {\` after Memory-Usage only ${memoryOnly}, dropped ${dropped})`);
});
