// A fault-injecting HTTP proxy on 127.0.0.1, put in front of the fake E2B server (tests/fakes/e2bServer.ts) so that
// the console (the built binary, configured through E2B_API_URL / E2B_SANDBOX_URL) meets the failures real networks
// and a real E2B produce, without the fake knowing about them:
// - an answer replaced by a status (502 from the sandbox proxy, 429 with a body and Retry-After, 500 on DELETE);
// - a delay before the request is forwarded (past the client's timeout: the server never sees it in time);
// - `holdMs`: the request IS forwarded and completed by the server, but its answer is held back (past the client's
//   timeout: "the create completed after we gave up", the orphan case);
// - `drop`: the connection is reset, before forwarding or after the server did the work.
// `kind` names the fault (docs/FAULTS.md lists the probes built on them):
// - 'status': answer `status` (with `body`, `retryAfter`) instead of forwarding (the same as setting `status`);
// - 'reset': reset the connection before forwarding (= drop 'before');
// - 'drop-response': forward, let the server finish, then reset instead of answering (= drop 'after');
// - 'reset-mid-body': forward, send the headers and the first `bytes` of the body (default: half), then reset;
// - 'truncate': forward, answer with only the first `bytes` of the body (default: half) as a complete answer
//   (content-length says the short length): the short body a broken middlebox or a cut stream leaves;
// - 'corrupt': forward, answer the body with bytes flipped (every `every`th byte, default 7; length kept);
// - 'slow': forward, pass the body on in `chunkBytes` pieces (default 16) `delayMs` apart (default 50);
// - 'hang': accept the request and never answer (the client's timeout is all that ends it).
// Rules match by method, path (exact, prefix with '*', or RegExp) and role (envd requests carry E2b-Sandbox-Id);
// the first matching rule with uses left applies. Everything else is piped through unchanged, streams included.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultKind = 'status' | 'reset' | 'reset-mid-body' | 'truncate' | 'corrupt' | 'slow' | 'hang' | 'drop-response';

export interface ProxyRule {
  /** The fault; without it the older fields (`status`, `drop`, `holdMs`) say what happens. */
  kind?: FaultKind;
  role?: 'control' | 'envd';
  method?: string;
  path?: string | RegExp;
  /** Answer with this status instead of forwarding. */
  status?: number;
  body?: string;
  retryAfter?: number;
  /** Wait this long before forwarding (or before answering with `status`). */
  delayMs?: number;
  /** Forward, let the server finish, then hold its answer this long before passing it on. */
  holdMs?: number;
  /** Reset the connection: 'before' forwarding, or 'after' the server answered. */
  drop?: 'before' | 'after';
  /** 'truncate' / 'reset-mid-body': how many bytes of the body get through (default: half of it). */
  bytes?: number;
  /** 'corrupt': flip every n-th byte (default 7). */
  every?: number;
  /** 'slow': bytes per piece (default 16); the pause between pieces is `delayMs` (default 50). */
  chunkBytes?: number;
  /** How many matching requests this rule applies to (default: all). */
  times?: number;
}

/** The older fields said as a kind, so one code path serves both. */
function kindOf(rule: ProxyRule | undefined): FaultKind | undefined {
  if (!rule) return undefined;
  if (rule.kind) return rule.kind;
  if (rule.drop === 'before') return 'reset';
  if (rule.drop === 'after') return 'drop-response';
  if (rule.status !== undefined) return 'status';
  return undefined;
}

/** Body bytes that pass for the body-altering kinds. */
function alterBody(rule: ProxyRule, kind: FaultKind, body: Buffer): Buffer {
  if (kind === 'truncate' || kind === 'reset-mid-body') return body.subarray(0, Math.min(body.length, rule.bytes ?? Math.floor(body.length / 2)));
  if (kind === 'corrupt') {
    const out = Buffer.from(body);
    const every = Math.max(1, rule.every ?? 7);
    for (let i = every - 1; i < out.length; i += every) out[i] = out[i]! ^ 0x5a;
    return out;
  }
  return body;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  role: 'control' | 'envd';
  /** Index of the rule that applied, if any. */
  rule?: number;
  status?: number;
}

export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  addRule(rule: ProxyRule): number;
  clearRules(): void;
  close(): Promise<void>;
}

function matches(rule: ProxyRule, method: string, pathname: string, role: 'control' | 'envd'): boolean {
  if (rule.role && rule.role !== role) return false;
  if (rule.method && rule.method.toUpperCase() !== method) return false;
  if (rule.path === undefined) return true;
  if (rule.path instanceof RegExp) return rule.path.test(pathname);
  return rule.path.endsWith('*') ? pathname.startsWith(rule.path.slice(0, -1)) : pathname === rule.path;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startFaultProxy(upstream: string, rules: ProxyRule[] = []): Promise<FaultProxy> {
  const target = new URL(upstream);
  const active: { rule: ProxyRule; left: number }[] = rules.map((rule) => ({ rule, left: rule.times ?? Infinity }));
  const requests: ProxiedRequest[] = [];
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((req, res) => {
    const method = (req.method ?? 'GET').toUpperCase();
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const role = req.headers['e2b-sandbox-id'] ? 'envd' : 'control';
    const index = active.findIndex((a) => a.left > 0 && matches(a.rule, method, pathname, role));
    const rule = index >= 0 ? active[index]!.rule : undefined;
    if (index >= 0) active[index]!.left--;
    const record: ProxiedRequest = { method, path: pathname, role, ...(index >= 0 ? { rule: index } : {}) };
    requests.push(record);
    const kind = kindOf(rule);
    void (async () => {
      if (kind === 'hang') {
        // Read the request so the client's write completes, then say nothing until the client gives up.
        req.resume();
        return;
      }
      const preDelay = kind === 'slow' ? 0 : rule?.delayMs;
      if (preDelay) await wait(preDelay);
      // The client gave up during the delay: like a real network, the request never reaches the server.
      if (preDelay && req.socket.destroyed) return;
      if (kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (kind === 'status' && rule) {
        const status = rule.status ?? 500;
        record.status = status;
        req.resume();
        const headers: Record<string, string> = { 'content-type': 'application/json', connection: 'close' };
        if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
        res.writeHead(status, headers);
        res.end(rule.body ?? JSON.stringify({ code: status, message: `injected ${status}` }));
        return;
      }
      const headers = { ...req.headers, host: target.host };
      const up = http.request({ host: target.hostname, port: target.port, method, path: req.url, headers, agent }, (upRes) => {
        record.status = upRes.statusCode;
        void (async () => {
          if (rule && (rule.holdMs || kind)) {
            // The server's answer is complete before we decide what the client sees.
            const chunks: Buffer[] = [];
            for await (const c of upRes) chunks.push(c as Buffer);
            const whole = Buffer.concat(chunks);
            if (kind === 'drop-response') {
              req.socket.destroy();
              return;
            }
            await wait(rule.holdMs ?? 0);
            if (res.destroyed) return;
            const outHeaders = { ...upRes.headers };
            delete outHeaders['transfer-encoding'];
            const body = kind ? alterBody(rule, kind, whole) : whole;
            if (kind === 'reset-mid-body') {
              // Headers promise the whole body; part of it arrives, then the connection breaks.
              res.writeHead(upRes.statusCode ?? 502, { ...outHeaders, 'content-length': String(whole.length) });
              res.write(body, () => setTimeout(() => req.socket.destroy(), 5));
              return;
            }
            res.writeHead(upRes.statusCode ?? 502, { ...outHeaders, 'content-length': String(body.length) });
            if (kind === 'slow') {
              const step = Math.max(1, rule.chunkBytes ?? 16);
              for (let i = 0; i < body.length && !res.destroyed; i += step) {
                res.write(body.subarray(i, i + step));
                await wait(rule.delayMs ?? 50);
              }
              res.end();
              return;
            }
            res.end(body);
            return;
          }
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          res.on('close', () => upRes.destroy());
        })().catch(() => res.destroy());
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    })();
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    addRule(rule) {
      active.push({ rule, left: rule.times ?? Infinity });
      return active.length - 1;
    },
    clearRules() {
      for (const a of active) a.left = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
