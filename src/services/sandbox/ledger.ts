// Every sandbox this process created, until it is killed: the safety net behind each exit path (a signal, a quit,
// an error, a second Ctrl-C). Sandboxes cost money while they live, so whatever ends the process first sweeps the
// ledger: it kills what is still registered and, through a per-process session tag, also what a create left
// behind whose answer never reached us (a timeout, a dropped connection). What cannot be killed is named, with
// the command that kills it later.
import { randomBytes } from 'node:crypto';
import { CONSOLE_TAG_KEY } from './types.js';

/** Metadata key carrying this process's session id on every sandbox it creates. */
export const SESSION_TAG_KEY = `${CONSOLE_TAG_KEY}_session`;

/** What the ledger needs from a provider to find and kill leftovers. */
export interface LedgerProvider {
  list(filter: { metadata?: Record<string, string> }): Promise<{ id: string }[]>;
  killById(id: string): Promise<boolean>;
}

export interface SweepResult {
  killed: string[];
  /** Sandboxes still alive as far as we know, with why they could not be killed. */
  failed: { id: string; error: string }[];
  /** The session could not be listed (unreachable service): late creates may exist unseen. */
  listError?: string;
}

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
    timer.unref();
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

export class SandboxLedger {
  readonly session = randomBytes(6).toString('hex');
  private readonly live = new Map<string, LedgerProvider>();
  private readonly providers = new Set<LedgerProvider>();
  private closing = false;

  /** Metadata to add to a create so that the sweep can find the sandbox even when the create's answer is lost. */
  tag(): Record<string, string> {
    return { [SESSION_TAG_KEY]: this.session };
  }

  /** Called before a create is sent. */
  willCreate(provider: LedgerProvider): void {
    this.providers.add(provider);
  }

  register(id: string, provider: LedgerProvider): void {
    this.providers.add(provider);
    this.live.set(id, provider);
  }

  /** Called once a kill succeeded (or the sandbox was already gone). */
  forget(id: string): void {
    this.live.delete(id);
  }

  /** True once a sweep has started: a create answered after that must kill its sandbox at once. */
  get isClosing(): boolean {
    return this.closing;
  }

  liveIds(): string[] {
    return [...this.live.keys()];
  }

  /** True when this process ever created (or tried to create) a sandbox. */
  get touched(): boolean {
    return this.providers.size > 0;
  }

  /**
   * Kills every registered sandbox and every sandbox tagged with this session, each call bounded by `callMs`.
   * `final`: no create after this one is expected (the process is ending), so late answers are killed on arrival.
   */
  async sweep(opts: { callMs?: number; final?: boolean } = {}): Promise<SweepResult> {
    if (opts.final) this.closing = true;
    const callMs = opts.callMs ?? 10_000;
    const result: SweepResult = { killed: [], failed: [] };
    const targets = new Map(this.live);
    for (const provider of this.providers) {
      try {
        const found = await withDeadline(provider.list({ metadata: this.tag() }), callMs, 'list sandboxes');
        for (const s of found) if (!targets.has(s.id)) targets.set(s.id, provider);
      } catch (err) {
        result.listError = (err as Error).message;
      }
    }
    await Promise.all(
      [...targets].map(async ([id, provider]) => {
        try {
          await withDeadline(provider.killById(id), callMs, `kill sandbox ${id}`);
          this.forget(id);
          result.killed.push(id);
        } catch (err) {
          result.failed.push({ id, error: (err as Error).message });
        }
      }),
    );
    return result;
  }
}

/** The process-wide ledger (one console process = one session). */
export const sandboxLedger = new SandboxLedger();

/** Lines for the user after a sweep, or [] when nothing needs saying. */
export function describeSweep(r: SweepResult, provider = 'e2b'): string[] {
  const lines: string[] = [];
  if (r.killed.length > 0) lines.push(`killed ${r.killed.length} sandbox(es) this console had started: ${r.killed.join(' ')}`);
  if (r.failed.length > 0) {
    const ids = r.failed.map((f) => f.id);
    lines.push(
      `could not kill ${ids.length} sandbox(es), they may still be running (and billed): ${ids.join(' ')}`,
      ...r.failed.map((f) => `  ${f.id}: ${f.error}`),
      `  kill them with: swegym-console sandboxes kill ${ids.join(' ')} --yes${provider === 'e2b' ? '' : ` --provider ${provider}`}`,
    );
  }
  if (r.listError) {
    lines.push(`could not check for sandboxes whose create was not answered (${r.listError}); check with: swegym-console sandboxes list`);
  }
  return lines;
}
