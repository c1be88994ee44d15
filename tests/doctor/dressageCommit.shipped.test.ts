// Shipped tier: `doctor` says which Dressage commit the console was verified against and whether the workspace's
// checkout is at another one (read from its .git: a branch ref, packed-refs or a detached HEAD).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { VERIFIED_DRESSAGE_COMMIT } from '../../src/services/recipe.js';
import { readGitHead } from '../../src/services/workspace/gitHead.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';

const OTHER = '0123456789abcdef0123456789abcdef01234567';

async function gitAt(root: string, how: 'loose' | 'packed' | 'detached', commit: string): Promise<void> {
  const git = path.join(root, '.git');
  await mkdir(path.join(git, 'refs', 'heads'), { recursive: true });
  if (how === 'detached') return writeFile(path.join(git, 'HEAD'), `${commit}\n`);
  await writeFile(path.join(git, 'HEAD'), 'ref: refs/heads/main\n');
  if (how === 'loose') await writeFile(path.join(git, 'refs', 'heads', 'main'), `${commit}\n`);
  else await writeFile(path.join(git, 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted\n${commit} refs/heads/main\n`);
}

test('the checkout commit from .git: loose ref, packed-refs, detached HEAD, a worktree file, none', async () => {
  const dir = await tempDir();
  try {
    for (const how of ['loose', 'packed', 'detached'] as const) {
      const root = path.join(dir, how);
      await mkdir(root);
      await gitAt(root, how, OTHER);
      assert.deepEqual(await readGitHead(root), how === 'detached' ? { commit: OTHER } : { commit: OTHER, branch: 'main' });
    }
    const wt = path.join(dir, 'wt');
    await mkdir(path.join(dir, 'loose', '.git', 'worktrees', 'wt'), { recursive: true });
    await writeFile(path.join(dir, 'loose', '.git', 'worktrees', 'wt', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(path.join(dir, 'loose', '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    await mkdir(wt);
    await writeFile(path.join(wt, '.git'), `gitdir: ${path.join(dir, 'loose', '.git', 'worktrees', 'wt')}\n`);
    assert.deepEqual(await readGitHead(wt), { commit: OTHER, branch: 'main' });
    assert.match(JSON.stringify(await readGitHead(path.join(dir, 'none-here'))), /no \.git/);
  } finally {
    await removeDir(dir);
  }
});

test('shipped: doctor names the verified Dressage commit and whether the checkout differs', { timeout: 120_000 }, async () => {
  for (const [commit, status] of [[VERIFIED_DRESSAGE_COMMIT, 'ok'], [OTHER, 'warn']] as const) {
    const ws = await fakeDressageCheckout();
    try {
      await gitAt(ws, 'loose', commit);
      const r = await runShipped(['doctor', '-w', ws, '--json'], { env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` } });
      const checks = (JSON.parse(r.out) as { checks: { id: string; status: string; detail: string; fix: string }[] }).checks;
      const c = checks.find((x) => x.id === 'dressage-commit');
      assert.equal(c?.status, status, explain(r));
      if (status === 'ok') assert.match(c.detail, new RegExp(`^${VERIFIED_DRESSAGE_COMMIT.slice(0, 12)} \\(main\\): the commit the console was verified against`));
      else {
        assert.match(c.detail, new RegExp(`at ${OTHER.slice(0, 12)} \\(main\\); the console was verified against Dressage ${VERIFIED_DRESSAGE_COMMIT.slice(0, 12)}`));
        assert.match(c.fix, new RegExp(`SWEGYM_UPSTREAM=${ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      }
    } finally {
      await removeDir(ws);
    }
  }
});
