import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import {
  MARKER_PREFIX,
  MarkerScanner,
  parseMarkerLine,
  scanMarker,
  scanMarkerStream,
  findRewardMarker,
  computeReward,
  describeMarker,
} from '../../src/services/marker/marker.js';
import { pySplitLines } from '../../src/services/util/python.js';

const resolvedPayload = {
  resolved: true,
  fail_to_pass_success: 1,
  fail_to_pass_total: 1,
  pass_to_pass_success: 3,
  pass_to_pass_total: 3,
  parsed_tests: 4,
  eval_returncode: 0,
  harness: 'swegym',
  log_parser_repo: 'getmoto/moto',
};
const unresolvedPayload = {
  resolved: false,
  fail_to_pass_success: 0,
  fail_to_pass_total: 1,
  pass_to_pass_success: 3,
  pass_to_pass_total: 3,
  parsed_tests: 4,
  eval_returncode: 1,
  harness: 'swegym',
  log_parser_repo: 'getmoto/moto',
  failure_reason: 'fail_to_pass_failure',
};
const line = (p: unknown) => MARKER_PREFIX + JSON.stringify(p);

test('a harness marker is typed field by field', () => {
  const r = parseMarkerLine(line(resolvedPayload));
  assert.ok(r && r.ok);
  assert.equal(r.marker.source, 'harness');
  if (r.marker.source !== 'harness') return;
  assert.equal(r.marker.resolved, true);
  assert.equal(r.marker.fail_to_pass_total, 1);
  assert.equal(r.marker.pass_to_pass_success, 3);
  assert.equal(r.marker.log_parser_repo, 'getmoto/moto');
  assert.deepEqual(r.schemaIssues, []);
  assert.equal(describeMarker(r), 'resolved F2P 1/1 P2P 3/3');
});

test('an evaluator-synthesized marker is recognised by fresh_sandbox', () => {
  const r = parseMarkerLine(line({ resolved: false, failure_reason: 'failed_apply_patch', harness: 'swegym', fresh_sandbox: true, returncode: 1, stderr_tail: 'error: patch failed' }));
  assert.ok(r && r.ok);
  assert.equal(r.marker.source, 'evaluator');
  if (r.marker.source !== 'evaluator') return;
  assert.equal(r.marker.failure_reason, 'failed_apply_patch');
  assert.equal(r.marker.returncode, 1);
  assert.deepEqual(r.schemaIssues, []);
  const reward = computeReward(r);
  assert.equal(reward.reward, 0);
  assert.equal(reward.failure_reason, 'failed_apply_patch');
});

test('schema problems are reported but the reward still follows resolved === true', () => {
  const r = parseMarkerLine(line({ resolved: 'true', fail_to_pass_total: 1.5, harness: 'swegym' }));
  assert.ok(r && r.ok);
  assert.ok(r.schemaIssues.includes('resolved is not a boolean'));
  assert.ok(r.schemaIssues.includes('fail_to_pass_total is not an integer'));
  assert.ok(r.schemaIssues.includes('log_parser_repo missing'));
  assert.equal(computeReward(r).reward, 0, 'the string "true" is not resolved');
});

test('invalid JSON and non-objects are typed failures', () => {
  const bad = parseMarkerLine(MARKER_PREFIX + '{"resolved": tru');
  assert.ok(bad && !bad.ok);
  assert.equal(bad.reason, 'invalid_reward_marker');
  assert.ok(bad.error);
  // JSON that is not an object is passed over, as reward.py does (a later marker may still decide).
  assert.equal(parseMarkerLine(MARKER_PREFIX + '[1,2]'), undefined);
  assert.equal(parseMarkerLine(MARKER_PREFIX + '"text"'), undefined);
  const later = scanMarker(`${MARKER_PREFIX}[1,2]\n${MARKER_PREFIX}null\n${line(resolvedPayload)}\n`);
  assert.ok(later.ok && later.payload.resolved === true);
  const nan = parseMarkerLine(MARKER_PREFIX + '{"resolved": true, "score": NaN, "big": -Infinity}');
  assert.ok(nan && nan.ok && Number.isNaN(nan.payload.score) && nan.payload.big === -Infinity, 'json.loads accepts NaN and Infinity');
  const empty = parseMarkerLine(MARKER_PREFIX);
  assert.ok(empty && !empty.ok && empty.reason === 'invalid_reward_marker');
  assert.equal(parseMarkerLine('noise ' + line(resolvedPayload)), undefined);
  assert.equal(parseMarkerLine(' ' + line(resolvedPayload)), undefined, 'leading space: not at the start of the line');
});

test('missing marker → missing_reward_marker, reward 0, parse failure', () => {
  const r = scanMarker('+ pytest -rA\nPASSED tests/test_x.py::test_a\n');
  assert.ok(!r.ok && r.reason === 'missing_reward_marker');
  const reward = computeReward(r);
  assert.equal(reward.parse_failure, true);
  assert.equal(reward.reward, 0);
  assert.equal(reward.failure_reason, 'missing_reward_marker');
});

test('only at the start of a line, first one wins, invalid first is not rescued', () => {
  const mid = `echo ${line(resolvedPayload)}\n${line(unresolvedPayload)}\n${line(resolvedPayload)}\n`;
  const r = scanMarker(mid);
  assert.ok(r.ok);
  assert.equal(r.payload.resolved, false);
  const invalidFirst = scanMarker(`${MARKER_PREFIX}{oops\n${line(resolvedPayload)}\n`);
  assert.ok(!invalidFirst.ok && invalidFirst.reason === 'invalid_reward_marker');
  const s = new MarkerScanner().push(mid).end();
  assert.equal(s.markerCount, 2);
  assert.equal(s.lineCount, 3);
});

test('lines end where str.splitlines() ends them (\\r, \\f, U+2028 …)', () => {
  const cr = scanMarker(`noise\r${line(resolvedPayload)}\rmore`);
  assert.ok(cr.ok && cr.payload.resolved === true, 'a lone \\r ends the line');
  const ff = scanMarker(`${line(resolvedPayload)}\ftrailing`);
  assert.ok(ff.ok, 'the text after \\f is the next line');
  const ls = scanMarker(MARKER_PREFIX + '{"resolved": true, "why": "a\u2028b"}\n');
  assert.ok(!ls.ok && ls.reason === 'invalid_reward_marker', 'U+2028 inside the JSON cuts it: invalid');
  const s = new MarkerScanner().push('a\r').push('\nb\n').end();
  assert.equal(s.lineCount, 2, '\\r\\n split across chunks is one break');
});

test('CRLF lines and a last line without newline', () => {
  const r = scanMarker(`noise\r\n${line(resolvedPayload)}`);
  assert.ok(r.ok && r.payload.resolved === true);
  const c = scanMarker(`noise\r\n${line(resolvedPayload)}\r\n`);
  assert.ok(c.ok && c.payload.resolved === true);
});

test('the reward function searches stdout, then stderr, then raw', () => {
  const passed = findRewardMarker({ stdout: MARKER_PREFIX + '42', stderr: line(resolvedPayload) });
  assert.ok(passed.ok && passed.payload.resolved === true, 'a non-object marker in stdout does not hide the one in stderr');
  assert.equal(findRewardMarker({ stdout: 'x', stderr: line(unresolvedPayload), raw: line(resolvedPayload) }).ok, true);
  const r = findRewardMarker({ stdout: 'x', stderr: line(unresolvedPayload), raw: line(resolvedPayload) });
  assert.ok(r.ok && r.payload.resolved === false);
  const s = findRewardMarker({ stdout: line(resolvedPayload), stderr: line(unresolvedPayload) });
  assert.ok(s.ok && s.payload.resolved === true);
  assert.equal(findRewardMarker({}).ok, false);
});

test('integrity flags zero a resolved reward and record the override', () => {
  const p = scanMarker(line(resolvedPayload) + '\n');
  const clean = computeReward(p, { invalid_tool_call: false, invalid_pytest_write: false });
  assert.equal(clean.reward, 1);
  assert.equal(clean.integrity_violation, false);
  assert.equal(clean.override, undefined);
  const dirty = computeReward(p, { invalid_tool_call: true, invalid_pytest_write: false });
  assert.equal(dirty.raw_reward, 1);
  assert.equal(dirty.reward, 0);
  assert.equal(dirty.integrity_violation, true);
  assert.deepEqual(dirty.override, { original_reward: 1, reward: 0, reason: 'swegym_integrity_violation', invalid_tool_call: true, invalid_pytest_write: false });
  assert.equal(dirty.failure_reason, 'swegym_integrity_violation');
  const unresolved = computeReward(scanMarker(line(unresolvedPayload)), { invalid_tool_call: false, invalid_pytest_write: true });
  assert.equal(unresolved.reward, 0);
  assert.equal(unresolved.override?.original_reward, 0);
  assert.equal(unresolved.failure_reason, 'fail_to_pass_failure');
});

test('an overlong marker line is invalid, without unbounded memory', () => {
  const s = new MarkerScanner({ maxLineBytes: 100 });
  s.push(MARKER_PREFIX + '{"resolved":true,"x":"' + 'a'.repeat(500) + '"}\n' + line(resolvedPayload) + '\n').end();
  const r = s.result();
  assert.ok(!r.ok && r.reason === 'invalid_reward_marker');
});

test('reads from a Node stream', async () => {
  const r = await scanMarkerStream(Readable.from([Buffer.from('noise\nDRESSAGE_SWEGYM_'), Buffer.from('REWARD_JSON=' + JSON.stringify(resolvedPayload) + '\n')]));
  assert.ok(r.ok && r.payload.resolved === true);
});

// ---- property-style: random streams, random chunkings, compared with a plain split-lines oracle ----

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function oracle(text: string): { kind: 'missing' } | { kind: 'invalid' } | { kind: 'ok'; resolved: unknown; tag: unknown } {
  for (const l of pySplitLines(text)) {
    if (!l.startsWith(MARKER_PREFIX)) continue;
    try {
      const v = JSON.parse(l.slice(MARKER_PREFIX.length));
      if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
      return { kind: 'ok', resolved: v.resolved, tag: v.tag };
    } catch {
      return { kind: 'invalid' };
    }
  }
  return { kind: 'missing' };
}

test('property: any chunking of any stream gives the same answer as splitting the whole text', () => {
  const noise = ['', 'PASSED tests/test_a.py::test_x', '+ git apply -v', 'ünïcødé ✓ 日本', 'DRESSAGE_SWEGYM', 'DRESSAGE_SWEGYM_REWARD_JSON', ' DRESSAGE_SWEGYM_REWARD_JSON={"resolved":true}', 'xDRESSAGE_SWEGYM_REWARD_JSON={}', '\r', 'a\fb', '\u2028', 'x\u0085y'];
  for (let seed = 1; seed <= 400; seed++) {
    const rand = rng(seed);
    const parts: string[] = [];
    const n = Math.floor(rand() * 12);
    for (let i = 0; i < n; i++) {
      const r = rand();
      if (r < 0.55) parts.push(noise[Math.floor(rand() * noise.length)] as string);
      else if (r < 0.85) parts.push(MARKER_PREFIX + JSON.stringify({ ...resolvedPayload, resolved: rand() < 0.5, tag: `m${i} ✓` }));
      else if (r < 0.95) parts.push(MARKER_PREFIX + '{"resolved":');
      else parts.push(MARKER_PREFIX + '"just a string"');
    }
    const sep = rand() < 0.2 ? '\r\n' : rand() < 0.1 ? '\r' : rand() < 0.1 ? '\u2029' : '\n';
    const text = parts.join(sep) + (rand() < 0.5 ? sep : '');
    const expected = oracle(text);

    const bytes = Buffer.from(text, 'utf8');
    const scanner = new MarkerScanner();
    const asBytes = rand() < 0.5;
    let i = 0;
    while (i < bytes.length) {
      const size = 1 + Math.floor(rand() * (rand() < 0.3 ? 3 : 40));
      if (asBytes) scanner.push(bytes.subarray(i, i + size));
      else scanner.push(text.slice(i, i + size));
      i += size;
    }
    if (!asBytes && i < text.length) scanner.push(text.slice(i));
    const got = scanner.end().result();
    const whole = scanMarker(text);
    const label = `seed ${seed}: ${JSON.stringify(text).slice(0, 300)}`;
    if (expected.kind === 'missing') {
      assert.ok(!got.ok && got.reason === 'missing_reward_marker', label);
    } else if (expected.kind === 'invalid') {
      assert.ok(!got.ok && got.reason === 'invalid_reward_marker', label);
    } else {
      assert.ok(got.ok, label);
      assert.equal(got.payload.resolved, expected.resolved, label);
      assert.equal(got.payload.tag, expected.tag, label);
    }
    assert.deepEqual(got, whole, label);
  }
});
