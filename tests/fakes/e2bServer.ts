// A local fake E2B service on 127.0.0.1 that the REAL `e2b` SDK (2.51.0) talks to. Behaviour follows
// ../shared/reference/e2b-sdk.md (§3 API, §4 wire protocol, §5 errors, §6 what a fake needs), not the adapter.
//
// Usage:
//   const fake = await startFakeE2b({ templates: ['tpl'] });
//   const provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url });
//   ...
//   await fake.close();
//
// One HTTP/1.1 server plays both roles:
// - control plane (what `apiUrl` points at), authenticated by `X-API-KEY` (401 otherwise):
//   POST /v2/sandboxes, GET /v2/sandboxes (metadata filter decoded repeatedly, state filter, limit +
//   x-next-token pagination), GET/DELETE /sandboxes/{id}, POST /sandboxes/{id}/timeout,
//   POST /v2/sandboxes/{id}/connect, GET /sandboxes/{id}/metrics?start&end (SandboxMetric[]: cpuCount, cpuUsedPct,
//   memUsed, memTotal, memCache, diskUsed, diskTotal in bytes, timestamp + timestampUnix; `sandbox.metrics` scripts
//   them, else one modest sample now), POST /v3/templates, GET /templates/{tid}/files/{hash} (+ PUT sink),
//   POST /v2/templates/{tid}/builds/{bid}, GET /templates/{tid}/builds/{bid}/status?logsOffset=N (≤100 entries
//   per call), GET /templates/aliases/{name} (200 / 403 for `foreignTemplates` / 404).
// - envd (what `sandboxUrl` points at), recognised by the `E2b-Sandbox-Id` header and authenticated by
//   `X-Access-Token` (the envdAccessToken issued at create): GET /health (204), GET/POST /files (multipart or
//   octet-stream), Connect JSON `POST /process.Process/Start` (server streaming: enveloped start/data/end/keepalive
//   events, `connect-timeout-ms` deadline → `deadline_exceeded` end-stream error and the process is killed) and
//   unary `POST /process.Process/SendSignal`. Requests for a sandbox that is gone get the proxy's 502
//   `{"sandboxId","message":"The sandbox was not found","code":502}`.
//
// What runs a command: `exec(req)` may return a scripted plan (chunks with delays, exit code, hang); when it
// returns undefined (or no `exec` is given) the command really runs as `/bin/bash -c <cmd>` on this host, in its own
// process group, in a per-sandbox scratch directory (`HOME`), with the sandbox's and the command's envs. `cwd` is
// honoured when it exists on the host, else the scratch dir is used. Inside such a command, `curl` to
// http://127.0.0.1:<port>/... (or localhost) reaches `services[port]` of the sandbox's template (a PATH shim
// rewrites the URL to this server), which models "the template's start command serves that port".
// Files written with /files live in memory per sandbox and are NOT visible to executed commands.
//
// Faults and delays: `faults` (and `fake.addFault(...)` at run time) match requests by role/method/path and answer
// with a status (401, 404, 429 + Retry-After, 503, 500, …) `times` times, optionally after `delayMs`; `delayMs`
// alone (no status) only slows the request; `drop: true` does the work but loses the answer (connection reset). Builds are scripted per template name through `builds`.
// Inspect state through `fake.sandboxes`, `fake.builds`, `fake.requests`, `fake.processes`.
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type FakeRole = 'control' | 'envd';

export interface FakeFault {
  role?: FakeRole;
  method?: string;
  /** Matches the URL path (string: exact or prefix ending in '*'; RegExp: test). */
  path?: string | RegExp;
  /** HTTP status to answer with; omit for a pure delay. */
  status?: number;
  /** Seconds for the Retry-After header (sent as an integer; pass a string for odd values). */
  retryAfter?: number | string;
  message?: string;
  delayMs?: number;
  /** How many matching requests this fault applies to (default 1; Infinity for all). */
  times?: number;
  /** Handle the request normally but drop the connection instead of answering (a lost response). */
  drop?: boolean;
}

export interface FakeExecRequest {
  sandboxId: string;
  cmd: string;
  args: string[];
  /** The user command (the `-c` argument of `/bin/bash -l -c`). */
  command: string;
  envs: Record<string, string>;
  cwd?: string;
  user?: string;
  timeoutMs?: number;
}

export interface FakeChunk {
  stream: 'stdout' | 'stderr';
  data: string;
  delayMs?: number;
}

export interface FakeExecPlan {
  chunks?: FakeChunk[];
  exitCode?: number;
  /** Wait this long after the chunks before the end event. */
  durationMs?: number;
  /** Never ends by itself (only a deadline or SendSignal ends it). */
  hang?: boolean;
}

export interface FakeBuildScript {
  /** Server log lines, emitted over the polls. */
  logs?: string[];
  /** Polls answered with status 'building' before the final status (default 2). */
  pollsBeforeDone?: number;
  /** Fail the build with this reason. */
  fail?: { message: string; step?: string };
}

export interface FakeService {
  (req: { path: string; sandboxId: string }): { status: number; body: string; contentType?: string };
}

export interface FakeE2bOptions {
  apiKey?: string;
  /** Template aliases that exist and belong to the caller. */
  templates?: string[];
  /** Template aliases that exist but belong to someone else (alias check answers 403). */
  foreignTemplates?: string[];
  /** Per template: services reachable from commands in its sandboxes (the start command's servers). */
  services?: Record<string, Record<number, FakeService>>;
  /** Sandboxes on the same account that the console did not create. */
  foreignSandboxes?: { templateID: string; metadata: Record<string, string> }[];
  exec?: (req: FakeExecRequest) => FakeExecPlan | undefined | Promise<FakeExecPlan | undefined>;
  builds?: Record<string, FakeBuildScript>;
  faults?: FakeFault[];
  /** Reported envd version (default '0.5.4': the SDK then uses multipart uploads). */
  envdVersion?: string;
  /** Keepalive event interval for streams in ms (default 0 = none). */
  keepaliveMs?: number;
}

export interface FakeSandbox {
  sandboxID: string;
  templateID: string;
  alias: string;
  metadata: Record<string, string>;
  envVars: Record<string, string>;
  timeoutSec: number;
  startedAt: string;
  endAt: string;
  alive: boolean;
  accessToken: string;
  files: Map<string, Buffer>;
  scratch: string;
  timer?: NodeJS.Timeout;
  /** What GET /sandboxes/{id}/metrics answers (the API's SandboxMetric entries); unset: one sample at request time. */
  metrics?: FakeSandboxMetric[];
}

/** E2B's SandboxMetric (the API schema the SDK's getMetrics maps). */
export interface FakeSandboxMetric {
  timestampUnix: number;
  cpuCount: number;
  cpuUsedPct: number;
  memUsed: number;
  memTotal: number;
  memCache: number;
  diskUsed: number;
  diskTotal: number;
}

export interface FakeProcess {
  sandboxId: string;
  pid: number;
  command: string;
  /** 'running' until it ends; 'exited' | 'killed' | 'deadline' afterwards. */
  state: 'running' | 'exited' | 'killed' | 'deadline';
  exitCode?: number;
  child?: ChildProcess;
  kill: () => void;
}

export interface FakeBuild {
  templateID: string;
  buildID: string;
  name: string;
  request: Record<string, unknown>;
  trigger?: Record<string, unknown>;
  polls: number;
  logs: { timestamp: string; level: string; message: string }[];
  status: 'waiting' | 'building' | 'ready' | 'error';
}

export interface FakeRequest {
  role: FakeRole;
  method: string;
  path: string;
  status: number;
}

export interface FakeE2b {
  url: string;
  apiKey: string;
  sandboxes: Map<string, FakeSandbox>;
  builds: Map<string, FakeBuild>;
  processes: FakeProcess[];
  requests: FakeRequest[];
  addFault(f: FakeFault): void;
  addTemplate(alias: string): void;
  /** Live (not killed, not expired) sandboxes. */
  alive(): FakeSandbox[];
  /** Client connections still open: after a client process has ended, none of its requests can be in flight once this is 0. */
  openConnections(): number;
  close(): Promise<void>;
}

const SCRIPTED_PID_BASE = 5_000_000; // above any Linux pid_max: a scripted pid never names a real process

function envelope(flags: number, obj: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(obj));
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(json.length, 1);
  return Buffer.concat([head, json]);
}

function decodeRepeatedly(s: string): string {
  let cur = s;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(cur);
    } catch {
      break;
    }
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

/** Parses the SDK's doubly encoded metadata filter into key/value pairs. */
export function parseMetadataFilter(raw: string | null): Record<string, string> {
  if (!raw) return {};
  // `raw` is the query value as URLSearchParams returns it: a URLSearchParams string of encodeURIComponent'ed
  // keys and values. Split first, then decode each side (repeatedly: the SDK encodes more than once).
  const out: Record<string, string> = {};
  for (const pair of raw.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const k = eq < 0 ? pair : pair.slice(0, eq);
    const v = eq < 0 ? '' : pair.slice(eq + 1);
    out[decodeRepeatedly(k.replace(/\+/g, ' '))] = decodeRepeatedly(v.replace(/\+/g, ' '));
  }
  return out;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function startFakeE2b(options: FakeE2bOptions = {}): Promise<FakeE2b> {
  const apiKey = options.apiKey ?? 'e2b_test_fake_key_0123456789';
  const envdVersion = options.envdVersion ?? '0.5.4';
  const templates = new Set(options.templates ?? []);
  const foreignTemplates = new Set(options.foreignTemplates ?? []);
  const faults: FakeFault[] = (options.faults ?? []).map((f) => ({ times: 1, ...f }));
  const sandboxes = new Map<string, FakeSandbox>();
  const builds = new Map<string, FakeBuild>();
  const processes: FakeProcess[] = [];
  const requests: FakeRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const root = mkdtempSync(path.join(tmpdir(), 'fake-e2b-'));
  let scriptedPid = SCRIPTED_PID_BASE;
  let baseUrl = '';

  const newSandbox = (templateID: string, metadata: Record<string, string>, envVars: Record<string, string>, timeoutSec: number): FakeSandbox => {
    const id = `i${randomBytes(9).toString('hex')}`;
    const scratch = path.join(root, id);
    mkdirSync(path.join(scratch, 'bin'), { recursive: true });
    const now = Date.now();
    const sbx: FakeSandbox = {
      sandboxID: id,
      templateID,
      alias: templateID,
      metadata,
      envVars,
      timeoutSec,
      startedAt: new Date(now).toISOString(),
      endAt: new Date(now + timeoutSec * 1000).toISOString(),
      alive: true,
      accessToken: randomBytes(12).toString('hex'),
      files: new Map(),
      scratch,
    };
    sandboxes.set(id, sbx);
    return sbx;
  };

  const killSandbox = (sbx: FakeSandbox) => {
    sbx.alive = false;
    if (sbx.timer) clearTimeout(sbx.timer);
    for (const p of processes) if (p.sandboxId === sbx.sandboxID && p.state === 'running') p.kill();
  };

  const arm = (sbx: FakeSandbox) => {
    if (sbx.timer) clearTimeout(sbx.timer);
    sbx.endAt = new Date(Date.now() + sbx.timeoutSec * 1000).toISOString();
    sbx.timer = setTimeout(() => killSandbox(sbx), sbx.timeoutSec * 1000);
    sbx.timer.unref();
  };

  for (const f of options.foreignSandboxes ?? []) arm(newSandbox(f.templateID, f.metadata, {}, 3600));

  const matchFault = (role: FakeRole, method: string, p: string): FakeFault | undefined => {
    const i = faults.findIndex((f) => {
      if ((f.times ?? 1) <= 0) return false;
      if (f.role && f.role !== role) return false;
      if (f.method && f.method.toUpperCase() !== method) return false;
      if (f.path instanceof RegExp) return f.path.test(p);
      if (typeof f.path === 'string') return f.path.endsWith('*') ? p.startsWith(f.path.slice(0, -1)) : p === f.path;
      return true;
    });
    if (i < 0) return undefined;
    const f = faults[i] as FakeFault;
    f.times = (f.times ?? 1) - 1;
    if (f.times <= 0) faults.splice(i, 1);
    return f;
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const data = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
    res.end(data);
  };
  const apiError = (res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => json(res, status, { code: status, message }, headers);

  const sandboxInfo = (s: FakeSandbox) => ({
    sandboxID: s.sandboxID,
    templateID: s.templateID,
    alias: s.alias,
    clientID: 'fake-client',
    metadata: s.metadata,
    startedAt: s.startedAt,
    endAt: s.endAt,
    state: 'running',
    cpuCount: 2,
    memoryMB: 512,
    envdVersion,
    diskSizeMB: 1024,
  });

  const createdResponse = (s: FakeSandbox) => ({
    sandboxID: s.sandboxID,
    templateID: s.templateID,
    alias: s.alias,
    clientID: 'fake-client',
    envdVersion,
    envdAccessToken: s.accessToken,
    domain: null,
  });

  // ---------------- control plane ----------------
  const control = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const p = url.pathname;
    if (p.startsWith('/__upload/') && method === 'PUT') {
      await readBody(req);
      res.writeHead(200, { 'content-length': '0' }).end();
      return;
    }
    if (req.headers['x-api-key'] !== apiKey) return apiError(res, 401, 'Invalid API key');
    let m: RegExpExecArray | null;

    if (p === '/v2/sandboxes' && method === 'POST') {
      const body = JSON.parse((await readBody(req)).toString() || '{}') as { templateID?: string; metadata?: Record<string, string>; envVars?: Record<string, string>; timeout?: number };
      const tpl = body.templateID ?? 'base';
      if (!templates.has(tpl)) return apiError(res, 404, `template '${tpl}' not found`);
      const timeout = body.timeout ?? 300;
      if (timeout > 86400) return apiError(res, 400, 'Timeout cannot be greater than 24 hours');
      const s = newSandbox(tpl, body.metadata ?? {}, body.envVars ?? {}, timeout);
      arm(s);
      return json(res, 201, createdResponse(s));
    }
    if (p === '/v2/sandboxes' && method === 'GET') {
      const filter = parseMetadataFilter(url.searchParams.get('metadata'));
      const states = url.searchParams.getAll('state').flatMap((s) => s.split(','));
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 100) || 100);
      const offset = Number(url.searchParams.get('nextToken') ?? 0) || 0;
      const all = [...sandboxes.values()].filter(
        (s) => s.alive && (states.length === 0 || states.includes('running')) && Object.entries(filter).every(([k, v]) => s.metadata[k] === v),
      );
      const page = all.slice(offset, offset + limit);
      const headers: Record<string, string> = {};
      if (offset + limit < all.length) headers['x-next-token'] = String(offset + limit);
      return json(res, 200, page.map(sandboxInfo), headers);
    }
    if ((m = /^\/v2\/sandboxes\/([^/]+)\/connect$/.exec(p)) && method === 'POST') {
      const s = sandboxes.get(m[1] as string);
      if (!s || !s.alive) return apiError(res, 404, `sandbox ${m[1]} not found`);
      const body = JSON.parse((await readBody(req)).toString() || '{}') as { timeout?: number };
      const remaining = (Date.parse(s.endAt) - Date.now()) / 1000;
      if (body.timeout && body.timeout > remaining) {
        s.timeoutSec = body.timeout;
        arm(s);
      }
      return json(res, 200, createdResponse(s));
    }
    if ((m = /^\/sandboxes\/([^/]+)\/metrics$/.exec(p)) && method === 'GET') {
      const s = sandboxes.get(m[1] as string);
      if (!s || !s.alive) return apiError(res, 404, `sandbox ${m[1]} not found`);
      const start = Number(url.searchParams.get('start') ?? -Infinity);
      const end = Number(url.searchParams.get('end') ?? Infinity);
      const now = Math.floor(Date.now() / 1000);
      const list = s.metrics ?? [{ timestampUnix: now, cpuCount: 2, cpuUsedPct: 7.5, memUsed: 256 * 2 ** 20, memTotal: 2 ** 30, memCache: 64 * 2 ** 20, diskUsed: 2 ** 30, diskTotal: 10 * 2 ** 30 }];
      return json(
        res,
        200,
        list.filter((x) => x.timestampUnix >= start && x.timestampUnix <= end).map((x) => ({ ...x, timestamp: new Date(x.timestampUnix * 1000).toISOString() })),
      );
    }
    if ((m = /^\/sandboxes\/([^/]+)\/timeout$/.exec(p)) && method === 'POST') {
      const s = sandboxes.get(m[1] as string);
      const body = JSON.parse((await readBody(req)).toString() || '{}') as { timeout?: number };
      if (!s || !s.alive) return apiError(res, 404, `sandbox ${m[1]} not found`);
      s.timeoutSec = body.timeout ?? s.timeoutSec;
      arm(s);
      res.writeHead(204).end();
      return;
    }
    if ((m = /^\/sandboxes\/([^/]+)$/.exec(p))) {
      const s = sandboxes.get(m[1] as string);
      if (!s || !s.alive) return apiError(res, 404, `sandbox ${m[1]} not found`);
      if (method === 'DELETE') {
        killSandbox(s);
        res.writeHead(204).end();
        return;
      }
      if (method === 'GET') return json(res, 200, { ...sandboxInfo(s), domain: null });
    }
    if (p === '/v3/templates' && method === 'POST') {
      const body = JSON.parse((await readBody(req)).toString() || '{}') as { name?: string; tags?: string[] };
      const name = String(body.name ?? '').split(':')[0] as string;
      if (!name) return apiError(res, 400, 'name is required');
      if (foreignTemplates.has(name)) return apiError(res, 409, `Alias '${name}' is already used`);
      const b: FakeBuild = { templateID: `tpl_${name}`, buildID: randomBytes(8).toString('hex'), name, request: body, polls: 0, logs: [], status: 'waiting' };
      builds.set(b.buildID, b);
      return json(res, 202, { templateID: b.templateID, buildID: b.buildID, names: [name], aliases: [name], tags: body.tags ?? [], public: false });
    }
    if ((m = /^\/templates\/([^/]+)\/files\/([^/]+)$/.exec(p)) && method === 'GET') {
      return json(res, 201, { present: false, url: `${baseUrl}/__upload/${m[2]}` });
    }
    if ((m = /^\/v2\/templates\/([^/]+)\/builds\/([^/]+)$/.exec(p)) && method === 'POST') {
      const b = builds.get(m[2] as string);
      if (!b || b.templateID !== m[1]) return apiError(res, 404, 'build not found');
      b.trigger = JSON.parse((await readBody(req)).toString() || '{}') as Record<string, unknown>;
      b.status = 'building';
      res.writeHead(202, { 'content-length': '0' }).end();
      return;
    }
    if ((m = /^\/templates\/([^/]+)\/builds\/([^/]+)\/status$/.exec(p)) && method === 'GET') {
      const b = builds.get(m[2] as string);
      if (!b || b.templateID !== m[1]) return apiError(res, 404, 'build not found');
      const script = options.builds?.[b.name] ?? {};
      const lines = script.logs ?? [`Building template ${b.name}`, 'Step 1: FROM image', 'Build finished'];
      const before = script.pollsBeforeDone ?? 2;
      b.polls++;
      if (b.status === 'building') {
        // Reveal the log lines progressively over the polls, then finish.
        const share = Math.ceil((lines.length * b.polls) / (before + 1));
        while (b.logs.length < Math.min(lines.length, share)) {
          b.logs.push({ timestamp: new Date().toISOString(), level: 'info', message: lines[b.logs.length] as string });
        }
        if (b.polls > before) {
          while (b.logs.length < lines.length) b.logs.push({ timestamp: new Date().toISOString(), level: 'info', message: lines[b.logs.length] as string });
          if (script.fail) {
            b.status = 'error';
            b.logs.push({ timestamp: new Date().toISOString(), level: 'error', message: script.fail.message });
          } else {
            b.status = 'ready';
            templates.add(b.name);
          }
        }
      }
      const offset = Number(url.searchParams.get('logsOffset') ?? 0) || 0;
      const entries = b.logs.slice(offset, offset + 100);
      return json(res, 200, {
        templateID: b.templateID,
        buildID: b.buildID,
        status: b.status,
        logEntries: entries,
        logs: entries.map((e) => e.message),
        ...(b.status === 'error' && script.fail ? { reason: { message: script.fail.message, step: script.fail.step } } : {}),
      });
    }
    if ((m = /^\/templates\/aliases\/([^/]+)$/.exec(p)) && method === 'GET') {
      const name = decodeURIComponent(m[1] as string);
      if (foreignTemplates.has(name)) return apiError(res, 403, `You don't have access to '${name}'`);
      if (templates.has(name)) return json(res, 200, { templateID: `tpl_${name}`, public: false });
      return apiError(res, 404, `template '${name}' not found`);
    }
    return apiError(res, 404, `no route ${method} ${p}`);
  };

  // ---------------- envd ----------------
  const writeShim = (sbx: FakeSandbox) => {
    const shim = path.join(sbx.scratch, 'bin', 'curl');
    if (existsSync(shim)) return;
    const realCurl = ['/usr/bin/curl', '/bin/curl'].find((c) => existsSync(c)) ?? 'curl';
    const script = [
      '#!/bin/bash',
      '# fake E2B: http://127.0.0.1:<port> inside the sandbox reaches the template service <port>',
      'args=()',
      'for a in "$@"; do',
      `  if [[ "$a" =~ ^http://(127\\.0\\.0\\.1|localhost):([0-9]+)(/.*)?$ ]]; then a="${baseUrl}/__svc/${sbx.sandboxID}/\${BASH_REMATCH[2]}\${BASH_REMATCH[3]}"; fi`,
      '  args+=("$a")',
      'done',
      `exec ${realCurl} "\${args[@]}"`,
      '',
    ].join('\n');
    writeFileSync(shim, script);
    chmodSync(shim, 0o755);
  };

  const startProcess = async (sbx: FakeSandbox, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    if (raw.length < 5) return void json(res, 400, { code: 'invalid_argument', message: 'missing envelope' });
    const msg = JSON.parse(raw.subarray(5, 5 + raw.readUInt32BE(1)).toString()) as { process?: { cmd?: string; args?: string[]; envs?: Record<string, string>; cwd?: string } };
    const proc = msg.process ?? {};
    const args = proc.args ?? [];
    const command = args[args.length - 1] ?? '';
    const auth = String(req.headers.authorization ?? '');
    const user = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().replace(/:$/, '') : undefined;
    const timeoutMs = Number(req.headers['connect-timeout-ms'] ?? 0) || undefined;
    const execReq: FakeExecRequest = { sandboxId: sbx.sandboxID, cmd: proc.cmd ?? '', args, command, envs: { ...sbx.envVars, ...proc.envs }, cwd: proc.cwd, user, timeoutMs };

    res.writeHead(200, { 'content-type': 'application/connect+json' });
    let done = false;
    const send = (obj: unknown) => {
      if (!done && !res.destroyed) res.write(envelope(0, obj));
    };
    const end = (error?: { code: string; message: string }) => {
      if (done) return;
      done = true;
      if (!res.destroyed) res.end(envelope(2, error ? { error } : {}));
    };
    const keepalive = options.keepaliveMs ? setInterval(() => send({ event: { keepalive: {} } }), options.keepaliveMs) : undefined;

    const plan = await options.exec?.(execReq);
    let fp: FakeProcess;
    let deadline: NodeJS.Timeout | undefined;
    const finish = (state: FakeProcess['state'], exitCode?: number, status?: string) => {
      if (fp.state !== 'running') return;
      fp.state = state;
      fp.exitCode = exitCode;
      if (deadline) clearTimeout(deadline);
      if (keepalive) clearInterval(keepalive);
      if (state === 'deadline') return end({ code: 'deadline_exceeded', message: 'the operation timed out' });
      const code = exitCode ?? -1;
      send({ event: { end: { exitCode: code, exited: state === 'exited', status: status ?? (state === 'killed' ? 'signal: killed' : `exit status ${code}`), ...(code !== 0 ? { error: status ?? (state === 'killed' ? 'signal: killed' : `exit status ${code}`) } : {}) } } });
      end();
    };

    if (plan) {
      let cancelled = false;
      fp = { sandboxId: sbx.sandboxID, pid: ++scriptedPid, command, state: 'running', kill: () => ((cancelled = true), finish('killed', -1)) };
      processes.push(fp);
      send({ event: { start: { pid: fp.pid } } });
      if (timeoutMs) deadline = setTimeout(() => ((cancelled = true), finish('deadline')), timeoutMs);
      void (async () => {
        for (const c of plan.chunks ?? []) {
          if (c.delayMs) await sleep(c.delayMs);
          if (cancelled) return;
          send({ event: { data: { [c.stream]: Buffer.from(c.data).toString('base64') } } });
        }
        if (plan.hang) return;
        if (plan.durationMs) await sleep(plan.durationMs);
        if (!cancelled) finish('exited', plan.exitCode ?? 0);
      })();
    } else {
      writeShim(sbx);
      const home = path.join(sbx.scratch, 'home');
      mkdirSync(home, { recursive: true });
      const cwd = proc.cwd && existsSync(proc.cwd) ? proc.cwd : home;
      const child = spawn('/bin/bash', ['-c', command], {
        cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: `${path.join(sbx.scratch, 'bin')}:/usr/local/bin:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', ...execReq.envs },
      });
      const pid = child.pid ?? ++scriptedPid;
      const killGroup = () => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      };
      fp = { sandboxId: sbx.sandboxID, pid, command, state: 'running', child, kill: () => (killGroup(), finish('killed', -1)) };
      processes.push(fp);
      send({ event: { start: { pid } } });
      child.stdout.on('data', (c: Buffer) => send({ event: { data: { stdout: c.toString('base64') } } }));
      child.stderr.on('data', (c: Buffer) => send({ event: { data: { stderr: c.toString('base64') } } }));
      child.on('close', (code, signal) => finish(signal ? 'killed' : 'exited', code ?? -1, signal ? `signal: ${signal === 'SIGKILL' ? 'killed' : signal}` : undefined));
      child.on('error', () => finish('exited', 127));
      if (timeoutMs) deadline = setTimeout(() => (killGroup(), finish('deadline')), timeoutMs);
    }
    res.on('close', () => {
      if (keepalive) clearInterval(keepalive);
    });
  };

  const envd = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL, sandboxId: string): Promise<void> => {
    const sbx = sandboxes.get(sandboxId);
    if (!sbx || !sbx.alive) {
      await readBody(req);
      return json(res, 502, { sandboxId, message: 'The sandbox was not found', code: 502 });
    }
    if (req.headers['x-access-token'] !== sbx.accessToken) return json(res, 401, { code: 401, message: 'invalid access token' });
    const method = req.method ?? 'GET';
    const p = url.pathname;
    if (p === '/health' && method === 'GET') {
      res.writeHead(204).end();
      return;
    }
    if (p === '/files' && method === 'GET') {
      const file = url.searchParams.get('path') ?? '';
      const data = sbx.files.get(file);
      if (!data) return json(res, 404, { code: 404, message: `path '${file}' does not exist` });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length });
      res.end(data);
      return;
    }
    if (p === '/files' && method === 'POST') {
      const body = await readBody(req);
      const target = url.searchParams.get('path') ?? '';
      const ctype = String(req.headers['content-type'] ?? '');
      const written: { name: string; type: string; path: string }[] = [];
      if (ctype.startsWith('multipart/form-data')) {
        const form = await new Response(body, { headers: { 'content-type': ctype } }).formData();
        for (const [, value] of form.entries()) {
          if (typeof value === 'string') continue;
          const file = target || value.name;
          sbx.files.set(file, Buffer.from(await value.arrayBuffer()));
          written.push({ name: path.posix.basename(file), type: 'file', path: file });
        }
      } else {
        sbx.files.set(target, body);
        written.push({ name: path.posix.basename(target), type: 'file', path: target });
      }
      return json(res, 200, written);
    }
    if (p === '/process.Process/Start' && method === 'POST') return startProcess(sbx, req, res);
    if (p === '/process.Process/SendSignal' && method === 'POST') {
      const body = JSON.parse((await readBody(req)).toString() || '{}') as { process?: { selector?: { pid?: number }; pid?: number } };
      const pid = body.process?.selector?.pid ?? body.process?.pid;
      const fp = processes.find((x) => x.sandboxId === sbx.sandboxID && x.pid === pid && x.state === 'running');
      if (!fp) return json(res, 404, { code: 'not_found', message: `process with pid ${pid} not found` });
      fp.kill();
      return json(res, 200, {});
    }
    return json(res, 404, { code: 'not_found', message: `no route ${method} ${p}` });
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const sandboxId = req.headers['e2b-sandbox-id'];
      const role: FakeRole = typeof sandboxId === 'string' ? 'envd' : 'control';
      const method = req.method ?? 'GET';
      res.on('finish', () => requests.push({ role, method, path: url.pathname, status: res.statusCode }));
      try {
        let m: RegExpExecArray | null;
        if ((m = /^\/__svc\/([^/]+)\/(\d+)(\/.*)?$/.exec(url.pathname))) {
          const sbx = sandboxes.get(m[1] as string);
          const svc = sbx && sbx.alive ? options.services?.[sbx.templateID]?.[Number(m[2])] : undefined;
          if (!svc) {
            // Nothing listens on that port inside the sandbox: drop the connection like a refused connect would.
            req.socket.destroy();
            return;
          }
          const out = svc({ path: (m[3] ?? '/') + url.search, sandboxId: m[1] as string });
          res.writeHead(out.status, { 'content-type': out.contentType ?? 'application/json' });
          res.end(out.body);
          return;
        }
        const fault = matchFault(role, method, url.pathname);
        if (fault?.delayMs) await sleep(fault.delayMs);
        if (fault?.status) {
          await readBody(req);
          const headers: Record<string, string> = {};
          if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
          if (role === 'envd' && fault.status === 502) return json(res, 502, { sandboxId, message: fault.message ?? 'The sandbox was not found', code: 502 });
          return apiError(res, fault.status, fault.message ?? http.STATUS_CODES[fault.status] ?? 'error', headers);
        }
        if (fault?.drop) {
          // The work happens, the answer is lost on the way back.
          res.writeHead = (() => res) as unknown as typeof res.writeHead;
          res.write = (() => true) as unknown as typeof res.write;
          res.end = (() => {
            req.socket.destroy();
            return res;
          }) as unknown as typeof res.end;
        }
        if (role === 'envd') await envd(req, res, url, sandboxId as string);
        else await control(req, res, url);
      } catch (err) {
        if (!res.headersSent) apiError(res, 500, `fake E2B internal error: ${(err as Error).message}`);
        else res.destroy();
      }
    })();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address() as import('node:net').AddressInfo;
  baseUrl = `http://127.0.0.1:${addr.port}`;

  return {
    url: baseUrl,
    apiKey,
    sandboxes,
    builds,
    processes,
    requests,
    addFault: (f) => faults.push({ times: 1, ...f }),
    addTemplate: (alias) => templates.add(alias),
    alive: () => [...sandboxes.values()].filter((s) => s.alive),
    openConnections: () => sockets.size,
    close: async () => {
      for (const s of sandboxes.values()) killSandbox(s);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
