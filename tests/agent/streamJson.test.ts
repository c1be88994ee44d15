// The stream-json reader on what the real Claude Code CLI printed (tests/fixtures/claude-code, recorded by
// tests/helpers/claudeCode.ts): every field, whole logs, half-written logs and logs cut mid-line.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { StreamJsonReader, progressJson, readStreamJson } from '../../src/services/agent/streamJson.js';

const rec = (name: string) => fs.readFileSync(path.resolve('tests/fixtures/claude-code', `${name}.jsonl`), 'utf8');
const NAMES = ['success-parallel-tools', 'max-turns', 'api-529-exhausted', 'api-500-recovered', 'broken-stream', 'permission-denied', 'max-budget'];

test('a fix with parallel tool calls: model turns by message id, tool calls in order with their result, the result\'s totals', () => {
  const p = readStreamJson(rec('success-parallel-tools'));
  assert.equal(p.status, 'success');
  // 8 assistant events (thinking, text, tool_use, tool_use, …) are 4 model replies; num_turns is one more.
  assert.equal(p.modelTurns, 4);
  assert.equal(p.numTurns, 5);
  assert.deepEqual(p.toolCalls.map((c) => [c.name, c.is_error]), [['Read', false], ['Bash', false], ['Edit', false], ['Bash', false]]);
  assert.deepEqual(p.usage, { input_tokens: 5600, output_tokens: 150 });
  assert.equal(p.usageFinal, true);
  assert.deepEqual([p.apiRetries.length, p.apiErrorStatus, p.permissionDenials.length, p.cause], [0, null, 0, undefined]);
  assert.equal(p.lastTool, 'Bash: python3 test_calc.py');
  assert.equal(p.resultText, 'Fixed: add() subtracted instead of adding; test_calc.py passes.');
  assert.equal(p.model, 'claude-sonnet-4-5');
  assert.equal(p.skipped, 0);
  assert.deepEqual(progressJson(p), {
    status: 'success',
    model_turns: 4,
    tool_calls: [{ name: 'Read', is_error: false }, { name: 'Bash', is_error: false }, { name: 'Edit', is_error: false }, { name: 'Bash', is_error: false }],
    usage: { input_tokens: 5600, output_tokens: 150, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    results: 1,
    api_retries: 0,
    api_error_status: null,
    permission_denials: 0,
    last_tool: 'Bash: python3 test_calc.py',
  });
});

test('live usage before the result: one usage per distinct message, not per content block', () => {
  const lines = rec('success-parallel-tools').trim().split('\n');
  const p = readStreamJson(lines.slice(0, -1).join('\n') + '\n');
  assert.equal(p.status, 'running');
  // 1100 + 1300 + 1500 + 1700 (per content block it would be 1100 × 4 + …); output_tokens are the stream's placeholders (1 each).
  assert.deepEqual(p.usage, { input_tokens: 5600, output_tokens: 4 });
  assert.equal(p.usageFinal, false);
  assert.equal(p.modelTurns, 4);
});

test('max turns: status max_turns with the CLI\'s errors as the cause, no result text', () => {
  const p = readStreamJson(rec('max-turns'));
  assert.equal(p.status, 'max_turns');
  assert.equal(p.cause, 'max turns (Reached maximum number of turns (2))');
  assert.deepEqual([p.modelTurns, p.numTurns, p.toolCalls.length, p.resultText], [2, 3, 2, undefined]);
  assert.deepEqual(p.usage, { input_tokens: 2400, output_tokens: 60 });
  assert.equal(p.lastTool, 'Bash: echo step 2');
});

test('529 after every retry: api_error 529, the retries, the synthetic message is no model turn', () => {
  const p = readStreamJson(rec('api-529-exhausted'));
  assert.equal(p.status, 'api_error');
  assert.equal(p.apiErrorStatus, 529);
  assert.deepEqual(p.apiRetries.map((r) => [r.attempt, r.max_retries, r.error_status, r.error]), [[1, 2, 529, 'overloaded'], [2, 2, 529, 'overloaded']]);
  assert.equal(p.modelTurns, 1);
  assert.deepEqual(p.toolCalls.map((c) => [c.name, c.is_error]), [['Bash', false]]);
  assert.match(p.cause ?? '', /^API error 529 after 2 retries: API Error: 529 Overloaded/);
  assert.deepEqual(p.usage, { input_tokens: 1100, output_tokens: 30 });
  const views = new StreamJsonReader().push(rec('api-529-exhausted')).views;
  assert.deepEqual(views.filter((v) => v.tone).map((v) => [v.type, v.tone]), [['api_retry', 'warn'], ['api_retry', 'warn'], ['api_error', 'error'], ['result', 'error']]);
  assert.match(views.at(-1)?.text ?? '', /^API error 529 after 2 retries: .* · num_turns=2$/);
});

test('500 twice then the reply: a success that records its retries', () => {
  const p = readStreamJson(rec('api-500-recovered'));
  assert.deepEqual([p.status, p.apiErrorStatus, p.modelTurns], ['success', null, 2]);
  assert.deepEqual(p.apiRetries.map((r) => r.error_status), [500, 500]);
});

test('a cut stream: the partial reply never shows, the retry (no HTTP status) does', () => {
  const p = readStreamJson(rec('broken-stream'));
  assert.deepEqual([p.status, p.modelTurns], ['success', 2]);
  assert.deepEqual(p.apiRetries.map((r) => r.error_status), [null]);
  assert.deepEqual(p.toolCalls.map((c) => [c.name, c.is_error]), [['Read', false]]);
});

test('a permission denial: an is_error tool result and one denial (system event and result list, counted once)', () => {
  const p = readStreamJson(rec('permission-denied'));
  assert.equal(p.status, 'success');
  assert.deepEqual(p.toolCalls.map((c) => [c.name, c.is_error]), [['Bash', true]]);
  assert.deepEqual(p.permissionDenials, [{ tool_name: 'Bash', tool_use_id: 'toolu_scripted_0001' }]);
  assert.equal(progressJson(p).permission_denials, 1);
});

test('over budget: the generic error ending with the CLI\'s errors; its empty usage does not erase the replies seen', () => {
  const p = readStreamJson(rec('max-budget'));
  assert.equal(p.status, 'error');
  assert.equal(p.cause, 'error_max_budget_usd (Reached maximum budget ($0.001))');
  assert.deepEqual([p.modelTurns, p.apiErrorStatus], [1, null]);
  // The call was never run: no result came back for it.
  assert.deepEqual(p.toolCalls.map((c) => [c.name, c.is_error]), [['Bash', undefined]]);
  assert.deepEqual(progressJson(p).tool_calls, [{ name: 'Bash', is_error: null }]);
  assert.deepEqual([p.usage, p.usageFinal], [{ input_tokens: 1100, output_tokens: 1 }, false]);
});

test('half-written logs: every line boundary and every cut mid-line reads as running, never throws, never goes back', () => {
  for (const name of NAMES) {
    const text = rec(name);
    const full = readStreamJson(text);
    const lines = text.split('\n');
    let offset = 0;
    let prevTurns = 0;
    for (const line of lines.slice(0, -1)) {
      for (const cut of [offset, offset + Math.floor(line.length / 2), offset + line.length - 1]) {
        const p = readStreamJson(text.slice(0, cut));
        assert.equal(p.status, 'running', `${name} cut at ${cut}`);
        assert.ok(p.modelTurns >= prevTurns && p.modelTurns <= full.modelTurns, `${name} cut at ${cut}`);
        prevTurns = p.modelTurns;
      }
      offset += line.length + 1;
    }
    // A last line complete but without its newline already counts.
    assert.equal(readStreamJson(text.trimEnd()).status, full.status, name);
  }
});

test('pushed in small chunks it reads the same as whole; a tail -c that starts mid-line skips that line only', () => {
  for (const name of NAMES) {
    const text = rec(name);
    const r = new StreamJsonReader();
    for (let i = 0; i < text.length; i += 97) r.push(text.slice(i, i + 97));
    assert.deepEqual(r.progress(), readStreamJson(text), name);
    const tail = readStreamJson(text.slice(40), { cutStart: true });
    assert.deepEqual([tail.status, tail.skipped], [readStreamJson(text).status, 0], name);
    assert.equal(readStreamJson(text.slice(40)).skipped, 1, name);
  }
  assert.deepEqual(progressJson(readStreamJson('')).status, 'running');
  assert.equal(readStreamJson('not json\n{"type":\n[1,2]\n').skipped, 3);
});
