// Runs the REAL upstream Dressage launcher (../shared/upstream/dressage) next to the console, for differential tests.
// The shared copy is read-only and the launcher writes outputs/, so the parts it needs are copied to a temp dir.
// Machine-level commands it calls (`hostname`, `ray`, `curl`, `sleep`, `find`, `nvidia-smi`) are small stand-ins on PATH;
// everything else (bash, the sourced defaults, python3 for the runtime-env JSON) is real.
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonlRow } from '../train/helpers.js';

export { REPO } from './upstreamDir.js';
import { REPO, UPSTREAM_DRESSAGE_DIR, UPSTREAM_HARNESS_DIR, UPSTREAM_ROOT, upstreamMissing } from './upstreamDir.js';
/** The upstream checkout under test: SWEGYM_UPSTREAM=DIR, else ../shared/upstream (upstreamDir.ts). */
export const UPSTREAM = UPSTREAM_ROOT;
export const UPSTREAM_DRESSAGE = UPSTREAM_DRESSAGE_DIR;
export const UPSTREAM_HARNESS = UPSTREAM_HARNESS_DIR;
export const LAUNCHER_REL = path.join('examples', 'scripts', 'run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh');
export const DEFAULTS_REL = path.join('examples', 'scripts', 'default', 'dressage_env_defaults.sh');
export const MODEL_CONFIG_REL = path.join('slime', 'scripts', 'models', 'qwen3.5-4B.sh');

/** A skip message when the upstream sources are not next to the project (a user's clone), else false. */
export function upstreamSkip(...parts: string[]): string | false {
  const need = parts.length > 0 ? parts.map((p) => (p === 'dressage' || p.startsWith('dressage/') ? path.join(UPSTREAM_DRESSAGE, p.slice('dressage'.length)) : p === 'swegym-harness' || p.startsWith('swegym-harness/') ? path.join(UPSTREAM_HARNESS, p.slice('swegym-harness'.length)) : path.join(UPSTREAM, p))) : [UPSTREAM_DRESSAGE];
  return upstreamMissing(need);
}

/** What `hostname -I` / `hostname -i` print in the stand-in machine. */
export const HOST_I_UPPER = '10.77.0.5 172.17.0.1';
export const HOST_I_LOWER = '10.77.0.9';

export interface LauncherTree {
  /** The copied checkout (the launcher's REPO_ROOT). */
  root: string;
  launcher: string;
  /** Stand-ins both the launcher and the console may see (hostname). */
  hostBin: string;
  /** Stand-ins only the launcher sees (ray, curl, sleep, find, nvidia-smi). */
  clusterBin: string;
  /** Where the ray stand-in records its calls. */
  rayLog: string;
}

const STANDINS: Record<string, string> = {
  hostname: `#!/bin/sh
case "$1" in
  -I) echo '${HOST_I_UPPER} ' ;;
  -i) echo '${HOST_I_LOWER}' ;;
  *) echo standin-head ;;
esac
`,
  // ray status fails until ray start has run (no cluster yet), then lists STANDIN_RAY_NODES nodes.
  ray: `#!/bin/sh
state="\${STANDIN_RAY_STATE:?}"
echo "ray $*" >> "$state/calls.log"
case "$1" in
  start) touch "$state/started"; printf '%s\n' "$@" > "$state/start-argv" ;;
  stop) rm -f "$state/started" ;;
  status)
    [ -f "$state/started" ] || { echo 'ConnectionError: Could not find any running Ray instance.' >&2; exit 1; }
    n="\${STANDIN_RAY_NODES:-1}"; i=0
    while [ "$i" -lt "$n" ]; do echo " 1 node_standin$i"; i=$((i+1)); done ;;
  job) env > "$state/job-env"; printf '%s\n' "$@" > "$state/job-argv"; echo 'Job submitted (stand-in)' ;;
esac
exit 0
`,
  curl: '#!/bin/sh\nexit 0\n',
  // The launcher clears trajectory dirs with `find DIR … -exec rm -rf`: never for real in a test.
  find: '#!/bin/sh\necho "find $*" >> "${STANDIN_RAY_STATE:?}/find.log"\nexit 0\n',
  sleep: '#!/bin/sh\nexit 0\n',
  'nvidia-smi': '#!/bin/sh\necho "GPU 0: NVIDIA H200 (stand-in)"\n',
};

const created: string[] = [];

/** Removes every tree copyLauncherTree made in this process (call from `after`). */
export async function removeLauncherTrees(): Promise<void> {
  const { rm } = await import('node:fs/promises');
  for (const dir of created.splice(0)) await rm(dir, { recursive: true, force: true });
}

/** Copies the launcher, the defaults it sources, the slime model config and a `dressage/` package dir to a temp checkout. */
export async function copyLauncherTree(): Promise<LauncherTree> {
  const base = await mkdtemp(path.join(tmpdir(), 'swegym-upstream-'));
  created.push(base);
  const root = path.join(base, 'dressage');
  for (const rel of [LAUNCHER_REL, path.dirname(DEFAULTS_REL), MODEL_CONFIG_REL]) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await cp(path.join(UPSTREAM_DRESSAGE, rel), path.join(root, rel), { recursive: true });
  }
  // The launcher infers REPO_ROOT from a sibling `dressage/` package directory.
  await mkdir(path.join(root, 'dressage'), { recursive: true });
  const hostBin = path.join(base, 'bin-host');
  const clusterBin = path.join(base, 'bin-cluster');
  await mkdir(hostBin);
  await mkdir(clusterBin);
  for (const [name, body] of Object.entries(STANDINS)) {
    const file = path.join(name === 'hostname' ? hostBin : clusterBin, name);
    await writeFile(file, body);
    await chmod(file, 0o755);
  }
  const rayState = path.join(base, 'ray-state');
  await mkdir(rayState);
  return { root, launcher: path.join(root, LAUNCHER_REL), hostBin, clusterBin, rayLog: path.join(rayState, 'calls.log') };
}

/** Model checkpoints, a converted JSONL and a template map, so that the console's probes pass as on a real head. */
export async function seedConsoleInputs(tree: LauncherTree, rows = 2): Promise<void> {
  const models = path.join(tree.root, 'models');
  await mkdir(path.join(models, 'Qwen3.5-4B'), { recursive: true });
  await writeFile(path.join(models, 'Qwen3.5-4B', 'config.json'), '{"model_type":"qwen3_5"}\n');
  await mkdir(path.join(models, 'Qwen3.5-4B_torch_dist', 'release'), { recursive: true });
  const data = path.join(tree.root, 'data');
  await mkdir(data, { recursive: true });
  await writeFile(path.join(data, 'swegym-train-claude-code-e2b.jsonl'), Array.from({ length: rows }, (_, i) => JSON.stringify(jsonlRow(i))).join('\n') + '\n');
  const map = Object.fromEntries(Array.from({ length: rows }, (_, i) => [`xingyaoww/sweb.eval.x86_64.getmoto_s_moto-${2000 + i}:latest`, `tpl-moto-${2000 + i}`]));
  const { recipePaths } = await import('../../src/services/workspace/paths.js');
  const mapFile = recipePaths(tree.root).templateMap;
  await mkdir(path.dirname(mapFile), { recursive: true });
  await writeFile(mapFile, JSON.stringify(map));
}

export const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The environment both sides get: a clean machine plus the settings under test. */
export function baseEnv(tree: LauncherTree, settings: Record<string, string>): Record<string, string> {
  return {
    HOME: process.env.HOME ?? '/tmp',
    PATH: `${tree.hostBin}:${SYSTEM_PATH}`,
    PROMPT_DATA: path.join(tree.root, 'data', 'swegym-train-claude-code-e2b.jsonl'),
    MODEL_ROOT: path.join(tree.root, 'models'),
    DRESSAGE_E2B_API_KEY: 'short-fake',
    ...settings,
  };
}

/** The environment the launcher had when it submitted the Ray job (what it exported), from the ray stand-in. */
export async function jobEnv(tree: LauncherTree): Promise<Record<string, string>> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(path.join(path.dirname(tree.rayLog), 'job-env'), 'utf8');
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** The argv the launcher gave `ray start` / `ray job submit` (one argument a line; none holds a newline). */
export async function rayArgv(tree: LauncherTree, which: 'start' | 'job'): Promise<string[]> {
  const { readFile } = await import('node:fs/promises');
  return (await readFile(path.join(path.dirname(tree.rayLog), `${which}-argv`), 'utf8')).split('\n').slice(0, -1);
}

/** The value after `flag` in an argv (`--flag value` or `--flag=value`). */
export function flagValue(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
}

export interface ProcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(file: string, args: string[], opts: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the real launcher with the cluster stand-ins on PATH. */
export async function runRealLauncher(tree: LauncherTree, env: Record<string, string>): Promise<ProcResult & { effectiveLines: string[] }> {
  const full = { ...env, PATH: `${tree.hostBin}:${tree.clusterBin}:${SYSTEM_PATH}`, STANDIN_RAY_STATE: path.dirname(tree.rayLog) };
  const r = await run('bash', [tree.launcher], { cwd: tree.root, env: full });
  return { ...r, effectiveLines: r.stdout.split('\n').filter((l) => /^effective_[a-z_]+: /.test(l)) };
}

/** Runs the console's headless entry (TypeScript source, or the built bin with `built`). */
export async function runConsole(args: string[], opts: { cwd: string; env: Record<string, string>; built?: boolean }): Promise<ProcResult> {
  const node = path.join(REPO, 'node_modules', '.bin', 'node');
  const argv = opts.built ? [path.join(REPO, 'bin', 'swegym-console'), ...args] : ['--import', 'tsx', path.join(REPO, 'src', 'cli', 'main.ts'), ...args];
  return run(node, argv, { cwd: opts.built ? opts.cwd : REPO, env: { ...opts.env, NO_COLOR: '1' }, timeoutMs: 90_000 });
}

export interface DryRun {
  effectiveLines: string[];
  effective: Record<string, string>;
  checks: { id: string; status: string; detail: string; fix?: string }[];
  blocking: number;
}

/** Why the built binary cannot be run (dist/ not built), or false. */
export function builtSkip(): string | false {
  return existsSync(path.join(REPO, 'dist', 'swegym-console.mjs')) ? false : 'dist/ is not built (node scripts/build.mjs): skipped';
}

/** `train launch --dry-run --json` in the copied checkout, with only the host stand-ins on PATH (no Ray here). */
export async function consoleDryRun(tree: LauncherTree, env: Record<string, string>, extraArgs: string[] = [], opts: { built?: boolean } = {}): Promise<DryRun> {
  const r = await runConsole(['--workspace', tree.root, '--json', 'train', 'launch', '--dry-run', ...extraArgs], { cwd: tree.root, env, built: opts.built });
  if (!r.stdout.trim().startsWith('{')) throw new Error(`train launch --dry-run --json printed no JSON (exit ${r.code}): ${r.stderr.slice(-800)}`);
  return JSON.parse(r.stdout) as DryRun;
}

/** The launcher's refusal text: stderr without bash's `file: line N: VAR: ` prefix of a `${VAR:?message}` failure. */
export function refusalText(stderr: string): string {
  return stderr
    .split('\n')
    .map((l) => l.replace(/^.*?: line \d+: [A-Za-z_][A-Za-z0-9_]*: /, ''))
    .filter(Boolean)
    .join('\n');
}
