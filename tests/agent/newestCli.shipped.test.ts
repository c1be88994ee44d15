// The stream-json reader on genuine sessions of two CLIs: the pinned Claude Code (the dev dependency) and the newest
// one on npm (fetched into a cache by tests/helpers/claudeCode.ts newestClaudeCode), each run against the scripted
// model server. What the reader says is held to what the server saw: the replies it served (ids, tool calls, usage),
// the tool results the CLI sent back, the errors it answered; so an upgrade that changes a field the reader needs
// shows here before the pin moves, and the recordings' diff between the two CLIs is printed for whoever upgrades.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedRequest } from '../fakes/anthropicServer.js';
import { SCENARIOS, SCRIPTED_MODEL, claudeCodeCli, describeTranscriptDiff, newestAgentSdkTypes, newestClaudeCode, normaliseTranscript, runScenario, type NewestCli } from '../helpers/claudeCode.js';
import { readStreamJson, type AgentStatus } from '../../src/services/agent/streamJson.js';

const pinned = claudeCodeCli();
/** `2.1.332` of `2.1.332 (Claude Code)`. */
const pinnedVersion = pinned?.version.split(' ')[0] ?? '';
const skip = pinned ? false : 'the Claude Code CLI is not installed (node_modules/.bin/claude): npm install brings it';

/** The scenarios run with both CLIs, and how each ends. */
const ENDINGS: Record<string, { status: AgentStatus; denied: string[]; apiErrorStatus: number | null }> = {
  'success-parallel-tools': { status: 'success', denied: [], apiErrorStatus: null },
  'max-turns': { status: 'max_turns', denied: [], apiErrorStatus: null },
  'api-529-exhausted': { status: 'api_error', denied: [], apiErrorStatus: 529 },
  'permission-denied': { status: 'success', denied: ['Bash'], apiErrorStatus: null },
};

/** What the model server saw of the main agent's requests. */
function served(requests: RecordedRequest[]) {
  const agent = requests.filter((r) => r.agent && r.path === '/v1/messages');
  const replies = agent.flatMap((r) => (r.status === 200 && r.reply && !r.reply.cut ? [r.reply] : []));
  const sum = (k: 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens') => replies.reduce((n, r) => n + (r.usage[k] ?? 0), 0);
  return {
    replies: replies.length,
    calls: replies.flatMap((r) => r.toolUses),
    results: new Map(agent.flatMap((r) => r.toolResults.map((t) => [t.tool_use_id, t.is_error] as const))),
    errors: agent.filter((r) => r.status !== 200).length,
    usage: { input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens') },
    cache: { read_input_tokens: sum('cache_read_input_tokens'), creation_input_tokens: sum('cache_creation_input_tokens') },
  };
}

/** The final answer the scenario's script ends with (a success's result text). */
function finalText(name: string): string | undefined {
  const last = SCENARIOS[name]?.script.at(-1);
  return last?.kind === 'reply' ? last.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('') : undefined;
}

async function exact(name: string, cli: string | undefined, label: string): Promise<string> {
  const run = await runScenario(name, cli ? { cli } : {});
  const p = readStreamJson(run.raw);
  const s = served(run.requests);
  const want = ENDINGS[name]!;
  const why = `${label}, ${name}: stderr ${run.stderr.slice(-300)}`;
  assert.equal(p.skipped, 0, why);
  assert.equal(p.status, want.status, why);
  assert.equal(p.model, SCRIPTED_MODEL, why);
  assert.equal(p.modelTurns, s.replies, `${why}: one model turn per reply served`);
  assert.deepEqual(p.toolCalls.map((c) => [c.id, c.name]), s.calls.map((c) => [c.id, c.name]), `${why}: the tool calls served, in order`);
  for (const c of p.toolCalls) if (s.results.has(c.id)) assert.equal(c.is_error, s.results.get(c.id), `${why}: ${c.name} ${c.id} is_error as the CLI reported it to the model`);
  assert.deepEqual(p.usage, s.usage, `${why}: the results' usage is the replies' sum`);
  assert.deepEqual(p.cache, s.cache, why);
  assert.equal(p.usageFinal, true, why);
  assert.equal(p.apiErrorStatus, want.apiErrorStatus, why);
  assert.equal(p.apiRetries.length, want.status === 'api_error' ? s.errors - 1 : s.errors, `${why}: one api_retry per error answered but the last`);
  assert.deepEqual(p.permissionDenials.map((d) => d.tool_name), want.denied, why);
  assert.deepEqual(p.permissionDenials.map((d) => d.tool_use_id), p.toolCalls.filter((c) => want.denied.includes(c.name)).map((c) => c.id), why);
  if (want.status === 'success') assert.equal(p.resultText, finalText(name), why);
  assert.equal(p.results, 1, why);
  return normaliseTranscript(run.raw, run);
}

let newest: NewestCli | undefined;

test('the newest Claude Code CLI on npm: the pinned one, or fetched into the cache (skipped, saying why, when the registry is unreachable)', { skip, timeout: 900_000 }, (t) => {
  newest = newestClaudeCode(pinnedVersion);
  t.diagnostic(newest.kind === 'pinned' ? `${newest.why}: the sessions below run it only` : newest.kind === 'other' ? `pinned ${pinnedVersion}, newest ${newest.version} from ${newest.from}` : `newest not run: ${newest.why}`);
  if (newest.kind === 'unavailable') t.skip(newest.why);
});

for (const name of Object.keys(ENDINGS)) {
  test(`the reader is exact on a genuine session (${name}) of the pinned and of the newest Claude Code`, { skip, timeout: 300_000 }, async (t) => {
    const other = newest?.kind === 'other' ? newest : undefined;
    const [mine, theirs] = await Promise.all([exact(name, undefined, `pinned ${pinnedVersion}`), other ? exact(name, other.bin, `newest ${other.version}`) : undefined]);
    if (!other) {
      t.diagnostic(newest?.kind === 'pinned' ? `${newest.why}; ran it once` : `newest not run: ${newest?.kind === 'unavailable' ? newest.why : 'not looked up'}`);
      return;
    }
    const diff = describeTranscriptDiff(mine, theirs!);
    t.diagnostic(diff.length ? `what ${other.version} prints differently from ${pinnedVersion}:\n${diff.join('\n')}` : `${other.version} prints what ${pinnedVersion} prints`);
  });
}

test('the reader\'s wire types hold against the newest Claude Agent SDK\'s types too (tsc, before the pin moves)', { timeout: 600_000 }, (t) => {
  const root = process.cwd();
  const installed = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@anthropic-ai/claude-agent-sdk/package.json'), 'utf8')).version as string;
  const sdk = newestAgentSdkTypes(installed);
  if (sdk.kind !== 'other') {
    t.diagnostic(sdk.why);
    if (sdk.kind === 'unavailable') t.skip(sdk.why);
    return;
  }
  // tests/agent/sdkTypes.test.ts's compile-time checks, with the SDK's types taken from the newest package and the
  // Anthropic SDK's (BetaMessage, MessageParam) from node_modules as the installed ones are.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-types-'));
  try {
    const modules = path.join(root, 'node_modules');
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      extends: path.join(root, 'tsconfig.json'),
      compilerOptions: { noEmit: true, typeRoots: [path.join(modules, '@types')], paths: { '@anthropic-ai/claude-agent-sdk': [path.join(sdk.dir, 'sdk.d.ts')], '@anthropic-ai/sdk/*': [path.join(modules, '@anthropic-ai/sdk/*')] } },
      files: [path.join(root, 'tests/agent/sdkTypes.test.ts')],
      include: [],
    }));
    const r = spawnSync(path.join(modules, '.bin/tsc'), ['-p', dir, '--listFiles'], { encoding: 'utf8', timeout: 300_000 });
    const files = r.stdout.split('\n');
    const errors = files.filter((l) => /error TS\d+/.test(l));
    assert.deepEqual(errors, [], `the reader reads a field the Claude Agent SDK ${sdk.version} (Claude Code ${sdk.claudeCodeVersion}) does not have, or of another type: upgrading the pin fails the type check\n${r.stderr}`);
    assert.equal(r.status, 0, r.stdout.slice(-2000) + r.stderr);
    // The newest SDK's types were the ones read, with the message types they import (not an unresolved `any`).
    assert.ok(files.includes(path.join(sdk.dir, 'sdk.d.ts')), 'tsc read the newest SDK\'s sdk.d.ts');
    assert.ok(files.some((f) => f.startsWith(path.join(modules, '@anthropic-ai/sdk/resources/beta/messages/'))), 'tsc read BetaMessage from @anthropic-ai/sdk');
    t.diagnostic(`held to @anthropic-ai/claude-agent-sdk ${sdk.version} (Claude Code ${sdk.claudeCodeVersion}), installed ${installed}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
