// Artifacts step (recipe §1.2): build the Blackbox Server wheel from the checkout, run Dressage's
// prepare_claude_code_sandbox_artifacts.sh with one explicit environment (the same versions the template builds
// will ask for), stream its output, parse its three result lines, and check what it produced: file names against
// CLAUDE_CODE_VERSION / CLAUDE_CODE_PORTABLE_PYTHON_VERSION / CLAUDE_CODE_BBS_VERSION (the `custom` trap), the
// binary's sha256 against CLAUDE_CODE_BINARY_SHA256 (same default and override as the script), sizes.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat, access } from 'node:fs/promises';
import path from 'node:path';
import { runProcess, type RunResult } from '../process/run.js';
import type { CommandLog } from '../process/commandLog.js';
import { ConsoleError, ExitCode } from '../errors.js';
import type { RecipePaths } from '../workspace/paths.js';
import {
  binaryFileName,
  runtimeFileName,
  wheelFileName,
  resolveArtifactConfig,
  DEFAULT_CLAUDE_CODE_VERSION,
  SCRIPT_DEFAULT_BBS_VERSION,
  type ArtifactConfig,
} from './versions.js';
import { listDir } from '../util/fs.js';
import { setting } from '../config/envSettings.js';

export interface FileFacts {
  file: string;
  exists: boolean;
  size?: number;
  sha256?: string;
  mtimeMs?: number;
}

export interface ArtifactStatus {
  config: ArtifactConfig;
  binary: FileFacts & { shaOk?: boolean };
  runtime: FileFacts;
  /** Both present, the binary's hash as expected. */
  current: boolean;
  /** People-readable problems (wrong names, the `custom` trap, hash mismatch). */
  problems: string[];
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await new Promise<void>((resolve, reject) => {
    createReadStream(file)
      .on('data', (c) => hash.update(c))
      .on('error', reject)
      .on('end', () => resolve());
  });
  return hash.digest('hex');
}

async function facts(file: string, withHash: boolean): Promise<FileFacts> {
  try {
    const s = await stat(file);
    return { file, exists: true, size: s.size, mtimeMs: s.mtimeMs, sha256: withHash ? await sha256File(file) : undefined };
  } catch {
    return { file, exists: false };
  }
}

/** What is in the artifact directory, checked against the versions the template builds will ask for. */
export async function artifactStatus(config: ArtifactConfig, opts: { hashRuntime?: boolean } = {}): Promise<ArtifactStatus> {
  const binary = await facts(path.join(config.artifactDir, binaryFileName(config)), true);
  const runtime = await facts(path.join(config.artifactDir, runtimeFileName(config)), Boolean(opts.hashRuntime));
  const problems: string[] = [];
  const shaOk = binary.exists ? binary.sha256 === config.binarySha256 : undefined;
  if (binary.exists && !shaOk) {
    problems.push(`${path.basename(binary.file)} has sha256 ${binary.sha256}, expected ${config.binarySha256}${config.binarySha256FromEnv ? ' (CLAUDE_CODE_BINARY_SHA256)' : " (the script's default)"}`);
  }
  const others = await listDir(config.artifactDir);
  if (!binary.exists) {
    const alt = others.filter((f) => /^claude-.+-linux-x64$/.test(f));
    problems.push(`missing ${path.basename(binary.file)}${alt.length ? ` (found ${alt.join(', ')}: CLAUDE_CODE_VERSION is ${config.claudeCodeVersion})` : ''}`);
  }
  if (!runtime.exists) {
    const alt = others.filter((f) => /^claude-code-runtime-python-.+-bbs-.+\.tar\.gz$/.test(f));
    const custom = alt.find((f) => f.endsWith(`-bbs-${SCRIPT_DEFAULT_BBS_VERSION}.tar.gz`));
    problems.push(
      `missing ${path.basename(runtime.file)}` +
        (custom
          ? ` (found ${custom}: it was built without CLAUDE_CODE_BBS_VERSION, whose script default is "custom"; the builds look for bbs-${config.bbsVersion})`
          : alt.length
            ? ` (found ${alt.join(', ')}: the versions differ from CLAUDE_CODE_PORTABLE_PYTHON_VERSION=${config.portablePythonVersion} / CLAUDE_CODE_BBS_VERSION=${config.bbsVersion})`
            : ''),
    );
  }
  return { config, binary: { ...binary, shaOk }, runtime, current: binary.exists && runtime.exists && shaOk === true, problems };
}

/** The three result lines of the artifacts script. */
export interface ScriptResult {
  binaryFile?: string;
  binarySha256?: string;
  runtimeFile?: string;
}

export function parseScriptOutput(lines: readonly string[]): ScriptResult {
  const out: ScriptResult = {};
  for (const line of lines) {
    const m = /^(claude_code_binary_file|claude_code_binary_sha256|claude_code_runtime_file)=(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === 'claude_code_binary_file') out.binaryFile = m[2];
    else if (m[1] === 'claude_code_binary_sha256') out.binarySha256 = m[2]?.toLowerCase();
    else out.runtimeFile = m[2];
  }
  return out;
}

/** Maps the script's documented failure messages to what/cause/fix. */
export function explainScriptFailure(result: RunResult, config: ArtifactConfig): ConsoleError {
  const text = [...result.stderr, ...result.stdout].join('\n');
  const tail = [...result.stderr, ...result.stdout].slice(-8).join('\n');
  const base = { exitCode: ExitCode.failed, inner: tail };
  if (/CLAUDE_CODE_BBS_WHEEL_URL/.test(text) && /Set CLAUDE_CODE_BBS_WHEEL_URL/.test(text)) {
    return new ConsoleError({ ...base, what: 'the artifacts script needs CLAUDE_CODE_BBS_WHEEL_URL', cause: 'no Blackbox Server wheel was passed', fix: 'let the console build the wheel (swegym-console artifacts build) or set CLAUDE_CODE_BBS_WHEEL_URL' });
  }
  if (/uv is required/.test(text)) {
    return new ConsoleError({ ...base, what: 'uv is required to prepare the portable Claude Code sandbox runtime', fix: 'python3 -m pip install build uv' });
  }
  if (/uv did not materialize/.test(text)) {
    return new ConsoleError({ ...base, what: `uv did not materialize the expected portable Python ${config.portablePythonVersion}`, cause: 'the artifacts must be built on Linux x86_64 with glibc (the sandboxes are)', fix: 'run `swegym-console artifacts build` on a Linux x86_64 machine (e.g. the cluster head node)' });
  }
  if (/FAILED|did NOT match|unexpected sha256/.test(text)) {
    return new ConsoleError({
      ...base,
      what: `the downloaded Claude Code ${config.claudeCodeVersion} binary does not match CLAUDE_CODE_BINARY_SHA256`,
      cause: config.binarySha256FromEnv
        ? `CLAUDE_CODE_BINARY_SHA256=${config.binarySha256} does not belong to this download`
        : config.claudeCodeVersion !== DEFAULT_CLAUDE_CODE_VERSION
          ? `CLAUDE_CODE_VERSION=${config.claudeCodeVersion} but CLAUDE_CODE_BINARY_SHA256 is unset, so the script compares with the ${DEFAULT_CLAUDE_CODE_VERSION} hash`
          : 'the download was damaged or replaced',
      fix: 'set CLAUDE_CODE_BINARY_SHA256 to the published hash of this version, or unset CLAUDE_CODE_VERSION',
    });
  }
  if (/curl: \(\d+\)|Could not resolve host|Failed to connect/.test(text)) {
    return new ConsoleError({ ...base, what: 'the artifacts script could not download Claude Code or the runtime', cause: tail.split('\n').pop(), fix: 'it needs internet access to downloads.claude.ai, PyPI and python-build-standalone; check the proxy and retry' });
  }
  return new ConsoleError({
    ...base,
    what: result.timedOut ? 'the artifacts script timed out' : result.cancelled ? 'the artifacts script was interrupted' : `the artifacts script failed (exit ${result.exitCode ?? result.signal ?? '?'})`,
    cause: tail || result.spawnError,
    fix: 'read the output above; rerun with --force to rebuild the runtime',
  });
}

export interface BuildArtifactsOptions {
  paths: RecipePaths;
  env: NodeJS.ProcessEnv;
  force?: boolean;
  signal?: AbortSignal;
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  log?: CommandLog;
  /** Python used for `python3 -m build` (default python3; tests use a fake). */
  python?: string;
  timeoutMs?: number;
}

export interface BuildArtifactsResult {
  skipped: boolean;
  wheel?: FileFacts;
  status: ArtifactStatus;
  script?: ScriptResult;
  durationMs: number;
}

/** Builds the BBS wheel (when missing or forced) into dist/ and returns its path. */
export async function buildWheel(opts: BuildArtifactsOptions, config: ArtifactConfig): Promise<string> {
  const wheel = path.join(opts.paths.bbsWheelDir, wheelFileName(config.bbsVersion));
  if (!opts.force) {
    try {
      await access(wheel);
      return wheel;
    } catch {}
  }
  try {
    await access(path.join(opts.paths.blackboxServerDir, 'pyproject.toml'));
  } catch {
    throw new ConsoleError({ what: `${opts.paths.blackboxServerDir}/pyproject.toml not found`, cause: 'the workspace is not a Dressage checkout', fix: 'run from the Dressage checkout or pass --workspace', exitCode: ExitCode.precondition });
  }
  const python = opts.python ?? setting(opts.env, 'SWEGYM_PYTHON');
  const r = await runProcess(python, ['-m', 'build', '--wheel', '--outdir', 'dist', 'blackbox_server/'], {
    cwd: opts.paths.root,
    env: opts.env,
    signal: opts.signal,
    timeoutMs: 15 * 60_000,
    onLine: opts.onLine,
    log: opts.log,
    note: 'build the Blackbox Server wheel',
  });
  if (r.exitCode !== 0) {
    const text = [...r.stderr, ...r.stdout].join('\n');
    throw new ConsoleError({
      what: 'building the Blackbox Server wheel failed',
      cause: /No module named build/.test(text) ? 'the Python package `build` is not installed' : r.spawnError ?? r.stderr.slice(-5).join('\n'),
      fix: 'python3 -m pip install build uv, then rerun',
      exitCode: r.spawnError ? ExitCode.precondition : ExitCode.failed,
    });
  }
  try {
    await access(wheel);
  } catch {
    const made = (await readdir(opts.paths.bbsWheelDir).catch(() => [] as string[])).filter((f) => f.endsWith('.whl'));
    throw new ConsoleError({
      what: `the wheel build did not produce ${path.basename(wheel)}`,
      cause: made.length ? `dist/ has ${made.join(', ')}: CLAUDE_CODE_BBS_VERSION=${config.bbsVersion} differs from blackbox_server's version` : undefined,
      fix: 'unset CLAUDE_CODE_BBS_VERSION (the console then reads the version from blackbox_server/pyproject.toml) or set it to the wheel version',
    });
  }
  return wheel;
}

/** The environment the artifacts script runs with: every version explicit, never the `custom` default. */
export function scriptEnv(config: ArtifactConfig, wheel: string, force: boolean): Record<string, string> {
  return {
    CLAUDE_CODE_ARTIFACT_DIR: config.artifactDir,
    CLAUDE_CODE_VERSION: config.claudeCodeVersion,
    CLAUDE_CODE_BINARY_SHA256: config.binarySha256,
    CLAUDE_CODE_BBS_VERSION: config.bbsVersion,
    CLAUDE_CODE_BBS_WHEEL_URL: wheel,
    CLAUDE_CODE_PORTABLE_PYTHON_VERSION: config.portablePythonVersion,
    CLAUDE_CODE_REBUILD_RUNTIME: force ? '1' : '0',
  };
}

export async function buildArtifacts(opts: BuildArtifactsOptions): Promise<BuildArtifactsResult> {
  const t0 = Date.now();
  const config = await resolveArtifactConfig(opts.paths, opts.env);
  if (config.bbsVersion === SCRIPT_DEFAULT_BBS_VERSION) {
    throw new ConsoleError({
      what: 'CLAUDE_CODE_BBS_VERSION is "custom"',
      cause: 'that is only the artifacts script\'s placeholder default; the template builder needs the real BBS version to find the runtime tarball',
      fix: 'unset CLAUDE_CODE_BBS_VERSION (the console reads blackbox_server/pyproject.toml) or set it to e.g. 1.1.0',
      exitCode: ExitCode.precondition,
    });
  }
  if (config.claudeCodeVersion !== DEFAULT_CLAUDE_CODE_VERSION && !config.binarySha256FromEnv) {
    throw new ConsoleError({
      what: `CLAUDE_CODE_VERSION=${config.claudeCodeVersion} without CLAUDE_CODE_BINARY_SHA256`,
      cause: `the script would check the download against the ${DEFAULT_CLAUDE_CODE_VERSION} hash and fail`,
      fix: 'set CLAUDE_CODE_BINARY_SHA256 to the sha256 of that release, or unset CLAUDE_CODE_VERSION',
      exitCode: ExitCode.precondition,
    });
  }
  const before = await artifactStatus(config);
  if (before.current && !opts.force) return { skipped: true, status: before, durationMs: Date.now() - t0 };
  try {
    await access(opts.paths.artifactsScript);
  } catch {
    throw new ConsoleError({ what: `${opts.paths.artifactsScript} not found`, cause: 'this Dressage checkout predates the SWE-Gym recipe, or the workspace is wrong', fix: 'update Dressage (git pull) or pass --workspace', exitCode: ExitCode.precondition });
  }
  // A wheel the operator points at (path or URL) is used as is; otherwise the console builds it from the checkout.
  const given = opts.env.CLAUDE_CODE_BBS_WHEEL_URL?.trim();
  const wheel = given ? given : await buildWheel(opts, config);
  const stdout: string[] = [];
  const r = await runProcess('bash', [opts.paths.artifactsScript], {
    cwd: opts.paths.root,
    env: { ...opts.env, ...scriptEnv(config, wheel, Boolean(opts.force)) },
    signal: opts.signal,
    timeoutMs: opts.timeoutMs ?? 30 * 60_000,
    keepLines: 400,
    log: opts.log,
    note: 'prepare Claude Code sandbox artifacts',
    onLine: (stream, line) => {
      if (stream === 'stdout') stdout.push(line);
      opts.onLine?.(stream, line);
    },
  });
  if (r.exitCode !== 0) throw explainScriptFailure(r, config);
  const script = parseScriptOutput(stdout);
  const missingLines = (['binaryFile', 'binarySha256', 'runtimeFile'] as const).filter((k) => !script[k]);
  if (missingLines.length) {
    throw new ConsoleError({ what: 'the artifacts script exited 0 but did not print its result lines', cause: `missing: ${missingLines.join(', ')}`, fix: 'check that the workspace runs the Dressage version this console expects' });
  }
  const after = await artifactStatus(config);
  const problems = [...after.problems];
  if (path.resolve(script.binaryFile as string) !== after.binary.file) problems.push(`the script wrote ${script.binaryFile}, the templates expect ${after.binary.file}`);
  if (path.resolve(script.runtimeFile as string) !== after.runtime.file) problems.push(`the script wrote ${script.runtimeFile}, the templates expect ${after.runtime.file}`);
  if (script.binarySha256 !== config.binarySha256) problems.push(`the script reports sha256 ${script.binarySha256}, expected ${config.binarySha256}`);
  if (problems.length) {
    throw new ConsoleError({ what: 'the artifacts do not match what the template builds will ask for', cause: problems.join('; '), fix: 'rerun with --force; keep CLAUDE_CODE_* the same for artifacts build and templates build' });
  }
  const finalStatus = await artifactStatus(config, { hashRuntime: true });
  return { skipped: false, wheel: /^[a-z]+:\/\//i.test(wheel) ? { file: wheel, exists: true } : await facts(path.resolve(opts.paths.root, wheel), false), status: finalStatus, script, durationMs: Date.now() - t0 };
}
