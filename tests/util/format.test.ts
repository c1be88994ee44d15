// One formatter per concept (issue 26): sizes in binary units, one ETA as coarse as an age, one age in words.
import test from 'node:test';
import assert from 'node:assert/strict';
import { formatAgeWords, formatBytes, formatEta, formatRate, mebibytes } from '../../src/services/util/format.js';

test('sizes are binary: B, KiB, MiB, GiB', () => {
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1024), '1.0 KiB');
  assert.equal(formatBytes(3.2 * 1024 ** 2), '3.2 MiB');
  assert.equal(formatBytes(145 * 1024 ** 3), '145 GiB');
  assert.equal(formatRate(1536), '1.5 KiB/s');
  assert.equal(mebibytes(52 * 1048576), '52');
  assert.equal(formatBytes(-1), '?');
});

test('one ETA for every progress line and the loading view: coarse, – when unknown', () => {
  assert.equal(formatEta(undefined), '–');
  assert.equal(formatEta(Number.POSITIVE_INFINITY), '–');
  assert.equal(formatEta(12_000), '12s');
  assert.equal(formatEta(75_000), '1m');
  assert.equal(formatEta(3_720_000), '1h02m');
});

test('an age in words, for sentences', () => {
  assert.equal(formatAgeWords(8_000), '8 s');
  assert.equal(formatAgeWords(4 * 60_000), '4 min');
  assert.equal(formatAgeWords(3 * 3_600_000), '3 h');
  assert.equal(formatAgeWords(3 * 86_400_000), '3 d');
});
