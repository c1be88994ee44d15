// Every recipe path, at the same defaults as Dressage's quickstart, so manual and console steps mix freely.
import path from 'node:path';
import type { Split } from '../../state/types/workspace.js';
export type { Split } from '../../state/types/workspace.js';

export const SPLIT_ROWS = { train: 293, validation: 23 } as const satisfies Record<Split, number>;

export interface RecipePaths {
  root: string;
  sourceDir: string;
  parquet: (split: Split) => string;
  imageList: string;
  artifactDir: string;
  bbsWheelDir: string;
  templateMap: string;
  trainJsonl: string;
  outputsLogs: string;
  runLogDir: (runName: string) => string;
  checkpointDir: (runName: string) => string;
  // Dressage files the console runs or checks.
  prepareE2bScript: string;
  prepareDataScript: string;
  artifactsScript: string;
  launcherScript: string;
  envDefaults: string;
  slimeModelConfig: string;
  blackboxServerDir: string;
  // The console's own state.
  consoleDir: string;
  settingsFile: string;
  journalsDir: string;
  runsDir: string;
  lockFile: string;
}

export const CONSOLE_DIR_NAME = '.swegym-console';
export const DEFAULT_RUN_NAME = 'swegym-qwen3.5-4b-claude-code-grpo-sync';

export function recipePaths(workspace: string): RecipePaths {
  const root = path.resolve(workspace);
  const j = (...parts: string[]) => path.join(root, ...parts);
  const consoleDir = j(CONSOLE_DIR_NAME);
  return {
    root,
    sourceDir: j('data', 'swegym-source'),
    parquet: (split) => j('data', 'swegym-source', `${split}.parquet`),
    imageList: j('data', 'swegym-images.txt'),
    artifactDir: j('data', 'claude-code-artifacts'),
    bbsWheelDir: j('dist'),
    templateMap: j('data', 'e2b-template-map.json'),
    trainJsonl: j('data', 'swegym-train-claude-code-e2b.jsonl'),
    outputsLogs: j('outputs', 'logs'),
    runLogDir: (runName) => j('outputs', 'logs', runName),
    checkpointDir: (runName) => j('outputs', 'checkpoints', runName),
    prepareE2bScript: j('examples', 'data', 'swegym', 'prepare_swegym_e2b.py'),
    prepareDataScript: j('examples', 'data', 'swegym', 'prepare_swegym_data.py'),
    artifactsScript: j('dressage', 'recipes', 'swegym', 'prepare_claude_code_sandbox_artifacts.sh'),
    launcherScript: j('examples', 'scripts', 'run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh'),
    envDefaults: j('examples', 'scripts', 'default', 'dressage_env_defaults.sh'),
    slimeModelConfig: j('slime', 'scripts', 'models', 'qwen3.5-4B.sh'),
    blackboxServerDir: j('blackbox_server'),
    consoleDir,
    settingsFile: path.join(consoleDir, 'settings.json'),
    journalsDir: path.join(consoleDir, 'journals'),
    runsDir: path.join(consoleDir, 'runs'),
    lockFile: path.join(consoleDir, 'lock'),
  };
}

/** Shows a path relative to the workspace when it is inside it. */
export function displayPath(paths: RecipePaths, file: string): string {
  const rel = path.relative(paths.root, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}
