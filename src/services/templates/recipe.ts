// The sandbox template recipe, step for step the same as Dressage's Python builder (recipe §3):
//   from_image(TASK_IMAGE) → set_user root → apt_install [bash curl ca-certificates git patch tar]
//   → copy claude-<ver>-linux-x64 → /usr/local/bin/claude (0755)
//   → copy claude-code-runtime-python-<py>-bbs-<bbs>.tar.gz → /tmp/cc-runtime.tar.gz
//   → run: unpack into /opt/cc-runtime + `claude --version`
//   → start command: Blackbox Server on 31000, ready when http://127.0.0.1:31000/health answers
//   → build with 4 CPUs and 8192 MB (the SDK defaults would be 2 and 1024), optional skip-cache.
// The provider maps this TemplateSpec onto its builder (E2B Template builder; the local provider, a directory).
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { TemplateSpec } from '../sandbox/types.js';
import { BLACKBOX_PORT, TASK_WORKDIR } from '../recipe.js';
import { binaryFileName, runtimeFileName, type ArtifactVersions } from '../artifacts/versions.js';

export const HEALTH_PATH = '/health';
export const DEFAULT_CPU_COUNT = 4;
export const DEFAULT_MEMORY_MB = 8192;
export const TEMPLATE_USER = 'root';
export const APT_PACKAGES = ['bash', 'curl', 'ca-certificates', 'git', 'patch', 'tar'] as const;
export const CLAUDE_BIN = '/usr/local/bin/claude';
export const RUNTIME_TARBALL_DEST = '/tmp/cc-runtime.tar.gz';
export const RUNTIME_DIR = '/opt/cc-runtime';
export const BBS_LOG = '/tmp/blackbox-server.log';

export const UNPACK_COMMAND =
  `rm -rf ${RUNTIME_DIR} && mkdir -p ${RUNTIME_DIR} && tar -xzf ${RUNTIME_TARBALL_DEST} -C ${RUNTIME_DIR} --strip-components=1 && ${CLAUDE_BIN} --version`;

/**
 * The start command: BBS from the isolated runtime, bound to 0.0.0.0:<port>, logging to /tmp/blackbox-server.log.
 * One step per line as in Dressage's builder, not `&&`-chained: a failed `cd /testbed` does not stop the server.
 */
export function startCommand(port = BLACKBOX_PORT): string {
  const py = `${RUNTIME_DIR}/python/bin/python3`;
  const code = `import sys; sys.path.insert(0, '${RUNTIME_DIR}/bbs-site'); from blackbox_server.main import main; main()`;
  return [
    `cd ${TASK_WORKDIR}`,
    'export BBS_HOST=0.0.0.0',
    `export BBS_PORT=${port}`,
    'export BBS_RUNTIME_ROOT=/tmp/blackbox_server',
    `exec ${py} -c "${code}" > ${BBS_LOG} 2>&1`,
  ].join('\n');
}

export interface RecipeOptions {
  /** The task's Docker image (E2B) or sample directory (local provider). */
  image: string;
  /** The template name (alias). */
  name: string;
  artifactDir: string;
  versions: ArtifactVersions;
  cpuCount?: number;
  memoryMb?: number;
  port?: number;
  skipCache?: boolean;
}

/** The TemplateSpec for one image. Like Dressage, copy sources are file names relative to the artifact directory
 * (the build's file context, `contextDir`). */
export function templateSpec(opts: RecipeOptions): TemplateSpec {
  const port = opts.port ?? BLACKBOX_PORT;
  return {
    name: opts.name,
    baseImage: opts.image,
    cpuCount: opts.cpuCount ?? DEFAULT_CPU_COUNT,
    memoryMb: opts.memoryMb ?? DEFAULT_MEMORY_MB,
    aptPackages: [...APT_PACKAGES],
    copies: [
      { src: binaryFileName(opts.versions), dest: CLAUDE_BIN, mode: 0o755 },
      { src: runtimeFileName(opts.versions), dest: RUNTIME_TARBALL_DEST },
    ],
    contextDir: opts.artifactDir,
    runCommands: [UNPACK_COMMAND],
    startCommand: startCommand(port),
    readyPort: port,
    readyPath: HEALTH_PATH,
    ...(opts.skipCache ? { skipCache: true } : {}),
  };
}

/** The artifact files a spec copies, as absolute paths (to check they exist before building). */
export function specArtifacts(spec: TemplateSpec): string[] {
  return spec.copies.map((c) => path.resolve(spec.contextDir ?? process.cwd(), c.src));
}

/**
 * A fingerprint of what a template contains: every step of the spec (not its name or the skip-cache flag) plus
 * the digests of the copied files. A template whose recorded fingerprint differs is rebuilt.
 */
export function specFingerprint(spec: TemplateSpec, fileDigests: Record<string, string> = {}): string {
  const body = {
    recipe: 1,
    baseImage: spec.baseImage,
    user: TEMPLATE_USER,
    cpuCount: spec.cpuCount,
    memoryMb: spec.memoryMb,
    aptPackages: spec.aptPackages,
    copies: spec.copies.map((c) => ({
      file: path.basename(c.src),
      digest: fileDigests[path.resolve(spec.contextDir ?? process.cwd(), c.src)] ?? '',
      dest: c.dest,
      mode: c.mode ?? null,
    })),
    runCommands: spec.runCommands,
    startCommand: spec.startCommand,
    ready: `${spec.readyPort}${spec.readyPath}`,
  };
  return createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);
}

/**
 * The equivalent manual command, for the screen and the docs. Dressage's build reads the artifact directory and the
 * BBS version from the environment too (it refuses to run without them), and the E2B key.
 */
export function manualBuildCommand(image: string, name: string, artifacts: { artifactDir: string; bbsVersion: string } = { artifactDir: 'data/claude-code-artifacts', bbsVersion: '1.1.0' }): string {
  return `TASK_IMAGE=${image} TEMPLATE_NAME=${name} CLAUDE_CODE_ARTIFACT_DIR=${artifacts.artifactDir} CLAUDE_CODE_BBS_VERSION=${artifacts.bbsVersion} E2B_API_KEY=… python3 examples/data/swegym/prepare_swegym_e2b.py build`;
}
