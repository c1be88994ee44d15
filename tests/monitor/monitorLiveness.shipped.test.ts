// Shipped tier: `monitor RUN --once --json` of the built console says whether the run is alive (the `liveness`
// field) from the run registry: a launcher killed with SIGKILL is crashed, one that exited 0 is finished, one that
// exited 1 is exited (1); and a file that is not a run log is refused with exit 3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { registerRun, runLogText, startWriter } from './runFixtures.js';

type Doc = { run: { phase: string }; samples: { total: number }; liveness: { state: string; label: string; exit_code: number | null; last_line_ago_s: number | null; why: string } };

// No Ray dashboard is asked for a job here (a closed port), whatever runs on this machine.
const ENV = { RAY_ADDRESS: 'http://127.0.0.1:1' };

async function monitorOnce(ws: string, run: string) {
  const r = await runShipped(['monitor', run, '--once', '--json', '--workspace', ws], { env: ENV });
  assert.equal(r.code, 0, explain(r));
  return JSON.parse(r.out) as Doc;
}

test('shipped: monitor --once --json of a registry run whose launcher was killed reads crashed', { timeout: 120_000 }, async () => {
  const ws = await tempDir('swegym-shipped-liveness-');
  const writer = startWriter();
  try {
    const log = path.join(ws, 'launch.log');
    await writeFile(log, runLogText(3));
    await registerRun(recipePaths(ws), { name: 'swegym-test-20261201-100000', logFile: log, writer });
    const alive = await monitorOnce(ws, 'swegym-test-20261201-100000');
    assert.equal(alive.liveness.state, 'running', alive.liveness.why);
    process.kill(-writer.pid!, 'SIGKILL');
    await once(writer, 'exit');
    const doc = await monitorOnce(ws, 'swegym-test-20261201-100000');
    assert.deepEqual([doc.liveness.state, doc.liveness.label, doc.liveness.exit_code], ['crashed', 'crashed', null]);
    assert.match(doc.liveness.why, /launcher \(pid \d+\) is gone and left no exit code/);
    // The log itself still says generating: the registry's word wins, and the old fields are unchanged.
    assert.equal(doc.run.phase, 'rollout 3 generating 0/128');
    assert.equal(doc.samples.total, 384);
    assert.ok(doc.liveness.last_line_ago_s !== null && doc.liveness.last_line_ago_s >= 0);
  } finally {
    try {
      process.kill(-writer.pid!, 'SIGKILL');
    } catch {}
    await removeDir(ws);
  }
});

test('shipped: a run whose launcher exited 0 reads finished; one that exited 1 reads exited (1)', { timeout: 120_000 }, async () => {
  const ws = await tempDir('swegym-shipped-liveness-');
  try {
    const log = path.join(ws, 'launch.log');
    await writeFile(log, runLogText(2));
    await registerRun(recipePaths(ws), { name: 'done-20261201-090000', logFile: log, exitCode: 0 });
    await registerRun(recipePaths(ws), { name: 'failed-20261201-080000', logFile: log, exitCode: 1 });
    const done = await monitorOnce(ws, 'done-20261201-090000');
    assert.deepEqual([done.liveness.state, done.liveness.exit_code], ['finished', 0]);
    const failed = await monitorOnce(ws, 'failed-20261201-080000');
    assert.deepEqual([failed.liveness.state, failed.liveness.label, failed.liveness.exit_code], ['exited', 'exited (1)', 1]);
    // The text form says the same, first.
    const text = await runShipped(['monitor', 'failed-20261201-080000', '--once', '--workspace', ws], { env: ENV });
    assert.equal(text.code, 0, explain(text));
    assert.match(text.out, /^state: exited \(1\) · last line (<5|\d+) s ago · the launcher exited with code 1/m);
  } finally {
    await removeDir(ws);
  }
});

test('shipped: monitor on a file that is not a run log says so and exits 3', { timeout: 60_000 }, async () => {
  const ws = await tempDir('swegym-shipped-liveness-');
  try {
    const file = path.join(ws, 'garbage.jsonl');
    await writeFile(file, '{"instance_id": "x", "problem_statement": "y"}\n'.repeat(50));
    for (const args of [['--once'], ['--once', '--json'], []]) {
      const r = await runShipped(['monitor', file, ...args, '--workspace', ws], { env: ENV });
      assert.equal(r.code, 3, explain(r));
      assert.match(r.err, /garbage\.jsonl is not a run log: none of its first 50 line\(s\)/);
      assert.match(r.err, /fix: +Point monitor at the launcher output/);
      // No run document; with --json the one error document every failing --json command prints.
      if (args.includes('--json')) {
        const doc = JSON.parse(r.out) as { ok: boolean; exitCode: number; error: { what: string } };
        assert.equal(doc.ok, false);
        assert.equal(doc.exitCode, 3);
        assert.match(doc.error.what, /is not a run log/);
      } else assert.equal(r.out, '', 'no document for a file that is not a run');
    }
  } finally {
    await removeDir(ws);
  }
});
