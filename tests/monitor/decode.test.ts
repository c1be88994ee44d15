// The segment scanner's line decoding cuts colour codes itself; what parseLine reads of it must be what it reads of
// the plain decoding (parseLine removes escapes with stripAnsi first, so the two must agree after stripAnsi).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SegmentScanner } from '../../src/services/monitor/segmentScan.js';
import { stripAnsi } from '../../src/services/monitor/lines.js';

function decoder(): (bytes: Buffer) => string {
  const scanner = new SegmentScanner(true);
  // A private method: the one place the scanner turns bytes into text.
  return (bytes) => scanner['decode'](bytes, 0, bytes.length);
}

test('colour codes are cut out; the text is stripAnsi’s of the plain decoding', () => {
  const decode = decoder();
  const line = Buffer.from("\u001b[36m(RolloutManager pid=7, ip=10.0.0.2)\u001b[0m [2026-11-20 08:13:46] a.py:1 - step 3: {'a': 1}\u001b[1;32m é \u001b[0m");
  const text = decode(line);
  assert.equal(text, "(RolloutManager pid=7, ip=10.0.0.2) [2026-11-20 08:13:46] a.py:1 - step 3: {'a': 1} é ");
  // Next to a non-ASCII character, the line is left to stripAnsi whole.
  assert.equal(decode(Buffer.from('é\u001b[0m x')), 'é\u001b[0m x');
  assert.equal(decode(Buffer.from('no escape here')), 'no escape here');
  // Not a complete CSI sequence: left to stripAnsi as it is.
  assert.equal(decode(Buffer.from('a\u001b]0;title\u0007b')), 'a\u001b]0;title\u0007b');
  assert.equal(decode(Buffer.from('a\u001b[12')), 'a\u001b[12');
});

test('differential: random escapes, non-ASCII and invalid UTF-8 around them decode as stripAnsi of the whole line', () => {
  const decode = decoder();
  let seed = 777;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pieces: Buffer[] = [
    Buffer.from('\u001b[36m'), Buffer.from('\u001b[0m'), Buffer.from('\u001b[1;32;4m'), Buffer.from('\u001b[?25l'), Buffer.from('\u001b[ q'),
    Buffer.from('\u001b['), Buffer.from('\u001b'), Buffer.from('\u001b]8;;x\u0007'), Buffer.from('\u001b\\'), Buffer.from('['), Buffer.from('m'),
    Buffer.from('é'), Buffer.from('\ud83d\ude00'), Buffer.from([0xe2, 0x82]), Buffer.from([0x80]), Buffer.from([0xff]), Buffer.from([0xc3]),
    Buffer.from('(RolloutManager pid=1, ip=2) '), Buffer.from("step 3: {'a': 1}"), Buffer.from(' '), Buffer.from('1'), Buffer.from(';'), Buffer.from('\u007f'),
  ];
  for (let i = 0; i < 20000; i++) {
    const parts: Buffer[] = [];
    const n = 1 + Math.floor(rnd() * 8);
    for (let k = 0; k < n; k++) parts.push(pieces[Math.floor(rnd() * pieces.length)] as Buffer);
    const bytes = Buffer.concat(parts);
    const got = decode(bytes);
    const want = stripAnsi(bytes.toString('utf8'));
    assert.equal(stripAnsi(got), want, JSON.stringify(bytes.toString('latin1')));
  }
});
