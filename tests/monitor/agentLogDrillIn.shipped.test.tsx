// The dashboard's sandbox drill-in on real Claude Code recordings (ink-testing-library): the pinned counts line is
// what `agent-log` (the built binary) prints for the same file, whatever the log's shape — two results, a ~300 KB
// last line, a 2 MB log killed mid-line, structured tool inputs with prompt-cache tokens, an API error with no
// api_retry event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { runShipped } from '../helpers/shipped.js';
import { setup, teardown } from './dashboardSetup.js';

const rec = (name: string) => path.resolve('tests/fixtures/claude-code', `${name}.jsonl`);
const flat = (frame: string) => frame.replace(/\s+/g, ' ');

const CASES: [string, RegExp][] = [
  ['two-results', /✓ Claude Code finished: success/],
  ['long-last-line', /✓ Claude Code finished: success/],
  ['killed-mid-line', /· Claude Code running/],
  ['structured-inputs', /TodoWrite\(3 todos, 1 done; doing: Fix add\(\)\)/],
  ['api-500-no-retries', /✗ Claude Code ended: API error 500 \(the log reports no retries; attempts it does not report are unknown\)/],
];

for (const [name, headline] of CASES) {
  test(`drill-in on ${name}: agent-log's counts, read whole`, { timeout: 60_000 }, async () => {
    const summary = (await runShipped(['agent-log', rec(name)])).out;
    const counts = /^ {2}(\d+ model turns? .*)$/m.exec(summary)?.[1];
    assert.ok(counts, summary);
    const x = await setup({ width: 200, height: 50 }, { agentLog: `STEPS=3\n${fs.readFileSync(rec(name), 'utf8')}` });
    try {
      await waitFor(() => (x.services.monitor.store.getState().snapshot?.sandboxes?.agents ?? 0) === 1, { timeoutMs: 30_000, message: () => x.ui.frame() });
      for (let i = 0; i < 8 && !x.ui.frame().includes('▸ Sandboxes'); i++) await x.ui.press(KEYS.tab);
      await x.ui.waitForText('▸ Sandboxes');
      await x.ui.press(KEYS.enter);
      await waitFor(() => flat(x.ui.frame()).includes(counts), { timeoutMs: 30_000, message: () => `${counts}\n${x.ui.frame()}` });
      assert.match(flat(x.ui.frame()), headline);
      assert.doesNotMatch(x.ui.frame(), /object Object|after 0 retries/);
    } finally {
      await teardown(x);
    }
  });
}
