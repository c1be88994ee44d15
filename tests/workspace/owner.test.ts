// Who owns a lock or a sandbox session (owner.ts): the rules, generated. A record from another host, or one without
// a start time for a live pid, lives exactly while its heartbeat is younger than the stale bound; a record of this
// host from another boot never lives; the timing from the environment always keeps the bound above three beats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { currentOwner, heartbeatTimingFromEnv, judgeOwner, DEFAULT_HEARTBEAT, type OwnerStamp } from '../../src/services/workspace/owner.js';

const self: OwnerStamp = { pid: process.pid, pidStart: '100', host: 'head-node', bootId: 'boot-a' };
const now = 1_800_000_000_000;

test('another host: alive exactly while the heartbeat is fresh, and the verdict names the host', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 20 }).filter((h) => h !== self.host), fc.integer({ min: 1, max: 4_000_000 }), fc.nat(3_600_000), fc.integer({ min: 1, max: 3_600_000 }), (host, pid, ageMs, staleMs) => {
      const v = judgeOwner({ pid, pidStart: '1', host, bootId: 'boot-b' }, { self, now, heartbeatAt: now - ageMs, staleMs });
      assert.equal(v.alive, ageMs < staleMs);
      assert.equal(v.remoteHost, host);
    }),
  );
  assert.equal(judgeOwner({ pid: 1, host: 'elsewhere' }, { self, now }).alive, false, 'no heartbeat at all: not live');
});

test('this host, another boot: never alive, whatever the pid and heartbeat', () => {
  fc.assert(
    fc.property(fc.constantFrom(1, process.pid), fc.nat(3_600_000), (pid, ageMs) => {
      assert.equal(judgeOwner({ pid, pidStart: '100', host: self.host, bootId: 'boot-old' }, { self, now, heartbeatAt: now - ageMs }).alive, false);
    }),
  );
});

test('no start time, live pid (pid 1): alive exactly while the heartbeat is fresh', () => {
  fc.assert(
    fc.property(fc.nat(3_600_000), fc.integer({ min: 1, max: 3_600_000 }), (ageMs, staleMs) => {
      assert.equal(judgeOwner({ pid: 1, host: self.host, bootId: self.bootId }, { self, now, heartbeatAt: now - ageMs, staleMs }).alive, ageMs < staleMs);
    }),
  );
});

test('this host and boot: a dead pid is dead, a live one with its start time is alive regardless of the heartbeat', { skip: currentOwner().pidStart ? false : 'no /proc' }, () => {
  const me = currentOwner();
  assert.equal(judgeOwner(me, { self: me, heartbeatAt: 0 }).alive, true, 'this very process, with a heartbeat from 1970');
  assert.equal(judgeOwner({ ...me, pidStart: String(Number(me.pidStart) + 1) }, { self: me }).alive, false, 'the pid now names another process');
  assert.equal(judgeOwner({ ...me, pid: 2 ** 22 + 12345 }, { self: me }).alive, false, 'an exited pid');
});

test('heartbeat timing from the environment: defaults, knobs, and never a bound under three beats', () => {
  assert.deepEqual(heartbeatTimingFromEnv({}), DEFAULT_HEARTBEAT);
  assert.deepEqual(heartbeatTimingFromEnv({ SWEGYM_HEARTBEAT_MS: '200', SWEGYM_HEARTBEAT_STALE_MS: '1000' }), { everyMs: 200, staleMs: 1000 });
  fc.assert(
    fc.property(fc.option(fc.string(), { nil: undefined }), fc.option(fc.string(), { nil: undefined }), (every, stale) => {
      const t = heartbeatTimingFromEnv({ SWEGYM_HEARTBEAT_MS: every, SWEGYM_HEARTBEAT_STALE_MS: stale });
      assert.ok(t.everyMs > 0 && Number.isFinite(t.everyMs));
      assert.ok(t.staleMs >= 3 * t.everyMs);
    }),
  );
});
