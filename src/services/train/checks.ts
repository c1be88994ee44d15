// Blocking checks before a launch: every trap of recipe reference §8 the console can see from the head node, with the
// launcher's own wording where it has one. Static checks are pure (the form shows them live); probes touch the disk,
// the network and Ray (run before a launch and on demand).
import type { ConsoleError } from '../errors.js';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeSecret, redact } from '../secrets.js';
import { runProcess } from '../process/run.js';
import type { CommandLog } from '../process/commandLog.js';
import { verifyJsonl } from '../convert/verify.js';
import { readTemplateMapForChecks } from '../templates/map.js';
import { BOOTSTRAP_VARS, FORWARDED_TO_RAY, LAUNCHER_CHECKED_TOGGLES, OWN_CHECK, SETTING_BY_KEY, SLIME_KL_LOSS_TYPES, validateSetting } from './settings.js';
import type { LaunchPlan } from './launch.js';
import { findActiveRuns, findLatestCheckpoint } from './registry.js';
import type { LaunchCheck } from '../../state/types/train.js';
import { listDir } from '../util/fs.js';
import { BLACKBOX_PORT } from '../recipe.js';
export type { LaunchCheck } from '../../state/types/train.js';

const ok = (id: string, title: string, detail: string): LaunchCheck => ({ id, title, status: 'ok', detail });
const fail = (id: string, title: string, detail: string, fix?: string): LaunchCheck => ({ id, title, status: 'fail', detail, ...(fix ? { fix } : {}) });
const warn = (id: string, title: string, detail: string, fix?: string): LaunchCheck => ({ id, title, status: 'warn', detail, ...(fix ? { fix } : {}) });
const skip = (id: string, title: string, detail: string): LaunchCheck => ({ id, title, status: 'skip', detail });

/** The launcher's local-only rule (dressage_validate_proxy_defaults), on the URL text exactly as bash matches it. */
export function launcherRejectsProxyUrl(url: string): boolean {
  return /^https?:\/\/(localhost|127\.|0\.0\.0\.0|\[::1\]|::1)([:/]|$)/.test(url);
}

/** The launcher's wildcard rule for SGLANG_ROUTER_URL (dressage_validate_proxy_defaults). */
export function launcherRejectsRouterUrl(url: string): boolean {
  return /^https?:\/\/(0\.0\.0\.0|\[::\]|::)([:/]|$)/.test(url);
}

/** Local-only hosts in any spelling (our stricter reading; the launcher matches the lower-case text only). */
export function isLocalOnlyHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.startsWith('127.') || h === '0.0.0.0' || h === '::1';
}

/** Private, shared or link-local addresses and single-label names: passes the launcher, but E2B cannot reach them. */
export function isPrivateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254);
  }
  if (h.includes(':')) return /^f[cd]/.test(h) || h.startsWith('fe80');
  return !h.includes('.') || h.endsWith('.local') || h.endsWith('.internal') || h.endsWith('.lan');
}

/** Pure checks over the plan: settings, topology, algorithm, keys, proxy URL shape. Cheap enough for every keystroke. */
export function staticChecks(plan: LaunchPlan): LaunchCheck[] {
  const out: LaunchCheck[] = [];
  const e = plan.effective;
  const d = plan.derived;
  const explicit = plan.values;

  // Every value against its setting's validation (toggles in the launcher's wording).
  const bad = Object.entries(explicit)
    .map(([k, v]) => [k, validateSetting(k, v)] as const)
    .filter((x): x is readonly [string, string] => x[1] !== undefined);
  // A toggle the launcher does not check only compares with "1": anything else is off, so ours is a warning.
  const lenient = (k: string) => SETTING_BY_KEY.get(k)?.kind === 'toggle' && !LAUNCHER_CHECKED_TOGGLES.has(k);
  const hard = bad.filter(([k]) => !lenient(k));
  const soft = bad.filter(([k]) => lenient(k));
  out.push(
    hard.length === 0
      ? ok('values', 'Setting values', `${Object.keys(explicit).length} set explicitly, all valid`)
      : fail('values', 'Setting values', hard.map(([, p]) => p).join('; '), 'correct the values (toggles are 0 or 1; sizes are positive integers)'),
  );
  if (soft.length > 0) out.push(warn('toggles', 'Toggles', soft.map(([, p]) => p).join('; '), 'set 0 or 1'));

  if (!e.MODEL_ROOT) out.push(fail('model-root', 'MODEL_ROOT', 'MODEL_ROOT must point to model/checkpoint files, e.g. /path/to/models', 'set MODEL_ROOT to the directory holding Qwen3.5-4B/ and Qwen3.5-4B_torch_dist/'));
  if (!e.PROMPT_DATA) out.push(fail('prompt-data', 'PROMPT_DATA', 'PROMPT_DATA must point to Claude Code SWE-Gym Dressage JSONL', 'convert the data first (swegym-console convert)'));
  for (const h of plan.hostnameFailures ?? []) {
    out.push(
      fail(
        `hostname${h.flag}`,
        'Host address',
        `\`hostname ${h.flag}\` fails on this machine (${h.error}): the launcher (set -euo pipefail) exits 1 there without a message of its own`,
        h.flag === '-I' ? 'set MASTER_ADDR and CURRENT_NODE_IP to this head node’s IP' : 'set SGLANG_ROUTER_HOST to this head node’s IP',
      ),
    );
  }
  if (!e.MASTER_ADDR && !(plan.hostnameFailures ?? []).some((h) => h.flag === '-I')) out.push(fail('master-addr', 'MASTER_ADDR', 'MASTER_ADDR is required and could not be inferred.', "set MASTER_ADDR to this head node's IP"));

  // Sandbox provider and the E2B key trap (§8.2, §8.11).
  const provider = e.DRESSAGE_SANDBOX_PROVIDER;
  if (provider === 'e2b') {
    if (e.DRESSAGE_E2B_API_KEY) out.push(ok('e2b-key', 'DRESSAGE_E2B_API_KEY', describeSecret(e.DRESSAGE_E2B_API_KEY)));
    else if (plan.env.E2B_API_KEY)
      out.push(
        fail(
          'e2b-key',
          'DRESSAGE_E2B_API_KEY',
          'DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b (E2B_API_KEY is set, but only the template tools read it; training reads DRESSAGE_E2B_API_KEY)',
          'export DRESSAGE_E2B_API_KEY="$E2B_API_KEY" (or set it in the form)',
        ),
      );
    else out.push(fail('e2b-key', 'DRESSAGE_E2B_API_KEY', 'DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b', 'export DRESSAGE_E2B_API_KEY=e2b_… (the key for training)'));
    const port = e.DRESSAGE_E2B_BLACKBOX_PORT;
    out.push(
      port === String(BLACKBOX_PORT)
        ? ok('bbs-port', 'DRESSAGE_E2B_BLACKBOX_PORT', String(BLACKBOX_PORT))
        : fail(
            'bbs-port',
            'DRESSAGE_E2B_BLACKBOX_PORT',
            `Dressage's E2B provider (dressage/sandbox/remote/e2b/provider.py) fails every sandbox: E2BSandboxProvider blackbox templates use the fixed internal-compatible port ${BLACKBOX_PORT}; unset DRESSAGE_E2B_BLACKBOX_PORT or set it to ${BLACKBOX_PORT}`,
            `unset DRESSAGE_E2B_BLACKBOX_PORT or set it to ${BLACKBOX_PORT}`,
          ),
    );
  } else if (provider === 'custom') {
    out.push(
      e.DRESSAGE_PADDOCK_CLASS
        ? ok('provider', 'Sandbox provider', `custom (${e.DRESSAGE_PADDOCK_CLASS})`)
        : fail('provider', 'Sandbox provider', 'DRESSAGE_PADDOCK_CLASS is required for DRESSAGE_SANDBOX_PROVIDER=custom', 'set DRESSAGE_PADDOCK_CLASS or use e2b'),
    );
  } else if (['e2b', 'local_bwrap'].includes((provider ?? '').trim().toLowerCase())) {
    // Dressage's sandbox factory lower-cases the name; the launcher's e2b-only rules compare it exactly.
    out.push(ok('provider', 'Sandbox provider', `${provider} (the console's sandbox views and E2B checks apply to e2b only)`));
  } else {
    out.push(
      fail(
        'provider',
        'Sandbox provider',
        `Dressage's sandbox factory (dressage/sandbox/factory.py) fails the first rollout: unsupported DRESSAGE_SANDBOX_PROVIDER='${(provider ?? '').trim().toLowerCase()}'; expected one of e2b|local_bwrap`,
        'use DRESSAGE_SANDBOX_PROVIDER=e2b',
      ),
    );
  }

  // Proxy URL: http(s) with a host, not local-only (the launcher's rule), and not a private address E2B cannot reach.
  const url = e.DRESSAGE_PROXY_URL ?? '';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (launcherRejectsProxyUrl(url)) {
    out.push(
      fail(
        'proxy-url',
        'DRESSAGE_PROXY_URL',
        `DRESSAGE_PROXY_URL must be reachable from the sandbox; got local-only URL: ${url}`,
        "Set PROXY_PUBLIC_HOST or DRESSAGE_PROXY_URL to this machine's sandbox-reachable IP/hostname.",
      ),
    );
  } else if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
    out.push(fail('proxy-url', 'DRESSAGE_PROXY_URL', `${OWN_CHECK}DRESSAGE_PROXY_URL must be an http(s) URL with a host, got: ${url}`, 'set it to the ingress or tunnel URL of the Dressage proxy, e.g. https://proxy.example.com'));
  } else if (isLocalOnlyHost(parsed.hostname)) {
    out.push(
      warn(
        'proxy-url',
        'DRESSAGE_PROXY_URL',
        `${OWN_CHECK}${url} is local-only: the launcher accepts this spelling, but no sandbox can reach it`,
        "set PROXY_PUBLIC_HOST or DRESSAGE_PROXY_URL to this machine's sandbox-reachable IP/hostname",
      ),
    );
  } else if (isPrivateHost(parsed.hostname)) {
    out.push(
      warn(
        'proxy-url',
        'DRESSAGE_PROXY_URL',
        `${OWN_CHECK}${url} is a private/internal address: the launcher accepts it, but E2B sandboxes cannot reach it and every agent would fail${explicit.DRESSAGE_PROXY_URL ? '' : ' (this is the launcher default)'}`,
        `expose port ${e.PROXY_PORT} through an ingress or secure tunnel and set DRESSAGE_PROXY_URL to its public URL`,
      ),
    );
  } else out.push(ok('proxy-url', 'DRESSAGE_PROXY_URL', `${url}${explicit.DRESSAGE_PROXY_URL ? '' : ' (not set: the launcher default)'} (public host)`));

  // The proxy's target: the launcher refuses a wildcard bind address.
  const router = e.SGLANG_ROUTER_URL ?? '';
  if (launcherRejectsRouterUrl(router)) {
    out.push(
      fail(
        'router-url',
        'SGLANG_ROUTER_URL',
        `SGLANG_ROUTER_URL is a proxy client target and cannot use a wildcard bind address: ${router}`,
        `Set SGLANG_ROUTER_HOST or SGLANG_ROUTER_URL to a reachable host, e.g. ${e.PROXY_PUBLIC_HOST}.`,
      ),
    );
  }

  // The launcher clears the trajectory dirs with find … -exec rm -rf; it refuses an empty or root dir.
  if (e.DRESSAGE_CLEAR_TRAJECTORY_LOGS === '1') {
    for (const k of ['DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR', 'DRESSAGE_TRAJECTORY_ERROR_LOG_DIR']) {
      const dir = e[k] ?? '';
      if (dir === '' || dir === '/') {
        out.push(fail('clear-logs', 'Clear trajectory logs', `Refusing to clear unsafe ${k}: ${dir}`, `set ${k} to the run's own directory`));
        break;
      }
    }
  }

  // Nodes, HOSTFILE and RAY_SSH_USER (§8.3).
  const nodes = d.nodes ?? 0;
  // HOSTFILE without RAY_SSH_USER is refused only when the file exists (the launcher ignores a missing one): a probe.
  if (!explicit.ACTOR_NUM_NODES) {
    out.push(
      warn(
        'nodes',
        'Nodes / Ray workers',
        `ACTOR_NUM_NODES is not set: the launcher uses ${plan.env.WORLD_SIZE ? `WORLD_SIZE=${plan.env.WORLD_SIZE}` : 'its default of 1'} → ${nodes} node(s); the 4-node recipe needs 4`,
        'set ACTOR_NUM_NODES=4 (or the number of nodes you have)',
      ),
    );
  } else if (nodes > 1 && !e.HOSTFILE) {
    out.push(
      warn(
        'nodes',
        'Nodes / Ray workers',
        `${nodes} nodes but no HOSTFILE: the launcher starts no workers; each must run \`ray start --address=${e.MASTER_ADDR}:${e.RAY_PORT}\` within ${e.RAY_JOIN_TIMEOUT_SEC} s, or it fails with "Timed out waiting for Ray workers to join."`,
        'set HOSTFILE (first column: node IPs) and RAY_SSH_USER, or start the workers yourself',
      ),
    );
  } else out.push(ok('nodes', 'Nodes / Ray workers', `${nodes} node(s)${e.HOSTFILE ? `, workers from ${e.HOSTFILE} as ${e.RAY_SSH_USER}` : ''}`));

  // GPU divisibility (§8.3) and engines.
  const tpcp = (d.tp ?? NaN) * (d.cp ?? NaN);
  if (d.totalGpus !== undefined && Number.isFinite(tpcp)) {
    if (!d.dpDivisible) {
      out.push(fail('gpus', 'GPU divisibility', `total actor GPUs (${d.totalGpus}) must be divisible by TP_SIZE*CP_SIZE (${tpcp})`, 'change ACTOR_NUM_NODES / ACTOR_NUM_GPUS_PER_NODE or TP_SIZE / CP_SIZE'));
    } else {
      const per = Number(e.ROLLOUT_NUM_GPUS_PER_ENGINE);
      if (per > 0 && d.totalGpus % per !== 0) {
        out.push(fail('gpus', 'GPU divisibility', `total actor GPUs (${d.totalGpus}) must be divisible by ROLLOUT_NUM_GPUS_PER_ENGINE (${per}) (inferred: SGLang engines use whole GPU groups)`, 'change ROLLOUT_NUM_GPUS_PER_ENGINE'));
      } else out.push(ok('gpus', 'GPU divisibility', `${d.totalGpus} GPUs = DP ${d.dpSize} × TP ${d.tp} × CP ${d.cp}; ${d.engines} SGLang engines`));
    }
  }

  // Batch shape (inferred from slime's sync loop).
  const samples = d.samplesPerRollout;
  const gbs = Number(e.GLOBAL_BATCH_SIZE);
  const steps = Number(e.NUM_STEPS_PER_ROLLOUT);
  if (samples !== undefined && Number.isFinite(gbs) && Number.isFinite(steps)) {
    if (samples !== gbs * steps) {
      out.push(warn('batch', 'Batch shape', `ROLLOUT_BATCH_SIZE × N_SAMPLES_PER_PROMPT = ${samples} but GLOBAL_BATCH_SIZE × NUM_STEPS_PER_ROLLOUT = ${gbs * steps} (inferred: slime expects them equal)`, 'make them equal'));
    } else if (d.dpSize && gbs % d.dpSize !== 0) {
      out.push(warn('batch', 'Batch shape', `GLOBAL_BATCH_SIZE ${gbs} is not divisible by DP size ${d.dpSize} (inferred)`, 'pick a global batch divisible by the DP size'));
    } else out.push(ok('batch', 'Batch shape', `${samples} samples per rollout = ${steps} step(s) × ${gbs}`));
  }

  // slime's argparse choices; the launcher passes --kl-loss-type only with USE_KL_LOSS=1.
  if (e.USE_KL_LOSS === '1' && !(SLIME_KL_LOSS_TYPES as readonly string[]).includes(e.KL_LOSS_TYPE ?? '')) {
    out.push(
      fail(
        'kl-loss-type',
        'KL loss type',
        `slime (slime/utils/arguments.py) refuses it: argument --kl-loss-type: invalid choice: '${e.KL_LOSS_TYPE}' (choose from ${SLIME_KL_LOSS_TYPES.join(', ')})`,
        `set KL_LOSS_TYPE to one of ${SLIME_KL_LOSS_TYPES.join(', ')}`,
      ),
    );
  }

  // KL exclusivity (slime).
  const kl = Number(e.KL_COEF);
  const klLoss = e.USE_KL_LOSS === '1' ? Number(e.KL_LOSS_COEF) : 0;
  out.push(
    kl !== 0 && klLoss !== 0 && Number.isFinite(kl) && Number.isFinite(klLoss)
      ? fail('kl', 'KL coefficients', 'slime (slime/utils/arguments.py) asserts: Only one of kl_coef and kl_loss_coef can be set', 'set KL_COEF=0.0 (reward KL) or USE_KL_LOSS=0 / KL_LOSS_COEF=0')
      : ok('kl', 'KL coefficients', `kl_coef=${e.KL_COEF}, kl_loss_coef=${e.USE_KL_LOSS === '1' ? e.KL_LOSS_COEF : 'off'}`),
  );

  // Context and compaction: the launcher's positivity rule, then Dressage's claude_code backend options
  // (dressage/paddock/blackbox/common/defaults.py), which use MAX_TOKENS_PER_GPU × CP_SIZE, not CONTEXT_WINDOW.
  const ctx = d.contextWindow;
  const th = d.compactThreshold;
  const maxTok = Number(e.MAX_TOKENS_PER_GPU);
  const dressageCtx = maxTok * (d.cp ?? NaN);
  const dressage = 'Dressage (dressage/paddock/blackbox/common/defaults.py) fails the first rollout: ';
  if (ctx !== undefined && th !== undefined) {
    if (th <= 0) {
      out.push(fail('compaction', 'Compaction threshold', `DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive; got ${e.DRESSAGE_BLACKBOX_COMPACT_THRESHOLD}`, 'lower COMPACT_RESERVE_TOKENS / ROLLOUT_MAX_RESPONSE_LEN or raise the context window'));
    } else if (d.responseLen !== undefined && Number.isFinite(dressageCtx) && dressageCtx <= d.responseLen) {
      out.push(
        fail(
          'compaction',
          'Compaction threshold',
          `${dressage}claude_code backend_options require --max-tokens-per-gpu * --context-parallel-size to be greater than --rollout-max-response-len; got ${maxTok} * ${d.cp} = ${dressageCtx} and --rollout-max-response-len=${d.responseLen}`,
          'raise MAX_TOKENS_PER_GPU or CP_SIZE, or lower ROLLOUT_MAX_RESPONSE_LEN',
        ),
      );
    } else if (Number.isFinite(dressageCtx) && th > dressageCtx) {
      out.push(fail('compaction', 'Compaction threshold', `${dressage}DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be a positive integer no greater than the context window (${dressageCtx}), got '${e.DRESSAGE_BLACKBOX_COMPACT_THRESHOLD}'`));
    } else out.push(ok('compaction', 'Compaction threshold', `${th} of ${ctx} tokens (auto-compact at ${d.autoCompactPct}%)`));
  }

  // Resume.
  if (e.RESUME_FROM_CKPT === '1' && !e.RESUME_CKPT_ROOT) {
    out.push(fail('resume', 'Resume', 'RESUME_CKPT_ROOT is required when RESUME_FROM_CKPT=1', 'set RESUME_CKPT_ROOT to the checkpoint directory (SAVE_ROOT of the earlier run)'));
  }

  // E2B plan concurrency.
  if (provider === 'e2b') {
    if (d.e2bFit === 'agents') {
      out.push(
        fail(
          'e2b-concurrency',
          'E2B concurrency',
          `${OWN_CHECK}${d.activeSamples} concurrent agent sandboxes (${d.sandboxesAtPeak} with evaluation) exceed the plan limit of ${d.e2bLimit}: sandbox creation hits 429 and whole groups fail`,
          'lower SGLANG_SERVER_CONCURRENCY or nodes, or raise the plan (SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT records it)',
        ),
      );
    } else if (d.e2bFit === 'peak') {
      out.push(
        warn(
          'e2b-concurrency',
          'E2B concurrency',
          `up to ${d.sandboxesAtPeak} sandboxes at peak (agent + evaluation) > plan limit ${d.e2bLimit}: evaluation sandboxes may hit 429 when many samples finish together`,
          'raise the E2B plan limit or lower SGLANG_SERVER_CONCURRENCY',
        ),
      );
    } else if (d.e2bFit === 'ok') out.push(ok('e2b-concurrency', 'E2B concurrency', `${d.sandboxesAtPeak} at peak ≤ plan limit ${d.e2bLimit}`));
  }

  // Leftover converter bootstrap variables (§1.5, §8.4).
  // The launcher never reads them (the quickstart exports them for the converter): harmless, only noted.
  const leftovers = BOOTSTRAP_VARS.filter((k) => plan.env[k]);
  if (leftovers.length > 0) {
    out.push(
      warn(
        'bootstrap',
        'Bootstrap variables',
        `${leftovers.join(', ')} set: the launcher ignores them (they are converter options for runtime bootstrap); with e2b, Claude Code and BBS come from the prebuilt templates`,
        `unset ${leftovers.join(' ')} if they are left over`,
      ),
    );
  } else out.push(ok('bootstrap', 'Bootstrap variables', 'none set'));

  // W&B key.
  if (e.USE_WANDB === '1' && !e.WANDB_API_KEY && !plan.env.WANDB_KEY && !plan.env.WANDB_API_KEY) {
    out.push(warn('wandb', 'W&B', 'USE_WANDB=1 but neither WANDB_API_KEY nor WANDB_KEY is set', 'export WANDB_API_KEY (kept out of files and logs)'));
  }

  // Settings that are not the launcher's, and rollout variables Ray will not forward (§8.12).
  const extraKeys = new Set((e.DRESSAGE_EXTRA_RUNTIME_ENV_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean));
  const unknown = Object.keys(explicit).filter((k) => !SETTING_BY_KEY.has(k));
  // Rollout settings exported in the shell count too: the launcher inherits them, Ray's job does not.
  const inherited = Object.keys(plan.env).filter((k) => k.startsWith('DRESSAGE_') && plan.env[k] !== '' && !SETTING_BY_KEY.has(k) && !(k in explicit));
  const notForwarded = [...unknown, ...inherited].filter((k) => k.startsWith('DRESSAGE_') && !FORWARDED_TO_RAY.has(k) && !extraKeys.has(k));
  if (notForwarded.length > 0) {
    out.push(
      warn(
        'forwarding',
        'Env forwarded to Ray',
        `${notForwarded.join(', ')} will not reach the rollout process: the launcher forwards only its list plus DRESSAGE_EXTRA_RUNTIME_ENV_KEYS`,
        `add them to DRESSAGE_EXTRA_RUNTIME_ENV_KEYS (${[...extraKeys, ...notForwarded].join(',')})`,
      ),
    );
  } else if (unknown.length > 0) {
    out.push(warn('forwarding', 'Extra variables', `${unknown.join(', ')} are not launcher settings; passed to its environment as is`));
  }
  return out.map((c) => ({ ...c, detail: redact(c.detail, plan.env), ...(c.fix ? { fix: redact(c.fix, plan.env) } : {}) }));
}

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
  return ok('launcher', t, 'launcher, env defaults and slime model config present');
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
    templateMap = plan.effective.DRESSAGE_SANDBOX_PROVIDER === 'e2b' ? await readTemplateMapForChecks(plan.paths.templateMap) : undefined;
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

/** All checks: static first, then probes; a probe's verdict replaces a static one with the same id. */
export async function runLaunchChecks(plan: LaunchPlan, opts: ProbeOptions = {}): Promise<LaunchCheck[]> {
  const stat0 = staticChecks(plan);
  const probes = await probeChecks(plan, opts);
  const byId = new Map<string, LaunchCheck>();
  for (const c of stat0) byId.set(c.id, c);
  for (const c of probes) {
    const prev = byId.get(c.id);
    // A failing static verdict stands (e.g. RESUME_CKPT_ROOT missing); otherwise the probe knows more.
    if (prev && prev.status === 'fail') continue;
    byId.set(c.id, c);
  }
  return [...byId.values()];
}

export function blocking(checks: readonly LaunchCheck[]): LaunchCheck[] {
  return checks.filter((c) => c.status === 'fail');
}
