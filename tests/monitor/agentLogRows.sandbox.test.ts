// The sandboxes panel's rows and the drill-in read an agent sandbox's Claude Code log whole, incrementally, with
// the reader agent-log uses: for every real recording (tests/fixtures/claude-code) put in a (local) agent sandbox,
// what the rows and the drill-in know equals `agent-log --json` of the BUILT binary on the same file. Before, the
// rows read the last 32 KiB and the drill-in 64 KiB: a ~300 KB last line read as running with no tools, a 2 MB log
// killed mid-line as nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { localStoreDir } from '../../src/services/sandbox/index.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { RealRunSources } from '../../src/services/monitor/sources/real.js';
import { endingOf, parseAgentProgress, RUNTIME_ROOT } from '../../src/services/monitor/sandboxes.js';
import { progressJson, readStreamJson } from '../../src/services/agent/streamJson.js';
import { agentCounts } from '../../src/services/monitor/snapshotRows.js';

const DIR = path.resolve('tests/fixtures/claude-code');
const NAMES = fs.readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).map((f) => f.slice(0, -'.jsonl'.length)).sort();

test('rows and drill-in equal agent-log --json on every recording, read through a sandbox from where the last read ended', { timeout: 170_000 }, async () => {
  const ws = await tempDir('agent-log-rows');
  const provider = new LocalProvider({ storeDir: localStoreDir(ws), log: new CommandLog() });
  try {
    const tree = path.join(ws, 'tree');
    fs.mkdirSync(tree);
    fs.writeFileSync(path.join(tree, 'README'), 'x\n');
    await provider.buildTemplate({ name: 'tpl-rows', baseImage: tree, cpuCount: 1, memoryMb: 256, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
    const sb = await provider.create({ template: 'tpl-rows', timeoutMs: 170_000, metadata: { paddock_mode: 'blackbox', trajectory_id: 'bbs-rows-test' } });
    const sources = new RealRunSources({ paths: recipePaths(ws), target: { name: 't', source: 'log-file', logFile: undefined, runDir: undefined, runName: undefined, checkpointDir: undefined, proxyUrl: undefined }, provider: async () => provider, rayDashboardUrl: 'http://127.0.0.1:1' });
    let year = 2001;
    for (const name of NAMES) {
      const file = path.join(DIR, `${name}.jsonl`);
      const expected = JSON.parse((await runShipped(['agent-log', file, '--json'])).out);
      // A new Blackbox Server runtime per recording (the newest is the one read): the cursor starts again.
      const runtime = `${RUNTIME_ROOT}/bbs-${name}`;
      await sb.writeFile(`${runtime}/logs/claude_code.stdout.log`, fs.readFileSync(file));
      await sb.run(`touch -d ${year++}-01-01 ${runtime}`, { timeoutMs: 10_000 });
      const snap = await sources.listSandboxes(20);
      assert.equal(snap?.rows.length, 1, name);
      await sources.refreshAgentProgress();
      const row = (await sources.listSandboxes(20))?.rows[0];
      assert.equal(row?.agentStatus, expected.status, `${name}: row status`);
      assert.equal(row?.toolCalls, expected.tool_calls.length, `${name}: row tool calls`);
      const drill = await sources.agentProgress(sb.id, {});
      assert.ok(drill.agent, name);
      assert.deepEqual(progressJson(drill.agent), expected, `${name}: drill-in = agent-log --json`);
      assert.equal(row?.ending, endingOf(drill.agent), name);
      const last = drill.agent.toolCalls.at(-1);
      assert.equal(row?.lastTool, last ? `${last.name}(${last.arg.slice(0, 80)})` : undefined, name);
      // The agent-log text summary's counts line is the drill-in's, word for word.
      const text = await runShipped(['agent-log', file]);
      assert.ok(text.out.includes(agentCounts(drill.agent)), `${name}: ${agentCounts(drill.agent)}\n${explain(text)}`);
    }
    // The log grows: the next read takes only the new bytes, and a line cut at the end waits for its newline.
    const grow = `${RUNTIME_ROOT}/bbs-zz-growing/logs/claude_code.stdout.log`;
    const lines = fs.readFileSync(path.join(DIR, 'two-results.jsonl'), 'utf8').trim().split('\n');
    await sb.writeFile(grow, lines.slice(0, 6).join('\n') + '\n' + (lines[6] ?? '').slice(0, 100));
    const a = await sources.agentProgress(sb.id, {});
    assert.deepEqual([a.agent?.status, a.agent?.toolCalls.length, a.agent?.skipped], ['running', 1, 0]);
    await sb.run(`printf '%s\\n' ${shq((lines[6] ?? '').slice(100))} >> ${grow}; printf '%s\\n' ${lines.slice(7).map(shq).join(' ')} >> ${grow}`, { timeoutMs: 10_000 });
    const b = await sources.agentProgress(sb.id, {});
    assert.deepEqual(progressJson(b.agent!), progressJson(readStreamJson(lines.join('\n') + '\n')));
    assert.equal(b.agent?.results, 2);
    await sb.kill();
  } finally {
    await removeDir(ws);
  }
});

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

test('what the old tail windows read of the long-line and killed logs (why the rows must read the whole log)', () => {
  const long = fs.readFileSync(path.join(DIR, 'long-last-line.jsonl'), 'utf8');
  const tail32 = parseAgentProgress(`STEPS=1\n${long.slice(-32768)}`);
  assert.deepEqual([tail32.agent?.status, tail32.agent?.toolCalls.length], ['running', 0]);
  assert.deepEqual([readStreamJson(long).status, readStreamJson(long).toolCalls.length], ['success', 1]);
});
