// The committed Claude Code transcripts are what the installed CLI really prints: each scenario is re-run with the
// real CLI against the scripted Anthropic server and compared with its recording (normalised). A CLI upgrade that
// changes the stream shows here, field by field; `npm run record:claude-code` then rewrites the recordings.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_DIR, SCENARIOS, claudeCodeCli, describeTranscriptDiff, normaliseTranscript, runScenario } from '../helpers/claudeCode.js';

const cli = claudeCodeCli();
const skip = cli ? false : 'the Claude Code CLI is not installed (node_modules/.bin/claude): npm install brings it';

for (const name of Object.keys(SCENARIOS)) {
  const unstable = SCENARIOS[name]?.notReproducible;
  test(`real Claude Code CLI, scenario ${name}, matches its recording`, { skip: skip || (unstable ? `recorded once, not re-compared: ${unstable}` : false), timeout: 150_000 }, async () => {
    const run = await runScenario(name);
    const now = normaliseTranscript(run.raw, run);
    const recorded = fs.readFileSync(path.join(FIXTURE_DIR, `${name}.jsonl`), 'utf8');
    const diff = describeTranscriptDiff(recorded, now);
    assert.deepEqual(diff, [], `Claude Code ${cli?.version} prints something else for ${name} (${SCENARIOS[name]?.about}):\n${diff.join('\n')}\nstderr: ${run.stderr.slice(-400)}\nIf the CLI changed on purpose: npm run record:claude-code`);
  });
}

test('the transcript diff names the events and fields that changed', () => {
  const a = '{"type":"system","subtype":"init","tools":["Bash","Grep"]}\n{"type":"result","num_turns":3}\n';
  const b = '{"type":"system","subtype":"init","tools":["Bash","Read"]}\n{"type":"result","num_turns":4}\n{"type":"x"}\n';
  assert.deepEqual(describeTranscriptDiff(a, b), ['events: 2 recorded, 3 now', 'event 1 (system/init) .tools.1: "Grep" → "Read"', 'event 2 (result) .num_turns: 3 → 4', 'event 3 (x): added']);
  assert.deepEqual(describeTranscriptDiff(a, a), []);
});
