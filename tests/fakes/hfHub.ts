// A local stand-in for the Hugging Face hub and its CDN, on two origins (two ports), behaving as the real ones do:
// - hub: `/{datasets/}<repo>/resolve/<rev>/<path>`; LFS files answer 302 to a signed CDN URL with X-Linked-Size,
//   X-Linked-ETag ("<sha256>"), X-Repo-Commit; regular files answer 200 with an ETag; unknown or private repos answer
//   401 with X-Error-Code RepoNotFound, missing files 404 EntryNotFound, missing revisions 404 RevisionNotFound;
//   a renamed repo answers 307 with a relative Location (same origin).
// - CDN: presigned URLs (Expires + Signature query) for GET only; an Authorization header next to a presigned query
//   is rejected with 400 (as S3 does); HEAD is 403 (the signature covers GET); Range requests answer 206 with
//   Content-Range, an unsatisfiable range 416.
// Fault modes: drop the connection after N body bytes, fail the next requests with a status, expire signatures,
// ignore Range, corrupt a byte.
import http from 'node:http';
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface FakeHubFile {
  repo: string;
  path: string;
  content: Uint8Array;
  /** Stored with Git LFS (default true): served through the CDN redirect. */
  lfs?: boolean;
  repoType?: 'dataset' | 'model';
}

export interface RecordedRequest {
  server: 'hub' | 'cdn';
  method: string;
  path: string;
  authorization?: string;
  range?: string;
  status: number;
}

export interface FakeHubOptions {
  files: FakeHubFile[];
  /** Repos that need this bearer token (private/gated). */
  privateRepos?: Record<string, string>;
  /** Old name → new name: the hub answers 307 with a relative Location. */
  renamed?: Record<string, string>;
  commit?: string;
}

export interface FakeHubFaults {
  /** For the next N CDN GETs, close the socket after this many body bytes. */
  dropAfterBytes?: { bytes: number; times: number };
  /** The next CDN GETs answer these statuses (consumed one per request). */
  cdnStatuses?: number[];
  /** The next hub requests answer these statuses (consumed one per request). */
  hubStatuses?: number[];
  /** CDN ignores Range and answers 200 with the whole file. */
  ignoreRange?: boolean;
  /** CDN flips one byte of the content (a corrupting proxy/mirror). */
  corrupt?: boolean;
  /** Signed URLs expire after this many CDN uses (then 403 until the hub signs a new one). */
  signatureUses?: number;
  /** CDN sends bytes slowly: this many bytes per chunk, with a pause between chunks (for progress tests). */
  throttle?: { chunkBytes: number; pauseMs: number };
}

export interface FakeHub {
  /** Use as HF_ENDPOINT. */
  endpoint: string;
  cdnOrigin: string;
  requests: RecordedRequest[];
  faults: FakeHubFaults;
  sha256(content: Uint8Array): string;
  close(): Promise<void>;
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

function gitBlobSha1(b: Uint8Array): string {
  return createHash('sha1').update(`blob ${b.byteLength}\0`).update(b).digest('hex');
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startFakeHub(opts: FakeHubOptions): Promise<FakeHub> {
  const commit = opts.commit ?? randomBytes(20).toString('hex');
  const requests: RecordedRequest[] = [];
  const faults: FakeHubFaults = {};
  const byHash = new Map<string, Uint8Array>();
  const signatures = new Map<string, { uses: number }>();
  for (const f of opts.files) byHash.set(sha256(f.content), f.content);
  const sockets = new Set<net.Socket>();

  let cdnOrigin = '';
  const record = (server: 'hub' | 'cdn', req: http.IncomingMessage, status: number) => {
    requests.push({
      server,
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      range: req.headers.range,
      status,
    });
  };

  const hub = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    const send = (status: number, headers: Record<string, string | number> = {}, body = '') => {
      record('hub', req, status);
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const forced = faults.hubStatuses?.shift();
    if (forced) return send(forced, {}, 'fault');
    const m = /^\/(datasets\/)?(.+?)\/resolve\/([^/]+)\/(.+)$/.exec(decodeURIComponent(url.pathname));
    if (!m) return send(404, {}, 'Not Found');
    const repoType = m[1] ? 'dataset' : 'model';
    const repo = m[2] as string;
    const revision = m[3] as string;
    const filePath = m[4] as string;
    if (opts.renamed?.[repo]) {
      const target = `/${m[1] ?? ''}${opts.renamed[repo]}/resolve/${revision}/${filePath}`;
      return send(307, { location: target }, `Temporary Redirect. Redirecting to ${target}`);
    }
    const files = opts.files.filter((f) => f.repo === repo && (f.repoType ?? 'dataset') === repoType);
    const required = opts.privateRepos?.[repo];
    const auth = req.headers.authorization;
    if (files.length === 0 || (required && auth !== `Bearer ${required}`)) {
      return send(
        401,
        { 'x-error-code': 'RepoNotFound', 'x-error-message': 'Repository not found' },
        'Repository not found',
      );
    }
    if (revision !== 'main' && revision !== commit) {
      return send(404, { 'x-error-code': 'RevisionNotFound', 'x-error-message': `Invalid rev id: ${revision}` }, 'Revision not found');
    }
    const file = files.find((f) => f.path === filePath);
    if (!file) return send(404, { 'x-error-code': 'EntryNotFound', 'x-error-message': 'Entry not found' }, 'Entry not found');
    if (file.lfs === false) {
      record('hub', req, 200);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': file.content.byteLength,
        etag: `"${gitBlobSha1(file.content)}"`,
        'x-repo-commit': commit,
        'accept-ranges': 'bytes',
      });
      res.end(req.method === 'HEAD' ? undefined : Buffer.from(file.content));
      return;
    }
    const hash = sha256(file.content);
    const sig = randomBytes(8).toString('hex');
    signatures.set(sig, { uses: 0 });
    const location = `${cdnOrigin}/repos/${hash.slice(0, 2)}/${hash}?response-content-disposition=attachment&Expires=${Math.floor(Date.now() / 1000) + 3600}&Signature=${sig}&Key-Pair-Id=K3FAKE`;
    send(
      302,
      {
        location,
        'x-linked-size': file.content.byteLength,
        'x-linked-etag': `"${hash}"`,
        etag: `"${gitBlobSha1(new TextEncoder().encode(`version https://git-lfs.github.com/spec/v1\noid sha256:${hash}\nsize ${file.content.byteLength}\n`))}"`,
        'x-repo-commit': commit,
        vary: 'Origin, Accept',
      },
      `Found. Redirecting to ${location}`,
    );
  });

  const cdn = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://cdn');
    const fail = (status: number, code: string) => {
      record('cdn', req, status);
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(req.method === 'HEAD' ? undefined : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`);
    };
    const m = /^\/repos\/[0-9a-f]{2}\/([0-9a-f]{64})$/.exec(url.pathname);
    const content = m ? byHash.get(m[1] as string) : undefined;
    const sig = url.searchParams.get('Signature') ?? '';
    const signed = signatures.get(sig);
    if (!content || !url.searchParams.get('Expires') || !signed) return fail(403, 'AccessDenied');
    if (req.headers.authorization) return fail(400, 'InvalidArgument');
    if (req.method !== 'GET') return fail(403, 'SignatureDoesNotMatch');
    signed.uses++;
    if (faults.signatureUses !== undefined && signed.uses > faults.signatureUses) return fail(403, 'AccessDenied');
    const forced = faults.cdnStatuses?.shift();
    if (forced) return fail(forced, 'ServiceUnavailable');
    let body = Buffer.from(content);
    if (faults.corrupt) {
      body = Buffer.from(body);
      const i = Math.floor(body.length / 2);
      body[i] = (body[i] as number) ^ 0xff;
    }
    const total = body.length;
    const headers: Record<string, string | number> = {
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
      etag: `"${m?.[1]}"`,
      'x-cache': 'Miss from cloudfront',
    };
    let status = 200;
    let start = 0;
    let end = total - 1;
    const range = req.headers.range;
    if (range && !faults.ignoreRange) {
      const r = /^bytes=(\d*)-(\d*)$/.exec(range);
      if (!r) return fail(416, 'InvalidRange');
      if (r[1] === '') {
        start = Math.max(0, total - Number(r[2]));
      } else {
        start = Number(r[1]);
        if (r[2] !== '') end = Math.min(total - 1, Number(r[2]));
      }
      if (start >= total || start > end) {
        record('cdn', req, 416);
        res.writeHead(416, { 'content-range': `bytes */${total}` });
        res.end();
        return;
      }
      status = 206;
      headers['content-range'] = `bytes ${start}-${end}/${total}`;
    }
    const slice = body.subarray(start, end + 1);
    headers['content-length'] = slice.length;
    record('cdn', req, status);
    res.writeHead(status, headers);
    const drop = faults.dropAfterBytes && faults.dropAfterBytes.times > 0 ? faults.dropAfterBytes : undefined;
    if (drop) {
      drop.times--;
      const n = Math.min(drop.bytes, slice.length - 1);
      // Send the bytes in pieces (a client reads them as they come), then half-close: FIN, not RST, so what was
      // sent really arrives; the client then sees the body end early, i.e. a dropped connection.
      const piece = Math.max(1, Math.ceil(n / 8));
      for (let off = 0; off < n; off += piece) {
        if (res.destroyed) return;
        res.write(slice.subarray(off, Math.min(n, off + piece)));
        await new Promise((r) => setTimeout(r, 5));
      }
      res.socket?.end();
      return;
    }
    const throttle = faults.throttle;
    if (throttle) {
      for (let off = 0; off < slice.length; off += throttle.chunkBytes) {
        if (res.destroyed) return;
        res.write(slice.subarray(off, off + throttle.chunkBytes));
        await new Promise((r) => setTimeout(r, throttle.pauseMs));
      }
      res.end();
      return;
    }
    res.end(slice);
  });

  for (const s of [hub, cdn]) s.on('connection', (sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  const endpoint = await listen(hub);
  cdnOrigin = await listen(cdn);
  return {
    endpoint,
    cdnOrigin,
    requests,
    faults,
    sha256,
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise((r) => hub.close(r)), new Promise((r) => cdn.close(r))]);
    },
  };
}

/** A minimal forward proxy (CONNECT tunnels and absolute-form requests) that records where clients went. */
export async function startFakeProxy(): Promise<{ url: string; targets: string[]; close(): Promise<void> }> {
  const targets: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    // Absolute-form request (plain HTTP through a proxy).
    const target = new URL(req.url ?? '');
    targets.push(target.host);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: net.Socket, head) => {
    targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    sockets.add(client);
    sockets.add(upstream);
  });
  server.on('connection', (s) => sockets.add(s));
  const url = await listen(server);
  return {
    url,
    targets,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
