// Test workspaces for the train capability: a fake Dressage checkout whose launcher is tests/fakes/fake-launcher.sh,
// a model root with HF and torch_dist checkpoints, and a converted JSONL built by hand from reference §2.3.
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeDressageCheckout } from '../helpers/workspace.js';
import { recipePaths, type RecipePaths } from '../../src/services/workspace/paths.js';
import { dressageRow } from '../fixtures/dressageRow.js';

export const FAKE_LAUNCHER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fakes', 'fake-launcher.sh');
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NODE = path.join(REPO, 'node_modules', '.bin', 'node');

/** A secret that matches no token shape: only env-based redaction can hide it. */
export const SECRET = 'zz-training-key-9f8e7d6c5b4a';

/** A converted row, numbered from getmoto__moto-2000 so that it never meets the verifier tests' rows. */
export const jsonlRow = (i: number): object => dressageRow(i, { first: 2000, commitChar: 'b' });

export interface TrainWorkspace {
  root: string;
  paths: RecipePaths;
  modelRoot: string;
  /** An environment under which every blocking check passes (one node, proxy health skipped). */
  env: NodeJS.ProcessEnv;
}

export async function trainWorkspace(opts: { rows?: number } = {}): Promise<TrainWorkspace> {
  const root = await fakeDressageCheckout();
  const paths = recipePaths(root);
  await copyFile(FAKE_LAUNCHER, paths.launcherScript);
  await chmod(paths.launcherScript, 0o755);
  const modelRoot = path.join(root, 'models');
  await mkdir(path.join(modelRoot, 'Qwen3.5-4B'), { recursive: true });
  await writeFile(path.join(modelRoot, 'Qwen3.5-4B', 'config.json'), '{"model_type":"qwen3_5"}\n');
  await mkdir(path.join(modelRoot, 'Qwen3.5-4B_torch_dist', 'release'), { recursive: true });
  await writeFile(path.join(modelRoot, 'Qwen3.5-4B_torch_dist', 'latest_checkpointed_iteration.txt'), 'release\n');
  const n = opts.rows ?? 3;
  const rows = Array.from({ length: n }, (_, i) => JSON.stringify(jsonlRow(i)));
  await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
  await writeFile(paths.trainJsonl, rows.join('\n') + '\n');
  await writeFile(
    paths.templateMap,
    JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`xingyaoww/sweb.eval.x86_64.getmoto_s_moto-${2000 + i}:latest`, `tpl-moto-${2000 + i}`]))),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MODEL_ROOT: modelRoot,
    ACTOR_NUM_NODES: '1',
    MASTER_ADDR: '10.1.2.3',
    DRESSAGE_E2B_API_KEY: SECRET,
    DRESSAGE_PROXY_URL: 'https://proxy.example.com',
    DRESSAGE_SKIP_PROXY_HEALTHCHECK: '1',
    RAY_JOIN_TIMEOUT_SEC: '1',
    FAKE_RAY_POLL_SEC: '0.1',
  };
  return { root, paths, modelRoot, env };
}

/**
 * Test cleanup: SIGKILL a launcher's process group only if its leader is still the process we started (same /proc
 * start time). PIDs wrap quickly on a shared machine; a stale number may belong to someone else by now.
 */
export async function killGroupIfOurs(pgid: number | undefined, procStart: string | undefined): Promise<void> {
  if (!pgid) return;
  const { procStartTime } = await import('../../src/services/train/registry.js');
  const now = await procStartTime(pgid);
  if (now === undefined || procStart === undefined || now !== procStart) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {}
}
