// The interpreter behind a pyenv shim, found without the shim: pyenv's own choice where its rules give an installed
// version, the shim itself (python3 on PATH) for everything else; and the doctor's probe runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolvePython3 } from '../../src/services/doctor/pythonResolve.js';
import { runDoctor } from '../../src/services/doctor/doctor.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';

async function script(file: string, body: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, body);
  await chmod(file, 0o755);
}

/** The shim pyenv writes (pyenv-rehash), for a root. */
function shimText(root: string): string {
  return `#!/usr/bin/env bash\nset -e\n[ -n "$PYENV_DEBUG" ] && set -x\n\nprogram="\${0##*/}"\n\nexport PYENV_ROOT="${root}"\nSHIM_PATH=\${0%/*}\nif [[ $SHIM_PATH != "${root}/shims" ]]; then\n  export _PYENV_SHIM_PATH="$SHIM_PATH"\nfi\nexec "${root}/libexec/pyenv" exec "$program" "$@"\n`;
}

/** A pyenv root with a shim and versions, each version's python3 printing its name (a script: no `interpreter`). */
async function fakePyenv(versions: string[]): Promise<string> {
  const root = await tempDir('swegym-pyenv-');
  await script(path.join(root, 'shims', 'python3'), shimText(root));
  for (const v of versions) await script(path.join(root, 'versions', v, 'bin', 'python3'), `#!/bin/sh\necho ${v}\n`);
  return root;
}

test('pyenv: PYENV_VERSION, then .python-version from the directory up, then the global version file', async () => {
  const root = await fakePyenv(['3.11.7', '3.12.1', 'venv-a']);
  const work = await tempDir('swegym-cwd-');
  try {
    const PATH = `${path.join(root, 'shims')}${path.delimiter}/usr/bin`;
    const exe = (v: string) => path.join(root, 'versions', v, 'bin', 'python3');
    // No version file at all: the system Python, which the shim finds.
    assert.deepStrictEqual(resolvePython3({ PATH }, work), { file: 'python3', via: 'path' });
    await writeFile(path.join(root, 'version'), '3.11.7\n');
    assert.deepStrictEqual(resolvePython3({ PATH }, work), { file: exe('3.11.7'), via: 'pyenv' });
    await mkdir(path.join(work, 'a', 'b'), { recursive: true });
    await writeFile(path.join(work, '.python-version'), '# pinned\nvenv-a\n');
    assert.deepStrictEqual(resolvePython3({ PATH }, path.join(work, 'a', 'b')), { file: exe('venv-a'), via: 'pyenv' });
    assert.deepStrictEqual(resolvePython3({ PATH, PYENV_VERSION: '3.12.1' }, work), { file: exe('3.12.1'), via: 'pyenv' });
    // The first of several that has python3.
    await mkdir(path.join(root, 'versions', '2.7.18', 'bin'), { recursive: true });
    assert.deepStrictEqual(resolvePython3({ PATH, PYENV_VERSION: '2.7.18:3.12.1' }, work), { file: exe('3.12.1'), via: 'pyenv' });
    // Left to the shim: a version that is not installed (pyenv's error), a prefix, the system Python, debugging.
    for (const env of [{ PYENV_VERSION: '3.9.1' }, { PYENV_VERSION: '3.11' }, { PYENV_VERSION: 'system' }, { PYENV_VERSION: '3.12.1', PYENV_DEBUG: '1' }, { PYENV_VERSION: '3.12.1', PYENV_ROOT: '/elsewhere' }]) {
      assert.deepStrictEqual(resolvePython3({ PATH, ...env }, work), { file: 'python3', via: 'path' }, JSON.stringify(env));
    }
    // A python3 first on PATH that is not the shim: PATH's own.
    const other = path.join(work, 'bin');
    await script(path.join(other, 'python3'), '#!/bin/sh\necho other\n');
    assert.deepStrictEqual(resolvePython3({ PATH: `${other}${path.delimiter}${PATH}` }, work), { file: 'python3', via: 'path' });
    // A shim that has been edited: not trusted.
    await writeFile(path.join(root, 'shims', 'python3'), shimText(root).replace('exec "', 'PYENV_VERSION=x exec "'));
    assert.deepStrictEqual(resolvePython3({ PATH }, work), { file: 'python3', via: 'path' });
  } finally {
    await removeDir(root);
    await removeDir(work);
  }
});

test("the doctor's probe runs the version's interpreter, not the shim", async () => {
  const root = await tempDir('swegym-pyenv-');
  const ws = await fakeDressageCheckout();
  try {
    // A shim that would fail: the answer can only come from the version's python3.
    await script(path.join(root, 'shims', 'python3'), shimText(root));
    await writeFile(path.join(root, 'version'), '3.11.7\n');
    await script(path.join(root, 'versions', '3.11.7', 'bin', 'python3'), `#!/bin/sh\necho '{"python": "3.11.7", "modules": {"dressage": true}, "dists": {"dressage": {"version": "0.1.0"}}}'\n`);
    const checks = await runDoctor({ paths: recipePaths(ws), env: { PATH: `${path.join(root, 'shims')}${path.delimiter}/usr/bin${path.delimiter}/bin` }, provider: 'local', timeoutMs: 60_000 });
    const python = checks.find((c) => c.id === 'python');
    assert.equal(python?.status, 'ok', JSON.stringify(python));
    assert.match(python?.detail ?? '', /3\.11\.7/);
    assert.match(checks.find((c) => c.id === 'py-dressage')?.detail ?? '', /0\.1\.0/);
  } finally {
    await removeDir(root);
    await removeDir(ws);
  }
});

test('against the real pyenv where one is installed: the same interpreter as `pyenv which python3`', (t) => {
  const root = process.env.PYENV_ROOT ?? path.join(process.env.HOME ?? '/root', '.pyenv');
  const pyenv = path.join(root, 'libexec', 'pyenv');
  if (!existsSync(pyenv) || !existsSync(path.join(root, 'shims', 'python3'))) {
    t.skip(`no pyenv at ${root}`);
    return;
  }
  const versions = spawnSync(pyenv, ['versions', '--bare'], { encoding: 'utf8' }).stdout.split('\n').filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  const env = { PATH: `${path.join(root, 'shims')}${path.delimiter}/usr/bin${path.delimiter}/bin`, HOME: process.env.HOME };
  for (const v of [...versions.slice(0, 3), undefined]) {
    const e = v ? { ...env, PYENV_VERSION: v } : env;
    const got = resolvePython3(e, process.cwd());
    if (got.via !== 'pyenv') continue;
    const want = spawnSync(pyenv, ['which', 'python3'], { encoding: 'utf8', env: { ...e, PYENV_ROOT: root } }).stdout.trim();
    assert.equal(got.file, want, `PYENV_VERSION=${v ?? '(unset)'}`);
    assert.equal(got.interpreter, want, 'a real interpreter is known as itself');
  }
});
