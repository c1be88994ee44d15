// A small Hugging Face hub download client on undici: the hub's resolve protocol (HEAD on the hub, X-Linked-Size /
// X-Linked-ETag on the redirect, GET from the CDN location), HF_ENDPOINT / HF_TOKEN / HTTP(S)_PROXY / NO_PROXY,
// resume from a `.part` file with Range, size and sha256 verification, atomic rename. The token is sent only to the
// hub's own origin, never to the CDN it redirects to, and never printed.
// Why not @huggingface/hub (2.17.5 on npm): it reads neither HF_ENDPOINT nor HF_TOKEN (both must be passed in),
// rejects tokens not starting with "hf_", has no resume-to-file, and downloads Xet-stored files through its own
// Xet protocol (wasm chunker) by default; the part we would use is one ranged GET, so this client speaks the plain
// resolve protocol (which the hub and its mirrors serve for LFS and Xet files alike) and adds resume/verify/proxies.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { ConsoleError, ExitCode } from '../errors.js';
import { createFileExclusive, isStorageError, notWritableError, writeJsonAtomic } from '../workspace/atomic.js';
import { sleep } from '../util/sleep.js';
import { HUB_DOWNLOAD_RETRY, backoffDelay, type RetryPolicy } from '../util/retry.js';
import type { DownloadProgress } from '../../state/types/dataset.js';
export type { DownloadProgress, DownloadPhase } from '../../state/types/dataset.js';

export const DEFAULT_HF_ENDPOINT = 'https://huggingface.co';

export interface HubConfig {
  endpoint: string;
  token?: string;
  /** Where the token came from (never the token itself). */
  tokenSource?: string;
  proxy: { http?: string; https?: string; noProxy?: string };
}

function firstSet(env: NodeJS.ProcessEnv, names: string[]): string | undefined {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v.trim() !== '') return v.trim();
  }
  return undefined;
}

/** `proxy:3128` → `http://proxy:3128` (curl and requests accept a proxy without a scheme). */
function withScheme(proxy: string | undefined): string | undefined {
  if (!proxy) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/** Endpoint, token and proxies from the environment, the way huggingface_hub reads them. */
export async function hubConfig(env: NodeJS.ProcessEnv = process.env): Promise<HubConfig> {
  const endpoint = (firstSet(env, ['HF_ENDPOINT']) ?? DEFAULT_HF_ENDPOINT).replace(/\/+$/, '');
  let token = firstSet(env, ['HF_TOKEN']);
  let tokenSource = token ? 'HF_TOKEN' : undefined;
  if (!token) {
    token = firstSet(env, ['HUGGING_FACE_HUB_TOKEN']);
    if (token) tokenSource = 'HUGGING_FACE_HUB_TOKEN';
  }
  if (!token && env.HF_HUB_DISABLE_IMPLICIT_TOKEN === undefined) {
    // `huggingface-cli login` stores the token here.
    const hfHome = firstSet(env, ['HF_HOME']) ?? path.join(firstSet(env, ['XDG_CACHE_HOME']) ?? path.join(env.HOME ?? homedir(), '.cache'), 'huggingface');
    const file = firstSet(env, ['HF_TOKEN_PATH']) ?? path.join(hfHome, 'token');
    try {
      const t = (await readFile(file, 'utf8')).trim();
      if (t) {
        token = t;
        tokenSource = file;
      }
    } catch {}
  }
  return {
    endpoint,
    token,
    tokenSource,
    proxy: {
      http: withScheme(firstSet(env, ['http_proxy', 'HTTP_PROXY'])),
      https: withScheme(firstSet(env, ['https_proxy', 'HTTPS_PROXY'])),
      noProxy: firstSet(env, ['no_proxy', 'NO_PROXY']),
    },
  };
}

/** `<endpoint>/datasets/<repo>/resolve/<revision>/<file>` */
export function resolveUrl(endpoint: string, repo: string, filename: string, revision = 'main', repoType: 'dataset' | 'model' = 'dataset'): string {
  const prefix = repoType === 'dataset' ? 'datasets/' : '';
  return `${endpoint.replace(/\/+$/, '')}/${prefix}${repo}/resolve/${encodeURIComponent(revision)}/${filename.split('/').map(encodeURIComponent).join('/')}`;
}

/** A proxy URL without credentials, for messages. */
function proxyHost(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url.includes('://') ? url : `http://${url}`);
    return u.host;
  } catch {
    return '(unparsable proxy URL)';
  }
}

export interface DownloadOptions {
  repo: string;
  filename: string;
  revision?: string;
  target: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
  /** Extra attempts after a dropped connection or a 5xx/429 (default 4). */
  retries?: number;
  /** First back-off delay; doubles per attempt (default 500 ms). */
  retryDelayMs?: number;
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** Progress callback interval (default 100 ms). */
  progressIntervalMs?: number;
}

export interface DownloadResult {
  file: string;
  bytes: number;
  sha256: string;
  /** True when the target was already present and identical; nothing was downloaded. */
  upToDate: boolean;
  resumedFrom: number;
  /** What was checked against the hub's metadata. */
  verified: { size: boolean; sha256: boolean };
  commit?: string;
  etag?: string;
  /** The resolve URL (no credentials in it). */
  url: string;
}

interface RemoteInfo {
  /** URL to GET the bytes from (CDN location or the hub URL itself). */
  downloadUrl: string;
  size?: number;
  /** sha256 of the content when the hub names it (LFS / xet files: X-Linked-ETag). */
  sha256?: string;
  etag?: string;
  commit?: string;
}

interface PartMeta {
  url: string;
  etag?: string;
  size?: number;
  sha256?: string;
}

type Undici = typeof import('undici');

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

function cleanEtag(v: string | null): string | undefined {
  if (!v) return undefined;
  return v.replace(/^W\//, '').replace(/^"|"$/g, '');
}

/** A failure worth another attempt: a dropped connection, a timeout, a 5xx/429, an expired CDN URL. */
class RetryableError extends Error {
  constructor(
    message: string,
    readonly opts: { host: string; url: string; inner?: unknown; status?: number; reprobe?: boolean },
  ) {
    super(message);
  }
}

/** The low-level network code of an undici/fetch error, e.g. ENOTFOUND, ECONNREFUSED, UND_ERR_SOCKET. */
export function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if ((e as Error).message === 'bad port') return 'BAD_PORT';
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const CODE_MEANING: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve (no DNS, or no network)',
  EAI_AGAIN: 'DNS lookup failed temporarily (no network?)',
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  UND_ERR_HEADERS_TIMEOUT: 'the server did not answer in time',
  UND_ERR_BODY_TIMEOUT: 'the transfer stalled',
  UND_ERR_SOCKET: 'the connection dropped',
  BAD_PORT: 'the port is one that fetch refuses to use (blocked by the Fetch standard); use another port for HF_ENDPOINT or the proxy',
  UND_ERR_CLOSED: 'the connection closed',
  CERT_HAS_EXPIRED: 'the TLS certificate has expired',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the TLS certificate cannot be verified (a TLS-intercepting proxy? set NODE_EXTRA_CA_CERTS)',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate is in the chain (a TLS-intercepting proxy? set NODE_EXTRA_CA_CERTS)',
};

const FATAL_CODES = new Set(['BAD_PORT', 'ENOTFOUND', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'CERT_HAS_EXPIRED', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT']);

function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return Boolean(signal?.aborted) || (err as Error)?.name === 'AbortError';
}

const activeTargets = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One download per target, across this process and others (a lock file holding the pid; stale locks are taken over). */
async function lockTarget(target: string): Promise<() => Promise<void>> {
  const file = `${target}.lock`;
  const busy = (who: string) =>
    new ConsoleError({
      what: `${path.basename(target)} is already being downloaded ${who}`,
      fix: 'Wait for that download to finish (or stop it); its partial file is resumed by the next run.',
      exitCode: ExitCode.precondition,
    });
  if (activeTargets.has(target)) throw busy('by this console');
  // Reserved before the first await, so that a second download in this process cannot slip in meanwhile.
  activeTargets.add(target);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await createFileExclusive(file, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }))) {
        return async () => {
          activeTargets.delete(target);
          await rm(file, { force: true });
        };
      }
      let pid = 0;
      try {
        pid = Number((JSON.parse(await readFile(file, 'utf8')) as { pid?: unknown }).pid);
      } catch {}
      if (pid && pid !== process.pid && pidAlive(pid)) throw busy(`by process ${pid}`);
      // Owner gone, or a damaged file (lock files are written whole): take it over.
      await rm(file, { force: true });
    }
    throw busy('(the lock file could not be taken)');
  } catch (err) {
    activeTargets.delete(target);
    throw err;
  }
}

/**
 * Downloads one file of a hub repo to `target`: resumable, verified, atomic. Progress is reported through
 * `onProgress` (throttled). Throws ConsoleError with the host it could not reach and how to work around it.
 */
/** What one download's steps share: the options, the hub settings, the HTTP client and the files it writes. */
interface DownloadSession {
  opts: DownloadOptions;
  cfg: HubConfig;
  undici: Undici;
  dispatcher: InstanceType<Undici['EnvHttpProxyAgent']>;
  /** The resolve URL (no credentials in it) and its origin, the only one the token is sent to. */
  url: string;
  hubOrigin: string;
  target: string;
  part: string;
  metaFile: string;
  progress: ReturnType<typeof createProgressReporter>;
  /** The host the last request went to, for messages. */
  currentHost: string;
}

export async function downloadHubFile(opts: DownloadOptions): Promise<DownloadResult> {
  const env = opts.env ?? process.env;
  const cfg = await hubConfig(env);
  refuseOffline(env, opts);
  checkEndpoint(cfg);
  const undici: Undici = await import('undici');
  const dispatcher = createDispatcher(undici, cfg, opts.timeouts ?? {});
  const url = resolveUrl(cfg.endpoint, opts.repo, opts.filename, opts.revision ?? 'main');
  const target = path.resolve(opts.target);
  const s: DownloadSession = {
    opts,
    cfg,
    undici,
    dispatcher,
    url,
    hubOrigin: new URL(url).origin,
    target,
    part: `${target}.part`,
    metaFile: `${target}.part.json`,
    progress: createProgressReporter(opts.onProgress, opts.progressIntervalMs ?? 100),
    currentHost: new URL(url).host,
  };
  let unlock: () => Promise<void>;
  try {
    unlock = await lockTarget(target);
  } catch (err) {
    await dispatcher.close().catch(() => {});
    throw err;
  }
  try {
    return await downloadWithRetries(s, opts.retries ?? HUB_DOWNLOAD_RETRY.attempts - 1, { ...HUB_DOWNLOAD_RETRY, baseMs: opts.retryDelayMs ?? HUB_DOWNLOAD_RETRY.baseMs });
  } catch (err) {
    if (isAbort(err, opts.signal)) {
      throw new ConsoleError({
        what: `download of ${opts.filename} interrupted`,
        cause: 'cancelled',
        fix: `Run it again to resume from ${path.basename(s.part)}.`,
        exitCode: ExitCode.failed,
      });
    }
    throw err;
  } finally {
    s.progress.stop();
    await dispatcher.close().catch(() => {});
    await unlock();
  }
}

function refuseOffline(env: NodeJS.ProcessEnv, opts: DownloadOptions): void {
  if (/^(1|true|yes|on)$/i.test(env.HF_HUB_OFFLINE ?? '')) {
    throw new ConsoleError({
      what: `not downloading ${opts.filename}: HF_HUB_OFFLINE is set`,
      cause: 'Hugging Face downloads are switched off in this environment',
      fix: `Unset HF_HUB_OFFLINE to download, or place ${opts.filename} at ${path.resolve(opts.target)} by hand.`,
      exitCode: ExitCode.precondition,
    });
  }
}

/** HF_ENDPOINT must be an http(s) URL without credentials (the token goes in HF_TOKEN). */
function checkEndpoint(cfg: HubConfig): void {
  let endpointUrl: URL;
  try {
    endpointUrl = new URL(cfg.endpoint);
  } catch {
    throw new ConsoleError({ what: `HF_ENDPOINT is not a URL`, fix: 'Set HF_ENDPOINT to the base URL of the hub or a mirror, e.g. https://huggingface.co.', exitCode: ExitCode.usage });
  }
  if (endpointUrl.username || endpointUrl.password) {
    throw new ConsoleError({
      what: 'HF_ENDPOINT contains credentials',
      fix: 'Remove user:password from HF_ENDPOINT and put the token in HF_TOKEN (it is sent as a bearer token to the hub only).',
      exitCode: ExitCode.usage,
    });
  }
  if (endpointUrl.protocol !== 'https:' && endpointUrl.protocol !== 'http:') {
    throw new ConsoleError({ what: `HF_ENDPOINT must be an http(s) URL, got ${endpointUrl.protocol}`, exitCode: ExitCode.usage });
  }
}

function createDispatcher(undici: Undici, cfg: HubConfig, t: NonNullable<DownloadOptions['timeouts']>): InstanceType<Undici['EnvHttpProxyAgent']> {
  try {
    return new undici.EnvHttpProxyAgent({
      httpProxy: cfg.proxy.http ?? '',
      httpsProxy: cfg.proxy.https ?? '',
      noProxy: cfg.proxy.noProxy ?? '',
      connect: { timeout: t.connectMs ?? 30_000 },
      headersTimeout: t.headersMs ?? 60_000,
      bodyTimeout: t.bodyMs ?? 60_000,
    });
  } catch (err) {
    throw new ConsoleError({
      what: 'the proxy settings are not usable',
      cause: `HTTP_PROXY/HTTPS_PROXY must be URLs like http://proxy.example:3128 (${(err as Error).message.replace(/\/\/[^@/]*@/g, '//')})`,
      fix: 'Fix or unset HTTP_PROXY / HTTPS_PROXY (and their lower-case forms).',
      exitCode: ExitCode.usage,
    });
  }
}

/** A request's headers: no compression (the bytes are hashed as sent), the token only for the hub's own origin. */
function headersFor(s: DownloadSession, u: string, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { 'user-agent': 'swegym-console (undici)', 'accept-encoding': 'identity', ...extra };
  if (s.cfg.token && new URL(u).origin === s.hubOrigin) h.authorization = `Bearer ${s.cfg.token}`;
  return h;
}

function proxyFor(s: DownloadSession, u: string): string | undefined {
  return proxyHost(new URL(u).protocol === 'https:' ? (s.cfg.proxy.https ?? s.cfg.proxy.http) : s.cfg.proxy.http);
}

/** The final error after the retries ran out: names the host and the ways around it. */
function networkFailure(s: DownloadSession, last: RetryableError, stage: string, attempts: number): ConsoleError {
  const { opts, part, target, url } = s;
  const { host, status, inner } = last.opts;
  const via = proxyFor(s, last.opts.url);
  const code = status ? `HTTP ${status}` : (networkCode(inner) ?? 'network error');
  const meaning = status ? `${host} kept failing (${last.message})` : (CODE_MEANING[code] ?? last.message);
  return new ConsoleError({
    what: `could not download ${opts.filename}: ${status ? `${host} answered ${code}` : `cannot reach ${host}`}${via ? ` (through proxy ${via})` : ''} while ${stage}${status ? '' : ` (${code})`}${attempts > 1 ? `, after ${attempts} attempts` : ''}`,
    cause: meaning,
    fix: [
      `Check the network${via ? ' and the proxy' : ' (behind a proxy, set HTTPS_PROXY)'}, then run the download again${existsSync(part) ? `; the partial file (${path.basename(part)}) is kept and resumed` : ''}.`,
      `Or point HF_ENDPOINT at a reachable mirror of the hub (now ${s.cfg.endpoint}).`,
      `Or fetch ${url} on another machine and place it at ${target} by hand.`,
      existsSync(target) ? `(The ${path.basename(target)} already there was left as it is.)` : '',
    ].filter(Boolean).join(' '),
    exitCode: ExitCode.failed,
    inner,
  });
}

/** A refusal the hub means (401/403/404, or another status that is not worth a retry), worded with its fix. */
async function httpFailure(s: DownloadSession, res: Response, stage: string): Promise<ConsoleError> {
  const { opts, cfg } = s;
  const code = res.headers.get('x-error-code') ?? '';
  const msg = res.headers.get('x-error-message') ?? '';
  try {
    await res.body?.cancel();
  } catch {}
  const detail = [code, msg].filter(Boolean).join(': ') || res.statusText || 'no details';
  const host = new URL(res.url || s.url).host;
  const manual = `or place ${opts.filename} at ${s.target} by hand.`;
  if (res.status === 401 || (res.status === 403 && code !== 'GatedRepo')) {
    return new ConsoleError({
      what: `${host} refused ${opts.filename} of ${opts.repo} (HTTP ${res.status} while ${stage})`,
      cause: `${detail}. ${cfg.token ? `A token is set (${cfg.tokenSource}); it may be invalid or lack access.` : 'No token is set (HF_TOKEN); the hub answers 401 for repositories it cannot find as well as for private ones.'}`,
      fix: `Check the repository name and HF_ENDPOINT (${cfg.endpoint}); set HF_TOKEN to a token with read access; ${manual}`,
      exitCode: ExitCode.precondition,
    });
  }
  if (res.status === 403) {
    return new ConsoleError({
      what: `${opts.repo} is gated (HTTP 403)`,
      cause: detail,
      fix: `Accept its conditions at ${cfg.endpoint}/datasets/${opts.repo} with your account and set HF_TOKEN; ${manual}`,
      exitCode: ExitCode.precondition,
    });
  }
  if (res.status === 404) {
    return new ConsoleError({
      what: `${host} has no ${opts.filename} in ${opts.repo}@${opts.revision ?? 'main'} (HTTP 404)`,
      cause: detail,
      fix: `Check --split and HF_ENDPOINT (${cfg.endpoint}; a mirror may not carry this dataset); ${manual}`,
      exitCode: ExitCode.failed,
    });
  }
  return new ConsoleError({
    what: `${host} answered HTTP ${res.status} for ${opts.filename} while ${stage}`,
    cause: detail,
    fix: `Try again later, or point HF_ENDPOINT at a mirror; ${manual}`,
    exitCode: ExitCode.failed,
  });
}

/** HEAD on the hub, following same-origin redirects; the first cross-origin Location is where the bytes are. */
async function probe(s: DownloadSession): Promise<RemoteInfo> {
  const { url, opts } = s;
  s.progress.set({ phase: 'probing', host: new URL(url).host }, true);
  let current = url;
  const info: Partial<RemoteInfo> = {};
  for (let hop = 0; hop < 10; hop++) {
    s.currentHost = new URL(current).host;
    let res: Response;
    try {
      res = (await s.undici.fetch(current, { method: 'HEAD', redirect: 'manual', headers: headersFor(s, current), dispatcher: s.dispatcher, signal: opts.signal })) as unknown as Response;
    } catch (err) {
      if (isAbort(err, opts.signal)) throw err;
      throw new RetryableError(`${s.currentHost}: ${networkCode(err) ?? (err as Error).message}`, { host: s.currentHost, url: current, inner: err });
    }
    noteLinkedHeaders(info, res);
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      if (!location) throw await httpFailure(s, res, 'resolving the file');
      const next = new URL(location, current).toString();
      if (new URL(next).origin !== s.hubOrigin) {
        info.downloadUrl = next;
        break;
      }
      current = next;
      continue;
    }
    if (RETRYABLE_STATUS.has(res.status)) {
      throw new RetryableError(`${s.currentHost} answered HTTP ${res.status}`, { host: s.currentHost, url: current, status: res.status });
    }
    if (!res.ok) throw await httpFailure(s, res, 'resolving the file');
    info.downloadUrl = current;
    if (info.size === undefined && res.headers.get('content-length')) info.size = Number(res.headers.get('content-length'));
    if (info.etag === undefined) info.etag = cleanEtag(res.headers.get('etag'));
    break;
  }
  if (!info.downloadUrl) throw new ConsoleError({ what: `too many redirects resolving ${url}`, fix: 'Check HF_ENDPOINT.' });
  if (info.size !== undefined && !Number.isFinite(info.size)) info.size = undefined;
  if (info.etag && /^[0-9a-f]{64}$/.test(info.etag)) info.sha256 = info.etag;
  return info as RemoteInfo;
}

/** The commit, size and etag the hub names on a hop (the first hop that names one wins). */
function noteLinkedHeaders(info: Partial<RemoteInfo>, res: Response): void {
  const linkedSize = res.headers.get('x-linked-size');
  const linkedEtag = cleanEtag(res.headers.get('x-linked-etag'));
  if (info.commit === undefined && res.headers.get('x-repo-commit')) info.commit = res.headers.get('x-repo-commit') ?? undefined;
  if (linkedSize && info.size === undefined) info.size = Number(linkedSize);
  if (linkedEtag && info.etag === undefined) info.etag = linkedEtag;
}

async function hashFile(file: string): Promise<{ sha: ReturnType<typeof createHash>; bytes: number }> {
  const sha = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    sha.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha, bytes };
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch {
    return undefined;
  }
}

async function discardPart(s: DownloadSession): Promise<void> {
  await rm(s.part, { force: true });
  await rm(s.metaFile, { force: true });
}

async function readMeta(s: DownloadSession): Promise<PartMeta | undefined> {
  try {
    return JSON.parse(await readFile(s.metaFile, 'utf8')) as PartMeta;
  } catch {
    return undefined;
  }
}

function retryable(s: DownloadSession, current: string, message: string, extra: { inner?: unknown; status?: number; reprobe?: boolean } = {}): RetryableError {
  return new RetryableError(message, { host: s.currentHost, url: current, ...extra });
}

/** One GET of the remaining bytes, appended to the `.part` file. Resolves with the part's size when the body ended. */
async function fetchInto(s: DownloadSession, info: RemoteInfo, have: number): Promise<number> {
  const { res, current } = await getFollowingRedirects(s, info.downloadUrl, have);
  const from = await checkGetResponse(s, res, current, have);
  return appendBody(s, res, current, from);
}

/** GET from the CDN (or the hub), following its redirects, asking for the bytes from `have` on. */
async function getFollowingRedirects(s: DownloadSession, start: string, have: number): Promise<{ res: Response; current: string }> {
  let current = start;
  let res: Response | undefined;
  for (let hop = 0; hop < 10; hop++) {
    s.currentHost = new URL(current).host;
    const extra: Record<string, string> = have > 0 ? { range: `bytes=${have}-` } : {};
    try {
      res = (await s.undici.fetch(current, { method: 'GET', redirect: 'manual', headers: headersFor(s, current, extra), dispatcher: s.dispatcher, signal: s.opts.signal })) as unknown as Response;
    } catch (err) {
      if (isAbort(err, s.opts.signal)) throw err;
      throw retryable(s, current, `${s.currentHost}: ${networkCode(err) ?? (err as Error).message}`, { inner: err });
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      current = new URL(location, current).toString();
      await res.body?.cancel().catch(() => {});
      continue;
    }
    break;
  }
  if (!res) throw new ConsoleError({ what: `too many redirects downloading ${s.url}`, fix: 'Check HF_ENDPOINT.' });
  s.progress.set({ host: s.currentHost });
  return { res, current };
}

/** What the GET's status means for the part: retry, start over, or the byte the body starts at (0: the whole file). */
async function checkGetResponse(s: DownloadSession, res: Response, current: string, have: number): Promise<number> {
  if (res.status === 403 && new URL(current).origin !== s.hubOrigin) {
    // A signed CDN URL that expired between attempts: resolve again.
    await res.body?.cancel().catch(() => {});
    throw retryable(s, current, `${s.currentHost} answered HTTP 403 (signed URL expired?)`, { status: 403, reprobe: true });
  }
  if (res.status === 416) {
    await res.body?.cancel().catch(() => {});
    await discardPart(s);
    throw retryable(s, current, 'the server refused the resume range; starting over', { status: 416, reprobe: true });
  }
  if (RETRYABLE_STATUS.has(res.status)) {
    await res.body?.cancel().catch(() => {});
    throw retryable(s, current, `${s.currentHost} answered HTTP ${res.status}`, { status: res.status });
  }
  if (!res.ok) throw await httpFailure(s, res, 'downloading');
  if (res.status !== 206) return 0; // 200: the server ignored Range (or there was nothing to resume): the body is the whole file.
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
  const start = m ? Number(m[1]) : -1;
  if (start !== have) {
    await res.body?.cancel().catch(() => {});
    await discardPart(s);
    throw retryable(s, current, `the server resumed at byte ${start} instead of ${have}; starting over`);
  }
  return have;
}

/** Writes the body to the part (appending from `have`, or anew from 0); a full disk is not a network error. */
async function appendBody(s: DownloadSession, res: Response, current: string, have: number): Promise<number> {
  const { part } = s;
  const handle = await open(part, have > 0 ? 'a' : 'w').catch((err: unknown) => {
    throw notWritableError(part, err);
  });
  let received = have;
  try {
    if (!res.body) throw retryable(s, current, 'empty response body');
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      await handle.write(chunk);
      received += chunk.byteLength;
      s.progress.bytes(received);
    }
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => {});
    if (isAbort(err, s.opts.signal)) throw err;
    if (err instanceof RetryableError || err instanceof ConsoleError) throw err;
    // A full disk is not the network: no retry, and the message says which file, how much room, what to do.
    if (isStorageError(err)) throw notWritableError(part, err);
    throw retryable(s, current, `${s.currentHost}: ${networkCode(err) ?? (err as Error).message} after ${received} bytes`, { inner: err });
  }
  // NFS reports a full disk or a quota at close.
  await handle.close().catch((err: unknown) => {
    throw isStorageError(err) ? notWritableError(part, err) : err;
  });
  return received;
}

/** The attempts: each resolves (again, when told to), resumes the part and verifies it; a retryable error waits and tries again. */
async function downloadWithRetries(s: DownloadSession, retries: number, policy: RetryPolicy): Promise<DownloadResult> {
  const run: AttemptState = { info: undefined, resumedFrom: 0, firstAttempt: true };
  let lastError: RetryableError | undefined;
  let attempts = 0;
  for (let attempt = 0; attempt <= retries; attempt++) {
    attempts = attempt + 1;
    if (attempt > 0) {
      s.progress.set({ phase: 'retrying', attempt, note: lastError?.message }, true);
      await sleep(backoffDelay(policy, attempt), s.opts.signal);
    }
    try {
      return await attemptDownload(s, run, attempt);
    } catch (err) {
      if (err instanceof RetryableError) {
        lastError = err;
        // No point retrying a name that does not resolve, a refused connection or a bad certificate.
        if (FATAL_CODES.has(networkCode(err.opts.inner) ?? '')) break;
        if (err.opts.reprobe) run.info = undefined;
        continue;
      }
      throw err;
    }
  }
  throw networkFailure(s, lastError ?? new RetryableError('network error', { host: s.currentHost, url: s.url }), run.info ? 'downloading' : 'resolving the file', attempts);
}

interface AttemptState {
  /** What the hub said, until a retry needs it asked again. */
  info: RemoteInfo | undefined;
  resumedFrom: number;
  firstAttempt: boolean;
}

/** One attempt: resolve if needed (an identical target ends it), fetch the rest of the part, verify, rename. */
async function attemptDownload(s: DownloadSession, run: AttemptState, attempt: number): Promise<DownloadResult> {
  if (!run.info) {
    const info = await probe(s);
    run.info = info;
    s.progress.set({ total: info.size });
    const same = await upToDateResult(s, info);
    if (same) return same;
    await preparePart(s, info);
  }
  const info = run.info;
  const have = (await sizeOf(s.part)) ?? 0;
  if (run.firstAttempt) {
    run.resumedFrom = have;
    run.firstAttempt = false;
  }
  s.progress.set({ phase: 'downloading', attempt, resumedFrom: run.resumedFrom, received: have, note: undefined }, true);
  s.progress.startRate(have);
  if (info.size === undefined || have < info.size) await fetchInto(s, info, have);
  const finalSize = (await sizeOf(s.part)) ?? 0;
  if (info.size !== undefined && finalSize < info.size) {
    throw new RetryableError(`the connection ended after ${finalSize} of ${info.size} bytes`, { host: s.currentHost, url: info.downloadUrl });
  }
  const digest = await verifyPart(s, info, finalSize);
  await rename(s.part, s.target);
  await rm(s.metaFile, { force: true });
  s.progress.set({ phase: 'done', received: finalSize }, true);
  return {
    file: s.target,
    bytes: finalSize,
    sha256: digest,
    upToDate: false,
    resumedFrom: run.resumedFrom,
    verified: { size: info.size !== undefined, sha256: Boolean(info.sha256) },
    commit: info.commit,
    etag: info.etag,
    url: s.url,
  };
}

/** Already there and identical (size and the hub's sha256): nothing to do. */
async function upToDateResult(s: DownloadSession, info: RemoteInfo): Promise<DownloadResult | undefined> {
  const existing = await sizeOf(s.target);
  if (existing === undefined || info.size !== existing || !info.sha256) return undefined;
  s.progress.set({ phase: 'verifying', received: existing }, true);
  const { sha } = await hashFile(s.target);
  const digest = sha.digest('hex');
  if (digest !== info.sha256) return undefined;
  await discardPart(s);
  s.progress.set({ phase: 'done', received: existing }, true);
  return { file: s.target, bytes: existing, sha256: digest, upToDate: true, resumedFrom: 0, verified: { size: true, sha256: true }, commit: info.commit, etag: info.etag, url: s.url };
}

/** A part from another version of the file is useless; the part's metadata names the version it holds. */
async function preparePart(s: DownloadSession, info: RemoteInfo): Promise<void> {
  const meta = await readMeta(s);
  const partSize = await sizeOf(s.part);
  if (partSize !== undefined && (!meta || meta.url !== s.url || meta.etag !== info.etag || meta.size !== info.size || (info.size !== undefined && partSize > info.size))) {
    await discardPart(s);
  }
  await mkdir(path.dirname(s.target), { recursive: true });
  await writeJsonAtomic(s.metaFile, { url: s.url, etag: info.etag, size: info.size, sha256: info.sha256 } satisfies PartMeta);
}

/** The part's size and sha256 against the hub's; a mismatch removes the part. Returns the digest. */
async function verifyPart(s: DownloadSession, info: RemoteInfo, finalSize: number): Promise<string> {
  const { opts } = s;
  s.progress.set({ phase: 'verifying', received: finalSize }, true);
  const digest = (await hashFile(s.part)).sha.digest('hex');
  if (info.size !== undefined && finalSize !== info.size) {
    await discardPart(s);
    throw new ConsoleError({
      what: `${opts.filename} has ${finalSize} bytes, the hub says ${info.size}`,
      cause: 'the server sent more data than announced, or the file changed on the hub during the download',
      fix: 'Run the download again; if it repeats, check HF_ENDPOINT (a mirror may serve a different file).',
    });
  }
  if (info.sha256 && digest !== info.sha256) {
    await discardPart(s);
    throw new ConsoleError({
      what: `${opts.filename} failed its checksum: sha256 ${digest.slice(0, 12)}…, the hub says ${info.sha256.slice(0, 12)}…`,
      cause: 'the bytes were corrupted in transit or by a proxy/mirror, or a stale partial download was resumed',
      fix: 'The partial file was removed; run the download again. If it repeats, check the proxy or HF_ENDPOINT mirror.',
    });
  }
  return digest;
}

/** Throttles progress callbacks and computes a smoothed rate and ETA. */
function createProgressReporter(cb: ((p: DownloadProgress) => void) | undefined, intervalMs: number) {
  const state: DownloadProgress = { phase: 'probing', received: 0, resumedFrom: 0, bytesPerSecond: 0, attempt: 0 };
  let last = 0;
  let rateBase = { at: Date.now(), bytes: 0 };
  let sample = { at: Date.now(), bytes: 0 };
  const emit = (force: boolean) => {
    if (!cb) return;
    const now = Date.now();
    if (!force && now - last < intervalMs) return;
    last = now;
    cb({ ...state });
  };
  return {
    set(partial: Partial<DownloadProgress>, force = false) {
      Object.assign(state, partial);
      emit(force);
    },
    startRate(bytes: number) {
      rateBase = { at: Date.now(), bytes };
      sample = { ...rateBase };
    },
    bytes(received: number) {
      state.received = received;
      const now = Date.now();
      if (now - sample.at >= 250) {
        const inst = ((received - sample.bytes) * 1000) / (now - sample.at);
        state.bytesPerSecond = state.bytesPerSecond ? state.bytesPerSecond * 0.7 + inst * 0.3 : ((received - rateBase.bytes) * 1000) / Math.max(1, now - rateBase.at);
        sample = { at: now, bytes: received };
        state.etaSeconds = state.total !== undefined && state.bytesPerSecond > 0 ? Math.max(0, (state.total - received) / state.bytesPerSecond) : undefined;
      }
      emit(false);
    },
    stop() {
      last = 0;
    },
  };
}
