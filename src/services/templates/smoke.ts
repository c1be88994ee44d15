// Smoke test of a template (recipe §1.4): start a sandbox, expect {"healthy":true,…} from BBS on
// http://127.0.0.1:31000/health inside it, check `claude --version`, and always kill the sandbox, awaited
// (Dressage's smoke script forgets the await, so its sandboxes linger 300 s). Results go to the templates journal.
import type { SandboxProvider, Sandbox, HealthResult } from '../sandbox/types.js';
import { SandboxError } from '../sandbox/types.js';
import { redact } from '../secrets.js';
import { sleep } from '../util/sleep.js';
import type { Journal } from '../workspace/journal.js';
import { HEALTH_PATH, CLAUDE_BIN, BBS_LOG } from './recipe.js';
import { BLACKBOX_PORT } from '../recipe.js';
import { diagnose } from './diagnose.js';
import type { TemplateRecord } from './records.js';

export interface SmokeOptions {
  provider: SandboxProvider;
  template: string;
  port?: number;
  /** Sandbox lifetime (Dressage: 300 s). */
  sandboxTimeoutMs?: number;
  /** Per-command timeout (Dressage: 60 s). */
  commandTimeoutMs?: number;
  /** Health probes before giving up (the service may need a moment after resume). */
  healthAttempts?: number;
  healthRetryMs?: number;
  signal?: AbortSignal;
}

export interface SmokeResult {
  template: string;
  ok: boolean;
  sandboxId?: string;
  health?: { status?: number; body?: string; version?: string };
  claudeVersion?: string;
  /** What failed, with the likely cause. */
  error?: string;
  /** Short tag: no_start_command, unhealthy, claude_binary, not_found, … */
  code?: string;
  killed: boolean;
  durationMs: number;
}

/** Waits between health probes; an abort ends the wait early (the caller then stops probing). */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, signal).catch(() => undefined);
}

async function bbsLogTail(sandbox: Sandbox, timeoutMs: number): Promise<string> {
  try {
    const r = await sandbox.run(`tail -n 5 ${BBS_LOG} 2>&1 || true`, { timeoutMs });
    return r.stdout.trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '';
  }
}

function healthProblem(h: HealthResult): string | undefined {
  if (!h.ok && h.status === undefined) return h.error ?? 'no answer';
  if (h.status !== undefined && h.status !== 200) return `HTTP ${h.status}${h.body ? `: ${h.body.slice(0, 200)}` : ''}`;
  const json = h.json as { healthy?: unknown } | undefined;
  if (!json || typeof json !== 'object') return `not JSON: ${(h.body ?? '').slice(0, 200)}`;
  if (json.healthy !== true) return `unhealthy: ${(h.body ?? JSON.stringify(json)).slice(0, 200)}`;
  return undefined;
}

export async function smokeTemplate(opts: SmokeOptions): Promise<SmokeResult> {
  const t0 = Date.now();
  const port = opts.port ?? BLACKBOX_PORT;
  const cmdTimeout = opts.commandTimeoutMs ?? 60_000;
  const result: SmokeResult = { template: opts.template, ok: false, killed: false, durationMs: 0 };
  let sandbox: Sandbox | undefined;
  try {
    try {
      sandbox = await opts.provider.create({
        template: opts.template,
        timeoutMs: opts.sandboxTimeoutMs ?? 300_000,
        metadata: { purpose: 'smoke' },
        signal: opts.signal,
      });
    } catch (err) {
      const d = diagnose(err);
      result.code = err instanceof SandboxError && err.kind === 'not_found' ? 'not_found' : d.code;
      result.error = redact(
        err instanceof SandboxError && err.kind === 'not_found'
          ? `could not start a sandbox: ${err.message} — the template does not exist (build it: swegym-console templates build)`
          : `could not start a sandbox: ${(err as Error).message} — ${d.hint}`,
      );
      return result;
    }
    result.sandboxId = sandbox.id;

    // 1. BBS /health on 31000, inside the sandbox.
    const attempts = Math.max(1, opts.healthAttempts ?? 5);
    let problem: string | undefined = 'not probed';
    let health: HealthResult | undefined;
    for (let i = 1; i <= attempts; i++) {
      health = await sandbox.health(port, HEALTH_PATH, { timeoutMs: Math.min(cmdTimeout, 10_000), signal: opts.signal });
      problem = healthProblem(health);
      if (!problem || opts.signal?.aborted) break;
      // Only "not answering yet" is worth waiting for; a wrong answer will not change.
      if (health.status !== undefined) break;
      if (i < attempts) await pause((opts.healthRetryMs ?? 1000) * i, opts.signal);
    }
    const version = (health?.json as { version?: unknown } | undefined)?.version;
    result.health = { status: health?.status, body: health?.body?.slice(0, 300), version: typeof version === 'string' ? version : undefined };
    if (problem) {
      const log = await bbsLogTail(sandbox, cmdTimeout);
      const notListening = health?.status === undefined;
      result.code = notListening ? 'no_start_command' : 'unhealthy';
      result.error = redact(
        notListening
          ? `BBS did not answer http://127.0.0.1:${port}${HEALTH_PATH} (${problem}) — port not open: the template's start command is missing or failed${log ? `; ${BBS_LOG}: ${log}` : ''}`
          : `BBS /health answered but not healthy (${problem})${log ? `; ${BBS_LOG}: ${log}` : ''}`,
      );
      return result;
    }

    // 2. Claude Code runs.
    const claude = await sandbox.run(`${CLAUDE_BIN} --version`, { timeoutMs: cmdTimeout, signal: opts.signal });
    const out = `${claude.stdout}\n${claude.stderr}`.trim();
    if (claude.exitCode !== 0 || claude.timedOut) {
      result.code = 'claude_binary';
      result.error = redact(
        `\`claude --version\` ${claude.timedOut ? 'timed out' : `exited ${claude.exitCode}`}: ${out.slice(0, 200)} — the Claude Code binary is missing or cannot run in this image (check the artifacts and the template's copy step)`,
      );
      return result;
    }
    result.claudeVersion = out.split('\n')[0]?.trim();
    result.ok = true;
    return result;
  } catch (err) {
    const d = diagnose(err);
    // After the sandbox started, "not found" is the sandbox (expired, killed), never the template.
    const gone = err instanceof SandboxError && err.kind === 'not_found';
    result.code = gone ? 'sandbox_gone' : d.code;
    result.error = redact(`${(err as Error).message} — ${gone ? 'the sandbox stopped while it was being tested (it expired or was killed); run the smoke again' : d.hint}`);
    return result;
  } finally {
    if (sandbox) {
      try {
        await sandbox.kill();
        result.killed = true;
      } catch (err) {
        result.error = (result.error ? result.error + '; ' : '') + redact(`the sandbox ${sandbox.id} could not be killed: ${(err as Error).message}`);
      }
    }
    result.durationMs = Date.now() - t0;
  }
}

export interface SmokeManyOptions {
  provider: SandboxProvider;
  /** image → template; an image may be '' when only the template is known. */
  targets: { image?: string; template: string }[];
  concurrency?: number;
  journal?: Journal<TemplateRecord>;
  signal?: AbortSignal;
  onResult?: (r: SmokeResult & { image?: string }) => void;
  onStart?: (template: string) => void;
  smoke?: Partial<Omit<SmokeOptions, 'provider' | 'template' | 'signal'>>;
}

/** Smokes many templates with bounded concurrency; records each result in the journal under its image. */
export async function smokeMany(opts: SmokeManyOptions): Promise<(SmokeResult & { image?: string })[]> {
  const queue = [...opts.targets];
  const results: (SmokeResult & { image?: string })[] = [];
  const worker = async () => {
    for (;;) {
      if (opts.signal?.aborted) return;
      const target = queue.shift();
      if (!target) return;
      opts.onStart?.(target.template);
      const r = { ...(await smokeTemplate({ ...opts.smoke, provider: opts.provider, template: target.template, signal: opts.signal })), image: target.image };
      results.push(r);
      if (opts.journal && target.image) {
        const prev = opts.journal.get(target.image);
        await opts.journal.set(target.image, {
          ...(prev ?? { image: target.image, state: 'built', template: target.template }),
          template: prev?.template || target.template,
          smoke: r.ok ? 'passed' : 'failed',
          smokeError: r.ok ? undefined : r.error,
          smokeAt: new Date().toISOString(),
          smokeDurationMs: r.durationMs,
          updatedAt: new Date().toISOString(),
        } as TemplateRecord);
      }
      opts.onResult?.(r);
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency ?? 4, queue.length || 1));
  await Promise.all(Array.from({ length: n }, () => worker()));
  return results;
}
