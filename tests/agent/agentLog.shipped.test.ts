// `agent-log` through the BUILT bin/swegym-console: the exact --json document for each real recording, --follow on
// a log that grows until its result event, and a live sandbox's log read through the local provider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { BIN, explain, runShipped } from '../helpers/shipped.js';
import { waitFor } from '../helpers/wait.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { localStoreDir } from '../../src/services/sandbox/index.js';
import { CommandLog } from '../../src/services/process/commandLog.js';

const rec = (name: string) => path.resolve('tests/fixtures/claude-code', `${name}.jsonl`);

/** The built console with its output readable while it runs (--follow). */
function following(args: string[]) {
  assert.ok(fs.existsSync(path.resolve('dist/swegym-console.mjs')), 'dist/ is missing: run npm run build first (npm test does)');
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const r = { out: '', err: '', code: undefined as number | null | undefined };
  child.stdout.on('data', (d) => (r.out += d));
  child.stderr.on('data', (d) => (r.err += d));
  const done = new Promise<typeof r>((resolve) => child.on('close', (code) => resolve(Object.assign(r, { code }))));
  return { child, r, done };
}

test('agent-log --json: exactly the documented keys, per real recording, and exit 1 for a bad ending', async () => {
  const cases: [string, number, Record<string, unknown>][] = [
    ['max-turns', 1, { status: 'max_turns', model_turns: 2, tool_calls: [{ name: 'Bash', is_error: false }, { name: 'Bash', is_error: false }], usage: { input_tokens: 2400, output_tokens: 60, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, results: 1, api_retries: 0, api_error_status: null, permission_denials: 0, last_tool: 'Bash: echo step 2' }],
    ['api-529-exhausted', 1, { status: 'api_error', model_turns: 1, tool_calls: [{ name: 'Bash', is_error: false }], usage: { input_tokens: 1100, output_tokens: 30, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, results: 1, api_retries: 2, api_error_status: 529, permission_denials: 0, last_tool: 'Bash: ls' }],
    ['permission-denied', 0, { status: 'success', model_turns: 2, tool_calls: [{ name: 'Bash', is_error: true }], usage: { input_tokens: 2400, output_tokens: 60, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, results: 1, api_retries: 0, api_error_status: null, permission_denials: 1, last_tool: 'Bash: rm -rf build' }],
  ];
  for (const [name, code, doc] of cases) {
    const r = await runShipped(['agent-log', rec(name), '--json']);
    assert.equal(r.code, code, `${name}: ${explain(r)}`);
    const got = JSON.parse(r.out);
    assert.deepEqual(Object.keys(got), ['status', 'model_turns', 'tool_calls', 'usage', 'results', 'api_retries', 'api_error_status', 'permission_denials', 'last_tool']);
    assert.deepEqual(got, doc, name);
  }
  const text = await runShipped(['agent-log', rec('api-529-exhausted')]);
  assert.match(text.out, /api_error — API error 529 after 2 retries/);
  const missing = await runShipped(['agent-log', '/nonexistent/claude_code.stdout.log']);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no such file: \/nonexistent\/claude_code.stdout.log/);
});

test('agent-log --follow streams updates of a growing log and stops once the stream ends (its result, then quiet)', { timeout: 60_000 }, async () => {
  const dir = await tempDir('agent-log-follow');
  try {
    const lines = fs.readFileSync(rec('success-parallel-tools'), 'utf8').trim().split('\n');
    const file = path.join(dir, 'claude_code.stdout.log');
    // Half-written: three events and the start of the fourth.
    fs.writeFileSync(file, lines.slice(0, 3).join('\n') + '\n' + (lines[3] ?? '').slice(0, 50));
    const run = following(['agent-log', file, '--follow', '--json']);
    await waitFor(() => run.r.out.includes('"status":"running"'), { timeoutMs: 20_000, message: () => `a first update; out: ${run.r.out} err: ${run.r.err}` });
    assert.equal(run.r.code, undefined, 'still following');
    fs.appendFileSync(file, (lines[3] ?? '').slice(50) + '\n' + lines.slice(4, -1).join('\n') + '\n');
    await waitFor(() => run.r.out.trim().split('\n').some((l) => JSON.parse(l).tool_calls.length === 4), { timeoutMs: 20_000, message: () => `the later tool calls; out: ${run.r.out}` });
    fs.appendFileSync(file, `${lines.at(-1)}\n`);
    const r = await run.done;
    assert.equal(r.code, 0, r.err);
    const docs = r.out.trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(docs.length >= 3, r.out);
    assert.deepEqual([docs[0].status, docs[0].model_turns], ['running', 1]);
    assert.deepEqual([docs.at(-1).status, docs.at(-1).model_turns, docs.at(-1).usage], ['success', 4, { input_tokens: 5600, output_tokens: 150, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }]);
  } finally {
    await removeDir(dir);
  }
});

test('agent-log on the real shapes: two results summed, structured inputs, cache tokens, no false "after 0 retries"', async () => {
  const two = await runShipped(['agent-log', rec('two-results')]);
  assert.equal(two.code, 0, explain(two));
  assert.match(two.out, /4 model turns · 2 tool calls \(1 failed\) · tokens in 5600 out 120\n/);
  assert.match(two.out, /2 result events \(a background task or a resumed turn\): the totals cover all of them/);
  const structured = await runShipped(['agent-log', rec('structured-inputs'), '--json']);
  assert.deepEqual(JSON.parse(structured.out).usage, { input_tokens: 1950, output_tokens: 120, cache_read_input_tokens: 12550, cache_creation_input_tokens: 4450 });
  const text = await runShipped(['agent-log', rec('structured-inputs')]);
  assert.match(text.out, /tokens in 1950 \(\+ cache read 12550, cache creation 4450\) out 120/);
  assert.match(text.out, /last tool: Edit: <cwd>\/calc.py/);
  assert.doesNotMatch(text.out, /object Object/);
  const noRetry = await runShipped(['agent-log', rec('api-500-no-retries')]);
  assert.equal(noRetry.code, 1);
  assert.match(noRetry.out, /API error 500 \(the log reports no retries; attempts it does not report are unknown\)/);
  assert.doesNotMatch(noRetry.out, /after 0 retries/);
  const killed = await runShipped(['agent-log', rec('killed-mid-line'), '--json']);
  assert.equal(killed.code, 0, explain(killed));
  assert.equal(JSON.parse(killed.out).status, 'running');
  const long = await runShipped(['agent-log', rec('long-last-line'), '--json']);
  assert.deepEqual([JSON.parse(long.out).status, JSON.parse(long.out).tool_calls.length], ['success', 1]);
});

test('agent-log --follow on two results: not over at the first, over once the second came and nothing followed', { timeout: 60_000 }, async () => {
  const dir = await tempDir('agent-log-two');
  try {
    const lines = fs.readFileSync(rec('two-results'), 'utf8').trim().split('\n');
    const first = lines.findIndex((l) => l.includes('"result_index":0'));
    const file = path.join(dir, 'claude_code.stdout.log');
    fs.writeFileSync(file, lines.slice(0, first + 1).join('\n') + '\n');
    const run = following(['agent-log', file, '--follow', '--json']);
    await waitFor(() => run.r.out.includes('"results":1'), { timeoutMs: 20_000, message: () => `the first result; out: ${run.r.out} err: ${run.r.err}` });
    fs.appendFileSync(file, lines.slice(first + 1).join('\n') + '\n');
    const r = await run.done;
    assert.equal(r.code, 0, r.err);
    const last = JSON.parse(r.out.trim().split('\n').at(-1) ?? '{}');
    assert.deepEqual([last.status, last.results, last.usage.input_tokens], ['success', 2, 5600]);
  } finally {
    await removeDir(dir);
  }
});

test('agent-log SANDBOX_ID reads the newest runtime\'s claude_code.stdout.log through the provider (local)', async () => {
  const ws = await tempDir('agent-log-sbx');
  const provider = new LocalProvider({ storeDir: localStoreDir(ws), log: new CommandLog() });
  try {
    const tree = path.join(ws, 'tree');
    fs.mkdirSync(tree);
    fs.writeFileSync(path.join(tree, 'README'), 'x\n');
    await provider.buildTemplate({ name: 'tpl-agent-log', baseImage: tree, cpuCount: 1, memoryMb: 256, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
    const sb = await provider.create({ template: 'tpl-agent-log', timeoutMs: 120_000, metadata: {} });
    await sb.writeFile('/workspace_sandbox/blackbox_server_runtime/bbs-old/logs/claude_code.stdout.log', fs.readFileSync(rec('success-parallel-tools'), 'utf8'));
    await sb.writeFile('/workspace_sandbox/blackbox_server_runtime/bbs-new/logs/claude_code.stdout.log', fs.readFileSync(rec('max-turns'), 'utf8'));
    // The newest runtime is the one the agent writes to now (BBS makes one per binding).
    await sb.run('touch -d 2020-01-01 /workspace_sandbox/blackbox_server_runtime/bbs-old', { timeoutMs: 10_000 });
    const r = await runShipped(['agent-log', sb.id, '--provider', 'local', '--workspace', ws, '--json']);
    assert.equal(r.code, 1, explain(r));
    assert.deepEqual([JSON.parse(r.out).status, JSON.parse(r.out).model_turns], ['max_turns', 2]);
    // --follow: a result is in the log, but the CLI's process (Blackbox Server's run/claude_code.pid) still runs, so
    // the stream has not ended; once the process is gone, it has.
    const rt = '/workspace_sandbox/blackbox_server_runtime/bbs-new';
    await sb.run(`mkdir -p ${rt}/run; (setsid sleep 120 >/dev/null 2>&1 &); sleep 0.2; pgrep -n sleep > ${rt}/run/claude_code.pid`, { timeoutMs: 10_000 });
    const run = following(['agent-log', sb.id, '--provider', 'local', '--workspace', ws, '--follow', '--json']);
    await waitFor(() => run.r.out.includes('"status":"max_turns"'), { timeoutMs: 20_000, message: () => `a first update; out: ${run.r.out} err: ${run.r.err}` });
    assert.equal(run.r.code, undefined, 'the CLI still runs: still following');
    // It goes on after its result (a resumed turn, a background task's report): the follow reads it.
    const maxTurns = fs.readFileSync(rec('max-turns'), 'utf8').trim().split('\n');
    const reply = JSON.parse(maxTurns.find((l) => l.startsWith('{"type":"assistant"')) ?? '{}');
    reply.message.id = 'msg_after_the_result';
    await sb.run(`printf '%s\\n' '${JSON.stringify(reply).replace(/'/g, `'\\''`)}' >> ${rt}/logs/claude_code.stdout.log`, { timeoutMs: 10_000 });
    await waitFor(() => run.r.out.includes('"status":"running"'), { timeoutMs: 20_000, message: () => `the reply after the result; out: ${run.r.out} err: ${run.r.err}` });
    assert.equal(run.r.code, undefined);
    await sb.run(`kill $(cat ${rt}/run/claude_code.pid)`, { timeoutMs: 10_000 });
    const done = await run.done;
    // Gone without a result for its last turn: still "running" as the log says, the follow over.
    assert.equal(done.code, 0, done.err);
    assert.deepEqual([JSON.parse(done.out.trim().split('\n').at(-1) ?? '{}').status, JSON.parse(done.out.trim().split('\n').at(-1) ?? '{}').model_turns], ['running', 3]);
    const gone = await runShipped(['agent-log', 'sbx-gone', '--provider', 'local', '--workspace', ws]);
    assert.equal(gone.code, 3);
    assert.match(gone.err, /sbx-gone is neither a file here nor a running local sandbox/);
    await sb.kill();
  } finally {
    await removeDir(ws);
  }
});
