// The headless commands' conventions, through the built binary: a failing --json command prints one error document
// on stdout, the same shape for every command (a command line that does not parse too); a closed pipe keeps the
// command's exit code (`doctor | head -1` says 3, not 0); a --json document is compact when piped, indented with
// --pretty and on a terminal (tmux, 80×24 and 120×40), for `doctor` and `monitor --once` alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BIN, builtMissing, runConsole } from '../helpers/builtCli.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { removeDir, tempDir } from '../helpers/workspace.js';

const skip = builtMissing();
const NO_KEYS = { E2B_API_KEY: '', DRESSAGE_E2B_API_KEY: '' };

function assertErrorDocument(out: string, code: number | null, where: string): void {
  const lines = out.trim().split('\n');
  assert.equal(lines.length, 1, `${where}: one compact document when piped:\n${out}`);
  const doc = JSON.parse(out) as { ok: unknown; error: { what: unknown; cause: unknown; fix: unknown }; exitCode: unknown };
  assert.deepEqual(Object.keys(doc).sort(), ['error', 'exitCode', 'ok'], where);
  assert.equal(doc.ok, false, where);
  assert.deepEqual(Object.keys(doc.error).sort(), ['cause', 'fix', 'what'], where);
  assert.equal(typeof doc.error.what, 'string', where);
  assert.ok((doc.error.what as string).length > 0, where);
  for (const k of ['cause', 'fix'] as const) assert.ok(doc.error[k] === null || typeof doc.error[k] === 'string', `${where}: ${k}`);
  assert.equal(doc.exitCode, code, `${where}: the document's exitCode is the process's`);
}

test('a failing --json command prints one error document of the same shape, whatever the command', { timeout: 120_000, skip }, async () => {
  const ws = await tempDir('swegym-json-errors-');
  try {
    const cases: string[][] = [
      ['sandboxes', 'list', '--provider', 'e2b'],
      ['data', 'show'],
      ['monitor', '--once'],
      ['train', 'status', 'no-such-run'],
      ['templates', 'status', '--no-such-flag'],
    ];
    for (const args of cases) {
      const r = await runConsole(['--workspace', ws, ...args, '--json'], NO_KEYS);
      assert.notEqual(r.code, 0, `${args.join(' ')} failed`);
      assertErrorDocument(r.out, r.code, args.join(' '));
      assert.match(r.err, /\S/, `${args.join(' ')}: the person-readable error stays on stderr`);
    }
  } finally {
    await removeDir(ws);
  }
});

test('a closed pipe keeps the exit code: doctor | head -1 exits 3 as doctor does', { timeout: 60_000, skip }, async () => {
  const whole = await runConsole(['doctor', '--workspace', '/nonexistent-swegym']);
  assert.equal(whole.code, 3);
  const child = spawn(process.execPath, [BIN, 'doctor', '--workspace', '/nonexistent-swegym'], { stdio: ['ignore', 'pipe', 'ignore'] });
  // The reader goes away before the first line: every write meets EPIPE.
  child.stdout.destroy();
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  assert.equal(code, 3);
});

test('--json is compact when piped and indented with --pretty: doctor and monitor --once alike', { timeout: 120_000, skip }, async () => {
  const ws = await tempDir('swegym-json-pretty-');
  try {
    const sim = path.join(ws, 'sim');
    assert.equal((await runConsole(['simulate', sim, '--rollouts', '2', '--prompts', '2', '--samples-per-prompt', '2'])).code, 0);
    for (const args of [
      ['doctor', '--workspace', ws],
      ['--workspace', ws, 'monitor', sim, '--once'],
    ]) {
      const piped = await runConsole([...args, '--json']);
      assert.equal(piped.out.trim().split('\n').length, 1, `${args.join(' ')} piped: one line`);
      JSON.parse(piped.out);
      const pretty = await runConsole([...args, '--json', '--pretty']);
      assert.match(pretty.out, /^\{\n {2}"/, `${args.join(' ')} --pretty: indented`);
      assert.deepEqual(JSON.parse(pretty.out).run ?? null, JSON.parse(piped.out).run ?? null);
    }
  } finally {
    await removeDir(ws);
  }
});

for (const [cols, rows] of [
  [80, 24],
  [120, 40],
] as const) {
  test(`--json on a terminal (${cols}x${rows}) is indented: monitor --once as doctor`, { timeout: 120_000, skip: skip || (!hasTmux() ? 'tmux not installed' : false) }, async () => {
    const ws = await tempDir('swegym-json-tty-');
    const sim = path.join(ws, 'sim');
    assert.equal((await runConsole(['simulate', sim, '--rollouts', '2', '--prompts', '2', '--samples-per-prompt', '2'])).code, 0);
    const t = new TmuxSession(`json${cols}`);
    try {
      t.start([process.execPath, BIN, '--workspace', ws, 'monitor', sim, '--once', '--json'], { cols, rows, env: { NO_COLOR: '1' } });
      assert.equal(await t.exitCode(30_000), 0);
      assert.match(t.screen(), /^ {2}"(liveness|tasks|progress|failures|samples|trajectories|sandboxes|cluster|hangs)": /m);
    } finally {
      t.kill();
      await removeDir(ws);
    }
  });
}
