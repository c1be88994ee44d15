// The stream-json reader on the shapes real runs take, each recorded with the real Claude Code CLI 2.1.332 against
// the scripted model server (tests/helpers/claudeCode.ts SCENARIOS): two result events (a background subagent),
// structured tool inputs, prompt-cache tokens, an API error with no api_retry event, a ~300 KB last line, a 2 MB
// log killed mid-line; and when `agent-log --follow` takes the stream to have ended.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { progressJson, readStreamJson, shortInput, StreamJsonReader } from '../../src/services/agent/streamJson.js';
import { StreamJsonCursor } from '../../src/services/agent/logCursor.js';
import { readAgentLog, streamEnded, type LogSource } from '../../src/services/agent/agentLog.js';
import { endingOf } from '../../src/services/monitor/sandboxes.js';

const rec = (name: string) => fs.readFileSync(path.resolve('tests/fixtures/claude-code', `${name}.jsonl`), 'utf8');

test('two results (a background subagent): the totals cover both results, the subagent\'s own calls are not the main agent\'s', () => {
  const text = rec('two-results');
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  // What the CLI printed: two results, result_index 0 and 1, each with the main loop's usage since the previous one.
  assert.deepEqual(lines.filter((e) => e.type === 'result').map((e) => [e.result_index, e.usage.input_tokens, e.num_turns]), [[0, 2400, 2], [1, 3200, 2]]);
  const p = readStreamJson(text);
  assert.equal(p.status, 'success');
  assert.equal(p.results, 2);
  assert.deepEqual(p.usage, { input_tokens: 5600, output_tokens: 120 });
  assert.equal(p.usageFinal, true);
  assert.equal(p.numTurns, 4);
  assert.equal(p.modelTurns, 4);
  assert.deepEqual(p.toolCalls.map((c) => [c.name, c.is_error]), [['Agent', false], ['Edit', true]]);
  assert.equal(p.openTasks, 0);
  assert.equal(p.resultText, 'The agent found the bug; add() is fixed.');
});

test('between a result and the next turn the session runs again, and a background task is open until its notification', () => {
  const lines = rec('two-results').trim().split('\n');
  const started = lines.findIndex((l) => l.includes('"subtype":"task_started"'));
  const notified = lines.findIndex((l) => l.includes('"subtype":"task_notification"'));
  assert.ok(started > 0 && notified > started);
  assert.equal(readStreamJson(lines.slice(0, started + 1).join('\n') + '\n').openTasks, 1);
  assert.equal(readStreamJson(lines.slice(0, notified + 1).join('\n') + '\n').openTasks, 0);
  // A labelled construction from the recorded pieces (2.1.332 -p holds the first result back until the task is
  // done, so the recording has both at the end): the first result where the turn ended, then the rest.
  const first = lines.findIndex((l) => l.includes('"result_index":0'));
  const turnEnd = lines.findIndex((l) => l.includes('Started a background agent to check calc.py.') && l.startsWith('{"type":"assistant"'));
  const reordered = [...lines.slice(0, turnEnd + 1), lines[first] as string, ...lines.slice(turnEnd + 1, first), ...lines.slice(first + 1)];
  const r = new StreamJsonReader();
  r.push(reordered.slice(0, turnEnd + 2).join('\n') + '\n');
  assert.deepEqual([r.progress().status, r.progress().results, r.progress().usage.input_tokens], ['success', 1, 2400]);
  r.push(reordered.slice(turnEnd + 2, -1).join('\n') + '\n');
  const mid = r.progress();
  assert.equal(mid.status, 'running', 'a reply after the first result: the session goes on');
  assert.equal(mid.usageFinal, false);
  r.push(`${reordered.at(-1)}\n`);
  assert.deepEqual([r.progress().status, r.progress().results, r.progress().usage], ['success', 2, { input_tokens: 5600, output_tokens: 120 }]);
});

test('structured first inputs are summarised (TodoWrite, MultiEdit), never [object Object]', () => {
  const p = readStreamJson(rec('structured-inputs'));
  assert.deepEqual(p.toolCalls.map((c) => `${c.name}: ${c.arg}`), ['TodoWrite: 3 todos, 1 done; doing: Fix add()', 'MultiEdit: <cwd>/calc.py (2 edits)', 'Edit: <cwd>/calc.py']);
  const views = new StreamJsonReader().push(rec('structured-inputs')).views;
  assert.ok(views.some((v) => v.text === 'TodoWrite(3 todos, 1 done; doing: Fix add())'), JSON.stringify(views.map((v) => v.text)));
  for (const v of views) assert.doesNotMatch(v.text, /\[object Object\]/);
  assert.equal(shortInput({ questions: [{ question: 'Which?' }, { question: 'Why?' }] }), 'questions: 2 items: Which?, Why?');
  assert.equal(shortInput({ options: { a: 1, b: 2 } }), 'options: {a, b}');
  assert.equal(shortInput({ todos: [] }), '0 todos');
});

test('prompt-cache tokens are counted beside input tokens, from the results', () => {
  const p = readStreamJson(rec('structured-inputs'));
  assert.deepEqual(p.usage, { input_tokens: 1950, output_tokens: 120 });
  assert.deepEqual(p.cache, { read_input_tokens: 12550, creation_input_tokens: 4450 });
  assert.deepEqual(progressJson(p).usage, { input_tokens: 1950, output_tokens: 120, cache_read_input_tokens: 12550, cache_creation_input_tokens: 4450 });
  // Live (before the result): the replies' own cache counts.
  const lines = rec('structured-inputs').trim().split('\n');
  assert.deepEqual(readStreamJson(lines.slice(0, -1).join('\n') + '\n').cache, { read_input_tokens: 12550, creation_input_tokens: 4450 });
});

test('an API error the log records no retry for does not read "after 0 retries"', () => {
  const p = readStreamJson(rec('api-500-no-retries'));
  assert.deepEqual([p.status, p.apiErrorStatus, p.apiRetries.length], ['api_error', 500, 0]);
  assert.doesNotMatch(p.cause ?? '', /after 0 retries/);
  assert.match(p.cause ?? '', /^API error 500 \(the log reports no retries; attempts it does not report are unknown\): API Error: 500/);
  assert.equal(endingOf(p), '✗ API error 500');
  const q = readStreamJson(rec('api-429-exhausted'));
  assert.match(q.cause ?? '', /^API error 429 after 1 retry: API Error: Request rejected \(429\)/);
  assert.equal(endingOf(q), '✗ API error 429 after 1 retry');
});

test('a ~300 KB last line and a 2 MB log killed mid-line read whole through the cursor, in any read sizes', () => {
  const long = fs.readFileSync(path.resolve('tests/fixtures/claude-code/long-last-line.jsonl'));
  assert.ok(long.toString('utf8').trim().split('\n').at(-1)!.length > 300_000);
  const killed = fs.readFileSync(path.resolve('tests/fixtures/claude-code/killed-mid-line.jsonl'));
  assert.ok(killed.length > 2_000_000 && killed[killed.length - 1] !== 0x0a, 'the recording ends mid-line');
  for (const [buf, status, calls] of [[long, 'success', 1], [killed, 'running', readStreamJson(killed.toString('utf8')).toolCalls.length]] as const) {
    const whole = readStreamJson(buf.toString('utf8'));
    assert.equal(whole.status, status);
    assert.equal(whole.toolCalls.length, calls);
    for (const size of [4096, 32768, 65536, 1 << 20]) {
      const c = new StreamJsonCursor();
      for (let i = 0; i < buf.length; i += size) c.feed(buf.subarray(i, i + size));
      assert.deepEqual(progressJson(c.progress()), progressJson(whole), `read ${size} bytes at a time`);
      assert.equal(c.progress().skipped, 0);
    }
  }
  // The killed log's cut last line waits for its newline; it is neither an event nor a skipped line.
  const c = new StreamJsonCursor().feed(killed);
  assert.ok(c.pendingBytes > 0);
  assert.ok(readStreamJson(killed.toString('utf8')).toolCalls.length >= 4);
});

/** A log that grows as the test says: `parts` are handed out one per read; `alive` answers writerAlive. */
function growing(parts: string[], o: { alive?: () => boolean | undefined } = {}): LogSource & { reads: number } {
  let text = '';
  const src = {
    label: 'test',
    reads: 0,
    async read(offset: number) {
      src.reads++;
      if (parts.length && Buffer.byteLength(text) <= offset) text += parts.shift();
      return Buffer.from(text, 'utf8').subarray(offset);
    },
    ...(o.alive ? { writerAlive: async () => o.alive?.() } : {}),
  };
  return src;
}

test('--follow: not over at the first result; over when nothing follows the last one for settleMs (or the writer is gone)', async () => {
  const lines = rec('two-results').trim().split('\n');
  const first = lines.findIndex((l) => l.includes('"result_index":0'));
  let now = 0;
  const clock = () => (now += 1000);
  const src = growing([lines.slice(0, first + 1).join('\n') + '\n', '', '', lines.slice(first + 1).join('\n') + '\n']);
  const p = await readAgentLog(src, { follow: true, intervalMs: 1, settleMs: 10_000, clock });
  assert.deepEqual([p.status, p.results, p.usage.input_tokens], ['success', 2, 5600]);
  // A sandbox says whether the CLI still runs: while it does, a result with quiet after it is not the end.
  let alive = true;
  const sbx = growing([rec('max-turns')], { alive: () => alive });
  const seen: string[] = [];
  const done = readAgentLog(sbx, { follow: true, intervalMs: 1, settleMs: 0, clock, onUpdate: (u) => seen.push(u.progress.status) });
  await new Promise<void>((resolve) => {
    const check = () => (sbx.reads >= 5 ? resolve() : setImmediate(check));
    check();
  });
  alive = false;
  assert.equal((await done).status, 'max_turns');
  assert.equal(streamEnded(readStreamJson(rec('max-turns')), { idleMs: 0, settleMs: 0, writerAlive: true }), false);
  assert.equal(streamEnded(readStreamJson(''), { idleMs: 0, settleMs: 1000, writerAlive: false }), true, 'killed: the process is gone, no result will come');
  assert.equal(streamEnded(readStreamJson(rec('two-results').split('\n').slice(0, 5).join('\n') + '\n'), { idleMs: 1e9, settleMs: 1000, writerAlive: undefined }), false, 'no result yet');
});

test('kept views are bounded: the ~300 KB final answer is shown by its head, the result text stays whole', () => {
  const r = new StreamJsonReader().push(rec('long-last-line'));
  const answer = r.views.find((v) => v.type === 'assistant' && v.text.startsWith('Finding 0001'));
  assert.ok(answer && answer.text.length <= 4000 && answer.text.endsWith('…'), answer?.text.slice(-50));
  assert.ok((r.progress().resultText?.length ?? 0) > 300_000);
});
