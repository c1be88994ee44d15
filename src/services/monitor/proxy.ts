// Dressage proxy health (recipe reference §6.2): GET <DRESSAGE_PROXY_URL>/health →
// {status:"ok", active_sessions, store:{…}, rollout_pause:{paused, …}, config:{…}}. `active_sessions` is a cheap
// live gauge of agent sessions talking to the model.
import type { ProxyHealth } from '../../state/types/monitor.js';
export type { ProxyHealth } from '../../state/types/monitor.js';

export async function fetchProxyHealth(baseUrl: string, opts: { timeoutMs?: number; signal?: AbortSignal; fetchImpl?: typeof fetch; clock?: () => number } = {}): Promise<ProxyHealth> {
  const at = (opts.clock ?? Date.now)();
  const f = opts.fetchImpl ?? fetch;
  const url = `${baseUrl.replace(/\/+$/, '')}/health`;
  try {
    const signals = [AbortSignal.timeout(opts.timeoutMs ?? 3000), ...(opts.signal ? [opts.signal] : [])];
    const res = await f(url, { signal: AbortSignal.any(signals) });
    if (!res.ok) return { ok: false, at, error: `HTTP ${res.status}` };
    const j = (await res.json()) as any;
    return {
      ok: j?.status === 'ok' || j?.status === undefined,
      at,
      status: typeof j?.status === 'string' ? j.status : undefined,
      activeSessions: typeof j?.active_sessions === 'number' ? j.active_sessions : undefined,
      paused: typeof j?.rollout_pause?.paused === 'boolean' ? j.rollout_pause.paused : undefined,
      readyInstances: typeof j?.store?.ready_instances === 'number' ? j.store.ready_instances : undefined,
    };
  } catch (err) {
    const e = err as Error;
    return { ok: false, at, error: e.name === 'TimeoutError' ? 'no answer within 3 s' : e.message };
  }
}

/** The proxy URL of a run: registry config first, then the `effective_blackbox: … proxy=<url>` line. */
export function proxyUrlFrom(effective: Record<string, Record<string, string>>, registryUrl?: string): string | undefined {
  const u = registryUrl ?? effective['blackbox']?.['proxy'];
  return u && /^https?:\/\//.test(u) ? u : undefined;
}
