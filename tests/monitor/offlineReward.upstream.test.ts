// Differential: the reward the trajectory browser shows (monitor/offline.ts loadTrajectory, through
// marker/sampleReward.ts) against Dressage's swegym_harness_marker_reward (dressage/recipes/swegym/reward.py), run by
// python3 on the same metadata: the marker edge cases (CR and form-feed line breaks, output only in raw, NaN/Infinity,
// a leading space, an array marker…) and generated multi-record metadata with integrity flags. A sample that already
// holds Dressage's stored verdict (metadata.swegym_reward, the diag reward.py writes) shows that verdict.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from '../helpers/property.js';
import { MARKER_PREFIX } from '../../src/services/marker/marker.js';
import { loadTrajectory } from '../../src/services/monitor/offline.js';
import { oracle, upstreamSkipReason } from '../helpers/upstreamOracle.js';
import { EDGE, type Rec } from '../helpers/upstreamMarkerCases.js';
import { removeDir, tempDir } from '../helpers/workspace.js';

const skip = upstreamSkipReason() ?? false;
if (skip) console.log(`# ${skip}`);
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

type Metadata = Record<string, unknown>;
const harness = (r: Rec) => ({ stage: 'after_agent', name: 'swegym_harness', cmd_result: { stdout: r.stdout ?? '', stderr: r.stderr ?? '', raw: r.raw ?? '' } });

async function browserView(metadata: Metadata, i: number) {
  if (dirs.length === 0) dirs.push(await tempDir());
  const root = dirs[0] as string;
  const dir = path.join(root, `s${i}`);
  await mkdir(path.join(dir, 'samples'), { recursive: true });
  await writeFile(path.join(dir, 'session.json'), '{"data": []}');
  await writeFile(path.join(dir, 'samples', '0.json'), JSON.stringify({ metadata }));
  return loadTrajectory({ instance: 'i', session: `s${i}`, kind: 'payload', dir, mtimeMs: 0 });
}

async function compare(cases: [string, Metadata][]) {
  const replies = await oracle(cases.map(([, md]) => ({ fn: 'marker_reward', args: [md] })));
  for (const [i, [name, md]] of cases.entries()) {
    const reply = replies[i] as { ok?: { reward: number; diag: Record<string, unknown> }; error?: string };
    assert.ok(reply.ok, `${name}: reward.py raised ${reply.error}`);
    const want = reply.ok;
    const view = await browserView(md, i);
    const label = `${name}: ${JSON.stringify(md).slice(0, 400)}`;
    assert.equal(view.reward, want.reward, label);
    if (want.diag.parse_failure === true) assert.equal(view.markerError, want.diag.failure_reason, label);
    else assert.deepEqual(view.marker, Object.fromEntries(Object.entries(want.diag).filter(([k]) => !['raw_reward', 'reward', 'integrity_violation'].includes(k))), label);
    // The same sample after Dressage's reward ran: its stored verdict is shown as it is.
    const stored = await browserView({ ...md, swegym_reward: want.diag }, i + 100_000);
    assert.equal(stored.reward, want.reward, `${label} (stored)`);
  }
}

test("the trajectory browser's reward is reward.py's on every marker edge case", { skip }, async () => {
  await compare(Object.entries(EDGE).map(([name, r]) => [name, { execute_cmds: [harness(r)] }]));
});

const P = MARKER_PREFIX;
const piece = fc.constantFrom(P, `${P}{"resolved": true}`, `${P}{"resolved": false, "failure_reason": "fail_to_pass_failure"}`, `${P}[1]`, `${P}{`, `${P}{"resolved": true, "x": NaN}`, ` ${P}{"resolved": true}`, 'noise', '');
const lineBreak = fc.constantFrom('\n', '\r', '\r\n', '\f', '\v', '\x1c', '\u2028', '\x85', '');
const text = fc.array(fc.tuple(piece, lineBreak).map(([a, b]) => a + b), { maxLength: 4 }).map((xs) => xs.join(''));
const record = fc.record({
  stage: fc.constantFrom('after_agent', 'after_agent', 'before_agent'),
  name: fc.constantFrom('swegym_harness', 'swegym_harness', 'other'),
  cmd_result: fc.oneof(fc.record({ stdout: text, stderr: text, raw: text }, { requiredKeys: [] }), fc.constant(null)),
});
const metadata = fc.record(
  { execute_cmds: fc.array(record, { maxLength: 3 }), swegym_invalid_tool_call: fc.constantFrom(false, true, 0, '', 'yes'), swegym_invalid_pytest_write: fc.constantFrom(false, true, [], [1]) },
  { requiredKeys: ['execute_cmds'] },
);

test("the trajectory browser's reward is reward.py's on generated multi-record metadata with integrity flags", { skip }, async () => {
  const samples = fc.sample(metadata, { numRuns: 300 }) as Metadata[];
  await compare(samples.map((md, i) => [`generated #${i}`, md]));
});
