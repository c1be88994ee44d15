// What the differential launcher tests share (launcher*.upstream.test.ts): a case is settings (and files they point
// at) run through the REAL Dressage launcher in a copied checkout and through the console.
import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { baseEnv, copyLauncherTree, MODEL_CONFIG_REL, seedConsoleInputs, UPSTREAM_DRESSAGE } from '../helpers/upstreamHarness.js';

export interface Case {
  name: string;
  settings: Record<string, string>;
  /** Prepares files the settings point at (relative to the copied checkout). */
  prepare?: (root: string) => Promise<void>;
}

export const outsideSlime = async (root: string) => {
  const other = path.join(path.dirname(root), 'elsewhere', 'slime');
  await mkdir(path.join(other, 'scripts', 'models'), { recursive: true });
  await cp(path.join(UPSTREAM_DRESSAGE, MODEL_CONFIG_REL), path.join(other, 'scripts', 'models', 'qwen3.5-4B.sh'));
};

export async function setUp(c: Case) {
  const tree = await copyLauncherTree();
  await seedConsoleInputs(tree);
  await c.prepare?.(tree.root);
  const settings: Record<string, string> = { DRESSAGE_SKIP_PROXY_HEALTHCHECK: '1', ...c.settings };
  if (settings.SLIME_ROOT?.startsWith('..')) settings.SLIME_ROOT = path.resolve(tree.root, settings.SLIME_ROOT);
  return { tree, env: baseEnv(tree, settings) };
}
