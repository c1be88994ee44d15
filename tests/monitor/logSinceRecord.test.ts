// `monitor --once --json`'s log_since_record: whether the log read is still the one the run's launch record knows.
// Replaced: another inode than the one the launcher got (kept in the record). Truncated: shorter than
// the console's progress scan had read (status.json). A log opened as a file has no record: not checked.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { monitorCommand } from '../../src/cli/commands/monitor.js';
import type { CommandContext } from '../../src/cli/context.js';
import { logSinceRecord } from '../../src/services/monitor/logSinceRecord.js';
import { runDir, writeRun } from '../../src/services/train/registry.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { registerRun, runLogText } from './runFixtures.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

/** A finished registry run whose record holds its log's inode, as the launcher writes it. */
async function launchedRun() {
  const ws = await tempDir('swegym-log-since-');
  dirs.push(ws);
  const paths = recipePaths(ws);
  const log = path.join(ws, 'launcher.log');
  await writeFile(log, runLogText(2));
  const record = await registerRun(paths, { name: 'swegym-test-20260101T000000Z', logFile: log, exitCode: 0 });
  const st = await stat(log);
  await writeRun(paths, { ...record, logInode: st.ino, logDevice: st.dev });
  return { ws, paths, log, name: record.name };
}

function onceJson(ws: string, name: string) {
  let stdout = '';
  const out = new PassThrough();
  out.on('data', (d) => (stdout += d));
  const ctx: CommandContext = {
    command: ['monitor'],
    positionals: [name],
    options: { once: true },
    global: { workspace: ws, provider: 'e2b', debug: false, color: false, json: true },
    paths: recipePaths(ws),
    stdout: out,
    stderr: new PassThrough(),
    env: { RAY_ADDRESS: 'http://127.0.0.1:1' },
    signal: new AbortController().signal,
  };
  return { run: () => monitorCommand(ctx), doc: () => JSON.parse(stdout) };
}

test('the log the record knows: not replaced; truncation unknown before the console has read it', async () => {
  const r = await launchedRun();
  const v = await logSinceRecord(r.paths, { registryName: r.name, logFile: r.log });
  assert.deepEqual([v.checked, v.record, v.replaced, v.truncated], [true, r.name, false, null], v.why);
  assert.match(v.why, /the console has not read this log before/);
});

test('a file put over the log by mv reads replaced, in --once --json too', async () => {
  const r = await launchedRun();
  await writeFile(`${r.log}.new`, runLogText(3));
  await rename(`${r.log}.new`, r.log);
  const v = await logSinceRecord(r.paths, { registryName: r.name, logFile: r.log });
  assert.equal(v.replaced, true, v.why);
  assert.match(v.why, /another file is at the path \(inode \d+, the launcher's was \d+\)/);
  const c = onceJson(r.ws, r.name);
  assert.equal(await c.run(), 0);
  assert.deepEqual(c.doc().log_since_record, v);
});

test('a log shorter than the console had read reads truncated; one as long says it cannot tell', async () => {
  const r = await launchedRun();
  const size = Buffer.byteLength(runLogText(2));
  await writeFile(path.join(runDir(r.paths, r.name), 'status.json'), JSON.stringify({ status: 'running', progressScanOffset: size }));
  const same = await logSinceRecord(r.paths, { registryName: r.name, logFile: r.log });
  assert.equal(same.truncated, null);
  assert.match(same.why, new RegExp(`not shorter than the ${size} bytes the console had read`));
  await writeFile(r.log, runLogText(1)); // truncated and written again, in place (same inode)
  const cut = await logSinceRecord(r.paths, { registryName: r.name, logFile: r.log });
  assert.deepEqual([cut.truncated, cut.replaced], [true, false], cut.why);
  assert.match(cut.why, new RegExp(`holds ${Buffer.byteLength(runLogText(1))} bytes, the console had read ${size}`));
});

test('a record without the log\'s inode (an older console launched it) cannot tell replaced', async () => {
  const r = await launchedRun();
  const { readRun } = await import('../../src/services/train/registry.js');
  const { logInode: _i, logDevice: _d, ...older } = (await readRun(r.paths, r.name))!;
  await writeRun(r.paths, older);
  const v = await logSinceRecord(r.paths, { registryName: r.name, logFile: r.log });
  assert.deepEqual([v.checked, v.replaced], [true, null]);
  assert.match(v.why, /does not hold the log's inode/);
});

test('a log opened as a file has no record to compare with', async () => {
  const r = await launchedRun();
  const v = await logSinceRecord(r.paths, { logFile: r.log });
  assert.deepEqual([v.checked, v.replaced, v.truncated], [false, null, null]);
  assert.match(v.why, /no launch record/);
});
