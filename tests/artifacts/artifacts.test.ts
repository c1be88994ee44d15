import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, writeFile, readdir, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { buildArtifacts, artifactStatus, parseScriptOutput } from '../../src/services/artifacts/artifacts.js';
import { resolveArtifactConfig } from '../../src/services/artifacts/versions.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { ConsoleError } from '../../src/services/errors.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

const SCRIPT = path.resolve('tests/fakes/fakeArtifactsScript.sh');
const PYTHON = path.resolve('tests/fakes/fakePythonBuild.sh');
const CLAUDE = 'fake claude 2.1.207 binary\n';
const CLAUDE_SHA = createHash('sha256').update(CLAUDE).digest('hex');

async function setup() {
  const ws = await fakeDressageCheckout();
  const paths = recipePaths(ws);
  await copyFile(SCRIPT, paths.artifactsScript);
  const source = path.join(ws, 'claude-download');
  await writeFile(source, CLAUDE);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, FAKE_CLAUDE_SOURCE: source, CLAUDE_CODE_BINARY_SHA256: CLAUDE_SHA, E2B_API_KEY: 'e2b_secret123456' };
  return { ws, paths, env };
}

async function rejectsConsole(p: Promise<unknown>, what: RegExp, extra?: (e: ConsoleError) => void) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ConsoleError, String(e));
    assert.match(e.what, what);
    extra?.(e);
    return true;
  });
}

test('builds the wheel, runs the script with explicit versions, parses the result lines, checks names and sha', async () => {
  const { ws, paths, env } = await setup();
  const log = new CommandLog();
  const lines: string[] = [];
  try {
    const r = await buildArtifacts({ paths, env, python: PYTHON, log, onLine: (_s, l) => lines.push(l) });
    assert.equal(r.skipped, false);
    assert.equal(r.script?.binaryFile, path.join(paths.artifactDir, 'claude-2.1.207-linux-x64'));
    assert.equal(r.script?.binarySha256, CLAUDE_SHA);
    // BBS version came from blackbox_server/pyproject.toml, not the script's `custom` default.
    assert.equal(r.script?.runtimeFile, path.join(paths.artifactDir, 'claude-code-runtime-python-3.10.20-bbs-1.1.0.tar.gz'));
    assert.equal(r.status.current, true);
    assert.equal(r.status.binary.size, CLAUDE.length);
    assert.ok((r.status.runtime.size ?? 0) > 0);
    assert.match(r.status.runtime.sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.equal(path.basename(r.wheel?.file ?? ''), 'dressage_blackbox_server-1.1.0-py3-none-any.whl');
    assert.ok(lines.some((l) => l.includes('Installing dressage_blackbox_server-1.1.0-py3-none-any.whl')), 'output streamed');
    const argvs = log.entries().map((e) => e.argv.join(' '));
    assert.ok(argvs.some((a) => a.includes('-m build --wheel --outdir dist blackbox_server/')));
    assert.ok(argvs.some((a) => a.startsWith('bash ') && a.includes('prepare_claude_code_sandbox_artifacts.sh')));
    // Present and current: skipped, nothing runs.
    const n = log.entries().length;
    const again = await buildArtifacts({ paths, env, python: PYTHON, log });
    assert.equal(again.skipped, true);
    assert.equal(log.entries().length, n);
    // --force runs again.
    const forced = await buildArtifacts({ paths, env, python: PYTHON, log, force: true });
    assert.equal(forced.skipped, false);
  } finally {
    await removeDir(ws);
  }
});

test('the `custom` trap and mismatched names are reported with the cause', async () => {
  const { ws, paths, env } = await setup();
  try {
    await rejectsConsole(buildArtifacts({ paths, env: { ...env, CLAUDE_CODE_BBS_VERSION: 'custom' }, python: PYTHON }), /"custom"/);
    // A runtime built earlier by hand with the script's default name.
    await buildArtifacts({ paths, env, python: PYTHON });
    const rt = path.join(paths.artifactDir, 'claude-code-runtime-python-3.10.20-bbs-1.1.0.tar.gz');
    await copyFile(rt, path.join(paths.artifactDir, 'claude-code-runtime-python-3.10.20-bbs-custom.tar.gz'));
    await rm(rt);
    const status = await artifactStatus(await resolveArtifactConfig(paths, env));
    assert.equal(status.current, false);
    assert.match(status.problems.join('\n'), /found claude-code-runtime-python-3\.10\.20-bbs-custom\.tar\.gz: .*script default is "custom"/);
  } finally {
    await removeDir(ws);
  }
});

test('sha256: the script default applies when CLAUDE_CODE_BINARY_SHA256 is unset; mismatches are explained', async () => {
  const { ws, paths, env } = await setup();
  try {
    const { CLAUDE_CODE_BINARY_SHA256: _drop, ...noSha } = env;
    await rejectsConsole(buildArtifacts({ paths, env: noSha, python: PYTHON }), /does not match CLAUDE_CODE_BINARY_SHA256/, (e) => {
      assert.match(e.causeText ?? '', /damaged or replaced/);
    });
    assert.deepEqual((await readdir(paths.artifactDir)).filter((f) => f.startsWith('claude-2')), [], 'no bad binary left behind');
    await rejectsConsole(buildArtifacts({ paths, env: { ...noSha, CLAUDE_CODE_VERSION: '2.2.0' }, python: PYTHON }), /CLAUDE_CODE_VERSION=2\.2\.0 without CLAUDE_CODE_BINARY_SHA256/);
  } finally {
    await removeDir(ws);
  }
});

test('documented script failures map to fixes; the wheel build failure names `build`', async () => {
  const { ws, paths, env } = await setup();
  try {
    await rejectsConsole(buildArtifacts({ paths, env: { ...env, FAKE_NO_UV: '1' }, python: PYTHON }), /uv is required/, (e) => assert.match(e.fix ?? '', /pip install build uv/));
    await rejectsConsole(buildArtifacts({ paths, env: { ...env, FAKE_UV_NO_PYTHON: '1' }, python: PYTHON, force: true }), /did not materialize/, (e) => assert.match(e.causeText ?? '', /Linux x86_64/));
    await rm(paths.artifactDir, { recursive: true });
    await rejectsConsole(buildArtifacts({ paths, env: { ...env, FAKE_CURL_FAIL: '1' }, python: PYTHON }), /could not download/);
    await rm(paths.bbsWheelDir, { recursive: true, force: true });
    await rejectsConsole(buildArtifacts({ paths, env: { ...env, FAKE_NO_BUILD: '1' }, python: PYTHON }), /wheel failed/, (e) => assert.match(e.causeText ?? '', /`build` is not installed/));
  } finally {
    await removeDir(ws);
  }
});

test('parseScriptOutput reads exactly the three documented lines', () => {
  assert.deepEqual(parseScriptOutput(['noise', 'claude_code_binary_file=/a/b', 'claude_code_binary_sha256=ABC', 'claude_code_runtime_file=/a/c.tar.gz']), {
    binaryFile: '/a/b',
    binarySha256: 'abc',
    runtimeFile: '/a/c.tar.gz',
  });
});

test('a wheel given in CLAUDE_CODE_BBS_WHEEL_URL is used as is (no wheel build); the headless command prints sizes and sha256', async () => {
  const { ws, paths, env } = await setup();
  const { Writable } = await import('node:stream');
  const { artifactsBuildCommand } = await import('../../src/cli/commands/artifacts.js');
  const log = new CommandLog();
  try {
    const wheel = path.join(ws, 'my.whl');
    await writeFile(wheel, 'wheel');
    const r = await buildArtifacts({ paths, env: { ...env, CLAUDE_CODE_BBS_WHEEL_URL: wheel }, python: '/nonexistent/python', log });
    assert.equal(r.skipped, false);
    assert.equal(r.wheel?.file, wheel);
    assert.ok(!log.entries().some((e) => e.argv.join(' ').includes('-m build')));
    let out = '';
    const ctx = {
      command: ['artifacts', 'build'],
      positionals: [],
      options: {},
      global: { workspace: ws, provider: 'e2b' as const, debug: false, color: false, json: true },
      paths,
      stdout: new Writable({ write(c, _e, cb) { out += c; cb(); } }),
      stderr: new Writable({ write(_c, _e, cb) { cb(); } }),
      env: { ...env, SWEGYM_PYTHON: PYTHON },
      signal: new AbortController().signal,
    };
    assert.equal(await artifactsBuildCommand(ctx), 0);
    const doc = JSON.parse(out);
    assert.equal(doc.skipped, true);
    assert.equal(doc.binary.sha256, CLAUDE_SHA);
    assert.equal(doc.binary.sha256Ok, true);
    assert.equal(doc.binary.size, CLAUDE.length);
    assert.equal(doc.versions.bbs, '1.1.0');
    assert.ok(!out.includes('e2b_secret123456'));
  } finally {
    await removeDir(ws);
  }
});
