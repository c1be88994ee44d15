import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { CappedMap, OutcomeStrip, Ring } from '../../src/services/monitor/ring.js';

test('CappedMap forgets the oldest-inserted live key, across deletes, re-inserts and clear', () => {
  const m = new CappedMap<string, number>(3);
  for (const k of ['a', 'b', 'c']) m.set(k, 1);
  m.set('a', 2); // an update keeps its place and evicts nothing
  assert.deepEqual([...m.keys()], ['a', 'b', 'c']);
  m.set('d', 1);
  assert.deepEqual([...m.keys()], ['b', 'c', 'd']);
  m.delete('c');
  m.set('c', 1); // re-inserted: now the newest
  m.set('e', 1);
  assert.deepEqual([...m.keys()], ['d', 'c', 'e']);
  m.delete('d'); // the key the eviction iterator would take next is gone
  m.set('f', 1);
  m.set('g', 1);
  assert.deepEqual([...m.keys()], ['e', 'f', 'g']);
  m.clear();
  for (const k of ['x', 'y', 'z', 'w']) m.set(k, 1);
  assert.deepEqual([...m.keys()], ['y', 'z', 'w']);
});

test('CappedMap over many evictions (far past V8 rehashes) keeps exactly the newest `capacity` keys', () => {
  const m = new CappedMap<number, number>(1000);
  for (let i = 0; i < 50_000; i++) {
    m.set(i, i);
    if (i % 7 === 0) m.delete(i - 500);
  }
  assert.equal(m.size, 1000);
  const keys = [...m.keys()];
  assert.equal(keys[keys.length - 1], 49_999);
  // Deleted keys never come back; the rest are the newest ones, in order.
  const want: number[] = [];
  for (let i = 49_999; want.length < 1000; i--) if (!((i + 500) % 7 === 0 && i + 500 < 50_000)) want.unshift(i);
  assert.deepEqual(keys, want);
});

test('fast-check: a task\'s outcome strip reads as the newest outcomes kept whole would (·, ▄, █ oldest first)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 9 }), fc.array(fc.tuple(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 0, max: 16 })), { maxLength: 40 }), (capacity, outcomes) => {
      const strip = new OutcomeStrip(capacity);
      const kept = new Ring<[number, number]>(capacity);
      for (const [attempts, solved] of outcomes) {
        const s = Math.min(solved, attempts);
        strip.push(attempts, s);
        kept.push([attempts, s]);
        assert.equal(strip.size, kept.size);
        assert.equal(strip.text(), kept.toArray().map(([n, k]) => (k === 0 ? '·' : k === n ? '█' : '▄')).join(''));
      }
    }),
  );
});
