// The versions and file names that tie the artifacts script (recipe §1.2) to the template builds (§1.3, §3).
// The script and the builder read the same variables but with different defaults; the one that bites is
// CLAUDE_CODE_BBS_VERSION, which the script defaults to `custom` (only used in the tarball file name) while the
// builder requires the real value to find the tarball (trap §8.6). The console always passes one explicit value
// to both: the env var when set, else the version in blackbox_server/pyproject.toml, else 1.1.0.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';

export const DEFAULT_CLAUDE_CODE_VERSION = '2.1.207';
export const DEFAULT_PORTABLE_PYTHON_VERSION = '3.10.20';
/** The artifacts script's own default for CLAUDE_CODE_BINARY_SHA256 (the hash of the 2.1.207 linux-x64 binary). */
export const DEFAULT_CLAUDE_CODE_BINARY_SHA256 = '85e7e988a392d859f90802ca21fb26e89d3c9ab527f5ed0b08df3955e34d5c83';
/** The artifacts script's default for CLAUDE_CODE_BBS_VERSION: a trap, never what the builds ask for. */
export const SCRIPT_DEFAULT_BBS_VERSION = 'custom';
export const FALLBACK_BBS_VERSION = '1.1.0';
/** The script's default output directory; the quickstart (and the console) use data/claude-code-artifacts. */
export const SCRIPT_DEFAULT_ARTIFACT_DIR = '/tmp/dressage/claude_code_artifacts';

export interface ArtifactVersions {
  claudeCodeVersion: string;
  portablePythonVersion: string;
  bbsVersion: string;
}

export interface ArtifactConfig extends ArtifactVersions {
  artifactDir: string;
  /** Expected sha256 of the Claude Code binary (env override or the script's default). */
  binarySha256: string;
  /** True when CLAUDE_CODE_BINARY_SHA256 came from the environment. */
  binarySha256FromEnv: boolean;
  /** Where each value came from, for display. */
  sources: Record<'claudeCodeVersion' | 'portablePythonVersion' | 'bbsVersion' | 'artifactDir' | 'binarySha256', 'env' | 'default' | 'pyproject'>;
}

export function binaryFileName(v: Pick<ArtifactVersions, 'claudeCodeVersion'>): string {
  return `claude-${v.claudeCodeVersion}-linux-x64`;
}

export function runtimeFileName(v: Pick<ArtifactVersions, 'portablePythonVersion' | 'bbsVersion'>): string {
  return `claude-code-runtime-python-${v.portablePythonVersion}-bbs-${v.bbsVersion}.tar.gz`;
}

export function wheelFileName(bbsVersion: string): string {
  return `dressage_blackbox_server-${bbsVersion}-py3-none-any.whl`;
}

/** Reads `version = "…"` from blackbox_server/pyproject.toml ([project] table); undefined when absent. */
export async function readBbsVersion(paths: RecipePaths): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(paths.blackboxServerDir, 'pyproject.toml'), 'utf8');
  } catch {
    return undefined;
  }
  let inProject = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inProject = line === '[project]';
      continue;
    }
    const m = inProject ? /^version\s*=\s*["']([^"']+)["']/.exec(line) : null;
    if (m) return m[1];
  }
  return undefined;
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/** The artifact settings the console uses for both the artifacts script and the template builds. */
export async function resolveArtifactConfig(paths: RecipePaths, env: NodeJS.ProcessEnv): Promise<ArtifactConfig> {
  const ccv = envValue(env, 'CLAUDE_CODE_VERSION');
  const py = envValue(env, 'CLAUDE_CODE_PORTABLE_PYTHON_VERSION');
  const bbsEnv = envValue(env, 'CLAUDE_CODE_BBS_VERSION');
  const dir = envValue(env, 'CLAUDE_CODE_ARTIFACT_DIR');
  const sha = envValue(env, 'CLAUDE_CODE_BINARY_SHA256');
  const pyproject = bbsEnv ? undefined : await readBbsVersion(paths);
  return {
    claudeCodeVersion: ccv ?? DEFAULT_CLAUDE_CODE_VERSION,
    portablePythonVersion: py ?? DEFAULT_PORTABLE_PYTHON_VERSION,
    bbsVersion: bbsEnv ?? pyproject ?? FALLBACK_BBS_VERSION,
    artifactDir: dir ? path.resolve(paths.root, dir) : paths.artifactDir,
    binarySha256: (sha ?? DEFAULT_CLAUDE_CODE_BINARY_SHA256).toLowerCase(),
    binarySha256FromEnv: Boolean(sha),
    sources: {
      claudeCodeVersion: ccv ? 'env' : 'default',
      portablePythonVersion: py ? 'env' : 'default',
      bbsVersion: bbsEnv ? 'env' : pyproject ? 'pyproject' : 'default',
      artifactDir: dir ? 'env' : 'default',
      binarySha256: sha ? 'env' : 'default',
    },
  };
}

/**
 * The manual equivalent of `artifacts build`, with the environment the script needs: without CLAUDE_CODE_BBS_WHEEL_URL
 * it refuses to run, without CLAUDE_CODE_BBS_VERSION it names the runtime `bbs-custom` (which no template build looks
 * for), and without CLAUDE_CODE_ARTIFACT_DIR it writes to /tmp/dressage/claude_code_artifacts.
 */
export function manualArtifactsCommand(config: Pick<ArtifactConfig, 'bbsVersion' | 'artifactDir'>, root: string): string {
  const rel = path.relative(root, config.artifactDir) || '.';
  const dir = rel.startsWith('..') ? config.artifactDir : rel;
  return [
    'python3 -m build --wheel --outdir dist blackbox_server/ &&',
    `CLAUDE_CODE_BBS_VERSION=${config.bbsVersion}`,
    `CLAUDE_CODE_BBS_WHEEL_URL="$PWD/dist/${wheelFileName(config.bbsVersion)}"`,
    `CLAUDE_CODE_ARTIFACT_DIR=${dir}`,
    'bash dressage/recipes/swegym/prepare_claude_code_sandbox_artifacts.sh',
  ].join(' ');
}
