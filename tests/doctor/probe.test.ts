// The doctor's probes: real python3 answers for the packages in one process, each tool started once beside it;
// answers stream (a check's result is out while the probe still runs); a probe that crashes or hangs gives each
// check a clear answer within the bound, and the tools answer whatever python3 does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runDoctor, type DoctorJobEvent } from '../../src/services/doctor/doctor.js';
import { commandLog } from '../../src/services/process/commandLog.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';
import type { DoctorCheck } from '../../src/services/doctor/types.js';

const SLOW_MACHINE_MS = 60_000;

function realPython(): string | undefined {
  try {
    return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function script(dir: string, name: string, body: string): Promise<void> {
  const f = path.join(dir, name);
  await writeFile(f, `#!/bin/sh\n${body}\n`);
  await chmod(f, 0o755);
}

/** uv, nvidia-smi, ray, bwrap stand-ins and the shell tools, in a new bin directory. */
async function toolsBin(): Promise<string> {
  const dir = await tempDir('swegym-probe-bin-');
  await script(dir, 'uv', 'echo "uv 0.9.0"');
  await script(dir, 'nvidia-smi', 'echo "NVIDIA H200, 143771 MiB"; echo "NVIDIA H200, 143771 MiB"');
  await script(dir, 'ray', 'echo "ray, version 2.55.1"');
  await script(dir, 'bwrap', 'echo "bubblewrap 0.8.0"');
  // The launcher's default proxy URL takes the first word of `hostname -I`.
  await script(dir, 'hostname', '[ "$1" = -I ] && echo "203.0.113.7 10.0.0.2 " || exit 1');
  for (const t of ['git', 'curl', 'tar', 'sha256sum']) await script(dir, t, `exec /usr/bin/${t} "$@"`);
  return dir;
}

function byId(checks: DoctorCheck[], id: string): DoctorCheck {
  const c = checks.find((x) => x.id === id);
  assert.ok(c, `no check ${id}; have ${checks.map((x) => x.id).join(',')}`);
  return c;
}

const PY = realPython();

test('real python3: one process answers every package, each tool is started once beside it; nothing else is started', { skip: PY ? false : 'python3 is not installed' }, async () => {
  const ws = await fakeDressageCheckout();
  const bin = await toolsBin();
  try {
    // The real interpreter, reached through the check's PATH like any other tool.
    await script(bin, 'python3', `exec '${PY}' "$@"`);
    const before = commandLog.entries().at(-1)?.id ?? 0;
    const checks = await runDoctor({ paths: recipePaths(ws), env: { PATH: bin }, provider: 'e2b', timeoutMs: SLOW_MACHINE_MS });
    const started = commandLog.entries().filter((e) => e.id > before && e.note?.startsWith('doctor'));
    // bwrap only for --provider local (below): with e2b the check looks it up on PATH without starting it.
    assert.deepEqual(started.map((e) => e.argv[0]).sort(), ['hostname', 'nvidia-smi', 'python3', 'ray', 'uv'], 'one python3, one process per tool');
    assert.match(byId(checks, 'python').detail, /^python3 3\.\d+/);
    assert.equal(byId(checks, 'uv').detail, 'uv 0.9.0');
    assert.equal(byId(checks, 'gpus').detail, '2 × NVIDIA H200');
    assert.equal(byId(checks, 'ray').status, 'ok');
    assert.equal(byId(checks, 'bwrap').detail, 'installed (only --provider local uses it)');
    const local = await runDoctor({ paths: recipePaths(ws), env: { PATH: bin }, provider: 'local', timeoutMs: SLOW_MACHINE_MS });
    assert.equal(byId(local, 'bwrap').detail, 'bubblewrap 0.8.0');
    assert.ok(commandLog.entries().some((e) => e.id > before && e.argv[0] === 'bwrap' && e.argv[1] === '--version'), 'started for --provider local');
    assert.equal(byId(checks, 'proxy-url').detail, 'http://203.0.113.7:8800 (not set: the launcher default) (public host)');
    // The fake checkout has no dressage package to import, and this python has no swegym harness.
    for (const id of ['py-dressage', 'py-bbs', 'py-build', 'py-swegym']) assert.ok(['ok', 'fail'].includes(byId(checks, id).status), `${id}: ${byId(checks, id).detail}`);
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('answers stream: a check is reported while the probe still runs (the probe waits for that report)', async () => {
  const ws = await fakeDressageCheckout();
  const bin = await toolsBin();
  const gate = path.join(bin, 'gate');
  try {
    // A probe that answers python3 and dressage, then waits until the doctor has reported dressage's result.
    await script(
      bin,
      'python3',
      [
        `echo '{"python": "3.11.7"}'`,
        `echo '{"modules": {"dressage": true}, "dists": {"dressage": {"version": "0.1.0"}}}'`,
        `while [ ! -f '${gate}' ]; do /bin/sleep 0.05; done`,
        `echo '{"modules": {"blackbox_server": true, "pyarrow": true, "huggingface_hub": true, "swegym": true, "build": true}}'`,
      ].join('\n'),
    );
    const events: DoctorJobEvent[] = [];
    const checks = await runDoctor({
      paths: recipePaths(ws),
      env: { PATH: bin },
      provider: 'e2b',
      timeoutMs: SLOW_MACHINE_MS,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'result' && e.id === 'py-dressage') void writeFile(gate, '');
      },
    });
    assert.equal(events[0]?.type, 'started');
    const order = events.filter((e) => e.type === 'result').map((e) => e.id);
    assert.ok(order.indexOf('py-dressage') < order.indexOf('py-bbs'), order.join(' '));
    assert.equal(byId(checks, 'py-dressage').detail, 'dressage 0.1.0');
    assert.equal(byId(checks, 'py-bbs').status, 'ok', 'answered after the gate opened, not cut off');
    assert.equal(byId(checks, 'uv').detail, 'uv 0.9.0', 'tools the probe did not answer are run directly');
    const last = events.at(-1);
    assert.ok(last?.type === 'finished');
    assert.deepEqual(last.checks, checks);
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('a probe that crashes mid-way: answered checks stand, the others say so; tools are run directly', async () => {
  const ws = await fakeDressageCheckout();
  const bin = await toolsBin();
  try {
    await script(bin, 'python3', [`echo '{"python": "3.11.7"}'`, `echo '{"modules": {"dressage": true}}'`, 'echo "Fatal Python error: Segmentation fault" >&2', 'exit 139'].join('\n'));
    const checks = await runDoctor({ paths: recipePaths(ws), env: { PATH: bin }, provider: 'e2b', timeoutMs: SLOW_MACHINE_MS });
    assert.equal(byId(checks, 'python').status, 'ok');
    assert.equal(byId(checks, 'py-dressage').status, 'ok');
    for (const id of ['py-bbs', 'py-pyarrow', 'py-hfhub', 'py-build', 'py-swegym']) {
      const c = byId(checks, id);
      assert.equal(c.status, 'warn', id);
      assert.equal(c.detail, 'not checked: the python3 probe ended before it (exit code 139: Fatal Python error: Segmentation fault)');
      assert.ok(c.fix);
    }
    assert.equal(byId(checks, 'gpus').detail, '2 × NVIDIA H200');
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('a probe that hangs: every check it owes answers "no answer" within the bound, none hangs; the tools answer', { timeout: 30_000 }, async () => {
  const ws = await fakeDressageCheckout();
  const bin = await toolsBin();
  try {
    await script(bin, 'python3', `echo '{"python": "3.11.7"}'\nexec /bin/sleep 30`);
    const checks = await runDoctor({ paths: recipePaths(ws), env: { PATH: bin }, provider: 'e2b', timeoutMs: 1500 });
    assert.equal(byId(checks, 'python').status, 'ok');
    for (const id of ['py-dressage', 'py-swegym']) assert.equal(byId(checks, id).detail, 'not checked: the python3 probe ended before it (no answer within 1500 ms)');
    // The tools do not wait for python3.
    assert.equal(byId(checks, 'uv').detail, 'uv 0.9.0');
    assert.equal(byId(checks, 'gpus').detail, '2 × NVIDIA H200');
    assert.equal(byId(checks, 'ray').status, 'ok');
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('without python3: Python fails with its fix, each package says it was not checked, tools are still checked', async () => {
  const ws = await fakeDressageCheckout();
  const bin = await toolsBin();
  try {
    const checks = await runDoctor({ paths: recipePaths(ws), env: { PATH: bin }, provider: 'e2b', timeoutMs: SLOW_MACHINE_MS });
    assert.equal(byId(checks, 'python').status, 'fail');
    assert.equal(byId(checks, 'python').detail, 'python3 not found or it failed to start');
    for (const id of ['py-dressage', 'py-bbs', 'py-pyarrow', 'py-hfhub', 'py-build', 'py-swegym']) {
      assert.equal(byId(checks, id).status, 'skip', id);
      assert.equal(byId(checks, id).detail, 'not checked: python3 did not run (python3 not found)');
    }
    assert.equal(byId(checks, 'uv').detail, 'uv 0.9.0');
    assert.equal(byId(checks, 'ray').detail, 'ray, version 2.55.1');
    assert.equal(byId(checks, 'proxy-url').detail, 'http://203.0.113.7:8800 (not set: the launcher default) (public host)');
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('a tool whose answer no check needs is not started: hostname with DRESSAGE_PROXY_URL set, bubblewrap with e2b', async () => {
  const ws = await fakeDressageCheckout();
  const bin = await toolsBin();
  try {
    await script(bin, 'python3', `echo '{"python": "3.11.7"}'`);
    const before = commandLog.entries().at(-1)?.id ?? 0;
    const env = { PATH: bin, DRESSAGE_PROXY_URL: 'https://proxy.example.com' };
    const checks = await runDoctor({ paths: recipePaths(ws), env, provider: 'e2b', timeoutMs: SLOW_MACHINE_MS });
    const started = commandLog.entries().filter((e) => e.id > before && e.note?.startsWith('doctor')).map((e) => e.argv[0]);
    assert.deepEqual(started.sort(), ['nvidia-smi', 'python3', 'ray', 'uv']);
    assert.equal(byId(checks, 'proxy-url').detail, 'proxy.example.com (public)');
    assert.equal(byId(checks, 'bwrap').detail, 'installed (only --provider local uses it)');
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});
