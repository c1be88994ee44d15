// findOnPath says whether (and as which file) a name would start, without starting it. Held against exec itself:
// generated PATH layouts (executable scripts, files without the x bit, directories of the name, empty and relative
// entries, names with a slash), each spawned for real; found ⇔ the spawn starts, and the file found is the one that ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from '../helpers/property.js';
import { findOnPath } from '../../src/services/process/findOnPath.js';
import { removeDir, tempDir } from '../helpers/workspace.js';

type Entry = 'script' | 'plain' | 'dir' | 'none';
const entry = fc.constantFrom<Entry>('script', 'plain', 'dir', 'none');

async function place(dir: string, name: string, kind: Entry): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  // Two entries may name one directory (two empty ones): the first placement stands.
  if (await lstat(file).then(() => true, () => false)) return;
  if (kind === 'dir') await mkdir(file, { recursive: true });
  if (kind === 'script' || kind === 'plain') {
    // Each script says where it is, so the test can tell which one exec ran.
    await writeFile(file, `#!/bin/sh\necho "${file}"\n`);
    await chmod(file, kind === 'script' ? 0o755 : 0o644);
  }
}

test('found on PATH exactly when exec would start it, and as the file exec runs', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ kind: entry, spelling: fc.constantFrom('absolute', 'relative', 'empty') }), { minLength: 0, maxLength: 5 }),
      fc.constantFrom('tool', 'sub/tool'),
      async (entries, name) => {
        const root = await tempDir();
        try {
          const cwd = path.join(root, 'cwd');
          await mkdir(cwd, { recursive: true });
          const dirs: string[] = [];
          for (const [i, e] of entries.entries()) {
            // An empty entry is the working directory; what is placed there is placed in cwd.
            const dir = e.spelling === 'empty' ? '' : e.spelling === 'relative' ? `d${i}` : path.join(root, `d${i}`);
            const abs = path.resolve(cwd, dir || '.');
            await place(name.includes('/') ? path.join(abs, 'sub') : abs, 'tool', e.kind);
            dirs.push(dir);
          }
          const pathVar = dirs.join(':');
          const found = findOnPath(name, pathVar, cwd);
          const ran = spawnSync(name, [], { cwd, env: { PATH: pathVar }, encoding: 'utf8' });
          const started = ran.error === undefined;
          assert.equal(found !== undefined, started, `PATH=${JSON.stringify(pathVar)} name=${name}: found ${found}, spawn ${ran.error?.message ?? 'started'}`);
          if (started) assert.equal(path.resolve(cwd, ran.stdout.trim()), found);
        } finally {
          await removeDir(root);
        }
      },
    ),
    { numRuns: 60 },
  );
});
