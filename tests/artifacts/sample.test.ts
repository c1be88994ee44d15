import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { writeSampleArtifacts } from '../../src/services/artifacts/sample.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const VERSIONS = { claudeCodeVersion: '2.1.207', portablePythonVersion: '3.10.20', bbsVersion: '1.1.0' };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

test('stand-in artifacts: the recipe file names, a claude that answers --version, a runtime whose BBS serves /health', { timeout: 30_000 }, async () => {
  const dir = await tempDir();
  try {
    const a = await writeSampleArtifacts(path.join(dir, 'artifacts'), VERSIONS);
    assert.equal(path.basename(a.binary), 'claude-2.1.207-linux-x64');
    assert.equal(path.basename(a.runtime), 'claude-code-runtime-python-3.10.20-bbs-1.1.0.tar.gz');
    assert.match(execFileSync(a.binary, ['--version'], { encoding: 'utf8' }), /^2\.1\.207 \(Claude Code\)/);
    // Unpack exactly like the template's run step and start BBS like the start command.
    const opt = path.join(dir, 'opt', 'cc-runtime');
    execFileSync('bash', ['-c', `mkdir -p ${opt} && tar -xzf ${a.runtime} -C ${opt} --strip-components=1`]);
    const port = await freePort();
    const bbs = spawn(path.join(opt, 'python', 'bin', 'python3'), ['-c', `import sys; sys.path.insert(0, '${opt}/bbs-site'); from blackbox_server.main import main; main()`], {
      env: { BBS_HOST: '127.0.0.1', BBS_PORT: String(port), PATH: process.env.PATH },
      stdio: 'ignore',
    });
    try {
      let body: unknown;
      await waitFor(async () => {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/health`);
          body = await r.json();
          return r.status === 200;
        } catch {
          return false;
        }
      }, { timeoutMs: 15_000 });
      assert.deepEqual(body, { healthy: true, version: '1.1.0' });
    } finally {
      bbs.kill('SIGKILL');
    }
  } finally {
    await removeDir(dir);
  }
});
