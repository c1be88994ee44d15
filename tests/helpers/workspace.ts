// Temporary workspaces (fake Dressage checkouts) for tests.
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export async function tempDir(prefix = 'swegym-test-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** A directory laid out like a Dressage checkout (the files the console recognises), without real content. */
export async function fakeDressageCheckout(opts: { slime?: boolean } = {}): Promise<string> {
  const root = await tempDir('swegym-ws-');
  const files: Record<string, string> = {
    'pyproject.toml': '[project]\nname = "dressage"\nversion = "0.1.0"\n',
    'examples/data/swegym/prepare_swegym_e2b.py': '# fake\n',
    'examples/data/swegym/prepare_swegym_data.py': '# fake\n',
    'dressage/recipes/swegym/prepare_claude_code_sandbox_artifacts.sh': '#!/bin/bash\n',
    'examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh': '#!/bin/bash\n',
    'examples/scripts/default/dressage_env_defaults.sh': '# defaults\n',
    'blackbox_server/pyproject.toml': '[project]\nname = "dressage-blackbox-server"\nversion = "1.1.0"\n',
    '.gitmodules': '[submodule "slime"]\n\tpath = slime\n\turl = https://github.com/THUDM/slime.git\n',
  };
  if (opts.slime !== false) files['slime/scripts/models/qwen3.5-4B.sh'] = 'MODEL_ARGS=()\n';
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return root;
}

export async function removeDir(dir: string): Promise<void> {
  // A poller that was disposed may still finish one atomic write (tmp file, then rename) while the tree is removed:
  // rm then meets a directory that is not empty yet (ENOTEMPTY); Node's retries cover that.
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
