// Differential test: reading the reward marker (src/services/marker/marker.ts) against reward.py's
// `_marker_payload` and `swegym_harness_marker_reward`, run side by side in python3 on edge and generated inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MARKER_PREFIX, MarkerScanner, computeReward, findRewardMarker, type MarkerParse } from '../../src/services/marker/marker.js';
import { oracle, pick, rng, upstreamSkipReason } from '../helpers/upstreamOracle.js';
import { EDGE, type Rec } from '../helpers/upstreamMarkerCases.js';

const skip = upstreamSkipReason();
const P = MARKER_PREFIX;
const ok = (extra = '') => `{"resolved": true, "fail_to_pass_success": 1, "fail_to_pass_total": 1${extra}}`;
const no = '{"resolved": false, "failure_reason": "fail_to_pass_failure"}';

/** What reward.py decides, in our terms: missing, invalid, or the payload. */
type Verdict = { kind: 'missing' } | { kind: 'invalid' } | { kind: 'payload'; payload: unknown };

function fromUpstream(reply: unknown): Verdict {
  if (reply === null) return { kind: 'missing' };
  const p = reply as Record<string, unknown>;
  if (p.parse_failure === true && p.failure_reason === 'invalid_reward_marker' && Object.keys(p).length === 2) return { kind: 'invalid' };
  return { kind: 'payload', payload: p };
}

function ours(parse: MarkerParse): Verdict {
  if (parse.ok) return { kind: 'payload', payload: parse.payload };
  return parse.reason === 'missing_reward_marker' ? { kind: 'missing' } : { kind: 'invalid' };
}

function metadataFor(r: Rec) {
  return { execute_cmds: [{ stage: 'after_agent', name: 'swegym_harness', cmd_result: { stdout: r.stdout ?? '', stderr: r.stderr ?? '', raw: r.raw ?? '' } }] };
}

/** Chunked through the streaming scanner at random cut points: the same verdict as the whole text. */
function streamed(r: Rec, seed: number): MarkerParse {
  const text = `${r.stdout ?? ''}\n${r.stderr ?? ''}\n${r.raw ?? ''}`;
  const rand = rng(seed);
  const bytes = Buffer.from(text, 'utf8');
  const s = new MarkerScanner();
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(rand() * 9);
    s.push(bytes.subarray(i, i + n));
    i += n;
  }
  return s.end().result();
}

const PIECES = [P, `${P}${ok()}`, `${P}${no}`, `${P}[1]`, `${P}"s"`, `${P}{`, `${P}{"resolved": true, "v": NaN}`, `${P}{"resolved": Infinity}`, 'noise', 'DRESSAGE_SWEGYM_REWARD', ' ', '✓', '{"resolved": true}', '\\u2028', `${P}{"a": "\u2028"}`];
const BREAKS = ['\n', '\r', '\r\n', '\f', '\v', '\u2028', '\u2029', '\x85', '\x1c', ''];

function generated(count: number): Rec[] {
  const r = rng(2028);
  const out: Rec[] = [];
  for (let k = 0; k < count; k++) {
    const part = () => {
      let t = '';
      const n = Math.floor(r() * 6);
      for (let i = 0; i < n; i++) t += pick(r, PIECES) + pick(r, BREAKS);
      return t;
    };
    out.push({ stdout: part(), stderr: r() < 0.5 ? part() : '', raw: r() < 0.2 ? part() : '' });
  }
  return out;
}

test('the marker verdict equals reward.py on edge cases and 500 generated outputs, whole and streamed', { skip }, async () => {
  const cases = [...Object.entries(EDGE), ...generated(500).map((r, i) => [`generated #${i}`, r] as const)];
  const replies = await oracle(cases.map(([, r]) => ({ fn: 'marker_payload', args: [metadataFor(r)] })));
  const kinds = new Set<string>();
  cases.forEach(([name, rec], i) => {
    const reply = replies[i] as { ok?: unknown; error?: string };
    assert.ok(!reply.error, `${name}: upstream raised ${reply.error}`);
    const want = fromUpstream(reply.ok);
    kinds.add(want.kind);
    const label = `${name}: ${JSON.stringify(rec).slice(0, 300)}`;
    assert.deepEqual(ours(findRewardMarker(rec)), want, label);
    assert.deepEqual(ours(streamed(rec, i + 1)), want, `${label} (streamed)`);
  });
  assert.deepEqual([...kinds].sort(), ['invalid', 'missing', 'payload']);
});

test('the reward equals swegym_harness_marker_reward (1 only for resolved is True)', { skip }, async () => {
  const cases = Object.entries(EDGE);
  const replies = await oracle(cases.map(([, r]) => ({ fn: 'marker_reward', args: [metadataFor(r)] })));
  cases.forEach(([name, rec], i) => {
    const want = (replies[i] as { ok: { reward: number; diag: Record<string, unknown> } }).ok;
    const got = computeReward(findRewardMarker(rec));
    assert.equal(got.reward, want.reward, name);
    assert.equal(got.raw_reward, want.diag.raw_reward, name);
    if (want.diag.parse_failure === true && want.diag.failure_reason !== undefined && got.parse_failure) assert.equal(got.failure_reason, want.diag.failure_reason, name);
  });
});
