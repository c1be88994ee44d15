// Is the workspace a Dressage checkout? The recipe's four scripts say so; the home screen and the doctor both ask.
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from './paths.js';
import type { CheckoutStatus } from '../../state/types/workspace.js';
export type { CheckoutStatus } from '../../state/types/workspace.js';

export const DRESSAGE_CLONE_COMMAND = 'git clone https://github.com/Accio-Lab/Dressage && cd Dressage && git submodule update --init --recursive';

export async function inspectCheckout(paths: RecipePaths): Promise<CheckoutStatus> {
  const scripts = [paths.launcherScript, paths.prepareDataScript, paths.prepareE2bScript, paths.artifactsScript];
  const lookedFor = scripts.map((f) => path.relative(paths.root, f));
  const present = await Promise.all(scripts.map((f) => access(f).then(() => true, () => false)));
  const missing = lookedFor.filter((_, i) => !present[i]);
  const found = missing.length === 0 ? 'all' : missing.length === scripts.length ? 'none' : 'some';
  return { root: paths.root, lookedFor, missing, found };
}
