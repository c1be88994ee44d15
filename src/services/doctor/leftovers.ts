// The doctor's look at the on-disk sandbox ledger: sessions of consoles that are gone (kill -9, a crash, a lost
// node) and what they left running on E2B. Reported, never killed here: the next command that uses the provider
// kills them (sandbox/sessions.ts), or the user does with the printed command.
import { CONSOLE_DIR_NAME } from '../workspace/paths.js';
import { heartbeatTimingFromEnv } from '../workspace/owner.js';
import { describeSession, readSessions, sessionsDir, SESSION_TAG_KEY, type SessionOnDisk } from '../sandbox/sessions.js';
import { CONSOLE_TAG_KEY, CONSOLE_TAG_VALUE } from '../sandbox/types.js';
// Loaded with every command (the entry imports it), so a static import costs nothing here.
import { SandboxLedger } from '../sandbox/ledger.js';
import type { DoctorCheck } from './types.js';
import path from 'node:path';
import { setting } from '../config/envSettings.js';

type Row = Omit<DoctorCheck, 'id' | 'title'>;

/** Live ids of one session on E2B, or why they could not be listed. */
async function listOnE2b(env: NodeJS.ProcessEnv, session: string, timeoutMs: number): Promise<string[] | Error> {
  try {
    const { E2bProvider, e2bSettingsFromEnv } = await import('../sandbox/e2b.js');
    // A ledger of its own and no sessions folder: the doctor looks, it never reaps or registers anything.
    const provider = new E2bProvider(e2bSettingsFromEnv(env, { ledger: new SandboxLedger(), requestTimeoutMs: timeoutMs, retry: { attempts: 1 } }));
    const found = await provider.list({ metadata: { [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE, [SESSION_TAG_KEY]: session } });
    return found.filter((s) => s.metadata[SESSION_TAG_KEY] === session).map((s) => s.id).sort();
  } catch (err) {
    return err as Error;
  }
}

export async function leftoverSandboxesCheck(opts: { root: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Row> {
  const dir = sessionsDir(path.join(opts.root, CONSOLE_DIR_NAME));
  const sessions = await readSessions(dir, heartbeatTimingFromEnv(opts.env));
  const dead = sessions.filter((s) => !s.verdict.alive);
  const live = sessions.length - dead.length;
  const liveNote = live > 0 ? `; ${live} console session(s) running now` : '';
  if (dead.length === 0) return { status: 'ok', detail: `none left by consoles that are gone${liveNote}` };
  const canAsk = Boolean(setting(opts.env, 'E2B_API_KEY')?.trim());
  const parts: string[] = [];
  const sessionsLeft: SessionOnDisk[] = [];
  for (const s of dead) {
    const { record, verdict } = s;
    const listed = canAsk ? await listOnE2b(opts.env, record.session, Math.max(1000, opts.timeoutMs - 500)) : new Error('E2B_API_KEY is not set');
    const ids = Array.isArray(listed) ? listed : record.sandboxes;
    const asked = Array.isArray(listed) ? 'running on E2B' : `as recorded (E2B not asked: ${listed.message})`;
    const late = record.unanswered > 0 ? `, and ${record.unanswered} create(s) E2B never answered` : '';
    if (ids.length === 0 && !late && Array.isArray(listed)) continue;
    sessionsLeft.push(s);
    parts.push(`${describeSession(record)} is gone (${verdict.why}) and left ${ids.length} sandbox(es) ${asked}${ids.length ? `: ${ids.join(' ')}` : ''}${late}`);
  }
  if (parts.length === 0) return { status: 'ok', detail: `consoles that are gone left no sandbox running${liveNote}` };
  const kill = sessionsLeft.map((s) => `swegym-console sandboxes kill --session ${s.record.session} --yes`).join('; ');
  return {
    status: 'warn',
    detail: parts.join('; '),
    fix: `the next command that uses E2B in this workspace (templates smoke, validate harness, sandboxes list…) kills them; or now: ${kill}`,
  };
}
