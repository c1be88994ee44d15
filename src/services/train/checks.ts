// Blocking checks before a launch: every trap of recipe reference §8 the console can see from the head node, with the
// launcher's own wording where it has one. Static checks are pure (the form shows them live); the probes (probes.ts)
// touch the disk, the network and Ray (run before a launch and on demand).
import { describeSecret, redact } from '../secrets.js';
import { BOOTSTRAP_VARS, FORWARDED_TO_RAY, JUDGED_BY_DRESSAGE, LAUNCHER_CHECKED_TOGGLES, LAUNCHER_OVERWRITES, OWN_CHECK, SETTING_BY_KEY, SLIME_KL_LOSS_TYPES, validateSetting } from './settings.js';
import type { LaunchPlan } from './launch.js';
import type { LaunchCheck } from '../../state/types/train.js';
import { BLACKBOX_PORT } from '../recipe.js';
export type { LaunchCheck } from '../../state/types/train.js';
export { probeChecks, type ProbeOptions } from './probes.js';
import { probeChecks, type ProbeOptions } from './probes.js';
import { bashArithmetic, fail, ok, warn, isLocalOnlyHost, isPrivateHost, launcherRejectsProxyUrl, launcherRejectsRouterUrl } from './checkParts.js';
import { DRESSAGE_SOURCES, compactThresholdVerdict, e2bPortRefusal, paddockModeVerdict, providerName, providerRefusal, proxyUrlRefusal, pyRepr } from './dressageRules.js';
import { engineGpuWarning } from './engineRule.js';
import { setting } from '../config/envSettings.js';
export { isLocalOnlyHost, isPrivateHost, launcherRejectsProxyUrl, launcherRejectsRouterUrl } from './checkParts.js';

/** Pure checks over the plan: settings, topology, algorithm, keys, proxy URL shape. Cheap enough for every keystroke. */
export function staticChecks(plan: LaunchPlan): LaunchCheck[] {
  const out: LaunchCheck[] = [];
  const e = plan.effective;
  const d = plan.derived;
  const explicit = plan.values;

  // Every value against its setting's validation (toggles in the launcher's wording).
  const bad = Object.entries(explicit)
    .map(([k, v]) => [k, validateSetting(k, v)] as const)
    .filter((x): x is readonly [string, string] => x[1] !== undefined && !JUDGED_BY_DRESSAGE.has(x[0]));
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

  // Sandbox provider and the E2B key trap (§8.2, §8.11). The launcher compares the name exactly; Dressage's sandbox
  // factory strips and lower-cases it, and with DRESSAGE_PADDOCK_CLASS set loads that class instead of any provider.
  const provider = e.DRESSAGE_SANDBOX_PROVIDER ?? '';
  const paddockClass = e.DRESSAGE_PADDOCK_CLASS ?? '';
  const dressageProvider = providerName(provider);
  const e2b = provider === 'e2b' || (!paddockClass && dressageProvider === 'e2b');
  const launcherMisses = (what: string) => ` (the launcher's own check, ${what}, misses this spelling)`;
  if (e2b) {
    const exact = provider === 'e2b';
    if (e.DRESSAGE_E2B_API_KEY) out.push(ok('e2b-key', 'DRESSAGE_E2B_API_KEY', describeSecret(e.DRESSAGE_E2B_API_KEY)));
    else {
      const words = 'DRESSAGE_E2B_API_KEY is required for DRESSAGE_SANDBOX_PROVIDER=e2b';
      const why = exact
        ? ''
        : `: Dressage's sandbox factory (${DRESSAGE_SOURCES.sandboxFactory}) reads ${pyRepr(provider)} as e2b and starts E2B without a key, so every sandbox fails at the first rollout${launcherMisses('which compares the name with "e2b" exactly')}`;
      out.push(
        setting(plan.env, 'E2B_API_KEY')
          ? fail('e2b-key', 'DRESSAGE_E2B_API_KEY', `${words}${why} (E2B_API_KEY is set, but only the template tools read it; training reads DRESSAGE_E2B_API_KEY)`, 'export DRESSAGE_E2B_API_KEY="$E2B_API_KEY" (or set it in the form)')
          : fail('e2b-key', 'DRESSAGE_E2B_API_KEY', `${words}${why}`, 'export DRESSAGE_E2B_API_KEY=e2b_… (the key for training)'),
      );
    }
    const port = e.DRESSAGE_E2B_BLACKBOX_PORT ?? '';
    const refusal = paddockClass ? undefined : e2bPortRefusal(port, '', BLACKBOX_PORT);
    out.push(
      !refusal
        ? ok('bbs-port', 'DRESSAGE_E2B_BLACKBOX_PORT', port || String(BLACKBOX_PORT))
        : fail('bbs-port', 'DRESSAGE_E2B_BLACKBOX_PORT', `Dressage (${refusal.where}) fails every sandbox: ${refusal.error}`, `unset DRESSAGE_E2B_BLACKBOX_PORT or set it to ${BLACKBOX_PORT}`),
    );
    if (!exact) out.push(ok('provider', 'Sandbox provider', `${provider} (Dressage reads it as e2b)`));
  } else if (provider === 'custom') {
    out.push(
      paddockClass
        ? ok('provider', 'Sandbox provider', `custom (${paddockClass})`)
        : fail('provider', 'Sandbox provider', 'DRESSAGE_PADDOCK_CLASS is required for DRESSAGE_SANDBOX_PROVIDER=custom', 'set DRESSAGE_PADDOCK_CLASS or use e2b'),
    );
  } else if (paddockClass) {
    out.push(ok('provider', 'Sandbox provider', `${provider} (DRESSAGE_PADDOCK_CLASS=${paddockClass} is loaded instead of a provider)`));
  } else {
    const refusal = providerRefusal(provider);
    out.push(
      refusal
        ? fail('provider', 'Sandbox provider', `Dressage's sandbox factory (${DRESSAGE_SOURCES.sandboxFactory}) fails the first rollout: ${refusal}`, 'use DRESSAGE_SANDBOX_PROVIDER=e2b')
        : ok('provider', 'Sandbox provider', `${provider} (the console's sandbox views and E2B checks apply to e2b only)`),
    );
  }

  // The paddock mode: the SWE-Gym rollout hook refuses whitebox, the paddock factory any other mode.
  const mode = paddockModeVerdict(e.DRESSAGE_PADDOCK_MODE ?? '', paddockClass);
  out.push(
    'error' in mode
      ? fail('paddock-mode', 'DRESSAGE_PADDOCK_MODE', `Dressage (${mode.where}) fails the first rollout: ${mode.error}`, 'unset DRESSAGE_PADDOCK_MODE or set it to blackbox (the SWE-Gym recipe runs blackbox agents)')
      : ok('paddock-mode', 'DRESSAGE_PADDOCK_MODE', mode.mode === 'class' ? `not read (DRESSAGE_PADDOCK_CLASS=${paddockClass})` : mode.mode),
  );

  // Proxy URL: the launcher's local-only rule first, then BlackboxAgentPaddock.__init__'s (any spelling, lower-cased
  // host), then ours: a private address E2B cannot reach.
  const url = e.DRESSAGE_PROXY_URL ?? '';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  const dressageRefusal = proxyUrlRefusal(url);
  const proxyFix = "Set PROXY_PUBLIC_HOST or DRESSAGE_PROXY_URL to this machine's sandbox-reachable IP/hostname.";
  if (launcherRejectsProxyUrl(url)) {
    out.push(fail('proxy-url', 'DRESSAGE_PROXY_URL', `DRESSAGE_PROXY_URL must be reachable from the sandbox; got local-only URL: ${url}`, proxyFix));
  } else if (dressageRefusal && !paddockClass) {
    const local = /local-only host/.test(dressageRefusal);
    out.push(
      fail(
        'proxy-url',
        'DRESSAGE_PROXY_URL',
        `Dressage (${DRESSAGE_SOURCES.paddock}, BlackboxAgentPaddock.__init__) fails the first rollout: ${dressageRefusal}${local ? launcherMisses('dressage_validate_proxy_defaults') : ''}`,
        local ? proxyFix : 'set DRESSAGE_PROXY_URL to the http(s) ingress or tunnel URL of the Dressage proxy, e.g. https://proxy.example.com',
      ),
    );
  } else if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
    out.push(warn('proxy-url', 'DRESSAGE_PROXY_URL', `${OWN_CHECK}DRESSAGE_PROXY_URL is not a URL an HTTP client can reach: ${url}`, 'set it to the ingress or tunnel URL of the Dressage proxy, e.g. https://proxy.example.com'));
  } else if (isLocalOnlyHost(parsed.hostname)) {
    out.push(warn('proxy-url', 'DRESSAGE_PROXY_URL', `${OWN_CHECK}${url} is local-only: no sandbox can reach it (DRESSAGE_PADDOCK_CLASS=${paddockClass} is not Dressage's paddock, which would refuse it)`, proxyFix));
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
      out.push(ok('gpus', 'GPU divisibility', `${d.totalGpus} GPUs = DP ${d.dpSize} × TP ${d.tp} × CP ${d.cp}; ${d.engines} SGLang engines`));
    }
  }
  const engineWarning = engineGpuWarning(e);
  if (engineWarning) out.push(engineWarning);

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
  // The launcher reads the threshold as bash arithmetic (`[[ X -le 0 ]]`); Dressage takes Python's int() of the same text.
  const rawThreshold = e.DRESSAGE_BLACKBOX_COMPACT_THRESHOLD ?? '';
  const bashReading = bashArithmetic(rawThreshold);
  const maxTok = Number(e.MAX_TOKENS_PER_GPU);
  const dressageCtx = maxTok * (d.cp ?? NaN);
  const dressage = `Dressage (${DRESSAGE_SOURCES.defaults}) fails the first rollout: `;
  if (typeof bashReading === 'object' && bashReading.value <= 0n) {
    out.push(fail('compaction', 'Compaction threshold', `DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be positive; got ${rawThreshold}`, 'lower COMPACT_RESERVE_TOKENS / ROLLOUT_MAX_RESPONSE_LEN or raise the context window'));
  } else if (Number.isFinite(dressageCtx)) {
    const verdict = compactThresholdVerdict(rawThreshold, dressageCtx);
    if (d.responseLen !== undefined && dressageCtx <= d.responseLen) {
      out.push(
        fail(
          'compaction',
          'Compaction threshold',
          `${dressage}claude_code backend_options require --max-tokens-per-gpu * --context-parallel-size to be greater than --rollout-max-response-len; got ${maxTok} * ${d.cp} = ${dressageCtx} and --rollout-max-response-len=${d.responseLen}`,
          'raise MAX_TOKENS_PER_GPU or CP_SIZE, or lower ROLLOUT_MAX_RESPONSE_LEN',
        ),
      );
    } else if ('error' in verdict) {
      const launcherNote =
        bashReading === 'unknown'
          ? ' (the launcher reads it as a shell variable name first: an unset one ends the launcher with "unbound variable")'
          : bashReading === 'error'
            ? " (the launcher's own check, [[ … -le 0 ]], prints an arithmetic error and carries on)"
            : ` (the launcher's own check reads it as bash arithmetic, ${bashReading.value}, and carries on)`;
      out.push(fail('compaction', 'Compaction threshold', `${dressage}${verdict.error}${launcherNote}`, `set DRESSAGE_BLACKBOX_COMPACT_THRESHOLD to a plain integer between 1 and ${dressageCtx}, or unset it`));
    } else if (verdict.threshold === undefined) {
      out.push(ok('compaction', 'Compaction threshold', 'blank: Dressage sets no compaction threshold (Claude Code compacts at its own default)'));
    } else out.push(ok('compaction', 'Compaction threshold', `${verdict.threshold} of ${dressageCtx} tokens (auto-compact at ${d.autoCompactPct}%)`));
  }

  // Resume.
  if (e.RESUME_FROM_CKPT === '1' && !e.RESUME_CKPT_ROOT) {
    out.push(fail('resume', 'Resume', 'RESUME_CKPT_ROOT is required when RESUME_FROM_CKPT=1', 'set RESUME_CKPT_ROOT to the checkpoint directory (SAVE_ROOT of the earlier run)'));
  }

  // E2B plan concurrency.
  if (e2b) {
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

  // Set, but replaced by the launcher's own export before `ray start`.
  const overwritten = LAUNCHER_OVERWRITES.filter((k) => explicit[k] !== undefined && explicit[k] !== '' && explicit[k] !== e[k]);
  if (overwritten.length > 0) {
    out.push(warn('overwritten', 'Replaced by the launcher', `${overwritten.map((k) => `${k}=${explicit[k]}`).join(', ')}: the launcher exports its own value (${e.no_proxy}) before \`ray start\`, so yours never reaches the run`, `unset ${overwritten.join(' ')}`));
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
