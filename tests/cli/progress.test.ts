// The headless progress reporter: on a terminal one bar line that every other stderr write clears first and that
// is gone at the end; without a terminal plain `N/M · ETA` lines, at the first result and then periodically.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { CommandContext } from '../../src/cli/context.js';
import { progressReporter } from '../../src/cli/progress.js';
import { waitFor } from '../helpers/wait.js';

function stderrSink(tty: boolean) {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, cb) { text += String(chunk); cb(); } }) as Writable & { isTTY?: boolean; columns?: number };
  stream.isTTY = tty;
  stream.columns = 80;
  const ctx = { stderr: stream, env: {} } as unknown as CommandContext;
  return { ctx, stream, text: () => text };
}

const CLEAR = '\r\u001b[2K';

test('terminal: the bar stays under the job lines and under foreign writes, and is cleared at the end', () => {
  const s = stderrSink(true);
  const r = progressReporter(s.ctx, 'validating');
  const startedAt = Date.now() - 10_000;
  r.update({ done: 0, total: 4, startedAt });
  assert.match(s.text(), /^\r\u001b\[2Kvalidating \[░+\] 0\/4$/);
  r.note('[1/4] ok   a');
  r.update({ done: 1, total: 4, startedAt });
  s.stream.write('retry: HTTP 429, waiting 2s\n'); // a provider's note, not through the reporter
  r.end();
  const out = s.text();
  // Every line of text starts on a cleared line: nothing is appended to the bar.
  for (const line of ['[1/4] ok   a\n', 'retry: HTTP 429, waiting 2s\n']) assert.ok(out.includes(`${CLEAR}${line}`), JSON.stringify(out));
  assert.match(out, /validating \[█+░+\] 1\/4 · ETA 30s/);
  assert.ok(out.endsWith(CLEAR), 'the bar is cleared at the end');
  const clears = out.split(CLEAR).length;
  s.stream.write('summary\n');
  assert.equal(s.text(), `${out}summary\n`, 'after end() writes go straight through');
  assert.equal(s.text().split(CLEAR).length, clears);
  assert.equal(Object.prototype.hasOwnProperty.call(s.stream, 'write'), false, 'the stream is as it was');
});

test('no terminal: a plain line at the first result, then one per period, none once done', async () => {
  const s = stderrSink(false);
  const r = progressReporter(s.ctx, 'smoking', { everyMs: 200 });
  const startedAt = Date.now() - 4000;
  r.update({ done: 0, total: 3, startedAt });
  assert.equal(s.text(), '', 'nothing before a result (no rate yet)');
  r.update({ done: 1, total: 3, startedAt });
  r.update({ done: 1, total: 3, startedAt });
  assert.match(s.text(), /^smoking 1\/3 · ETA [89]s\n$/);
  await waitFor(() => s.text().split('\n').length > 2, { timeoutMs: 5000 });
  assert.match(s.text().split('\n')[1]!, /^smoking 1\/3 · ETA \d+s$/);
  const before = s.text();
  r.update({ done: 3, total: 3, startedAt });
  r.end();
  assert.equal(s.text(), before, 'no line once nothing remains (the summary follows)');
  assert.doesNotMatch(s.text(), /\r|\u001b/);
});
