// Every prerequisite and every known trap of the recipe (reference §1.0, §8), as independent checks.
// Checks never print a secret value: they say "set (N chars)" at most.
import { readFile, readdir, statfs } from 'node:fs/promises';
import { findOnPath } from '../process/findOnPath.js';
import { exists } from '../util/fs.js';
import { BLACKBOX_PORT as RECIPE_BLACKBOX_PORT, SWEGYM_HARNESS_COMMIT, VERIFIED_DRESSAGE_COMMIT } from '../recipe.js';
import { readGitHead } from '../workspace/gitHead.js';
import path from 'node:path';
import type { DoctorCheck } from './types.js';
import type { DoctorProbe, NoAnswer, ProbeContext, ProbePackage } from './probe.js';
import { describeSecret } from '../secrets.js';
import { DRESSAGE_CLONE_COMMAND, inspectCheckout } from '../workspace/checkout.js';
import { leftoverSandboxesCheck } from './leftovers.js';
import { setting } from '../config/envSettings.js';

export interface CheckContext extends ProbeContext {
  /** The one probe process of this doctor run (python3: packages and tool versions). */
  probe: DoctorProbe;
}

type CheckResult = Omit<DoctorCheck, 'id' | 'title'> & { id?: string; title?: string };

export interface CheckDef {
  id: string;
  title: string;
  run: (ctx: CheckContext) => Promise<CheckResult | CheckResult[]>;
}

export const BBS_VERSION = '1.1.0';
/** The port as the environment spells it (DRESSAGE_E2B_BLACKBOX_PORT). */
const BLACKBOX_PORT = String(RECIPE_BLACKBOX_PORT);
export const BOOTSTRAP_URL_VARS = ['CLAUDE_CODE_BBS_WHEEL_URL', 'CLAUDE_CODE_BINARY_URL', 'CLAUDE_CODE_RUNTIME_URL'] as const;


/**
 * A package check: present or not from the one probe. Without an answer (python3 did not run, or its probe ended
 * early) the check says so: skipped when python3 itself is missing (its own check fails with the fix), a warning
 * when the probe broke off.
 */
function packageCheck(id: string, title: string, mod: ProbePackage, fix: string, severity: 'fail' | 'warn' = 'fail'): CheckDef {
  return {
    id,
    title,
    run: async (ctx) => {
      const p = await ctx.probe.package(mod);
      if ('missing' in p) return notChecked(p);
      // python3 runs in the checkout, so it imports the source folders from there even when nothing is installed:
      // that is not an installed package (Ray's workers and the launcher's other nodes would not find it).
      if (p.present && !p.version && p.origin && isInside(ctx.paths.root, p.origin)) {
        return { status: severity, detail: `${title} is importable from the checkout (${path.relative(ctx.paths.root, p.origin)}), not installed`, fix };
      }
      return p.present ? { status: 'ok', detail: `${title} ${p.version ?? ''}`.trim() } : { status: severity, detail: `${title} is not installed`, fix };
    },
  };
}

function isInside(root: string, file: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The launcher's `hostname -I | awk '{print $1}'` (as train/derive.ts's launcherHostIp, so Train and the doctor judge
 * the same address), from the probe: empty where `hostname` fails or is missing, as the launcher gets it.
 */
async function launcherHostIpFromProbe(ctx: CheckContext): Promise<string> {
  const r = await ctx.probe.tool('hostname');
  return r && r.exitCode === 0 ? (r.stdout.join('\n').trim().split(/\s+/)[0] ?? '') : '';
}

function notChecked(p: NoAnswer): CheckResult {
  return p.noPython ? { status: 'skip', detail: p.missing } : { status: 'warn', detail: p.missing, fix: 'check again; if it persists, run the import in python3 to see its error' };
}

/** The launcher's own local-only rule (reference §8.1) plus the private ranges E2B cannot reach either. */
export function classifyProxyUrl(url: string): { kind: 'invalid' | 'local' | 'private' | 'public'; host?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { kind: 'invalid' };
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) return { kind: 'invalid' };
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.startsWith('127.') || host === '0.0.0.0' || host === '::1') return { kind: 'local', host };
  if (/^10\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host) || /^169\.254\./.test(host) || /^(fc|fd)[0-9a-f]{2}:/i.test(host) || host.endsWith('.local') || host.endsWith('.internal') || !host.includes('.'))
    return { kind: 'private', host };
  return { kind: 'public', host };
}

function envSet(ctx: CheckContext, name: string): boolean {
  const v = ctx.env[name];
  return v !== undefined && v !== '';
}

export const CHECKS: CheckDef[] = [
  {
    id: 'node',
    title: 'Node.js',
    run: async () => {
      const major = Number(process.versions.node.split('.')[0]);
      return major >= 22
        ? { status: 'ok', detail: `v${process.versions.node}` }
        : { status: 'fail', detail: `v${process.versions.node} is older than 22`, fix: 'run through `npm start`, which uses the pinned Node 24' };
    },
  },
  {
    id: 'checkout',
    title: 'Dressage checkout',
    run: async (ctx) => {
      const p = ctx.paths;
      const checkout = await inspectCheckout(p);
      let name = '';
      try {
        name = /name\s*=\s*"([^"]+)"/.exec(await readFile(path.join(p.root, 'pyproject.toml'), 'utf8'))?.[1] ?? '';
      } catch {}
      if (checkout.found === 'none') {
        return { status: 'fail', detail: `${p.root} is not a Dressage checkout (no recipe scripts found)`, fix: `${DRESSAGE_CLONE_COMMAND}, then pass --workspace DIR` };
      }
      if (checkout.found === 'some') return { status: 'fail', detail: `missing ${checkout.missing.join(', ')}`, fix: 'update the checkout to a version with the SWE-Gym Claude Code recipe (upstream c8b639e or later)' };
      return { status: 'ok', detail: `${name || 'dressage'} at ${p.root}` };
    },
  },
  {
    // Upstream moves: the console's launch checks follow the Dressage it was verified against, the run uses this one.
    id: 'dressage-commit',
    title: 'Dressage commit',
    run: async (ctx) => {
      const verified = VERIFIED_DRESSAGE_COMMIT.slice(0, 12);
      const head = await readGitHead(ctx.paths.root);
      if ('unknown' in head) {
        return { status: 'warn', detail: `the console was verified against Dressage ${verified}; this checkout's commit is unknown (${head.unknown})`, fix: `use a git checkout of Dressage (${DRESSAGE_CLONE_COMMAND})` };
      }
      const at = `${head.commit.slice(0, 12)}${head.branch ? ` (${head.branch})` : ''}`;
      if (head.commit === VERIFIED_DRESSAGE_COMMIT) return { status: 'ok', detail: `${at}: the commit the console was verified against` };
      return {
        status: 'warn',
        detail: `this checkout is at ${at}; the console was verified against Dressage ${verified}: its launcher, defaults and first-rollout rules may differ here`,
        fix: `run the console's differential tests against this checkout (SWEGYM_UPSTREAM=${ctx.paths.root} npm test), or git -C ${ctx.paths.root} checkout ${verified}`,
      };
    },
  },
  {
    id: 'slime',
    title: 'slime submodule',
    run: async (ctx) => {
      if (await exists(ctx.paths.slimeModelConfig)) return { status: 'ok', detail: 'slime/scripts/models/qwen3.5-4B.sh present' };
      return {
        status: 'fail',
        detail: 'slime/ is not initialised (the launcher sources slime/scripts/models/qwen3.5-4B.sh)',
        fix: 'git submodule update --init --recursive',
      };
    },
  },
  {
    id: 'python',
    title: 'Python',
    run: async (ctx) => {
      const py = await ctx.probe.python();
      if ('version' in py) return { status: 'ok', detail: `python3 ${py.version}` };
      return { status: 'fail', detail: py.notFound ? 'python3 not found or it failed to start' : `python3 failed to start (${py.failed})`, fix: 'install Python ≥ 3.10 and the recipe packages (reference §1.0)' };
    },
  },
  packageCheck('py-dressage', 'dressage', 'dressage', 'python3 -m pip install -e .'),
  packageCheck('py-bbs', 'dressage-blackbox-server', 'blackbox_server', 'python3 -m pip install --no-build-isolation blackbox_server/'),
  packageCheck('py-pyarrow', 'pyarrow', 'pyarrow', 'python3 -m pip install pyarrow', 'warn'),
  packageCheck('py-hfhub', 'huggingface_hub', 'huggingface_hub', 'python3 -m pip install huggingface_hub', 'warn'),
  packageCheck('py-build', 'build', 'build', 'python3 -m pip install build uv'),
  {
    id: 'uv',
    title: 'uv',
    run: async (ctx) => {
      const uv = await ctx.probe.tool('uv');
      return uv && uv.exitCode === 0
        ? { status: 'ok', detail: uv.stdout.join(' ').trim() }
        : { status: 'fail', detail: 'uv is not on PATH (the artifacts script needs it for the portable Python)', fix: 'python3 -m pip install uv' };
    },
  },
  {
    id: 'py-swegym',
    title: 'swegym harness',
    run: async (ctx) => {
      const swegym = await ctx.probe.package('swegym');
      if ('missing' in swegym) return notChecked(swegym);
      if (!swegym.present) {
        return {
          status: 'fail',
          detail: 'the pinned swegym harness is not installed (the converter needs it)',
          fix: `python3 -m pip install 'swegym @ git+https://github.com/SWE-Gym/SWE-Bench-Package.git@${SWEGYM_HARNESS_COMMIT}'`,
        };
      }
      if (swegym.vcsCommit && swegym.vcsCommit !== SWEGYM_HARNESS_COMMIT) {
        return {
          status: 'fail',
          detail: `swegym is installed from commit ${swegym.vcsCommit.slice(0, 12)}, not the pinned ${SWEGYM_HARNESS_COMMIT.slice(0, 12)}`,
          fix: `python3 -m pip install --force-reinstall 'swegym @ git+https://github.com/SWE-Gym/SWE-Bench-Package.git@${SWEGYM_HARNESS_COMMIT}'`,
        };
      }
      return {
        status: swegym.vcsCommit ? 'ok' : 'warn',
        detail: swegym.vcsCommit ? `pinned commit ${SWEGYM_HARNESS_COMMIT.slice(0, 12)}` : 'installed, but its commit is unknown (not installed from git)',
        ...(swegym.vcsCommit ? {} : { fix: `reinstall from git at ${SWEGYM_HARNESS_COMMIT.slice(0, 12)} so the grading matches Dressage's` }),
      };
    },
  },
  {
    id: 'e2b-key',
    title: 'E2B API key',
    run: async (ctx) => {
      const results: CheckResult[] = [];
      const key = setting(ctx.env, 'E2B_API_KEY');
      const trainKey = ctx.env.DRESSAGE_E2B_API_KEY;
      if (ctx.provider === 'local') {
        results.push({ status: 'skip', detail: 'provider local: templates and sandboxes run on this machine' });
      } else if (!key) {
        results.push({ status: 'fail', detail: 'E2B_API_KEY is not set (template builds and smoke tests need it)', fix: 'export E2B_API_KEY=<your key> (from the E2B dashboard, Keys page)' });
      } else {
        const verdict = await verifyE2bKey(ctx, key);
        results.push(verdict);
      }
      if (!trainKey) {
        results.push({
          id: 'e2b-train-key',
          title: 'DRESSAGE_E2B_API_KEY',
          status: 'warn',
          detail: `not set; training reads DRESSAGE_E2B_API_KEY, not E2B_API_KEY (E2B_API_KEY ${describeSecret(key)})`,
          fix: 'export DRESSAGE_E2B_API_KEY before launching training (usually the same value as E2B_API_KEY)',
        });
      } else {
        results.push({
          id: 'e2b-train-key',
          title: 'DRESSAGE_E2B_API_KEY',
          status: key && key !== trainKey ? 'warn' : 'ok',
          detail: key && key !== trainKey ? `${describeSecret(trainKey)}; differs from E2B_API_KEY (templates must live in the same E2B team)` : describeSecret(trainKey),
          ...(key && key !== trainKey ? { fix: 'use a key of the team that owns the templates for both variables' } : {}),
        });
      }
      return results;
    },
  },
  {
    id: 'bootstrap-urls',
    title: 'Leftover bootstrap URLs',
    run: async (ctx) => {
      const set = BOOTSTRAP_URL_VARS.filter((v) => envSet(ctx, v));
      if (set.length === 0) return { status: 'ok', detail: 'none set' };
      return {
        status: 'warn',
        detail: `${set.join(', ')} set; with --provider e2b the converter aborts ("do not pass runtime bootstrap URLs")`,
        fix: `unset ${set.join(' ')} (the console's convert step removes them from the converter's environment for you)`,
      };
    },
  },
  {
    id: 'artifacts',
    title: 'Sandbox artifacts',
    run: async (ctx) => {
      let files: string[] = [];
      try {
        files = await readdir(ctx.paths.artifactDir);
      } catch {
        return { status: 'skip', detail: 'data/claude-code-artifacts/ not built yet' };
      }
      const runtimes = files.filter((f) => /^claude-code-runtime-python-.+-bbs-.+\.tar\.gz$/.test(f));
      const binaries = files.filter((f) => /^claude-.+-linux-x64$/.test(f));
      const wantBbs = ctx.env.CLAUDE_CODE_BBS_VERSION || BBS_VERSION;
      const wantPy = ctx.env.CLAUDE_CODE_PORTABLE_PYTHON_VERSION || '3.10.20';
      const wantCc = ctx.env.CLAUDE_CODE_VERSION || '2.1.207';
      const results: CheckResult[] = [];
      const expectedRuntime = `claude-code-runtime-python-${wantPy}-bbs-${wantBbs}.tar.gz`;
      if (runtimes.includes(expectedRuntime)) results.push({ status: 'ok', detail: expectedRuntime });
      else if (runtimes.some((r) => r.endsWith('-bbs-custom.tar.gz')))
        results.push({
          status: 'fail',
          detail: `runtime tarball is named …-bbs-custom.tar.gz but builds ask for ${expectedRuntime} (the script's CLAUDE_CODE_BBS_VERSION=custom default)`,
          fix: `rebuild with CLAUDE_CODE_BBS_VERSION=${wantBbs} (swegym-console artifacts build), or rename the tarball`,
        });
      else if (runtimes.length)
        results.push({
          status: 'fail',
          detail: `found ${runtimes.join(', ')} but builds ask for ${expectedRuntime}`,
          fix: 'set CLAUDE_CODE_BBS_VERSION / CLAUDE_CODE_PORTABLE_PYTHON_VERSION to match, or rebuild the artifacts',
        });
      else results.push({ status: 'warn', detail: 'no runtime tarball yet', fix: 'swegym-console artifacts build' });
      const expectedBinary = `claude-${wantCc}-linux-x64`;
      results.push(
        binaries.includes(expectedBinary)
          ? { id: 'artifacts-binary', title: 'Claude Code binary', status: 'ok', detail: expectedBinary }
          : { id: 'artifacts-binary', title: 'Claude Code binary', status: 'warn', detail: `${expectedBinary} missing${binaries.length ? ` (found ${binaries.join(', ')})` : ''}`, fix: 'swegym-console artifacts build' },
      );
      return results;
    },
  },
  {
    id: 'template-map',
    title: 'Template map coverage',
    run: async (ctx) => {
      let images: string[];
      try {
        images = (await readFile(ctx.paths.imageList, 'utf8')).split('\n').map((l) => l.trim()).filter(Boolean);
      } catch {
        return { status: 'skip', detail: 'no image list yet (data/swegym-images.txt)' };
      }
      const { inspectTemplateMap, damagedMapError } = await import('../templates/map.js');
      const check = await inspectTemplateMap(ctx.paths.templateMap);
      const refusal = damagedMapError(check, ctx.paths.templateMap);
      if (refusal) return { status: 'fail', detail: refusal.what, fix: refusal.fix };
      if (check.problems.some((p) => p.kind === 'missing_file')) return { status: 'warn', detail: `0/${images.length} images have a template`, fix: 'swegym-console templates build' };
      const map = check.map;
      const missing = images.filter((i) => !map[i]);
      if (missing.length === 0) return { status: 'ok', detail: `${images.length}/${images.length} images have a template` };
      return {
        status: 'warn',
        detail: `${images.length - missing.length}/${images.length} images have a template; first missing: ${missing[0]}`,
        fix: 'swegym-console templates build (the converter fails with "sandbox image map has no entry for …")',
      };
    },
  },
  {
    id: 'proxy-url',
    title: 'DRESSAGE_PROXY_URL',
    run: async (ctx) => {
      const explicit = ctx.env.DRESSAGE_PROXY_URL;
      // Unset: judge the URL the launcher will use (http://<this node's first IP>:PROXY_PORT), as Train does, so
      // that the two screens never disagree about the same address.
      const nodeIp = explicit ? '' : await launcherHostIpFromProbe(ctx);
      const url = explicit || (nodeIp ? `http://${nodeIp}:${ctx.env.PROXY_PORT || '8800'}` : '');
      const dflt = explicit ? '' : ' (not set: the launcher default)';
      if (!url) {
        return {
          status: 'warn',
          detail: 'not set, and this node has no IP for the launcher default http://<this node IP>:8800',
          fix: 'expose the proxy through an ingress or tunnel and export DRESSAGE_PROXY_URL=https://…',
        };
      }
      const c = classifyProxyUrl(url);
      if (!explicit && c.kind !== 'public') {
        return { status: 'warn', detail: `${url}${dflt}: a ${c.kind === 'local' ? 'local-only' : 'private'} address E2B sandboxes cannot reach`, fix: 'expose the proxy through an ingress or tunnel and export DRESSAGE_PROXY_URL=https://…' };
      }
      if (!explicit) return { status: 'ok', detail: `${url}${dflt} (public host)` };
      if (c.kind === 'invalid') return { status: 'fail', detail: `must be an http(s) URL with a host, got "${url}"`, fix: 'export DRESSAGE_PROXY_URL=https://proxy.example.com' };
      if (c.kind === 'local') return { status: 'fail', detail: `local-only host ${c.host}: Dressage refuses it at the first rollout (BlackboxAgentPaddock, any spelling) and sandboxes cannot reach it`, fix: 'use an E2B-reachable URL (ingress or secure tunnel)' };
      if (c.kind === 'private')
        return { status: 'warn', detail: `private host ${c.host} passes the launcher's check but E2B's cloud cannot reach it`, fix: 'use a public ingress or tunnel URL' };
      return { status: 'ok', detail: `${c.host} (public)` };
    },
  },
  {
    id: 'nodes',
    title: 'ACTOR_NUM_NODES / workers',
    run: async (ctx) => {
      const nodes = ctx.env.ACTOR_NUM_NODES;
      const world = ctx.env.WORLD_SIZE;
      const hostfile = ctx.env.HOSTFILE;
      const sshUser = ctx.env.RAY_SSH_USER;
      const results: CheckResult[] = [];
      const effective = nodes || world || '1';
      if (!nodes) {
        results.push({
          status: 'warn',
          detail: `ACTOR_NUM_NODES not set: the launcher uses ${world ? `WORLD_SIZE=${world}` : '1'}; the 4-node recipe needs 4`,
          fix: 'export ACTOR_NUM_NODES=4',
        });
      } else if (!/^[1-9]\d*$/.test(nodes)) {
        results.push({ status: 'fail', detail: `ACTOR_NUM_NODES="${nodes}" is not a positive integer`, fix: 'export ACTOR_NUM_NODES=4' });
      } else {
        results.push({ status: 'ok', detail: `ACTOR_NUM_NODES=${nodes}` });
      }
      if (hostfile && !sshUser) {
        results.push({ id: 'hostfile', title: 'HOSTFILE / RAY_SSH_USER', status: 'fail', detail: 'HOSTFILE is set but RAY_SSH_USER is not ("RAY_SSH_USER is required when HOSTFILE is set")', fix: 'export RAY_SSH_USER=<user>' });
      } else if (hostfile) {
        try {
          const hosts = (await readFile(hostfile, 'utf8')).split('\n').map((l) => l.trim().split(/\s+/)[0]).filter((h) => h && !h.startsWith('#'));
          results.push({
            id: 'hostfile',
            title: 'HOSTFILE / RAY_SSH_USER',
            status: String(hosts.length) === effective ? 'ok' : 'warn',
            detail: `${hosts.length} host(s) in HOSTFILE, ${effective} node(s) expected`,
            ...(String(hosts.length) === effective ? {} : { fix: 'make HOSTFILE list one line per node, the head first' }),
          });
        } catch {
          results.push({ id: 'hostfile', title: 'HOSTFILE / RAY_SSH_USER', status: 'fail', detail: `HOSTFILE ${hostfile} cannot be read`, fix: 'point HOSTFILE at a file with one IP per line' });
        }
      } else if (Number(effective) > 1) {
        results.push({
          id: 'hostfile',
          title: 'HOSTFILE / RAY_SSH_USER',
          status: 'warn',
          detail: 'no HOSTFILE: the launcher will not start workers; they must join Ray themselves within 600 s',
          fix: 'export HOSTFILE=<file with node IPs> RAY_SSH_USER=<user>, or start `ray start --address=<head>:6379` on each worker',
        });
      }
      return results;
    },
  },
  {
    id: 'bbs-port',
    title: 'DRESSAGE_E2B_BLACKBOX_PORT',
    run: async (ctx) => {
      const port = ctx.env.DRESSAGE_E2B_BLACKBOX_PORT;
      if (!port || port === BLACKBOX_PORT) return { status: 'ok', detail: port ? port : `unset (defaults to ${BLACKBOX_PORT})` };
      return { status: 'fail', detail: `${port}: E2B blackbox templates use the fixed port ${BLACKBOX_PORT}`, fix: `unset DRESSAGE_E2B_BLACKBOX_PORT or set it to ${BLACKBOX_PORT}` };
    },
  },
  {
    id: 'gpus',
    title: 'GPUs (nvidia-smi)',
    run: async (ctx) => {
      const r = await ctx.probe.tool('nvidia-smi');
      if (!r) {
        return {
          status: 'warn',
          detail: 'nvidia-smi not found: no GPUs on this machine (fine for preparation; training needs a GPU head node)',
          fix: 'prepare here, then run `swegym-console train launch` on the Ray head node of the GPU cluster (8 GPUs per node, 4 nodes)',
        };
      }
      if (r.exitCode !== 0) return { status: 'warn', detail: `nvidia-smi failed: ${r.stderr.concat(r.stdout).join(' ').slice(0, 120)}`, fix: 'check the NVIDIA driver' };
      const gpus = r.stdout.filter((l) => l.trim());
      return { status: 'ok', detail: `${gpus.length} × ${gpus[0]?.split(',')[0]?.trim() ?? 'GPU'}` };
    },
  },
  {
    id: 'ray',
    title: 'Ray',
    run: async (ctx) => {
      const r = await ctx.probe.tool('ray');
      if (!r || r.exitCode !== 0) return { status: 'warn', detail: 'ray is not on PATH (training runs on a node with the Dressage image)', fix: 'python3 -m pip install -e . (installs ray==2.55.1)' };
      const version = r.stdout.join(' ').trim();
      return { status: /2\.55\.1/.test(version) ? 'ok' : 'warn', detail: version, ...(/2\.55\.1/.test(version) ? {} : { fix: 'Dressage pins ray==2.55.1' }) };
    },
  },
  {
    id: 'bwrap',
    title: 'bubblewrap (local provider)',
    run: async (ctx) => {
      // Started (for its version) only for --provider local; for e2b whether it is installed is all there is to say.
      if (ctx.provider !== 'local') {
        return findOnPath('bwrap', ctx.env.PATH ?? '', ctx.paths.root)
          ? { status: 'ok', detail: 'installed (only --provider local uses it)' }
          : { status: 'skip', detail: 'not installed (only needed for --provider local)' };
      }
      const r = await ctx.probe.tool('bwrap');
      if (r && r.exitCode === 0) return { status: 'ok', detail: r.stdout.join(' ').trim() };
      return { status: 'fail', detail: 'bwrap not found; --provider local needs it', fix: 'apt-get install bubblewrap' };
    },
  },
  {
    id: 'tools',
    title: 'Shell tools',
    run: async (ctx) => {
      const needed = ['git', 'curl', 'tar', 'sha256sum'];
      const missing: string[] = [];
      // Presence is all this check needs: looked up on PATH, not started.
      for (const tool of needed) if (!findOnPath(tool, ctx.env.PATH ?? '', ctx.paths.root)) missing.push(tool);
      return missing.length
        ? { status: 'fail', detail: `missing ${missing.sort().join(', ')} (the artifacts script needs curl, tar, sha256sum)`, fix: `apt-get install ${missing.join(' ')}` }
        : { status: 'ok', detail: needed.join(', ') };
    },
  },
  {
    id: 'disk',
    title: 'Free disk',
    run: async (ctx) => {
      let dir = ctx.paths.root;
      let s;
      for (;;) {
        try {
          s = await statfs(dir);
          break;
        } catch {
          const up = path.dirname(dir);
          if (up === dir) return { status: 'skip', detail: 'cannot stat the workspace' };
          dir = up;
        }
      }
      const freeGb = (Number(s.bavail) * Number(s.bsize)) / 1024 ** 3;
      const detail = `${freeGb.toFixed(1)} GiB free at ${dir}`;
      if (freeGb < 5) return { status: 'fail', detail, fix: 'free space: artifacts, the JSONL, logs and checkpoints need tens of GiB' };
      if (freeGb < 50) return { status: 'warn', detail, fix: 'checkpoints of a long run need more (each save is tens of GiB)' };
      return { status: 'ok', detail };
    },
  },
  {
    id: 'leftover-sandboxes',
    title: 'Sandboxes left by consoles that are gone',
    run: (ctx) => leftoverSandboxesCheck({ root: ctx.paths.root, env: ctx.env, timeoutMs: ctx.timeoutMs }),
  },
];

/** Asks E2B's control plane whether the key is valid; unreachable is a warning, not a failure. */
async function verifyE2bKey(ctx: CheckContext, key: string): Promise<CheckResult> {
  const domain = ctx.env.E2B_DOMAIN || 'e2b.app';
  const apiUrl = (ctx.env.E2B_API_URL || `https://api.${domain}`).replace(/\/$/, '');
  const host = (() => {
    try {
      return new URL(apiUrl).host;
    } catch {
      return apiUrl;
    }
  })();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(1000, ctx.timeoutMs - 500));
  try {
    const res = await fetch(`${apiUrl}/v2/sandboxes?limit=1`, { headers: { 'X-API-KEY': key }, signal: controller.signal });
    await res.body?.cancel().catch(() => {});
    if (res.status === 401 || res.status === 403) {
      return { status: 'fail', detail: `E2B_API_KEY ${describeSecret(key)} was refused by ${host} (HTTP ${res.status})`, fix: 'create a new key in the E2B dashboard and export it' };
    }
    if (res.ok) return { status: 'ok', detail: `${describeSecret(key)}, accepted by ${host}` };
    return { status: 'warn', detail: `${describeSecret(key)}; ${host} answered HTTP ${res.status}`, fix: 'check E2B status; try again later' };
  } catch {
    return { status: 'warn', detail: `${describeSecret(key)}; could not reach ${host} to verify it`, fix: 'check the network or E2B_DOMAIN / E2B_API_URL' };
  } finally {
    clearTimeout(timer);
  }
}
