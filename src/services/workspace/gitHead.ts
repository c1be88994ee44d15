// The commit a checkout is at, read from its .git without running git (a worktree's or submodule's `.git` file, a
// branch ref, packed-refs, or a detached HEAD).
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export type GitHead = { commit: string; branch?: string } | { unknown: string };

async function text(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

export async function readGitHead(root: string): Promise<GitHead> {
  const dotGit = path.join(root, '.git');
  let gitDir = dotGit;
  try {
    if ((await stat(dotGit)).isFile()) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec((await text(dotGit)) ?? '');
      if (!m) return { unknown: `${dotGit} names no gitdir` };
      gitDir = path.resolve(root, m[1] as string);
    }
  } catch {
    return { unknown: `${root} has no .git (not a git checkout)` };
  }
  const head = (await text(path.join(gitDir, 'HEAD')))?.trim();
  if (!head) return { unknown: `${gitDir}/HEAD cannot be read` };
  if (/^[0-9a-f]{40}$/.test(head)) return { commit: head };
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  if (!ref) return { unknown: `HEAD is neither a commit nor a ref: ${head.slice(0, 80)}` };
  const branch = ref.replace(/^refs\/heads\//, '');
  // A worktree keeps its HEAD in its own gitdir and its refs in the common one.
  const common = (await text(path.join(gitDir, 'commondir')))?.trim();
  const dirs = [gitDir, ...(common ? [path.resolve(gitDir, common)] : [])];
  for (const dir of dirs) {
    const loose = (await text(path.join(dir, ref)))?.trim();
    if (loose && /^[0-9a-f]{40}$/.test(loose)) return { commit: loose, branch };
    const packed = await text(path.join(dir, 'packed-refs'));
    const line = packed?.split('\n').find((l) => l.endsWith(` ${ref}`));
    if (line && /^[0-9a-f]{40} /.test(line)) return { commit: line.slice(0, 40), branch };
  }
  return { unknown: `${ref} has no commit yet` };
}
