// Per-sample lines and look-alikes, shared by the byte readers' tests (sampleBytes.test.ts: readSampleBytes against
// parseLine; markerScan.test.ts: the WebAssembly reader against readSampleBytes).
import { RM, pyLog, sampleLine } from './builders.js';

/** Lines a run log usually has: each must be read on the bytes. */
export function usualSampleLines(): string[] {
  const ansi = (s: string) => `\u001b[36m${s.slice(0, RM.length - 1)}\u001b[0m ${s.slice(RM.length)}`;
  return [
    sampleLine({ reward: 1 }),
    sampleLine({ reward: 0, raw: 1, integrity: true, instance: 'pandas-dev__pandas-5', reason: 'swegym_integrity_violation' }),
    sampleLine({ reward: 0, instance: '', reason: 'fail_to_pass_failure' }),
    ansi(sampleLine({ reward: 1, instance: 'getmoto__moto-7' })),
    sampleLine({ reward: 1 }) + '\r',
    sampleLine({ reward: 0, reason: '  timeout (300 s)  ' }),
    pyLog('r.py', 1, 'SWE-Gym reward=1 raw=1 integrity=True instance=x f2p=None p2p=None reason=x'),
  ];
}

/** Lines the bytes cannot settle: each must be left to parseLine. */
export function hardSampleLines(): string[] {
  const base = 'SWE-Gym reward=1.0 raw=1.0 integrity=False instance=a__b-1 f2p=1/1 p2p=2/2 reason=';
  return [
    `${base} [repeated 3x across cluster]`,
    `(raylet) ${base}x [repeated 2x across cluster] (Ray deduplicates logs by default.)`,
    `\u001b]0;title\u0007${base}`,
    `SWE-\u001b[0mGym reward=0.0 raw=0.0 integrity=False instance=z f2p=1/1 p2p=1/1 reason= ${base}`,
    // The same with the colour code right after the line's first byte.
    `S\u001b[0mWE-Gym reward=0.0 raw=0.0 integrity=False instance=z f2p=1/1 p2p=1/1 reason= ${base}`,
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
}

/** `count` random per-sample look-alikes (seeded). */
export function fuzzSampleLines(count: number, seed: number): string[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const prefixes = ['', RM, `\u001b[36m(RolloutManager pid=1, ip=2)\u001b[0m `, '[2026-08-01 12:00:00] r.py:1 - ', '2026-08-01 12:00:00,1 INFO x ', '\u001b[1;32m', '(pid=3) (raylet) ', 'SWE-Gym ', 'reward=1 ', '\u001b', '\u001b[', 'é '];
  const nums = ['1', '1.0', '0.0', '0', '1.00', '+1', '1e0', '0x1', 'nan', 'inf', '-1.0', 'True', '', '1 ', ' 1'];
  const words = ['', 'x', 'a__b-1', 'ü', '1/2', 'None', ' ', '\t', '[repeated 2x across cluster]', '\u001b[0m', 'raw=1', '\r'];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const f = () => (rnd() < 0.8 ? pick(words.slice(0, 6)) : pick(words));
    let line = `${pick(prefixes)}SWE-Gym reward=${pick(nums)} raw=${pick(nums)} integrity=${pick(['True', 'False', 'true', 'Tru'])} instance=${f()} f2p=${f()} p2p=${f()} reason=${f()}${rnd() < 0.3 ? f() : ''}`;
    if (rnd() < 0.1) line = line.replace(pick([' raw=', ' instance=', ' reason=']), pick([' ', '  raw=', '']));
    if (rnd() < 0.1) line += pick(['\r', ' ', '\r\r', ' [repeated 4x across cluster]']);
    lines.push(line);
  }
  return lines;
}
