// Every sandbox this process created, until it is killed: the safety net behind each exit path (a signal, a quit,
// an error, a second Ctrl-C). Sandboxes cost money while they live, so whatever ends the process first sweeps the
// ledger: it kills what is still registered and, through a per-process session tag, also what a create left
// behind whose answer never reached us (a timeout, a dropped connection). A create E2B completes after we gave up
// on it lands later still, so the final sweep waits for such creates (bounded) and lists the session again. What
// cannot be killed is named, with the command that kills it later.
// The ledger is also on disk (sessions.ts), owned by this session: a console killed with -9 sweeps nothing, and the
// next console in the workspace kills what it left.
import { randomHex } from '../util/randomHex.js';
import { WriteQueue } from '../workspace/atomic.js';
import { currentOwner, heartbeatTimingFromEnv, startHeartbeat, type HeartbeatTiming } from '../workspace/owner.js';
import { reapDeadSessions, removeSessionRecord, sessionFile, REQUEST_TAG_KEY, SESSION_TAG_KEY, writeSessionRecord, type ReapProvider, type SessionRecord } from './sessions.js';
import { sleep } from '../util/sleep.js';

/** Metadata key carrying this process's session id on every sandbox it creates. */
export { SESSION_TAG_KEY };

export { REQUEST_TAG_KEY };

/** What the ledger needs from a provider to find and kill leftovers. */
export interface LedgerProvider {
  list(filter: { metadata?: Record<string, string> }): Promise<{ id: string; metadata?: Record<string, string> }[]>;
  killById(id: string): Promise<boolean>;
}

export interface SweepResult {
  killed: string[];
  /** Sandboxes still alive as far as we know, with why they could not be killed. */
  failed: { id: string; error: string }[];
  /** The session could not be listed (unreachable service): late creates may exist unseen. */
  listError?: string;
  /** Creates E2B never answered, even after the wait: a sandbox of this session may still appear. */
  unanswered?: number;
  session?: string;
}

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
    timer.unref();
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** A create that was sent and not (yet) answered. */
interface PendingCreate {
  provider: LedgerProvider;
  sentAt: number;
  /** When we stopped waiting for its answer (timeout, reset, interrupt); unset while the request is in flight. */
  lostAt?: number;
  /** How long after `lostAt` (or now, while in flight) E2B may still complete it (the provider says: 2× its request timeout). */
  settleMs: number;
}

export class SandboxLedger {
  private sessionId: string | undefined;
  /** This process's session tag, made when first asked for (the ledger is created when the console starts). */
  get session(): string {
    return (this.sessionId ??= randomHex(6));
  }
  /** The command this session runs (for the messages of the console that may reap it). */
  purpose: string | undefined;
  timing: HeartbeatTiming = heartbeatTimingFromEnv();
  private readonly live = new Map<string, LedgerProvider>();
  private readonly providers = new Set<LedgerProvider>();
  private readonly pending = new Map<string, PendingCreate>();
  private pendingChanged: (() => void)[] = [];
  private closing = false;
  private dir: string | undefined;
  private readonly startedAt = new Date().toISOString();
  private persisted: Promise<void> | undefined;
  private writeScheduled = false;
  private readonly writes = new WriteQueue();
  private stopHeartbeat: (() => void) | undefined;
  private reaped: Promise<void> | undefined;
  private readonly notices: string[] = [];
  /** Sandboxes this process killed because a dead session had left them. */
  readonly reapedIds = new Set<string>();
  private sink: ((line: string) => void) | undefined;

  /** Keeps this session's record in `dir` (the workspace's `.swegym-console/sandboxes`); the first folder wins. */
  attach(dir: string): void {
    this.dir ??= dir;
  }

  get attachedDir(): string | undefined {
    return this.dir;
  }

  /** Where what the ledger has to say goes (lines without a prefix); what was said before is flushed to it. */
  onNotice(sink: ((line: string) => void) | undefined): void {
    this.sink = sink;
    if (sink) for (const line of this.notices.splice(0)) sink(line);
  }

  private notice(line: string): void {
    if (this.sink) this.sink(line);
    else this.notices.push(line);
  }

  /** Metadata to add to a create so that the sweep can find the sandbox even when the create's answer is lost. */
  tag(): Record<string, string> {
    return { [SESSION_TAG_KEY]: this.session };
  }

  /**
   * Once per process, before the provider's first call: kills what dead sessions of the workspace left. The
   * provider's own list/kill are passed in raw (they must not wait for this).
   */
  reapDead(provider: ReapProvider, providerName = 'e2b'): Promise<void> {
    if (!this.dir) return Promise.resolve();
    const dir = this.dir;
    this.reaped ??= reapDeadSessions({ dir, provider, ownSession: this.session, timing: this.timing, providerName }).then(
      ({ lines, killed }) => {
        for (const id of killed) this.reapedIds.add(id);
        for (const l of lines) this.notice(l);
      },
      () => {},
    );
    return this.reaped;
  }

  /**
   * Called before a create is sent, with the create's own tag. Resolves once this session's record is on disk, so
   * that a kill -9 from here on leaves a trace the next console follows.
   */
  async willCreate(provider: LedgerProvider, requestTag?: string, settleMs = 30_000): Promise<void> {
    this.providers.add(provider);
    if (requestTag) this.pending.set(requestTag, { provider, sentAt: Date.now(), settleMs });
    if (!this.dir) return;
    if (!this.persisted) {
      const dir = this.dir;
      this.persisted = writeSessionRecord(dir, this.record()).then(() => {
        this.stopHeartbeat = startHeartbeat(sessionFile(dir, this.session), this.timing.everyMs);
      });
    } else this.schedulePersist();
    await this.persisted.catch(() => {
      // a workspace we cannot write: the in-process sweep still covers every exit but kill -9
    });
  }

  /** The create was answered (with a sandbox, or with an error that means nothing was made). */
  answered(requestTag: string): void {
    if (this.pending.delete(requestTag)) this.changed();
  }

  /** The create's answer is lost (timeout, reset, interrupt): E2B may still complete it. */
  unanswered(requestTag: string): void {
    const p = this.pending.get(requestTag);
    if (p) p.lostAt ??= Date.now();
    this.changed();
  }

  private changed(): void {
    for (const w of this.pendingChanged.splice(0)) w();
    this.schedulePersist();
  }

  register(id: string, provider: LedgerProvider): void {
    this.providers.add(provider);
    this.live.set(id, provider);
    this.schedulePersist();
  }

  /** Called once a kill succeeded (or the sandbox was already gone). */
  forget(id: string): void {
    if (this.live.delete(id)) this.schedulePersist();
  }

  /** True once a sweep has started: a create answered after that must kill its sandbox at once. */
  get isClosing(): boolean {
    return this.closing;
  }

  liveIds(): string[] {
    return [...this.live.keys()];
  }

  /** Creates sent and not answered (in flight, or lost). */
  get unansweredCount(): number {
    return this.pending.size;
  }

  /** True when this process ever created (or tried to create) a sandbox. */
  get touched(): boolean {
    return this.providers.size > 0;
  }

  private record(): SessionRecord {
    return { ...currentOwner(), session: this.session, startedAt: this.startedAt, provider: 'e2b', ...(this.purpose ? { purpose: this.purpose } : {}), sandboxes: this.liveIds(), unanswered: this.pending.size, pendingRequests: [...this.pending.keys()] };
  }

  // Coalesced: many workers register at once; the file is rewritten once per burst (the session tag, not this list,
  // is what finds the sandboxes; the list is for doctor).
  private schedulePersist(): void {
    if (!this.dir || !this.persisted || this.writeScheduled) return;
    this.writeScheduled = true;
    const dir = this.dir;
    void this.writes
      .run(async () => {
        this.writeScheduled = false;
        await writeSessionRecord(dir, this.record());
      })
      .catch(() => {});
  }

  /** Waits until every lost create's settle time passed (or none is pending), at most `maxMs`. */
  private async waitForLateCreates(maxMs: number): Promise<void> {
    const cap = Date.now() + maxMs;
    for (;;) {
      const now = Date.now();
      // A create still in flight may be lost later than now: its settle time runs from then, so this is re-read.
      const deadline = Math.min(cap, Math.max(now, ...[...this.pending.values()].map((p) => (p.lostAt ?? now) + p.settleMs)));
      if (this.pending.size === 0 || now >= deadline) return;
      // Until the deadline, or sooner when a pending create changes.
      const woken = new AbortController();
      this.pendingChanged.push(() => woken.abort());
      await sleep(deadline - now, woken.signal).catch(() => {});
    }
  }

  /**
   * Kills every registered sandbox and every sandbox tagged with this session, each call bounded by `callMs`.
   * `final`: no create after this one is expected (the process is ending), so late answers are killed on arrival;
   * creates E2B has not answered are waited for (at most `lateWaitMs`, `onWait` says so) and the session is listed
   * again. Afterwards the session's record is removed when nothing is left, or kept for the next console.
   */
  async sweep(opts: { callMs?: number; final?: boolean; lateWaitMs?: number; onWait?: (creates: number, ms: number) => void } = {}): Promise<SweepResult> {
    if (opts.final) this.closing = true;
    const callMs = opts.callMs ?? 10_000;
    const result: SweepResult = { killed: [], failed: [], session: this.session };
    await this.killSession(result, callMs);
    if (opts.final && this.pending.size > 0) {
      const lateWaitMs = opts.lateWaitMs ?? 30_000;
      if (lateWaitMs > 0) {
        opts.onWait?.(this.pending.size, lateWaitMs);
        await this.waitForLateCreates(lateWaitMs);
      }
      delete result.listError;
      await this.killSession(result, callMs);
      // What is still pending never showed up (or is still in flight): a sandbox may yet appear.
      if (this.pending.size > 0) result.unanswered = this.pending.size;
    }
    if (opts.final) await this.closeRecord(result);
    return result;
  }

  private async killSession(result: SweepResult, callMs: number): Promise<void> {
    const targets = new Map(this.live);
    for (const provider of this.providers) {
      try {
        const found = await withDeadline(provider.list({ metadata: this.tag() }), callMs, 'list sandboxes');
        for (const s of found) {
          if (!targets.has(s.id)) targets.set(s.id, provider);
          const request = s.metadata?.[REQUEST_TAG_KEY];
          if (request) this.answered(request);
        }
      } catch (err) {
        result.listError = (err as Error).message;
      }
    }
    result.failed = result.failed.filter((f) => !targets.has(f.id));
    await Promise.all(
      [...targets].map(async ([id, provider]) => {
        if (result.killed.includes(id)) return;
        try {
          await withDeadline(provider.killById(id), callMs, `kill sandbox ${id}`);
          this.forget(id);
          result.killed.push(id);
        } catch (err) {
          result.failed.push({ id, error: (err as Error).message });
        }
      }),
    );
  }

  private async closeRecord(result: SweepResult): Promise<void> {
    if (!this.dir || !this.persisted) return;
    const dir = this.dir;
    this.stopHeartbeat?.();
    const clean = result.failed.length === 0 && !result.listError && !result.unanswered;
    await this.writes
      .run(() => (clean ? removeSessionRecord(dir, this.session) : writeSessionRecord(dir, this.record())))
      .catch(() => {});
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
  if (r.unanswered) {
    lines.push(
      `E2B did not answer ${r.unanswered} sandbox create(s) of this console: a sandbox may still appear in the next minutes (tagged ${SESSION_TAG_KEY}=${r.session}).`,
      `  The next swegym-console command that uses E2B in this workspace kills it; or kill it yourself: swegym-console sandboxes kill --session ${r.session} --yes${provider === 'e2b' ? '' : ` --provider ${provider}`}`,
    );
  }
  return lines;
}
