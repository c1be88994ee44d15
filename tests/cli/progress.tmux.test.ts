// Long work shows its progress headless, through the built binary: on a terminal a bar with count and ETA on
// stderr while the job runs (gone when it ends); without one (a pipe, a log) plain `N/M · ETA` lines. Neither ever
// reaches the --json document on stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BIN, builtMissing } from '../helpers/builtCli.js';
import { runShipped, explain } from '../helpers/shipped.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { writeHarnessTasks } from '../validate/harnessWorkspace.js';

const built = !builtMissing();

test('validate harness without a terminal: a plain progress line on stderr, the --json document alone on stdout', { timeout: 120_000, skip: built ? false : 'run npm run build first' }, async () => {
  const ws = await fakeDressageCheckout();
  try {
    await writeHarnessTasks(recipePaths(ws), 'progress-pipe');
    const r = await runShipped(['validate', 'harness', '--all', '--json', '-w', ws, '--provider', 'local', '--concurrency', '1']);
    assert.equal(r.code, 1, explain(r));
    assert.equal(JSON.parse(r.out).results.length, 2, 'stdout is exactly one JSON document');
    // The first result gives the rate: `validating 1/2 · ETA 4s` (one task of two left; `1m` when a loaded machine
    // took a minute over the first).
    assert.match(r.err, /^validating 1\/2 · ETA \d+[smhd][\dmh]*$/m, explain(r));
    assert.doesNotMatch(r.err, /\r|\u001b\[2K|█/, 'no terminal control codes without a terminal');
  } finally {
    await removeDir(ws);
  }
});

test('validate harness on a terminal: a bar with count and ETA on stderr while it runs, cleared at the end', { timeout: 120_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await fakeDressageCheckout();
  const t = new TmuxSession('progress');
  try {
    await writeHarnessTasks(recipePaths(ws), 'progress-tty');
    const out = path.join(ws, 'out.json');
    const cmd = `'${process.execPath}' '${BIN}' validate harness --all --json -w '${ws}' --provider local --concurrency 1 > '${out}'`;
    t.start(['sh', '-c', cmd], { cols: 100, rows: 20, env: { NO_COLOR: '1' } });
    // While the first task runs: the bar at 0/2 (no ETA before a rate); after it, 1/2 with an ETA.
    await t.waitForText(/^validating \[░+\] 0\/2$/m, 60_000);
    const mid = await t.waitForText(/^validating \[█+░+\] 1\/2 · ETA \d+[smhd][\dmh]*$/m, 60_000);
    assert.match(mid, /^\[1\/2\] (ok {2}|FAIL) sample__calc-\d/m, 'the job\'s own lines stay above the bar');
    assert.equal(await t.exitCode(60_000), 1);
    const end = t.screen();
    assert.doesNotMatch(end, /^validating \[/m, 'the bar is gone once the job ended');
    assert.ok(existsSync(out));
    const doc = await readFile(out, 'utf8');
    assert.equal(JSON.parse(doc).results.length, 2);
    assert.doesNotMatch(doc, /█|validating/);
  } finally {
    t.kill();
    await removeDir(ws);
  }
});
