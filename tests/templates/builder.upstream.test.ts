// The template recipe against the REAL builder (../shared/upstream/dressage/examples/data/swegym/prepare_swegym_e2b.py):
// it is run with the console's manual command's environment and a recording stand-in for the `e2b` package, so the
// steps Dressage would send to E2B (image, user, apt, copies, run, start command, ready URL, CPU, memory) are the oracle.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { manualBuildCommand, templateSpec } from '../../src/services/templates/recipe.js';
import { manualArtifactsCommand } from '../../src/services/artifacts/versions.js';
import { DEFAULT_CLAUDE_CODE_VERSION, DEFAULT_PORTABLE_PYTHON_VERSION, binaryFileName, runtimeFileName } from '../../src/services/artifacts/versions.js';
import { SYSTEM_PATH, UPSTREAM_DRESSAGE, run, upstreamSkip } from '../helpers/upstreamHarness.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

// Records every builder call as JSON lines in $E2B_STANDIN_LOG.
const E2B_STANDIN = `import json, os
def _rec(*a):
    with open(os.environ["E2B_STANDIN_LOG"], "a") as f: f.write(json.dumps(a) + "\\n")
def wait_for_url(url): return {"wait_for_url": url}
def default_build_logger(): return None
class Template:
    def __init__(self, file_context_path=None): _rec("context", str(file_context_path))
    def from_image(self, image): _rec("from_image", image); return self
    def set_user(self, user): _rec("set_user", user); return self
    def apt_install(self, pkgs): _rec("apt_install", list(pkgs)); return self
    def copy(self, src, dest, mode=None): _rec("copy", src, dest, mode); return self
    def run_cmd(self, cmd): _rec("run_cmd", cmd); return self
    def set_start_cmd(self, cmd, ready): _rec("set_start_cmd", cmd, ready); return self
    @staticmethod
    def build(template, name, cpu_count=None, memory_mb=None, skip_cache=None, on_build_logs=None):
        _rec("build", name, cpu_count, memory_mb, skip_cache); return "built"
`;

/** KEY=VALUE words before the program in a manual command line ("…" placeholders dropped). */
function assignments(command: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of command.matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=("[^"]*"|\S+)/g)) {
    const v = (m[2] as string).replace(/^"|"$/g, '');
    if (v !== '…') out[m[1] as string] = v;
  }
  return out;
}

test('the template recipe is step for step the one the real Dressage builder sends to E2B (start command line by line)', { skip }, async () => {
  const dir = await tempDir('swegym-e2b-builder-');
  dirs.push(dir);
  const scripts = path.join(dir, 'examples', 'data', 'swegym');
  await mkdir(scripts, { recursive: true });
  for (const f of ['prepare_swegym_e2b.py', 'prepare_swegym_data.py']) await copyFile(path.join(UPSTREAM_DRESSAGE, 'examples', 'data', 'swegym', f), path.join(scripts, f));
  await mkdir(path.join(dir, 'standins', 'e2b'), { recursive: true });
  await writeFile(path.join(dir, 'standins', 'e2b', '__init__.py'), E2B_STANDIN);
  const versions = { claudeCodeVersion: DEFAULT_CLAUDE_CODE_VERSION, portablePythonVersion: DEFAULT_PORTABLE_PYTHON_VERSION, bbsVersion: '1.1.0' };
  const artifactDir = path.join(dir, 'data', 'claude-code-artifacts');
  await mkdir(artifactDir, { recursive: true });
  for (const f of [binaryFileName(versions), runtimeFileName(versions)]) await writeFile(path.join(artifactDir, f), 'x');

  const image = 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-7365:latest';
  const manual = manualBuildCommand(image, 'tpl-moto-7365');
  const log = path.join(dir, 'calls.jsonl');
  const r = await run('python3', ['examples/data/swegym/prepare_swegym_e2b.py', 'build'], {
    cwd: dir,
    env: { PATH: SYSTEM_PATH, PYTHONPATH: path.join(dir, 'standins'), PYTHONDONTWRITEBYTECODE: '1', E2B_STANDIN_LOG: log, ...assignments(manual) },
  });
  assert.equal(r.code, 0, `the real builder refused the manual command's environment: ${r.stderr}`);
  const calls = (await readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as unknown[]);
  const one = (name: string) => calls.filter((c) => c[0] === name).map((c) => c.slice(1));

  const spec = templateSpec({ image, name: 'tpl-moto-7365', artifactDir, versions });
  assert.deepEqual(one('from_image'), [[spec.baseImage]]);
  assert.deepEqual(one('set_user'), [['root']]);
  assert.deepEqual(one('apt_install'), [[spec.aptPackages]]);
  assert.deepEqual(one('copy'), spec.copies.map((c) => [c.src, c.dest, c.mode ?? null]));
  assert.deepEqual(one('run_cmd'), spec.runCommands.map((c) => [c]));
  const [startCmd, ready] = one('set_start_cmd')[0] as [string, { wait_for_url: string }];
  // Same lines (separate commands, not &&-chained), whitespace inside a line aside.
  const lines = (s: string) => s.split('\n').map((l) => l.trim().replace(/\s+/g, ' '));
  assert.deepEqual(lines(spec.startCommand), lines(startCmd));
  assert.equal(ready.wait_for_url, `http://127.0.0.1:${spec.readyPort}${spec.readyPath}`);
  assert.deepEqual(one('build'), [['tpl-moto-7365', spec.cpuCount, spec.memoryMb, false]]);
});

test("the manual artifacts command sets what the real artifacts script needs (wheel URL, BBS version, artifact dir)", { skip }, async () => {
  const script = await readFile(path.join(UPSTREAM_DRESSAGE, 'dressage', 'recipes', 'swegym', 'prepare_claude_code_sandbox_artifacts.sh'), 'utf8');
  const required = [...script.matchAll(/: "\$\{([A-Z_]+):\?/g)].map((m) => m[1] as string);
  assert.ok(required.includes('CLAUDE_CODE_BBS_WHEEL_URL'), 'the script requires the wheel URL');
  const bbsDefault = /CLAUDE_CODE_BBS_VERSION="\$\{CLAUDE_CODE_BBS_VERSION:-([^}]*)\}"/.exec(script)?.[1];
  const root = '/w/dressage';
  const cmd = manualArtifactsCommand({ bbsVersion: '1.1.0', artifactDir: `${root}/data/claude-code-artifacts` }, root);
  const env = assignments(cmd);
  for (const k of required) assert.ok(env[k], `${k} missing from: ${cmd}`);
  assert.notEqual(env.CLAUDE_CODE_BBS_VERSION, bbsDefault, `the script's default "${bbsDefault}" names a runtime no template build looks for`);
  assert.equal(env.CLAUDE_CODE_BBS_VERSION, '1.1.0');
  assert.equal(env.CLAUDE_CODE_ARTIFACT_DIR, 'data/claude-code-artifacts');
  assert.match(env.CLAUDE_CODE_BBS_WHEEL_URL ?? '', /dist\/dressage_blackbox_server-1\.1\.0-py3-none-any\.whl$/);
});
