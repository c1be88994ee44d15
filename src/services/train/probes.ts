// The launch checks that touch the disk, the network and Ray (run before a launch and on demand); the pure ones
// are in checks.ts, which merges both.
import type { ConsoleError } from '../errors.js';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { redact } from '../secrets.js';
import { runProcess } from '../process/run.js';
import type { CommandLog } from '../process/commandLog.js';
import { verifyJsonl } from '../convert/verify.js';
import { readTemplateMapForChecks } from '../templates/map.js';
import type { LaunchPlan } from './launch.js';
import { findActiveRuns, findLatestCheckpoint } from './registry.js';
import type { LaunchCheck } from '../../state/types/train.js';
import { listDir } from '../util/fs.js';
import { fail, ok, skip, warn, isLocalOnlyHost } from './checkParts.js';
import { OWN_CHECK } from './settings.js';
import { providerName } from './dressageRules.js';
import { describeResolved, resolveAgainstCheckout } from './outsideFiles.js';

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

export interface ProbeOptions {
  timeoutMs?: number;
  log?: CommandLog;
  /** Skip the ray status probe (tests, or no Ray on this machine). */
  skipRay?: boolean;
}

async function checkLauncherFiles(plan: LaunchPlan): Promise<LaunchCheck> {
  const t = 'Launcher files';
  const slimeConfig = plan.effective.MODEL_CONFIG_PATH ?? '';
  const envDefaults = plan.effective.DEFAULT_ENV_FILE ?? plan.paths.envDefaults;
  if (!(await isFile(plan.paths.launcherScript))) return fail('launcher', t, `Dressage's launcher is missing: ${plan.paths.launcherScript}`, 'run the console in the Dressage checkout (--workspace DIR)');
  if (!(await isFile(slimeConfig))) return fail('launcher', t, `Missing Slime model config: ${slimeConfig}`, 'git submodule update --init --recursive (or set SLIME_ROOT / MODEL_CONFIG_PATH)');
  if (!(await isFile(envDefaults))) return fail('launcher', t, `Missing Dressage default env file: ${envDefaults}`, 'use a complete Dressage checkout');
  const root = plan.paths.root;
  const launcher = await resolveAgainstCheckout(plan.paths.launcherScript, root);
  if (!launcher.inside) {
    const where = `${OWN_CHECK}the launcher ${describeResolved(launcher, root)} is outside the checkout ${root}${launcher.viaLink ? ' (a symlink points there)' : ''}`;
    if (!plan.allowOutsideLauncher) {
      return fail('launcher', t, `${where}; the console runs only the checkout's own launcher`, `put Dressage's launcher back (git -C ${root} checkout -- ${path.relative(root, launcher.given)}), or pass --allow-outside-launcher to run ${launcher.real}`);
    }
    return warn('launcher', t, `${where}; run as asked (--allow-outside-launcher)`, `make sure ${launcher.real} is the launcher you mean`);
  }
  return ok('launcher', t, `launcher${launcher.viaLink ? ` (${describeResolved(launcher, root)})` : ''}, env defaults and slime model config present`);
}

/** DEFAULT_ENV_FILE and MODEL_CONFIG_PATH are sourced by the launcher: where they really are, when outside the checkout. */
async function checkSourcedFiles(plan: LaunchPlan): Promise<LaunchCheck | undefined> {
  const root = plan.paths.root;
  const sourced = [
    ['DEFAULT_ENV_FILE', plan.effective.DEFAULT_ENV_FILE ?? plan.paths.envDefaults],
    ['MODEL_CONFIG_PATH', plan.effective.MODEL_CONFIG_PATH ?? ''],
  ] as const;
  const outside: string[] = [];
  for (const [name, file] of sourced) {
    if (!file) continue;
    const r = await resolveAgainstCheckout(file, root);
    if (!r.inside) outside.push(`${name}=${file}${r.viaLink ? ` → ${r.real}` : ''}`);
  }
  if (outside.length === 0) return undefined;
  return warn(
    'sourced-files',
    'Files the launcher sources',
    `${OWN_CHECK}outside the checkout ${root}, run as shell by the launcher: ${outside.join('; ')}`,
    'point them at the checkout\'s own files (unset DEFAULT_ENV_FILE / MODEL_CONFIG_PATH), or make sure these are the scripts you mean',
  );
}

async function checkModel(plan: LaunchPlan): Promise<LaunchCheck | undefined> {
  const t = 'Model checkpoints';
  const e = plan.effective;
  if (!e.MODEL_ROOT) return undefined; // reported by the static check
  if (!(await isDir(e.MODEL_ROOT))) return fail('model', t, `MODEL_ROOT ${e.MODEL_ROOT} is not a directory`, 'MODEL_ROOT must point to model/checkpoint files, e.g. /path/to/models');
  const hf = e.HF_CHECKPOINT ?? '';
  if (!(await isFile(path.join(hf, 'config.json')))) {
    return fail('model', t, `no Hugging Face checkpoint at ${hf} (config.json missing)`, `download Qwen3.5-4B into ${hf} (or set HF_CHECKPOINT)`);
  }
  const ref = e.REF_LOAD ?? '';
  const entries = await listDir(ref);
  if (entries.length === 0) {
    return fail('model', t, `no torch_dist checkpoint at ${ref}`, "convert the HF checkpoint to Megatron torch_dist with slime's conversion tool (or set REF_LOAD)");
  }
  return ok('model', t, `HF ${path.basename(hf)} and ${path.basename(ref.replace(/\/$/, ''))} present`);
}

async function checkPromptData(plan: LaunchPlan): Promise<LaunchCheck | undefined> {
  const t = 'Prompt data (JSONL)';
  const file = plan.effective.PROMPT_DATA;
  if (!file) return undefined;
  if (!(await isFile(file))) return fail('prompt-data', t, `${file} does not exist`, 'convert the data first (swegym-console convert)');
  let templateMap: Record<string, string> | undefined;
  try {
    // Dressage reads the provider name stripped and lower-cased: 'E2B' runs E2B templates too.
    templateMap = providerName(plan.effective.DRESSAGE_SANDBOX_PROVIDER ?? '') === 'e2b' ? await readTemplateMapForChecks(plan.paths.templateMap) : undefined;
  } catch (err) {
    return fail('prompt-data', t, (err as ConsoleError).what ?? String(err), (err as ConsoleError).fix ?? 'fix the template map');
  }
  const report = await verifyJsonl(file, templateMap ? { templateMap } : {});
  if (!report.ok) {
    const first = report.problems[0];
    const counts = Object.entries(report.counts).map(([k, n]) => `${k}: ${n}`).join(', ');
    return fail('prompt-data', t, `${file} failed verification (${counts})${first ? `; first: ${first.line ? `line ${first.line}: ` : ''}${first.message}` : ''}`, 'swegym-console convert (it re-runs the converter and verifies)');
  }
  const subset = report.rows !== 293 ? ` (a subset of the 293 train tasks)` : '';
  return ok('prompt-data', t, `${report.rows} rows verified${subset}${templateMap ? ', every template in the map' : ''}`);
}

async function checkProxyHealth(plan: LaunchPlan, timeoutMs: number): Promise<LaunchCheck | undefined> {
  const t = 'Proxy /health from here';
  const e = plan.effective;
  if (e.DRESSAGE_SKIP_PROXY_HEALTHCHECK === '1') return skip('proxy-health', t, 'DRESSAGE_SKIP_PROXY_HEALTHCHECK=1 (the launcher skips it too)');
  let url: URL;
  try {
    url = new URL(e.DRESSAGE_PROXY_URL ?? '');
  } catch {
    return undefined;
  }
  if (isLocalOnlyHost(url.hostname)) return undefined;
  const target = `${(e.DRESSAGE_PROXY_URL ?? '').replace(/\/+$/, '')}/health`;
  try {
    const res = await fetch(target, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.text().catch(() => '');
    let status: unknown;
    try {
      status = (JSON.parse(body) as { status?: unknown }).status;
    } catch {}
    if (res.ok && status === 'ok') {
      return warn(
        'proxy-health',
        t,
        `a Dressage proxy already answers ${target}: left over from an earlier attempt? The launcher starts its own on port ${e.PROXY_PORT}, which then cannot bind, and its health check would pass against the old one`,
        'stop the old proxy (see outputs/logs/<RUN_NAME>/proxy/*.pid) unless this is intended',
      );
    }
    return ok('proxy-health', t, `${url.host} reachable (HTTP ${res.status}); the launcher starts the proxy behind it`);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    if (cause === 'ECONNREFUSED') {
      return warn(
        'proxy-health',
        t,
        `nothing answers at ${url.host} yet (connection refused): fine if the URL points straight at this head (the launcher starts the proxy), but an ingress or tunnel must already be up`,
        'start the tunnel/ingress first; the launcher gives up after 60 s with "Dressage proxy failed; see <proxy log>"',
      );
    }
    return fail(
      'proxy-health',
      t,
      `${target} unreachable from here (${cause === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : cause}): the launcher's health check would fail with "Dressage proxy failed; see <proxy log>"`,
      'fix DNS / the tunnel, or set DRESSAGE_SKIP_PROXY_HEALTHCHECK=1 if this head cannot reach its own ingress',
    );
  }
}

async function checkRay(plan: LaunchPlan, opts: ProbeOptions): Promise<LaunchCheck> {
  const t = 'Ray head';
  if (opts.skipRay) return skip('ray', t, 'not probed');
  const r = await runProcess('ray', ['status'], { cwd: plan.paths.root, env: plan.env, extendEnv: false, timeoutMs: opts.timeoutMs ?? 15_000, log: opts.log, note: 'is a Ray cluster already running?' });
  if (r.spawnError) return skip('ray', t, 'ray is not on PATH here; the launcher needs it on the head node');
  if (r.timedOut) return warn('ray', t, '`ray status` did not answer in time', 'check `ray status` by hand; a hung head blocks the new one');
  if (r.exitCode === 0) {
    const nodes = r.stdout.filter((l) => l.includes('node_')).length;
    return fail(
      'ray',
      t,
      `a Ray cluster is already running (${nodes} node(s)): the new \`ray start --head\` fails in the background while the launcher continues`,
      'ray stop --force (on every node), then launch; or set DRESSAGE_RAY_STOP_ON_EXIT=1 for next time',
    );
  }
  return ok('ray', t, 'no Ray cluster running here');
}

async function checkHostfile(plan: LaunchPlan): Promise<LaunchCheck | undefined> {
  const file = plan.effective.HOSTFILE;
  if (!file) return undefined;
  const t = 'HOSTFILE';
  // The launcher uses HOSTFILE only when the file exists (`[[ -n HOSTFILE && -f HOSTFILE ]]`).
  if (!(await isFile(file))) return warn('hostfile', t, `${OWN_CHECK}${file} does not exist: the launcher ignores HOSTFILE and starts no workers`, 'fix the path, or unset HOSTFILE');
  if (!plan.effective.RAY_SSH_USER) return fail('hostfile', t, 'RAY_SSH_USER is required when HOSTFILE is set', 'set RAY_SSH_USER to the ssh user on the worker nodes, or unset HOSTFILE and join workers yourself');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return fail('hostfile', t, `cannot read HOSTFILE ${file}`, 'point HOSTFILE at a file listing one node IP per line');
  }
  const ips = text.split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '').filter((ip) => ip && !ip.startsWith('#'));
  const nodes = plan.derived.nodes ?? 0;
  if (ips.length < nodes) {
    return fail('hostfile', t, `${file} lists ${ips.length} node(s) but ACTOR_NUM_NODES=${nodes}: the join wait ends with "Timed out waiting for Ray workers to join."`, 'list every node (head included) or lower ACTOR_NUM_NODES');
  }
  return ok('hostfile', t, `${ips.length} node(s) listed`);
}

async function checkActiveRuns(plan: LaunchPlan): Promise<LaunchCheck> {
  const t = 'Runs from this console';
  const active = await findActiveRuns(plan.paths);
  if (active.length > 0) {
    const r = active[0]!;
    return fail('active-run', t, `run ${r.name} is still ${r.status} (pid ${r.pid}); two launchers on one head fight over Ray and the proxy port`, `swegym-console train stop ${r.name}`);
  }
  return ok('active-run', t, 'none running');
}

async function checkResumeRoot(plan: LaunchPlan): Promise<LaunchCheck | undefined> {
  const e = plan.effective;
  if (e.RESUME_FROM_CKPT !== '1' || !e.RESUME_CKPT_ROOT) return undefined;
  const ckpt = await findLatestCheckpoint(e.RESUME_CKPT_ROOT);
  if (!ckpt) return fail('resume', 'Resume', `no checkpoint (iter_NNNNNNN/) under ${e.RESUME_CKPT_ROOT}`, 'point RESUME_CKPT_ROOT at the SAVE_ROOT of the earlier run');
  if (e.RESUME_CKPT_STEP && !(await isDir(path.join(e.RESUME_CKPT_ROOT, `iter_${e.RESUME_CKPT_STEP.padStart(7, '0')}`)))) {
    return fail('resume', 'Resume', `no iter_${e.RESUME_CKPT_STEP.padStart(7, '0')} under ${e.RESUME_CKPT_ROOT} (latest is ${ckpt.step})`, `set RESUME_CKPT_STEP=${ckpt.step} or leave it empty`);
  }
  return ok('resume', 'Resume', `from ${e.RESUME_CKPT_ROOT} step ${e.RESUME_CKPT_STEP || ckpt.step}`);
}

/** Checks that touch disk, network and Ray. */
export async function probeChecks(plan: LaunchPlan, opts: ProbeOptions = {}): Promise<LaunchCheck[]> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const results = await Promise.all([
    checkLauncherFiles(plan),
    checkSourcedFiles(plan),
    checkModel(plan),
    checkPromptData(plan),
    checkProxyHealth(plan, timeoutMs),
    checkHostfile(plan),
    checkResumeRoot(plan),
    checkActiveRuns(plan),
    checkRay(plan, opts),
  ]);
  return results.filter((c): c is LaunchCheck => c !== undefined).map((c) => ({ ...c, detail: redact(c.detail, plan.env), ...(c.fix ? { fix: redact(c.fix, plan.env) } : {}) }));
}

