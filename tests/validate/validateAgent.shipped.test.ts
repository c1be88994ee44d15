// Shipped tier: `validate agent` through the built bin/swegym-console, on the fake E2B with the fake Blackbox Server (built from
// upstream's blackbox_server): the agent's turn ends max_steps_exceeded (turn unknown, session desynced), and the
// console still harvests the sandbox's patch and grades it in a fresh evaluation sandbox, as Dressage does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { startFakeBbs } from '../fakes/blackboxServer.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { sampleRow } from '../../src/services/demo/sampleRow.js';
import { MARKER_PREFIX } from '../../src/services/marker/marker.js';
import { explain, runShipped } from '../helpers/shipped.js';

const PATCH = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
const MARKER = { resolved: true, fail_to_pass_success: 1, fail_to_pass_total: 1, pass_to_pass_success: 2, pass_to_pass_total: 2, parsed_tests: 3, eval_returncode: 0, harness: 'swegym', log_parser_repo: 'sample/calc' };

test('shipped: validate agent harvests and grades a max_steps_exceeded turn (fake E2B + fake Blackbox Server)', { timeout: 120_000 }, async () => {
  const ws = await fakeDressageCheckout();
  const template = 'tpl-agent-cli';
  const evalCommands: string[] = [];
  const e2b = await startFakeE2b({
    templates: [template],
    // The evaluation sandbox: the patch is written, decoded and applied, then the harness runs in the background.
    exec: (req) => {
      const c = req.command;
      evalCommands.push(c);
      if (c.startsWith("printf '%s' ") || c.startsWith('base64 -d ')) return { exitCode: 0 };
      if (c.startsWith("cd '/testbed'")) return { chunks: [{ stream: 'stderr', data: 'Checking patch calc.py...\nApplied patch calc.py cleanly.\n' }], exitCode: 0 };
      if (c.startsWith('nohup bash -lc ')) return { chunks: [{ stream: 'stdout', data: '4242\n' }], exitCode: 0 };
      if (c.startsWith('if [ -f ')) return { chunks: [{ stream: 'stdout', data: `__DRESSAGE_SWEGYM_EVAL_DONE__=0\nPASSED test_add\n${MARKER_PREFIX}${JSON.stringify(MARKER)}\n` }], exitCode: 0 };
      return { chunks: [{ stream: 'stderr', data: `unexpected command in the test: ${c}\n` }], exitCode: 97 };
    },
  });
  let logPath = '';
  const bbs = await startFakeBbs({
    executeCmd: (cmd) => {
      if (cmd.includes('git diff --cached --binary')) return { stdout: PATCH, stderr: '', returncode: 0 };
      return { stdout: '', stderr: '', returncode: 0 }; // the row's sanitizer
    },
    backend: async (turn) => {
      // Claude Code's stream-json log in the agent sandbox (the only one alive during the turn).
      logPath = `${String(bbs.binding()?.runtime_dir)}/logs/claude_code.stdout.log`;
      const ev = { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Edit', input: { file_path: '/testbed/calc.py' } }], usage: { input_tokens: 10, output_tokens: 5 } } };
      for (const sb of e2b.sandboxes.values()) if (sb.alive) sb.files.set(logPath, Buffer.from(JSON.stringify(ev) + '\n'));
      return { raise: 'max_steps_exceeded', message: 'Turn exceeded max_steps.', details: { max_steps: turn.maxSteps, attempted_step: (turn.maxSteps ?? 0) + 1 } };
    },
  });
  try {
    const paths = recipePaths(ws);
    const spec = { instance_id: 'sample__calc-1', repo: 'sample/calc', base_commit: 'a'.repeat(40), problem_statement: 'add() subtracts', test_patch: '', test_cmd: 'true', FAIL_TO_PASS: ['test_add'], PASS_TO_PASS: ['test_sub', 'test_mul'], template };
    await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
    await writeFile(paths.trainJsonl, JSON.stringify(sampleRow(spec)) + '\n');
    const r = await runShipped(['validate', 'agent', '--instance', 'sample__calc-1', '--router', 'https://proxy.example.org:8800', '--json', '-w', ws, '--provider', 'e2b'], { env: {
      E2B_API_KEY: e2b.apiKey,
      E2B_API_URL: e2b.url,
      E2B_SANDBOX_URL: e2b.url,
      SWEGYM_SANDBOX_PORT_URL: bbs.url,
      DRESSAGE_BLACKBOX_MAX_STEPS: '40',
    } });
    assert.equal(r.code, 0, explain(r));
    const doc = JSON.parse(r.out) as Record<string, any>;
    assert.equal(doc.ok, true, doc.error);
    assert.equal(doc.agent.earlyStop, 'max_steps_exceeded');
    assert.equal(doc.agent.httpStatus, 429);
    assert.equal(doc.patch, PATCH);
    assert.deepEqual(doc.patchFiles, ['calc.py']);
    assert.equal(doc.marker.resolved, true);
    assert.equal(doc.reward.reward, 1);
    assert.equal(doc.integrity.checked, true);
    assert.equal(doc.integrity.violations.length, 0);
    // What the real server saw: the merged options (DRESSAGE_BLACKBOX_MAX_STEPS → proxy.max_steps), a desynced
    // session after the turn, and the harvest through execute_cmd that the server allows after max_steps_exceeded.
    const reg = bbs.requests.find((x) => x.path === '/v1/rollout/register');
    assert.equal((reg?.body as any).backend_options.proxy.max_steps, 40);
    assert.equal(bbs.session(String(bbs.binding()?.bound_session_id))?.state, 'desynced');
    const harvest = bbs.requests.find((x) => x.path.endsWith('/execute_cmd') && String((x.body as any)?.cmd).includes('git diff'));
    assert.equal(harvest?.status, 200);
    assert.ok(evalCommands.some((c) => c.startsWith("cd '/testbed' && git reset --hard 'aaaa")), evalCommands.join('\n'));
    assert.ok(logPath, 'the agent ran');
    assert.ok([...e2b.sandboxes.values()].every((s) => !s.alive), 'agent and evaluation sandboxes killed');
  } finally {
    await bbs.close();
    await e2b.close();
    await removeDir(ws);
  }
});
