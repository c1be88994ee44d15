import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CappedMap } from '../../src/services/monitor/ring.js';

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
