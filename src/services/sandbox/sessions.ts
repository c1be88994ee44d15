// The sandbox ledger on disk: one file per console session that created sandboxes in this workspace
// (`.swegym-console/sandboxes/<session>.json`, 0600), owned by that session (pid, start time, host, boot, a heartbeat).
// A console killed with -9 sweeps nothing; its file stays behind, and the next console that uses the provider in
// this workspace kills what that session left (found by the session's metadata tag, never anything without the
// console's own tag) and says so. `doctor` reports such leftovers without touching them.
import { mkdir, readFile, readdir, rm, utimes } from 'node:fs/promises';
import path from 'node:path';
import { writeJsonAtomic } from '../workspace/atomic.js';
import { heartbeatOf, judgeOwner, type HeartbeatTiming, type OwnerStamp, type OwnerVerdict } from '../workspace/owner.js';
import { CONSOLE_TAG_KEY, CONSOLE_TAG_VALUE } from './types.js';

/** Metadata key carrying the creating session's id on every sandbox it creates. */
export const SESSION_TAG_KEY = `${CONSOLE_TAG_KEY}_session`;

/** Metadata key carrying the id of the create request that made a sandbox (to tell which lost create landed). */
export const REQUEST_TAG_KEY = `${CONSOLE_TAG_KEY}_req`;

export const SESSIONS_DIR_NAME = 'sandboxes';

/** A session that died with creates unanswered is listed again at each start for this long after its last heartbeat. */
export const DEFAULT_LATE_WINDOW_MS = 10 * 60_000;

export interface SessionRecord extends OwnerStamp {
  session: string;
  startedAt: string;
  provider: 'e2b';
  /** The command that ran (e.g. "templates smoke"), for messages. */
  purpose?: string;
  /** Sandboxes created and not known to be killed. */
  sandboxes: string[];
  /** Creates sent whose answer never arrived: a sandbox may exist that no id above names. */
  unanswered: number;
  /** Their request tags (REQUEST_TAG_KEY), to tell when each has landed and been killed. */
  pendingRequests?: string[];
}

/** The sessions folder of a workspace's console directory. */
export function sessionsDir(consoleDir: string): string {
  return path.join(consoleDir, SESSIONS_DIR_NAME);
}

export function sessionFile(dir: string, session: string): string {
  return path.join(dir, `${session}.json`);
}

export async function writeSessionRecord(dir: string, rec: SessionRecord): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeJsonAtomic(sessionFile(dir, rec.session), rec, { mode: 0o600 });
}

export async function removeSessionRecord(dir: string, session: string): Promise<void> {
  await rm(sessionFile(dir, session), { force: true });
}

function isRecord(v: unknown): v is SessionRecord {
  const r = v as SessionRecord;
  return typeof r === 'object' && r !== null && typeof r.session === 'string' && /^[0-9a-f]{6,64}$/.test(r.session) && Number.isInteger(r.pid) && Array.isArray(r.sandboxes);
}

export interface SessionOnDisk {
  file: string;
  record: SessionRecord;
  verdict: OwnerVerdict;
}

/** Every session file of the folder, with whether its owner still runs (unreadable files are skipped). */
export async function readSessions(dir: string, timing: HeartbeatTiming, now = Date.now()): Promise<SessionOnDisk[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: SessionOnDisk[] = [];
  for (const name of names.filter((n) => /^[0-9a-f]+\.json$/.test(n)).sort()) {
    const file = path.join(dir, name);
    try {
      const record = JSON.parse(await readFile(file, 'utf8')) as unknown;
      if (!isRecord(record)) continue;
      out.push({ file, record, verdict: judgeOwner(record, { heartbeatAt: await heartbeatOf(file), now, staleMs: timing.staleMs }) });
    } catch {
      // written atomically, so a half file is not ours to judge
    }
  }
  return out;
}

/** Who a session was, in a few words: `templates smoke` (pid 42 on host n1, started …). */
export function describeSession(r: SessionRecord): string {
  return `${r.purpose ? `\`${r.purpose}\` ` : ''}(session ${r.session}, pid ${r.pid}${r.host ? ` on ${r.host}` : ''}, started ${r.startedAt})`;
}

export interface ReapProvider {
  list(filter: { metadata?: Record<string, string> }): Promise<{ id: string; metadata?: Record<string, string> }[]>;
  killById(id: string): Promise<boolean>;
}

/**
 * Kills the sandboxes of every dead session of the folder (except `ownSession`), found by the console's tag and the
 * session's tag together, and removes the session's file once nothing of it is left. Returns lines for the user and
 * the ids killed.
 */
export async function reapDeadSessions(opts: {
  dir: string;
  provider: ReapProvider;
  ownSession: string;
  timing: HeartbeatTiming;
  providerName?: string;
  /** How long after its last heartbeat a session with unanswered creates is looked at again (a late create). */
  lateWindowMs?: number;
  now?: number;
}): Promise<{ lines: string[]; killed: string[] }> {
  const lines: string[] = [];
  const killedAll: string[] = [];
  const now = opts.now ?? Date.now();
  const lateWindowMs = opts.lateWindowMs ?? DEFAULT_LATE_WINDOW_MS;
  const dead = (await readSessions(opts.dir, opts.timing, now)).filter((s) => s.record.session !== opts.ownSession && !s.verdict.alive);
  for (const { file, record, verdict } of dead) {
    const who = describeSession(record);
    let found: { id: string; metadata?: Record<string, string> }[];
    try {
      found = await opts.provider.list({ metadata: { [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE, [SESSION_TAG_KEY]: record.session } });
    } catch (err) {
      lines.push(`could not check for sandboxes left by a console that is gone ${who} (${(err as Error).message}); they may still be running: swegym-console sandboxes list`);
      continue;
    }
    // Belt and braces: only what carries both tags, whatever the service's filter did.
    const ours = found.filter((s) => !s.metadata || (s.metadata[CONSOLE_TAG_KEY] === CONSOLE_TAG_VALUE && s.metadata[SESSION_TAG_KEY] === record.session));
    const killed: string[] = [];
    const failed: string[] = [];
    await Promise.all(
      ours.map(async (s) => {
        try {
          await opts.provider.killById(s.id);
          killed.push(s.id);
        } catch {
          failed.push(s.id);
        }
      }),
    );
    killedAll.push(...killed);
    if (killed.length > 0) lines.push(`killed ${killed.length} sandbox(es) left by a console that is gone ${who}: ${killed.sort().join(' ')} (${verdict.why})`);
    if (failed.length > 0) {
      lines.push(
        `could not kill ${failed.length} sandbox(es) left by a console that is gone ${who}: ${failed.sort().join(' ')}`,
        `  kill them with: swegym-console sandboxes kill ${failed.join(' ')} --yes${opts.providerName && opts.providerName !== 'e2b' ? ` --provider ${opts.providerName}` : ''}`,
      );
      continue;
    }
    // A create E2B had not answered when the session died may still land: look again at the next start, for a while.
    const landed = new Set(killed.map((id) => ours.find((s) => s.id === id)?.metadata?.[REQUEST_TAG_KEY]));
    const stillPending = (record.pendingRequests ?? []).filter((r) => !landed.has(r));
    const unanswered = record.pendingRequests ? stillPending.length : record.unanswered;
    const lastBeat = await heartbeatOf(file);
    if (unanswered > 0 && lastBeat !== undefined && now - lastBeat < lateWindowMs) {
      if (stillPending.length !== (record.pendingRequests ?? []).length) {
        await writeJsonAtomic(file, { ...record, unanswered, pendingRequests: stillPending }, { mode: 0o600 }).catch(() => {});
        // keep the dead owner's heartbeat: the window runs from when it died, not from this rewrite
        await utimes(file, new Date(lastBeat), new Date(lastBeat)).catch(() => {});
      }
      continue;
    }
    await removeSessionRecord(opts.dir, record.session).catch(() => {});
  }
  return { lines, killed: killedAll };
}
