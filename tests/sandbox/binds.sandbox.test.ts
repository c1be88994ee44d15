// Local provider: host paths bound into a sandbox (the Claude Code binary read-only, the model socket's folder
// writable), over the template's tree; nothing else of the host's /tmp shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

test('binds: a read-only file and a writable folder of the host appear at their destinations', async () => {
  const root = await tempDir('swegym-binds-');
  const provider = new LocalProvider({ storeDir: path.join(root, 'store'), log: new CommandLog() });
  try {
    const tree = path.join(root, 'tree');
    fs.mkdirSync(path.join(tree, 'testbed'), { recursive: true });
    await provider.buildTemplate({ name: 'tpl-binds', baseImage: tree, cpuCount: 1, memoryMb: 256, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '' });
    const tool = path.join(root, 'tool.sh');
    fs.writeFileSync(tool, '#!/bin/sh\necho tool ran\n', { mode: 0o755 });
    const shared = path.join(root, 'shared');
    fs.mkdirSync(shared);
    const sb = await provider.create({ template: 'tpl-binds', timeoutMs: 60_000, binds: [{ src: tool, dest: '/opt/tool/run' }, { src: shared, dest: '/run/shared', writable: true }] });
    try {
      assert.equal((await sb.run('/opt/tool/run', { timeoutMs: 10_000 })).stdout.trim(), 'tool ran');
      const ro = await sb.run('echo x > /opt/tool/run', { timeoutMs: 10_000 });
      assert.notEqual(ro.exitCode, 0, 'the read-only bind cannot be written');
      assert.equal((await sb.run('echo hello > /run/shared/out.txt', { timeoutMs: 10_000 })).exitCode, 0);
      assert.equal(fs.readFileSync(path.join(shared, 'out.txt'), 'utf8'), 'hello\n');
      assert.equal(fs.readFileSync(tool, 'utf8'), '#!/bin/sh\necho tool ran\n');
    } finally {
      await sb.kill();
    }
  } finally {
    await removeDir(root);
  }
});
