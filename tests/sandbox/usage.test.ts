// A sandbox's usage from E2B's metrics, and how a sandbox that left the list ended (timeout vs early).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { sandboxEnding, summarizeUsage, usageLine } from '../../src/services/sandbox/usage.js';

const GiB = 2 ** 30;
const sample = (at: number, memUsed: number, cpu = 50) => ({ at, cpuUsedPct: cpu, cpuCount: 2, memUsed, memTotal: 2 * GiB, memCache: 0, diskUsed: 0, diskTotal: 10 * GiB });

test('summarizeUsage: the newest sample now, the peak over all; near the total it says so', () => {
  assert.equal(summarizeUsage([]), undefined);
  const u = summarizeUsage([sample(3000, 0.5 * GiB, 20), sample(1000, 1.97 * GiB), sample(2000, 1 * GiB)])!;
  assert.equal(u.at, 3000);
  assert.equal(u.memUsed, 0.5 * GiB);
  assert.equal(u.memPeak, 1.97 * GiB);
  assert.ok(u.nearMemLimit);
  assert.equal(usageLine(u), 'cpu 20% of 2 · mem 0.5G/2.0G (peak 99%) · ran out of memory?');
  assert.equal(summarizeUsage([sample(1, GiB)])!.nearMemLimit, false);
});

test('sandboxEnding: gone by a listing after its endAt = timeout; gone while endAt was ahead = early (killed or evicted)', () => {
  assert.equal(sandboxEnding({ endAt: 10_000, seenAt: 9_000, goneAt: 12_000 }).kind, 'timeout');
  const early = sandboxEnding({ endAt: 600_000, seenAt: 9_000, goneAt: 12_000 });
  assert.equal(early.kind, 'early');
  assert.equal(early.detail, 'ended 10 min before its timeout: killed (sample finished, or by hand) or evicted');
  assert.equal(sandboxEnding({ endAt: undefined, seenAt: 0, goneAt: 1 }).kind, 'unknown');
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 1, max: 1e7 }), fc.integer({ min: -1e7, max: 1e7 }), (seenAt, gap, offset) => {
      const goneAt = seenAt + gap;
      const endAt = goneAt + offset;
      const k = sandboxEnding({ endAt, seenAt, goneAt }).kind;
      // Ahead of the listing that missed it: early; at or before it: its time was up.
      assert.equal(k, endAt > goneAt ? 'early' : 'timeout');
    }),
  );
});
