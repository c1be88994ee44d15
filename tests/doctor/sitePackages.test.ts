// The doctor's package answers read from disk (sitePackages.ts) against the real python3's: the same answers on a
// user site holding a package, a module, a namespace portion, an egg-info, a distribution without its module and a
// `.pth` path; python3 is not started while nothing sys.path depends on changed, and is again once a `.pth` changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DoctorProbe, PROBE_PACKAGES, type ProbePackage } from '../../src/services/doctor/probe.js';
import { resolvePython3 } from '../../src/services/doctor/pythonResolve.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';

async function put(file: string, text = ''): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

async function answers(ws: string, env: NodeJS.ProcessEnv): Promise<{ fromDisk: boolean; python: unknown; packages: Record<string, unknown> }> {
  const probe = new DoctorProbe({ paths: recipePaths(ws), env, provider: 'local', timeoutMs: 60_000 });
  const packages: Record<string, unknown> = {};
  for (const mod of Object.keys(PROBE_PACKAGES) as ProbePackage[]) packages[mod] = await probe.package(mod);
  const python = await probe.python();
  // The record is written after python3 exited, before the next probe reads it.
  await probe.settled;
  return { fromDisk: probe.answeredFromDisk, python, packages };
}

test('packages from disk: the answers of python3, and python3 started again only when sys.path may have changed', async (t) => {
  const interpreter = resolvePython3(process.env, process.cwd()).interpreter;
  const xy = interpreter ? spawnSync(interpreter, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).stdout.trim() : '';
  if (!interpreter || !/^3\.\d+$/.test(xy)) {
    t.skip('no python3 3.x here');
    return;
  }
  const home = await tempDir('swegym-home-');
  const ws = await fakeDressageCheckout();
  try {
    const site = path.join(home, '.local', 'lib', `python${xy}`, 'site-packages');
    await put(path.join(site, 'dressage', '__init__.py'));
    await put(path.join(site, 'dressage-0.3.1.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: dressage\nVersion: 0.3.1\n\nbody: Version: 9\n');
    await put(path.join(site, 'dressage-0.3.1.dist-info', 'direct_url.json'), JSON.stringify({ url: 'git+https://x', vcs_info: { vcs: 'git', commit_id: 'abc123' } }));
    await put(path.join(site, 'pyarrow.py'));
    await put(path.join(site, 'huggingface_hub-1.2.0.dist-info', 'METADATA'), 'Name: huggingface-hub\nVersion: 1.2.0\n');
    await put(path.join(site, 'build', 'sub.py'));
    await put(path.join(site, 'build-1.0.egg-info', 'PKG-INFO'), 'Name: build\nVersion: 1.0\n');
    await put(path.join(home, 'src2', 'swegym', '__init__.py'));
    await put(path.join(site, 'swegym.pth'), `${path.join(home, 'src2')}\n`);
    await put(path.join(site, 'Dressage_Blackbox.Server-2.0.dist-info', 'METADATA'), 'Name: dressage-blackbox-server\nVersion: 2.0\n');
    const env = { PATH: process.env.PATH, HOME: home };
    const first = await answers(ws, env);
    assert.equal(first.fromDisk, false, 'no record yet: python3 runs');
    // Where python3 imports it from comes too (the doctor tells a checkout's source folder from an install by it).
    assert.deepStrictEqual(first.packages.dressage, { present: true, version: '0.3.1', vcsCommit: 'abc123', origin: path.join(site, 'dressage', '__init__.py') });
    assert.deepStrictEqual(first.packages.swegym, { present: true, origin: path.join(home, 'src2', 'swegym', '__init__.py') });
    const second = await answers(ws, env);
    assert.equal(second.fromDisk, true, 'the record holds: no python3');
    assert.deepStrictEqual(second, { ...first, fromDisk: true });
    // Uninstalling and installing (dist-info directories come and go) changes no .pth: still from disk, still right.
    await rm(path.join(site, 'huggingface_hub-1.2.0.dist-info'), { recursive: true });
    await put(path.join(site, 'pyarrow-21.0.dist-info', 'METADATA'), 'Name: pyarrow\nVersion: 21.0\n');
    const third = await answers(ws, env);
    const fresh = await answers(ws, { ...env, XDG_CACHE_HOME: path.join(home, 'other-cache') });
    assert.equal(third.fromDisk, true);
    assert.equal(fresh.fromDisk, false);
    assert.deepStrictEqual(third.packages, fresh.packages);
    // A .pth that changes may change sys.path: python3 again.
    await put(path.join(site, 'extra.pth'), `${path.join(home, 'src3')}\n`);
    assert.equal((await answers(ws, env)).fromDisk, false);
    assert.equal((await answers(ws, env)).fromDisk, true);
  } finally {
    await removeDir(home);
    await removeDir(ws);
  }
});
