// `validate agent --provider local` through the BUILT console: the real Claude Code CLI in a bubblewrap sandbox of a
// sample task, (1) with the scripted replay of its gold patch, (2) against an Anthropic-compatible URL (here the
// scripted server on 127.0.0.1, standing for a Dressage proxy or a vLLM server): the console forwards the CLI's
// requests and adds the API key outside the sandbox. The patch is graded in a fresh sandbox either way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { explain, runShipped } from '../helpers/shipped.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { claudeCodeCli } from '../helpers/claudeCode.js';
import { startAnthropicServer } from '../fakes/anthropicServer.js';
import { replaySolution } from '../../src/services/agent/replay.js';

const cli = claudeCodeCli();
const skip = cli ? false : 'the Claude Code CLI is not installed (node_modules/.bin/claude): npm install brings it';
let parent = '';
let ws = '';

before(async () => {
  if (!cli) return;
  parent = await tempDir('swegym-local-agent-');
  ws = path.join(parent, 'sample');
  const r = await runShipped(['demo', '--json', '--dir', ws]);
  assert.equal(r.code, 0, explain(r));
});
after(async () => {
  if (parent) await removeDir(parent);
});

test('validate agent --provider local: the real CLI, the scripted replay (labelled), graded resolved in a fresh sandbox', { skip, timeout: 180_000 }, async () => {
  const r = await runShipped(['validate', 'agent', '--provider', 'local', '-w', ws, '--instance', 'sample-org__textkit-1', '--json']);
  assert.equal(r.code, 0, explain(r));
  const doc = JSON.parse(r.out);
  assert.equal(doc.scripted, true);
  assert.match(r.err, /SCRIPTED model: a replay of the task's gold patch/);
  assert.equal(doc.model, 'scripted: replay of the gold patch of sample-org__textkit-1');
  assert.deepEqual([doc.ok, doc.summary, doc.reward.reward, doc.error], [true, 'resolved F2P 2/2 P2P 2/2', 1, null]);
  assert.deepEqual(doc.patchFiles, ['textkit/slug.py'], 'only the source file: no bytecode, no CLI state in /testbed');
  assert.equal(doc.claudeCode.status, 'success');
  assert.equal(doc.log, undefined, 'the log is in the workspace, not in the document');
  const log = await runShipped(['agent-log', doc.logFile, '--json']);
  assert.equal(JSON.parse(log.out).model_turns, 4);
});

test('validate agent --provider local --router URL: requests go out through the console, the key is added outside the sandbox', { skip, timeout: 180_000 }, async () => {
  const gold = readFileSync(path.resolve('samples/tasks/sample-org__calc-2/gold.patch'), 'utf8');
  const api = await startAnthropicServer({ script: replaySolution(gold, { workdir: '/testbed' }) });
  try {
    const r = await runShipped(['validate', 'agent', '--provider', 'local', '-w', ws, '--instance', 'sample-org__calc-2', '--router', api.url, '--json'], { env: { ANTHROPIC_API_KEY: 'test-key-1' } });
    assert.equal(r.code, 0, explain(r));
    const doc = JSON.parse(r.out);
    assert.deepEqual([doc.scripted, doc.model, doc.summary, doc.reward.reward], [false, api.url, 'resolved F2P 2/2 P2P 3/3', 1]);
    const agentCalls = api.requests.filter((q) => q.agent);
    assert.equal(agentCalls.length, 3, JSON.stringify(api.requests));
    // The CLI's placeholder never reaches the endpoint; the console's key does.
    assert.ok(agentCalls.every((q) => q.apiKey === 'test-key-1'), JSON.stringify(agentCalls.map((q) => q.apiKey)));
    assert.deepEqual(agentCalls[1]?.toolResults.map((t) => t.is_error), [false, false], 'the parallel Read and Bash results came back');
    assert.doesNotMatch(r.out + r.err, /test-key-1/);
  } finally {
    await api.close();
  }
});
