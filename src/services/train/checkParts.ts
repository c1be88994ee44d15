// What the static launch checks (checks.ts) and the probes (probes.ts) share: how a verdict is built, and the
// launcher's rules for the proxy and router URLs and their hosts.
import type { LaunchCheck } from '../../state/types/train.js';

export const ok = (id: string, title: string, detail: string): LaunchCheck => ({ id, title, status: 'ok', detail });
export const fail = (id: string, title: string, detail: string, fix?: string): LaunchCheck => ({ id, title, status: 'fail', detail, ...(fix ? { fix } : {}) });
export const warn = (id: string, title: string, detail: string, fix?: string): LaunchCheck => ({ id, title, status: 'warn', detail, ...(fix ? { fix } : {}) });
export const skip = (id: string, title: string, detail: string): LaunchCheck => ({ id, title, status: 'skip', detail });

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
