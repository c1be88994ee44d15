// The throttle Ink draws frames through in the built console (src/vendor/renderThrottle.ts): a burst of updates is
// drawn at most one period after the last frame, with the last update, never a period after the burst ended.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { throttle, START_SPELL, type StartSpell } from '../../src/vendor/renderThrottle.js';

mock.timers.enable({ apis: ['setTimeout', 'Date'] });
const clock = { now: () => Date.now() };
/** No start-up spell: the full period from the first run on. */
const NO_SPELL: StartSpell = { spellMs: 0, waitMs: 0 };
/** Moves the mocked clock 1 ms at a time: node's tick() moves Date to the end first, then runs what fell due. */
function advance(ms: number): void {
  for (let i = 0; i < ms; i++) mock.timers.tick(1);
}

test('the first call of a quiet spell runs at once; calls inside the period fold into one trailing run with the latest arguments', () => {
  mock.timers.setTime(1_000);
  const runs: [number, string][] = [];
  const t = throttle((s: string) => runs.push([Date.now(), s]), 67, { leading: true, trailing: true }, clock, NO_SPELL);
  t('a');
  assert.deepEqual(runs, [[1_000, 'a']]);
  for (const [at, s] of [[10, 'b'], [30, 'c'], [60, 'd']] as const) {
    advance(at - (Date.now() - 1_000));
    t(s);
  }
  assert.equal(runs.length, 1, 'nothing more inside the period');
  advance(7); // 1_067: one period after the first run
  assert.deepEqual(runs, [[1_000, 'a'], [1_067, 'd']]);
  advance(500);
  assert.equal(runs.length, 2, 'no run without a call');
  t('e');
  assert.deepEqual(runs.at(-1), [1_567, 'e'], 'after a quiet spell, at once again');
});

test('a steady stream of updates is drawn once a period, and the burst\'s last update one period after the frame before it at the latest', () => {
  mock.timers.setTime(0);
  const runs: number[] = [];
  const t = throttle(() => runs.push(Date.now()), 67, undefined, clock, NO_SPELL);
  // An update every 10 ms for 300 ms (the doctor's answers, a log being read), then nothing.
  for (let at = 0; at <= 300; at += 10) {
    t();
    advance(10);
  }
  advance(1_000);
  for (let i = 1; i < runs.length; i++) assert.ok(runs[i]! - runs[i - 1]! >= 67, `runs ${runs.join(',')}`);
  // The last call came at 300; it is drawn by the end of the period that was running then, not at 300 + 67.
  assert.ok(runs.at(-1)! <= runs.at(-2)! + 67 + 10 && runs.at(-1)! < 367, `runs ${runs.join(',')}`);
});

test('flush runs a pending call now (Ink before it writes its last frame); cancel drops it; with no wait every call runs', () => {
  mock.timers.setTime(0);
  const runs: string[] = [];
  const t = throttle((s: string) => runs.push(s), 67, undefined, clock, NO_SPELL);
  t('a');
  t('b');
  t.flush();
  assert.deepEqual(runs, ['a', 'b']);
  t.flush();
  assert.deepEqual(runs, ['a', 'b'], 'nothing pending: nothing run');
  advance(10);
  t('c');
  t.cancel();
  advance(200);
  assert.deepEqual(runs, ['a', 'b']);
  const every = throttle((s: string) => runs.push(s), undefined, undefined, clock);
  every('x');
  every('y');
  assert.deepEqual(runs.slice(-2), ['x', 'y']);
});

type ThrottleFn = (func: (call: number) => unknown, wait: number) => (call: number) => void;

/** Whether `make` keeps the contract on one sequence of calls (gaps between them, ms) with period `wait`. */
function keepsContract(make: ThrottleFn, gaps: number[], wait: number): boolean {
  mock.timers.setTime(0);
  let made = 0;
  const runs: { at: number; call: number; made: number }[] = [];
  const t = make((call: number) => runs.push({ at: Date.now(), call, made }), wait);
  gaps.forEach((gap, i) => {
    advance(gap);
    made++;
    t(i);
  });
  const lastCallAt = Date.now();
  advance(wait + 1);
  for (let i = 1; i < runs.length; i++) if (runs[i]!.at - runs[i - 1]!.at < wait) return false;
  if (runs.some((r) => r.call !== r.made - 1)) return false;
  const last = runs.at(-1)!;
  const before = runs.at(-2)?.at ?? -Infinity;
  // The last call is run at once, or when the period of the run before it ends: not a period after the call.
  return last.call === gaps.length - 1 && last.at <= Math.max(lastCallAt, before + wait);
}

const ours: ThrottleFn = (func, wait) => throttle(func, wait, undefined, clock, NO_SPELL);
const gapsArb = fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 1, maxLength: 40 });

test('any sequence of calls: runs are a period apart, each runs the latest call made before it, the last one by the end of the period it came in', () => {
  fc.assert(fc.property(gapsArb, fc.integer({ min: 1, max: 100 }), (gaps, wait) => keepsContract(ours, gaps, wait)), { numRuns: 300 });
});

test("es-toolkit/compat's throttle, which Ink imports, breaks that contract (why the build replaces it)", async () => {
  const { throttle: esToolkit } = (await import('es-toolkit/compat')) as { throttle: ThrottleFn };
  // Three calls 10 ms apart with a 67 ms period: es-toolkit runs the last at 20 + 67, ours at 0 + 67.
  assert.equal(keepsContract(ours, [0, 10, 10], 67), true);
  assert.equal(keepsContract(esToolkit, [0, 10, 10], 67), false);
});

test("the start-up spell: a second after the first frame, the period is 16 ms (the doctor's answers are drawn as they come), then the full one", () => {
  mock.timers.setTime(0);
  const runs: [number, string][] = [];
  const t = throttle((s: string) => runs.push([Date.now(), s]), 67, undefined, clock);
  t('first frame');
  advance(20);
  t('hostname');
  assert.deepEqual(runs.at(-1), [20, 'hostname'], '16 ms after the first frame: at once, not at 67');
  advance(5);
  t('python');
  advance(3);
  t('uv');
  advance(7);
  assert.equal(runs.length, 2, 'inside the short period: folded');
  advance(1);
  assert.deepEqual(runs.at(-1), [36, 'uv'], 'one short period after the run before');
  advance(1_000);
  t('a live update');
  advance(10);
  t('another');
  advance(56);
  assert.equal(runs.length, 4, 'after the spell the full period holds');
  advance(1);
  assert.deepEqual(runs.at(-1), [1_103, 'another'], '67 ms after the live update');
  assert.deepEqual(START_SPELL, { spellMs: 1000, waitMs: 16 });
});

test('any sequence of calls with the spell: runs 16 ms apart inside it and a full period apart after it, each the latest call, the last one on time', () => {
  const spell: StartSpell = { spellMs: 300, waitMs: 16 };
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 17, max: 100 }), (gaps, wait) => {
      mock.timers.setTime(0);
      let made = 0;
      const runs: { at: number; call: number; made: number }[] = [];
      const t = throttle((call: number) => runs.push({ at: Date.now(), call, made }), wait, undefined, clock, spell);
      gaps.forEach((gap, i) => {
        advance(gap);
        made++;
        t(i);
      });
      const lastCallAt = Date.now();
      advance(wait + 1);
      const first = runs[0]!.at;
      for (let i = 1; i < runs.length; i++) if (runs[i]!.at - runs[i - 1]!.at < spell.waitMs) return false;
      // After the spell, runs whose call came after it are a full period apart.
      for (let i = 1; i < runs.length; i++) if (runs[i - 1]!.at - first >= spell.spellMs && runs[i]!.at - runs[i - 1]!.at < wait) return false;
      if (runs.some((r) => r.call !== r.made - 1)) return false;
      const last = runs.at(-1)!;
      const before = runs.at(-2)?.at ?? -Infinity;
      return last.call === gaps.length - 1 && last.at <= Math.max(lastCallAt, before + wait);
    }),
    { numRuns: 300 },
  );
});
