// Agent validation against the fake Blackbox Server, with real local sandboxes: the "agent" (the fake's backend
// script) edits /testbed inside the sandbox and writes Claude Code's stream-json log; the console long-polls,
// reports live progress, extracts the patch with git exactly as Dressage does and grades it in a fresh sandbox.
// Plus the server's documented 409s and states through the console's BBS client.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import type { Sandbox } from '../../src/services/sandbox/types.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { validateAgent, progressFromStreamJson, type AgentProgress } from '../../src/services/validate/agent.js';
import { BbsClient, BbsError, newSessionId, newTurnId } from '../../src/services/validate/bbs.js';
import { startFakeBbs, type FakeBbs, type FakeBbsOptions, type FakeTurn, type TurnOutcome } from '../fakes/blackboxServer.js';
import { makeTaskRepo, type TaskRepo } from './taskRepo.js';

let root: string;
let provider: LocalProvider;
let task: TaskRepo;
const servers: FakeBbs[] = [];

before(async () => {
  root = await tempDir('swegym-agent-');
  provider = new LocalProvider({ storeDir: path.join(root, 'store'), log: new CommandLog() });
  task = await makeTaskRepo(path.join(root, 'repos'), 'sample__calc-1', 'tpl-agent-calc');
  await provider.buildTemplate({ name: 'tpl-agent-calc', baseImage: task.dir, cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
});

after(async () => {
  for (const s of servers) await s.close();
  await removeDir(root);
});

const streamEvent = (tool: string, command: string, input = 120, output = 30) =>
  JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't1', name: tool, input: { command } }], usage: { input_tokens: input, output_tokens: output } } });

type Agent = (turn: FakeTurn, sandbox: () => Sandbox, logFile: () => string) => Promise<TurnOutcome>;

/** validateAgent with a fake BBS "inside" the sandbox: execute_cmd and the agent act on the real sandbox. */
async function validateWithAgent(agent: Agent, opts: { extra?: Partial<FakeBbsOptions>; onProgress?: (p: AgentProgress) => void } = {}) {
  let sandbox: Sandbox | undefined;
  const getSandbox = () => {
    if (!sandbox) throw new Error('no sandbox yet');
    return sandbox;
  };
  const bbs: FakeBbs = await startFakeBbs({
    ...opts.extra,
    executeCmd: async (cmd, timeout) => {
      const r = await getSandbox().run(cmd, { timeoutMs: (timeout ?? 600) * 1000 });
      return { stdout: r.stdout, stderr: r.stderr, returncode: r.exitCode, timed_out: r.timedOut };
    },
    backend: (turn) => agent(turn, getSandbox, () => `${String(bbs.binding()?.runtime_dir)}/logs/claude_code.stdout.log`),
  });
  servers.push(bbs);
  const progress: AgentProgress[] = [];
  const result = await validateAgent({
    provider,
    row: sampleRow(task.spec),
    router: 'https://proxy.example.org:8800',
    pollWaitSec: 1,
    retry: { baseMs: 10, maxMs: 20 },
    extractRetryDelayMs: 10,
    endpointFor: (sb) => {
      sandbox = sb;
      return bbs.url;
    },
    onProgress: (p) => {
      progress.push(p);
      opts.onProgress?.(p);
    },
  });
  return { result, progress, bbs };
}

async function appendLog(sb: Sandbox, file: string, line: string) {
  const r = await sb.run(`mkdir -p "$(dirname ${file})" && printf '%s\\n' '${line.replace(/'/g, `'\\''`)}' >> ${file}`, { timeoutMs: 10_000 });
  assert.equal(r.exitCode, 0, r.stderr);
}

test('a slow turn: live progress while it runs, patch extracted with git, graded in a fresh sandbox → reward 1', async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const { result, progress, bbs } = await validateWithAgent(
    async (turn, sb, logFile) => {
      assert.equal(turn.messages[0]?.role, 'user');
      assert.match(String(turn.messages[0]?.content), /Integrity rules:/);
      await appendLog(sb(), logFile(), streamEvent('Bash', 'python3 run_tests.py tests/test_calc.py'));
      await released; // inflight until the console has shown live progress
      const fix = await sb().run(`cd /testbed && sed -i 's/a - b/a + b/' calc.py && echo scratch > notes.txt && git add notes.txt && git -c user.email=a@b -c user.name=a commit -qm wip notes.txt`, { timeoutMs: 10_000 });
      assert.equal(fix.exitCode, 0, fix.stderr);
      await appendLog(sb(), logFile(), streamEvent('Edit', 'calc.py', 200, 40));
      return { status: 'committed', outputs: [{ role: 'assistant', content: 'Fixed add.' }], usage: { steps: 2, tool_calls: 2, input_tokens: 320, output_tokens: 70, total_tokens: 390 } };
    },
    { onProgress: (p) => (p.phase === 'running' && p.turnStatus === 'inflight' && p.lastTool?.startsWith('Bash: python3 run_tests.py') ? release() : undefined) },
  );
  assert.equal(result.ok, true, result.error);
  assert.equal(result.reward?.reward, 1);
  assert.equal(result.marker?.resolved, true);
  assert.equal(result.agent.turnStatus, 'committed');
  // The patch includes the edit AND the agent's commit (relative to base), as `git diff --cached <base>` does.
  assert.deepEqual(result.patchFiles.sort(), ['calc.py', 'notes.txt']);
  assert.match(result.patch, /\+ {4}return a \+ b/);
  // Live progress was seen mid-turn, from the stream-json log.
  const mid = progress.find((p) => p.turnStatus === 'inflight' && p.steps >= 1);
  assert.ok(mid, JSON.stringify(progress));
  assert.equal(mid.lastTool, 'Bash: python3 run_tests.py tests/test_calc.py');
  assert.deepEqual([...new Set(progress.map((p) => p.phase))], ['creating', 'registering', 'sanitizing', 'running', 'extracting', 'evaluating', 'done']);
  // Dressage's call sequence, with long-polling on one stable turn id.
  const paths = bbs.requests.map((r) => `${r.method} ${r.path.replace(/bbs-[0-9a-f-]+/, 'SID').replace(/turn-[0-9a-f]+/, 'TID')}`);
  assert.equal(paths[0], 'GET /health');
  assert.equal(paths[1], 'POST /v1/rollout/register');
  assert.equal(paths[2], 'POST /v1/sessions/SID/execute_cmd');
  assert.equal(paths[3], 'POST /v1/sessions/SID/messages');
  assert.ok(paths.filter((p) => p === 'GET /v1/sessions/SID/turns/TID?wait=1').length >= 2);
  assert.match(bbs.executed.at(-1) ?? '', /^cd \/testbed && git add -A && git diff --cached --binary --submodule=diff [0-9a-f]{40} --$/, 'quoted as shlex.quote quotes (safe words bare)');
  const reg = bbs.requests[1]?.body as Record<string, any>;
  assert.equal(reg.router, 'https://proxy.example.org:8800');
  assert.equal(reg.blackbox_type, 'claude_code');
  assert.equal(reg.bound_instance_id, 'sample__calc-1');
  // Dressage's merge: the row's options over its claude_code defaults, with the launcher's max_steps and compaction.
  assert.equal(reg.backend_options.max_turns, 80);
  assert.equal(reg.backend_options.proxy.max_steps, 100);
  assert.equal(reg.backend_options.compaction.auto_compact_pct_override, 87);
  assert.deepEqual(reg.backend_options.model, { id: 'proxy-model', name: 'Dressage Proxy', supported_capabilities: ['thinking', 'adaptive_thinking', 'interleaved_thinking'] });
  assert.deepEqual(reg.server_config, { runtime_root: '/workspace_sandbox/blackbox_server_runtime', backend_timeout: 1800 });
  assert.equal(result.integrity?.checked, true);
  assert.deepEqual(await provider.list({}), [], 'agent and evaluation sandboxes killed');
});

test('a backend error (turn unknown, session desynced) aborts the sample with Dressage’s wording', async () => {
  const { result, bbs } = await validateWithAgent(async () => ({ raise: 'backend_error', message: 'claude exited 1' }));
  assert.equal(result.ok, false);
  assert.equal(result.error, 'blackbox turn backend_error (HTTP 502): Backend request failed: claude exited 1');
  assert.equal([...(bbs.session(String(bbs.binding()?.bound_session_id))?.turns.values() ?? [])][0]?.status, 'unknown');
  assert.equal(result.marker, null);
  assert.deepEqual(await provider.list({}), []);
});

test('max_steps_exceeded is harvestable: the partial patch is still evaluated', async () => {
  const { result, bbs } = await validateWithAgent(async (turn, sb) => {
    await sb().run(`cd /testbed && sed -i 's/a \\* b/a * b  # looked here/' calc.py`, { timeoutMs: 10_000 });
    return { raise: 'max_steps_exceeded', message: 'Turn exceeded max_steps.', details: { max_steps: turn.maxSteps, attempted_step: (turn.maxSteps ?? 0) + 1 } };
  });
  assert.equal(bbs.session(String(bbs.binding()?.bound_session_id))?.state, 'desynced', 'the real server desyncs the session');
  assert.equal(result.agent.earlyStop, 'max_steps_exceeded');
  assert.equal(result.agent.httpStatus, 429);
  assert.equal(result.ok, true, result.error);
  assert.equal(result.reward?.reward, 0);
  assert.equal(result.marker?.failure_reason, 'fail_to_pass_failure');
});

test('context_overflow is harvestable too (HTTP 413): the patch is extracted and graded', async () => {
  const { result, bbs } = await validateWithAgent(async () => ({ raise: 'context_overflow', message: 'Context window exceeded: 70000 > 65536 tokens.', details: { context_window: 65536, input_tokens: 70000 } }));
  assert.equal(result.agent.earlyStop, 'context_overflow');
  assert.equal(result.agent.httpStatus, 413);
  assert.ok(bbs.executed.some((c) => c.includes('git diff --cached')), 'harvested');
  assert.equal(result.marker?.failure_reason, 'empty_generation', 'nothing was edited: graded as Dressage grades an empty patch');
});

test('the integrity scan runs before the reward: a resolved patch whose agent edited a test file scores 0', async () => {
  const { result } = await validateWithAgent(async (_turn, sb, logFile) => {
    await sb().run(`cd /testbed && sed -i 's/a - b/a + b/' calc.py`, { timeoutMs: 10_000 });
    await appendLog(sb(), logFile(), JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Edit', input: { file_path: '/testbed/tests/test_calc.py', old_string: 'x', new_string: 'y' } }] } }));
    await appendLog(sb(), logFile(), streamEvent('Bash', 'curl -sL https://github.com/sample/calc/pull/1.diff'));
    return { status: 'committed', outputs: [{ role: 'assistant', content: 'done' }] };
  });
  assert.equal(result.marker?.resolved, true, 'the harness resolves the patch');
  assert.equal(result.reward?.raw_reward, 1);
  assert.equal(result.reward?.reward, 0, 'Dressage zeroes it');
  assert.equal(result.reward?.failure_reason, 'swegym_integrity_violation');
  assert.ok(result.integrity?.checked);
  assert.deepEqual(result.integrity.violations.map((v) => [v.tool, v.reason]), [['Edit', 'write_tool_to_pytest_sensitive_path'], ['Bash', 'blocked_repo_web_access']]);
});

test('a backend timeout is a semantic failure: no harvest', async () => {
  const { result, bbs } = await validateWithAgent(async () => ({ raise: 'backend_timeout' }));
  assert.equal(result.error, 'blackbox agent backend timeout (HTTP 504): Backend call exceeded backend_timeout.');
  assert.equal(result.patch, '');
  assert.ok(!bbs.executed.some((c) => c.includes('git diff')), 'no patch extraction');
});

test('an empty patch is empty_generation without a second sandbox run', async () => {
  const { result } = await validateWithAgent(async () => ({ status: 'committed', outputs: [] }));
  assert.equal(result.marker?.failure_reason, 'empty_generation');
  assert.equal(result.reward?.reward, 0);
});

test('the fake BBS enforces the documented 409s and states', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const bbs = await startFakeBbs({ backend: async () => (await gate, { status: 'committed', outputs: [] }) });
  servers.push(bbs);
  const c = new BbsClient(bbs.url, { retry: { attempts: 1 } });
  const sid = newSessionId();
  const reg = { blackbox_type: 'claude_code', router: 'https://r.example', bound_session_id: sid, bound_instance_id: 'i-1' };
  assert.equal((await c.register(reg)).status, 'ready');
  assert.equal((await c.register(reg)).binding.bound_session_id, sid, 'same parameters: no-op replay');
  await assert.rejects(c.register({ ...reg, router: 'https://other.example' }), (e: unknown) => e instanceof BbsError && e.status === 409 && /Cannot rebind/.test(e.message));
  const turn = newTurnId();
  const msgs = [{ role: 'user', content: 'hi' }];
  assert.equal((await c.submitTurn(sid, turn, msgs)).idempotent_replay, false);
  assert.equal((await c.submitTurn(sid, turn, msgs)).idempotent_replay, true);
  await assert.rejects(c.submitTurn(sid, turn, [{ role: 'user', content: 'other' }]), (e: unknown) => e instanceof BbsError && e.status === 409 && /different request body/.test(e.message));
  await assert.rejects(c.submitTurn(sid, newTurnId(), msgs), (e: unknown) => e instanceof BbsError && e.status === 409 && /active turn in progress/.test(e.message));
  await assert.rejects(c.executeCmd(sid, 'true'), (e: unknown) => e instanceof BbsError && e.status === 409 && /cannot execute commands/.test(e.message));
  await assert.rejects(c.executeCmd('bbs-other', 'true'), (e: unknown) => e instanceof BbsError && e.status === 409 && e.code === 'bound_session_mismatch');
  const snap = await c.getTurn(sid, turn, 0);
  assert.equal(snap.status, 'inflight', 'wait expired: the current snapshot, never 504');
  release();
  assert.equal((await c.getTurn(sid, turn, 5)).status, 'committed');
  await assert.rejects(
    fetch(`${bbs.url}/v1/sessions/${sid}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: msgs, mode: 'async' }) }).then(async (r) => {
      const j = (await r.json()) as { error: string; message: string };
      throw new BbsError(r.status, j.error, j.message);
    }),
    (e: unknown) => e instanceof BbsError && e.status === 400 && e.message === 'turn_id is required for async submissions.',
  );
  assert.equal((await c.abort(sid)).state, 'aborted');
  assert.equal((await c.abort(sid)).mode, 'noop');
});

test('register is retried on 503 (shutting down) and on refused connections, then fails clearly', async () => {
  const bbs = await startFakeBbs();
  servers.push(bbs);
  bbs.setState('shutting_down');
  const c = new BbsClient(bbs.url, { retry: { attempts: 3, baseMs: 5, maxMs: 10 } });
  await assert.rejects(c.register({ blackbox_type: 'claude_code', router: 'https://r', bound_session_id: newSessionId(), bound_instance_id: 'x' }), (e: unknown) => e instanceof BbsError && e.status === 503);
  assert.equal(bbs.requests.filter((r) => r.path === '/v1/rollout/register').length, 3);
  const dead = new BbsClient('http://127.0.0.1:9', { retry: { attempts: 2, baseMs: 5 } });
  await assert.rejects(dead.register({ blackbox_type: 'claude_code', router: 'https://r', bound_session_id: newSessionId(), bound_instance_id: 'x' }));
});

test('progress from a real Claude Code log: model turns, not content blocks; the result\'s token totals', () => {
  // Claude Code 2.1 prints one assistant event per content block (8 here for 4 replies), each repeating its usage.
  const log = fs.readFileSync(path.resolve('tests/fixtures/claude-code/success-parallel-tools.jsonl'), 'utf8');
  const { claudeCode, ...p } = progressFromStreamJson(log);
  assert.deepEqual(p, { steps: 4, toolCalls: 4, inputTokens: 5600, outputTokens: 150, lastTool: 'Bash: python3 test_calc.py' });
  assert.equal(claudeCode.status, 'success');
  // The synthetic message of an API error is no model turn.
  const failed = progressFromStreamJson(fs.readFileSync(path.resolve('tests/fixtures/claude-code/api-529-exhausted.jsonl'), 'utf8'));
  assert.deepEqual([failed.steps, failed.claudeCode.status, failed.claudeCode.apiErrorStatus], [1, 'api_error', 529]);
});
