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

/**
 * What bash's `[[ "$X" -le 0 ]]` (the launcher's compaction check, under `set -euo pipefail`) makes of a value: a
 * number, `error` (bash prints an arithmetic error and the test is false: the launcher carries on), or `unknown`
 * (a name: bash reads it as a variable, and an unset one ends the launcher under `set -u`). Integer literals (decimal,
 * 0x hex, leading-0 octal, base#digits), + - * / % **, unary signs and parentheses; anything else is an error.
 */
export function bashArithmetic(text: string): { value: bigint } | 'error' | 'unknown' {
  const src = text;
  let i = 0;
  const MASK = (1n << 64n) - 1n;
  const wrap = (v: bigint): bigint => {
    const u = v & MASK;
    return u >= 1n << 63n ? u - (1n << 64n) : u;
  };
  class Stop extends Error {
    constructor(readonly kind: 'error' | 'unknown') {
      super(kind);
    }
  }
  const ws = () => {
    while (i < src.length && ' \t\n'.includes(src[i] as string)) i++;
  };
  const literal = (): bigint => {
    const m = /^(?:0[xX][0-9A-Za-z_@]*|[0-9][0-9A-Za-z_@#]*)/.exec(src.slice(i));
    if (!m) throw new Stop('error');
    i += m[0].length;
    const t = m[0];
    let base = 10;
    let digits = t;
    if (/^0[xX]/.test(t)) [base, digits] = [16, t.slice(2)];
    else if (t.includes('#')) {
      const [b, d] = t.split('#', 2) as [string, string];
      base = Number(b);
      digits = d;
      if (!(base >= 2 && base <= 64) || d === '' || d.includes('#')) throw new Stop('error');
    } else if (t.length > 1 && t.startsWith('0')) [base, digits] = [8, t.slice(1)];
    if (digits === '') throw new Stop('error');
    let v = 0n;
    for (const ch of digits) {
      let d: number;
      if (ch >= '0' && ch <= '9') d = ch.charCodeAt(0) - 48;
      else if (ch >= 'a' && ch <= 'z') d = ch.charCodeAt(0) - 87;
      else if (ch >= 'A' && ch <= 'Z') d = base <= 36 ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 29;
      else if (ch === '@') d = 62;
      else if (ch === '_') d = 63;
      else throw new Stop('error');
      if (d >= base) throw new Stop('error');
      v = wrap(v * BigInt(base) + BigInt(d));
    }
    return v;
  };
  const primary = (): bigint => {
    ws();
    const c = src[i];
    if (c === '(') {
      i++;
      const v = sum();
      ws();
      if (src[i] !== ')') throw new Stop('error');
      i++;
      return v;
    }
    if (c === '+' || c === '-') {
      i++;
      const v = primary();
      return c === '-' ? wrap(-v) : v;
    }
    if (c !== undefined && /[A-Za-z_]/.test(c)) throw new Stop('unknown');
    return literal();
  };
  const power = (): bigint => {
    const b = primary();
    ws();
    if (src.startsWith('**', i)) {
      i += 2;
      const e = power();
      if (e < 0n) throw new Stop('error');
      let r = 1n;
      for (let k = 0n; k < e && k < 256n; k++) r = wrap(r * b);
      return r;
    }
    return b;
  };
  const product = (): bigint => {
    let v = power();
    for (;;) {
      ws();
      const c = src[i];
      if ((c === '*' && src[i + 1] !== '*') || c === '/' || c === '%') {
        i++;
        const r = power();
        if (c === '*') v = wrap(v * r);
        else if (r === 0n) throw new Stop('error');
        else v = c === '/' ? wrap(v / r) : v % r;
      } else return v;
    }
  };
  const sum = (): bigint => {
    let v = product();
    for (;;) {
      ws();
      const c = src[i];
      if (c === '+' || c === '-') {
        i++;
        const r = product();
        v = wrap(c === '+' ? v + r : v - r);
      } else return v;
    }
  };
  try {
    ws();
    if (i >= src.length) return { value: 0n };
    const v = sum();
    ws();
    if (i < src.length) return /^[A-Za-z_]/.test(src.slice(i)) ? 'unknown' : 'error';
    return { value: v };
  } catch (err) {
    if (err instanceof Stop) return err.kind;
    throw err;
  }
}
