// A stand-in for the local provider in fast tests of the `validate agent` job: its sandboxes answer Claude Code's
// command by printing a recorded stream-json transcript (tests/fixtures/claude-code/) line by line, the patch
// extraction with a fixed patch, and the row's after_agent command with a resolved marker; every other step (the
// sanitizer, writing and applying the patch) succeeds. What it stands for is tested for real in
// tests/validate/agentScreen.sandbox.test.tsx and tests/cli/console.tmux.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandResult, Sandbox, SandboxProvider } from '../../src/services/sandbox/types.js';
import { MARKER_PREFIX } from '../../src/services/marker/marker.js';
import type { DressageRow } from '../../src/services/convert/schema.js';

export const REPLAY_PATCH = 'diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n';

export const RESOLVED_MARKER = { resolved: true, fail_to_pass_success: 2, fail_to_pass_total: 2, pass_to_pass_success: 3, pass_to_pass_total: 3, parsed_tests: 5, eval_returncode: 0, harness: 'swegym', log_parser_repo: 'sample-org/calc' };

export function transcript(name: string): string {
  return readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'claude-code', `${name}.jsonl`), 'utf8');
}

export function replayAgentProvider(row: DressageRow, log: string): SandboxProvider {
  let seq = 0;
  const ok = (stdout = ''): CommandResult => ({ exitCode: 0, stdout, stderr: '', timedOut: false });
  const after = row.metadata.blackbox_execute_cmds.after_agent[0]?.cmd;
  const provider: Partial<SandboxProvider> = {
    name: 'local',
    async create(opts) {
      const written = new Map<string, string>();
      const sandbox: Sandbox = {
        id: `replay${++seq}`,
        provider: 'local',
        template: opts.template,
        async run(command, o) {
          if (command.includes('--output-format stream-json')) {
            for (const line of log.split('\n').filter(Boolean)) o.onStdout?.(line);
            written.set('log', log);
            return ok(log);
          }
          if (command.includes('git diff --cached')) return ok(REPLAY_PATCH);
          if (after && command === after) return ok(`PASSED tests\n${MARKER_PREFIX}${JSON.stringify(RESOLVED_MARKER)}\n`);
          return ok();
        },
        async readFile(file) {
          if (file.endsWith('claude_code.stdout.log')) return written.get('log') ?? '';
          throw new Error(`no such file ${file}`);
        },
        async writeFile() {},
        async health() {
          return { ok: true, status: 200, body: '', json: {} } as Awaited<ReturnType<Sandbox['health']>>;
        },
        async setTimeout() {},
        async kill() {
          return true;
        },
      };
      return sandbox;
    },
  };
  return provider as SandboxProvider;
}
