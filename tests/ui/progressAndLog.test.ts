// Long work reads right: a bar, count and ETA; per-image build logs that outlive the console; a command log that
// tells a teardown from a failure, says `not found` for a missing tool and keeps a multi-line script on one row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { CommandLog, describeOutcome, formatArgvLine } from '../../src/services/process/commandLog.js';
import { runProcess } from '../../src/services/process/run.js';
import { BuildLogs, buildLogPath, readBuildLog } from '../../src/services/templates/buildLogs.js';
import { etaMs, progressLine } from '../../src/ui/progress.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

test('progress line: bar, count and an ETA from the rate so far', () => {
  assert.equal(progressLine(5, 10, undefined, 10), '[█████░░░░░] 5/10');
  assert.equal(etaMs(0, 0, 10, 1000), undefined, 'no ETA before anything finished');
  assert.equal(etaMs(0, 2, 8, 60_000), 240_000);
  assert.match(progressLine(2, 10, 240_000, 10), /\[██░░░░░░░░\] 2\/10 · ETA 4m$/);
});

test('command log: missing tool says not found, a cancelled process is stopped (expected), failures keep their code', async () => {
  const log = new CommandLog();
  await runProcess('swegym-no-such-tool-xyz', ['--version'], { cwd: process.cwd(), log, timeoutMs: 5000 });
  const ctl = new AbortController();
  // Cancelled once it is running (its first line says so), not after a guessed delay.
  await runProcess('sh', ['-c', 'echo running; exec sleep 30'], { cwd: process.cwd(), log, timeoutMs: 20_000, signal: ctl.signal, onLine: () => ctl.abort() });
  await runProcess('sh', ['-c', 'exit 3'], { cwd: process.cwd(), log, timeoutMs: 5000 });
  const [missing, cancelled, failed] = log.entries();
  assert.equal(describeOutcome(missing!), 'not found');
  assert.equal(describeOutcome(cancelled!), 'stopped');
  assert.equal(describeOutcome(failed!), 'exit 3');
  assert.equal(failed!.status, 'failed');
});

test('a multi-line python3 -c stays on one command-log row', () => {
  const line = formatArgvLine(['python3', '-c', 'import sys\nprint(1)\n  print(2)']);
  assert.equal(line, 'python3 -c import sys ⏎ print(1) ⏎ print(2)');
  assert.ok(!line.includes('\n'));
});

test('build logs persist per image under .swegym-console/build-logs, rewritten by the next build', async () => {
  const dir = await tempDir();
  try {
    const logs = new BuildLogs(dir);
    logs.start('org/img:tag');
    logs.append('org/img:tag', 'step 1');
    logs.append('org/img:tag', 'step 2');
    await logs.endAll();
    assert.match(buildLogPath(dir, 'org/img:tag'), /build-logs\/org_img_tag\.log$/);
    assert.equal(await readFile(buildLogPath(dir, 'org/img:tag'), 'utf8'), 'step 1\nstep 2\n');
    assert.deepEqual(await readBuildLog(dir, 'org/img:tag'), ['step 1', 'step 2']);
    logs.start('org/img:tag');
    logs.append('org/img:tag', 'again');
    await logs.endAll();
    assert.deepEqual(await readBuildLog(dir, 'org/img:tag'), ['again']);
    assert.equal(await readBuildLog(dir, 'other'), undefined);
  } finally {
    await removeDir(dir);
  }
});

test('OSC 52 only on a terminal that can take it', async () => {
  const { supportsOsc52, osc52 } = await import('../../src/ui/clipboard.js');
  assert.equal(supportsOsc52({ TERM: 'xterm-256color' }, true), true);
  assert.equal(supportsOsc52({ TERM: 'xterm-256color' }, false), false);
  assert.equal(supportsOsc52({ TERM: 'dumb' }, true), false);
  assert.equal(osc52('hi'), '\u001B]52;c;aGk=\u0007');
});
