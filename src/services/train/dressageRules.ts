// What Dressage's Python code does at the first rollout with the values the launcher forwards (its runtime env), as
// pure functions: the same parse (Python's int(), str.strip(), urllib.parse.urlsplit's hostname) and the same words.
// The launcher's shell checks run first and are in checks.ts/checkParts.ts; these are the refusals that come after
// Ray, Megatron and SGLang are up. Each function names the upstream file it follows; tests/train/firstRollout.upstream.test.ts
// holds them against that code, run by python3, on generated values.
import { isIPv4, isIPv6 } from 'node:net';

/** The characters Python's str.strip() and int() treat as whitespace (str.isspace). */
const PY_SPACE = '\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
const PY_SPACE_SET = new Set(PY_SPACE);
/** int() strips the same characters except the four ASCII separators \x1c-\x1f. */
const INT_SPACE_SET = new Set([...PY_SPACE].filter((c) => c < '\x1c' || c > '\x1f'));

export function pyStrip(s: string, spaces: ReadonlySet<string> = PY_SPACE_SET): string {
  let a = 0;
  let b = s.length;
  while (a < b && spaces.has(s[a] as string)) a++;
  while (b > a && spaces.has(s[b - 1] as string)) b--;
  return s.slice(a, b);
}

/** The value of one Unicode decimal digit (category Nd comes in runs of ten, 0 to 9). */
function digitValue(ch: string): number {
  if (ch >= '0' && ch <= '9') return ch.charCodeAt(0) - 48;
  const cp = ch.codePointAt(0) as number;
  let start = cp;
  while (start > 0 && /\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/**
 * Python's int(text) for a str, base 10: surrounding whitespace, one sign, digits (any Unicode decimal digit) with
 * single underscores between them. Undefined where int() raises ValueError.
 */
export function pyInt(text: string): number | undefined {
  const s = pyStrip(text, INT_SPACE_SET);
  const m = /^([+-]?)(\p{Nd}(?:_?\p{Nd})*)$/u.exec(s);
  if (!m) return undefined;
  let n = 0;
  for (const ch of (m[2] as string).replace(/_/g, '')) n = n * 10 + digitValue(ch);
  return m[1] === '-' && n !== 0 ? -n : n;
}

/**
 * Python's repr() of a str (the `{value!r}` in Dressage's messages). What counts as printable follows this Node's
 * Unicode tables; a Python with older ones (3.11 has Unicode 14) escapes characters assigned since.
 */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch)) {
      const cp = ch.codePointAt(0) as number;
      out += cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : cp < 0x10000 ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

const SCHEME_CHARS = /^[A-Za-z0-9+\-.]*$/;

/**
 * urllib.parse.urlsplit(url) as Python 3.11 reads it, as far as Dressage uses it: the scheme (lower-cased) and
 * `.hostname` (lower-cased, without userinfo, port and brackets), or the ValueError urlsplit raises.
 */
export function pyUrlSplit(raw: string): { scheme: string; hostname: string | undefined } | { error: string } {
  // urlsplit strips leading C0 controls and spaces and removes tabs and newlines anywhere.
  let url = raw.replace(/^[\x00-\x20]+/, '').replace(/[\t\r\n]/g, '');
  let scheme = '';
  const i = url.indexOf(':');
  if (i > 0 && /^[A-Za-z]/.test(url) && SCHEME_CHARS.test(url.slice(0, i))) {
    scheme = url.slice(0, i).toLowerCase();
    url = url.slice(i + 1);
  }
  let netloc = '';
  if (url.startsWith('//')) {
    const rest = url.slice(2);
    const end = rest.search(/[/?#]/);
    netloc = end < 0 ? rest : rest.slice(0, end);
    const open = netloc.includes('[');
    const close = netloc.includes(']');
    if (open !== close) return { error: 'Invalid IPv6 URL' };
    if (open && close) {
      const bracketed = netloc.split('[')[1]?.split(']')[0] ?? '';
      if (bracketed.startsWith('v')) {
        if (!/^v[a-fA-F0-9]+\..+$/s.test(bracketed)) return { error: 'IPvFuture address is invalid' };
      } else if (isIPv4(bracketed)) return { error: 'An IPv4 address cannot be in brackets' };
      else if (!isIPv6(bracketed)) return { error: `${pyRepr(bracketed)} does not appear to be an IPv4 or IPv6 address` };
    }
  }
  const hostinfo = netloc.slice(netloc.lastIndexOf('@') + 1);
  let hostname: string;
  if (hostinfo.includes('[')) hostname = hostinfo.split('[')[1]?.split(']')[0] ?? '';
  else hostname = hostinfo.split(':')[0] ?? '';
  return { scheme, hostname: hostname === '' ? undefined : hostname.toLowerCase() };
}

/** Where each rollout-time rule lives upstream (in messages, so an operator can look it up). */
export const DRESSAGE_SOURCES = {
  paddock: 'dressage/paddock/blackbox/common/utils.py',
  defaults: 'dressage/paddock/blackbox/common/defaults.py',
  runtime: 'dressage/rollout/generate/runtime.py',
  factory: 'dressage/paddock/factory.py',
  sandboxFactory: 'dressage/sandbox/factory.py',
  paddockInit: 'dressage/paddock/blackbox/paddock.py',
  e2b: 'dressage/sandbox/remote/e2b/provider.py',
} as const;

const LOCAL_PROXY_HOSTS = new Set(['localhost', '127.0.0.1', '0.0.0.0', '::1']);

/** BlackboxAgentPaddock.__init__'s proxy check (_validate_public_proxy_url): its ValueError text, or undefined. */
export function proxyUrlRefusal(value: string): string | undefined {
  if (value === '') return 'DRESSAGE_PROXY_URL must be set to a sandbox-reachable proxy URL';
  const url = value.replace(/\/+$/, '');
  const parts = pyUrlSplit(url);
  if ('error' in parts) return parts.error;
  if ((parts.scheme !== 'http' && parts.scheme !== 'https') || !parts.hostname) return `DRESSAGE_PROXY_URL must be an http(s) URL with a host, got: ${pyRepr(value)}`;
  const host = parts.hostname;
  if (LOCAL_PROXY_HOSTS.has(host) || host.startsWith('127.')) return `DRESSAGE_PROXY_URL must be reachable from the sandbox and cannot use a local-only host: ${pyRepr(value)}`;
  return undefined;
}

/** defaults.py's DRESSAGE_BLACKBOX_MAX_STEPS (_environment_backend_defaults): the limit it uses, or its ValueError. */
export function maxStepsVerdict(raw: string): { steps: number | null | undefined } | { error: string } {
  if (pyStrip(raw) === '') return { steps: undefined };
  const normalized = pyStrip(raw).toLowerCase();
  if (normalized === '0') return { steps: null };
  const n = pyInt(normalized);
  if (n === undefined || n <= 0) return { error: `DRESSAGE_BLACKBOX_MAX_STEPS must be a positive integer or 0 to disable the limit, got ${pyRepr(raw)}` };
  return { steps: n };
}

/**
 * defaults.py's _compact_threshold for claude_code: the threshold (undefined when unset or blank), or its ValueError.
 * `context` is MAX_TOKENS_PER_GPU × CP_SIZE, as Dressage computes it.
 */
export function compactThresholdVerdict(raw: string, context: number): { threshold: number | undefined } | { error: string } {
  if (pyStrip(raw) === '') return { threshold: undefined };
  const n = pyInt(raw);
  if (n === undefined) return { error: `DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be a positive integer no greater than the context window, got ${pyRepr(raw)}` };
  if (n <= 0 || n > context) return { error: `DRESSAGE_BLACKBOX_COMPACT_THRESHOLD must be a positive integer no greater than the context window (${context}), got ${pyRepr(raw)}` };
  return { threshold: n };
}

/**
 * The paddock Dressage builds for the SWE-Gym rollout hook (runtime.get_paddock_from_env with
 * allow_whitebox_mode=False, then factory.create_paddock_from_env): the mode, or the ValueError and where it is raised.
 */
export function paddockModeVerdict(mode: string, paddockClass: string): { mode: string } | { error: string; where: string } {
  if (paddockClass) return { mode: 'class' };
  const selected = pyStrip(mode === '' ? 'blackbox' : mode).toLowerCase();
  if (selected === 'whitebox') {
    return {
      where: DRESSAGE_SOURCES.runtime,
      error: 'blackbox_dispatch does not support whitebox mode; set DRESSAGE_PADDOCK_MODE=blackbox for this rollout hook, or use the Paddock API for whitebox tool execution',
    };
  }
  if (selected !== 'blackbox') return { where: DRESSAGE_SOURCES.factory, error: `unsupported DRESSAGE_PADDOCK_MODE=${pyRepr(selected)}; expected blackbox|whitebox` };
  return { mode: selected };
}

/** The sandbox provider name as Dressage's sandbox factory reads it (stripped, lower-cased). */
export function providerName(raw: string): string {
  return pyStrip(raw === '' ? 'local_bwrap' : raw).toLowerCase();
}

/** sandbox/factory.py's refusal of an unknown provider name, or undefined. */
export function providerRefusal(raw: string): string | undefined {
  const name = providerName(raw);
  return name === 'e2b' || name === 'local_bwrap' ? undefined : `unsupported DRESSAGE_SANDBOX_PROVIDER=${pyRepr(name)}; expected one of e2b|local_bwrap`;
}

/**
 * The Blackbox Server port of an E2B sandbox, in the order Dressage meets it: E2BSandboxProvider.__init__ reads
 * DRESSAGE_E2B_BLACKBOX_PORT with its _env_int (int(), or a ValueError), BlackboxAgentPaddock.__init__ takes int() of
 * DRESSAGE_BLACKBOX_PORT or that port, and E2BSandboxProvider.create refuses anything but the templates' fixed port.
 */
export function e2bPortRefusal(e2bPort: string, blackboxPort: string, fixedPort: number): { where: string; error: string } | undefined {
  const providerValue = e2bPort === '' ? fixedPort : pyInt(e2bPort);
  if (providerValue === undefined) return { where: DRESSAGE_SOURCES.e2b, error: `DRESSAGE_E2B_BLACKBOX_PORT must be an integer, got ${pyRepr(e2bPort)}` };
  const paddockValue = blackboxPort || e2bPort || String(fixedPort);
  if (pyInt(paddockValue) === undefined) return { where: DRESSAGE_SOURCES.paddockInit, error: `invalid literal for int() with base 10: ${pyRepr(paddockValue)}` };
  if (providerValue !== fixedPort) {
    return { where: DRESSAGE_SOURCES.e2b, error: `E2BSandboxProvider blackbox templates use the fixed internal-compatible port ${fixedPort}; unset DRESSAGE_E2B_BLACKBOX_PORT or set it to ${fixedPort}` };
  }
  return undefined;
}
