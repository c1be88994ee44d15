// A sample's reward from its metadata (what the trajectory browser shows): the tested marker parser per harness record,
// the integrity flags, and Dressage's stored verdict when present. tests/monitor/offlineReward.upstream.test.ts holds it
// against reward.py itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MARKER_PREFIX as P } from '../../src/services/marker/marker.js';
import { sampleReward } from '../../src/services/marker/sampleReward.js';

const md = (result: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ execute_cmds: [{ stage: 'after_agent', name: 'swegym_harness', cmd_result: result }], ...extra });

test('line breaks of str.splitlines, output only in raw, NaN, a leading space, an array marker', () => {
  assert.equal(sampleReward(md({ stdout: `x\r${P}{"resolved": true}\rtail` })).reward, 1);
  assert.equal(sampleReward(md({ stdout: `${P}{"resolved": true}\f more` })).reward, 1);
  assert.equal(sampleReward(md({ raw: `${P}{"resolved": true}` })).reward, 1);
  assert.equal(sampleReward(md({ stdout: `${P}{"resolved": true, "x": NaN}` })).reward, 1);
  assert.deepEqual(sampleReward(md({ stdout: ` ${P}{"resolved": true}` })), { reward: 0, source: 'marker', markerError: 'missing_reward_marker' });
  assert.equal(sampleReward(md({ stdout: `${P}[1]\n${P}{"resolved": true}` })).reward, 1);
  assert.equal(sampleReward(md({ stdout: `${P}{bad\n${P}{"resolved": true}` })).markerError, 'invalid_reward_marker');
});

test('the integrity flags zero it (Python truthiness); a later record decides when the first has no marker', () => {
  assert.equal(sampleReward(md({ stdout: `${P}{"resolved": true}` }, { swegym_invalid_pytest_write: [1] })).reward, 0);
  assert.equal(sampleReward(md({ stdout: `${P}{"resolved": true}` }, { swegym_invalid_tool_call: '' })).reward, 1);
  const two = { execute_cmds: [{ stage: 'after_agent', name: 'swegym_harness', cmd_result: { stdout: 'none' } }, { stage: 'after_agent', name: 'swegym_harness', cmd_result: { stdout: `${P}{"resolved": true}` } }] };
  assert.equal(sampleReward(two).reward, 1);
});

test("Dressage's stored verdict wins over a recomputation", () => {
  const r = sampleReward(md({ stdout: `${P}{"resolved": true}` }, { swegym_reward: { resolved: true, raw_reward: 1, reward: 0, integrity_violation: true } }));
  assert.deepEqual([r.reward, r.source], [0, 'stored']);
  assert.equal(sampleReward({ swegym_reward: { parse_failure: true, failure_reason: 'missing_reward_marker', reward: 0 } }).markerError, 'missing_reward_marker');
});
