// The byte reading of per-sample lines against parseLine: wherever readSampleBytes accepts a line, parseLine must
// give a sample with the same counted fields; the lines a run log usually has must be accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLine } from '../../src/services/monitor/lines.js';
import { emptySampleBytes, readSampleBytes } from '../../src/services/monitor/sampleBytes.js';
import { RM, pyLog, sampleLine } from './builders.js';

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
  const ansi = (s: string) => `\u001b[36m${s.slice(0, RM.length - 1)}\u001b[0m ${s.slice(RM.length)}`;
  const usual = [
    sampleLine({ reward: 1 }),
    sampleLine({ reward: 0, raw: 1, integrity: true, instance: 'pandas-dev__pandas-5', reason: 'swegym_integrity_violation' }),
    sampleLine({ reward: 0, instance: '', reason: 'fail_to_pass_failure' }),
    ansi(sampleLine({ reward: 1, instance: 'getmoto__moto-7' })),
    sampleLine({ reward: 1 }) + '\r',
    sampleLine({ reward: 0, reason: '  timeout (300 s)  ' }),
    pyLog('r.py', 1, 'SWE-Gym reward=1 raw=1 integrity=True instance=x f2p=None p2p=None reason=x'),
  ];
  for (const l of usual) assert.ok(check(l), `read on the bytes: ${JSON.stringify(l)}`);
});

test('lines the bytes cannot settle are left to parseLine (never read differently)', () => {
  const base = 'SWE-Gym reward=1.0 raw=1.0 integrity=False instance=a__b-1 f2p=1/1 p2p=2/2 reason=';
  const hard = [
    `${base} [repeated 3x across cluster]`,
    `(raylet) ${base}x [repeated 2x across cluster] (Ray deduplicates logs by default.)`,
    `\u001b]0;title\u0007${base}`,
    `SWE-\u001b[0mGym reward=0.0 raw=0.0 integrity=False instance=z f2p=1/1 p2p=1/1 reason= ${base}`,
    `\u001b[31${base}`,
    // A colour code right after another one: each is checked (this CSI would end on the marker's first byte).
    `\u001b[0m\u001b[31${base}`,
    base.replace('instance=a__b-1', 'instance=ä__b-1'),
    base.replace('reason=', 'reason=\u00a0x'),
    base.replace('reason=', 'reason=a\tb'),
    base.replace(' raw=', '\traw='),
    `${base}\u001b[0m`,
    `${base}\r\r`,
    base.replace('reward=1.0', 'reward=').replace('raw=1.0', 'raw=1'),
  ];
  for (const l of hard) {
    const buf = Buffer.from(l);
    assert.equal(readSampleBytes(buf, 0, buf.length, emptySampleBytes()), false, JSON.stringify(l));
  }
});

test('fuzz: random per-sample look-alikes never read differently from parseLine', () => {
  let seed = 99;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const prefixes = ['', RM, `\u001b[36m(RolloutManager pid=1, ip=2)\u001b[0m `, '[2026-08-01 12:00:00] r.py:1 - ', '2026-08-01 12:00:00,1 INFO x ', '\u001b[1;32m', '(pid=3) (raylet) ', 'SWE-Gym ', 'reward=1 ', '\u001b', '\u001b[', 'é '];
  const nums = ['1', '1.0', '0.0', '0', '1.00', '+1', '1e0', '0x1', 'nan', 'inf', '-1.0', 'True', '', '1 ', ' 1'];
  const words = ['', 'x', 'a__b-1', 'ü', '1/2', 'None', ' ', '\t', '[repeated 2x across cluster]', '\u001b[0m', 'raw=1', '\r'];
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const f = () => (rnd() < 0.8 ? pick(words.slice(0, 6)) : pick(words));
    let line = `${pick(prefixes)}SWE-Gym reward=${pick(nums)} raw=${pick(nums)} integrity=${pick(['True', 'False', 'true', 'Tru'])} instance=${f()} f2p=${f()} p2p=${f()} reason=${f()}${rnd() < 0.3 ? f() : ''}`;
    if (rnd() < 0.1) line = line.replace(pick([' raw=', ' instance=', ' reason=']), pick([' ', '  raw=', '']));
    if (rnd() < 0.1) line += pick(['\r', ' ', '\r\r', ' [repeated 4x across cluster]']);
    if (check(line)) accepted++;
  }
  assert.ok(accepted > 2000, `a good share is read on the bytes (${accepted})`);
});
