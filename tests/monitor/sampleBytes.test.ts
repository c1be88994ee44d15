// The byte reading of per-sample lines against parseLine: wherever readSampleBytes accepts a line, parseLine must
// give a sample with the same counted fields; the lines a run log usually has must be accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLine } from '../../src/services/monitor/lines.js';
import { emptySampleBytes, readSampleBytes } from '../../src/services/monitor/sampleBytes.js';
import { fuzzSampleLines, hardSampleLines, usualSampleLines } from './sampleLineCases.js';

function check(line: string): boolean {
  const buf = Buffer.from(line);
  const out = emptySampleBytes();
  const fast = readSampleBytes(buf, 0, buf.length, out);
  if (!fast) return false;
  const p = parseLine(line);
  const ev = p.event;
  assert.ok(ev && ev.kind === 'sample', `accepted on the bytes but parseLine disagrees: ${JSON.stringify(line)}`);
  assert.equal(p.repeat, 1, JSON.stringify(line));
  assert.equal(out.rewardOne, ev.reward === 1, `reward of ${JSON.stringify(line)}`);
  assert.equal(out.rawOne, ev.raw === 1, `raw of ${JSON.stringify(line)}`);
  assert.equal(out.integrity, ev.integrity, `integrity of ${JSON.stringify(line)}`);
  assert.equal(buf.toString('latin1', out.instanceStart, out.instanceEnd), ev.instance, `instance of ${JSON.stringify(line)}`);
  assert.equal(buf.toString('latin1', out.reasonStart, out.reasonEnd), ev.reason, `reason of ${JSON.stringify(line)}`);
  return true;
}

test('the usual per-sample lines are read on the bytes, with the fields parseLine gives', () => {
  for (const l of usualSampleLines()) assert.ok(check(l), `read on the bytes: ${JSON.stringify(l)}`);
});

test('lines the bytes cannot settle are left to parseLine (never read differently)', () => {
  for (const l of hardSampleLines()) {
    const buf = Buffer.from(l);
    assert.equal(readSampleBytes(buf, 0, buf.length, emptySampleBytes()), false, JSON.stringify(l));
  }
});

test('fuzz: random per-sample look-alikes never read differently from parseLine', () => {
  let accepted = 0;
  for (const line of fuzzSampleLines(20_000, 99)) if (check(line)) accepted++;
  assert.ok(accepted > 2000, `a good share is read on the bytes (${accepted})`);
});
