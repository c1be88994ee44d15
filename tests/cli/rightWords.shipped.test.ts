// The console's words, through the built binary: a missing workspace folder is named first and the checks that need
// it wait; a package python3 imports from the checkout is "importable from the checkout, not installed"; advice to
// delete is only for the file the console downloads; a file with no stream-json event is an error; counts take the
// singular for one; an unknown option is named in our words; `simulate` is in --help; the Train screen counts the
// same checks as `train launch --dry-run`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, builtMissing, runConsole } from '../helpers/builtCli.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';

const skip = builtMissing();
const NO_KEYS = { E2B_API_KEY: '', DRESSAGE_E2B_API_KEY: '' };

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'pass'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface Check {
  id: string;
  status: string;
  detail: string;
  fix?: string;
}

test('doctor -w on a missing folder names the folder first and skips the checks that need it', { timeout: 60_000, skip }, async () => {
  const r = await runConsole(['doctor', '--workspace', '/nonexistent-swegym', '--json'], NO_KEYS);
  assert.equal(r.code, 3);
  const checks = (JSON.parse(r.out) as { checks: Check[] }).checks;
  assert.equal(checks[0]?.id, 'workspace');
  assert.equal(checks[0]?.status, 'fail');
  assert.match(checks[0]?.detail ?? '', /\/nonexistent-swegym does not exist/);
  for (const id of ['python', 'uv', 'bwrap', 'checkout', 'py-dressage', 'disk']) {
    const c = checks.find((x) => x.id === id);
    assert.equal(c?.status, 'skip', id);
    assert.match(c?.detail ?? '', /workspace folder .* does not exist/, id);
  }
  assert.doesNotMatch(r.out, /python3 not found|uv is not on PATH|"not installed/);
  assert.equal(checks.find((x) => x.id === 'node')?.status, 'ok', 'what needs no folder is still checked');
});

test('a package imported from an un-installed checkout is "importable from the checkout, not installed"', { timeout: 60_000, skip: skip || (!hasPython() ? 'python3 not installed' : false) }, async () => {
  const ws = await tempDir('swegym-uninstalled-');
  try {
    await mkdir(path.join(ws, 'dressage'), { recursive: true });
    await writeFile(path.join(ws, 'dressage', '__init__.py'), '');
    // Upstream's blackbox_server/ is a project folder: python3 finds it as a namespace package.
    await mkdir(path.join(ws, 'blackbox_server', 'src'), { recursive: true });
    const r = await runConsole(['doctor', '--workspace', ws, '--json'], NO_KEYS);
    const checks = (JSON.parse(r.out) as { checks: Check[] }).checks;
    for (const id of ['py-dressage', 'py-bbs']) {
      const c = checks.find((x) => x.id === id);
      assert.equal(c?.status, 'fail', id);
      assert.match(c?.detail ?? '', /importable from the checkout \(.+\), not installed/, id);
      assert.match(c?.fix ?? '', /pip install/, id);
    }
  } finally {
    await removeDir(ws);
  }
});

test('data show --input on a file the console did not download: no advice to delete it', { timeout: 60_000, skip }, async () => {
  const ws = await tempDir('swegym-not-ours-');
  try {
    const readme = path.join(ws, 'README.md');
    await writeFile(readme, '# not parquet\n');
    const theirs = await runConsole(['--workspace', ws, 'data', 'show', '--input', readme]);
    assert.equal(theirs.code, 1);
    assert.match(theirs.err, /README\.md is not a parquet file/);
    assert.doesNotMatch(theirs.err, /Delete/i);
    assert.match(theirs.err, /--input/);
    // The console's own download, broken: delete and download again is the fix.
    const own = path.join(ws, 'data', 'swegym-source', 'train.parquet');
    await mkdir(path.dirname(own), { recursive: true });
    await writeFile(own, '<html>rate limited</html>');
    const ours = await runConsole(['--workspace', ws, 'data', 'show']);
    assert.match(ours.err, /Delete .*train\.parquet and download it again/);
  } finally {
    await removeDir(ws);
  }
});

test('agent-log on a file with no stream-json event is an error; counts say "1 model turn"', { timeout: 60_000, skip }, async () => {
  const r = await runConsole(['agent-log', path.resolve('README.md')]);
  assert.equal(r.code, 1);
  assert.match(r.err, /is not a Claude Code stream-json log/);
  assert.doesNotMatch(r.out, /running/);
  const one = await runConsole(['agent-log', path.resolve('tests/fixtures/claude-code/api-529-exhausted.jsonl')]);
  assert.match(one.out, /1 model turn · 1 tool call /);
});

test('an unknown option is named in our words; simulate is in --help under developer tools', { timeout: 60_000, skip }, async () => {
  const r = await runConsole(['templates', 'status', '--bogus']);
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown option --bogus for templates status/);
  assert.doesNotMatch(r.err, /'-- "--bogus"/, "Node's text with its unbalanced quote");
  const help = await runConsole(['--help']);
  assert.match(help.out, /developer tools:\n {2}simulate DIR/);
});

test('train launch --dry-run on one node: "1 node × 8", and the Train screen counts the same blocking checks', { timeout: 120_000, skip: skip || (!hasTmux() ? 'tmux not installed' : false) }, async () => {
  const ws = await fakeDressageCheckout();
  const t = new TmuxSession('trainchecks');
  try {
    const dry = await runConsole(['--workspace', ws, 'train', 'launch', '--dry-run'], NO_KEYS);
    const all = dry.out + dry.err;
    assert.match(all, /total GPUs: 8 \(1 node × 8\)/);
    const blocking = Number(/(\d+) blocking check\(s\) failed/.exec(all)?.[1]);
    assert.ok(blocking > 0, all);
    assert.ok(existsSync(BIN));
    t.start([process.execPath, BIN, '--workspace', ws], { cols: 120, rows: 40, env: { NO_COLOR: '1', ...NO_KEYS } });
    await t.waitForText('[1 Home]');
    t.key('6');
    await t.waitForText(new RegExp(`checks: ${blocking} blocking, \\d+ warn \\(disk/network/Ray checked`));
  } finally {
    t.kill();
    await removeDir(ws);
  }
});

test('the sample workspace: validate harness without --provider local says so; Convert says what the rows were held against', { timeout: 180_000, skip: skip || (!hasTmux() ? 'tmux not installed' : false) }, async () => {
  const root = await tempDir('swegym-sample-words-');
  const ws = path.join(root, 'sample');
  const t = new TmuxSession('samplewords');
  try {
    const demo = await runConsole(['demo', '--dir', ws, '--json']);
    assert.equal(demo.code, 0, demo.err);
    const v = await runConsole(['--workspace', ws, 'validate', 'harness', '--all'], NO_KEYS);
    assert.equal(v.code, 3);
    assert.match(v.err, /the sample workspace runs on local sandboxes/);
    assert.match(v.err, /--provider local/);
    assert.doesNotMatch(v.err, /building and smoke-testing templates/);
    t.start([process.execPath, BIN, '--workspace', ws, '--provider', 'local'], { cols: 120, rows: 40, env: { NO_COLOR: '1' } });
    await t.waitForText('[1 Home]');
    t.key('4');
    await t.waitForText('[4 Convert]');
    t.key('V');
    const s = await t.waitForText(/commands and the options the demo wrote/);
    assert.doesNotMatch(s, /options as requested/);
  } finally {
    t.kill();
    await removeDir(root);
  }
});
