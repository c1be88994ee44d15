// A fault-injecting HTTP proxy on 127.0.0.1, put in front of the fake E2B server (tests/fakes/e2bServer.ts) so that
// the console (the built binary, configured through E2B_API_URL / E2B_SANDBOX_URL) meets the failures real networks
// and a real E2B produce, without the fake knowing about them:
// - an answer replaced by a status (502 from the sandbox proxy, 429 with a body and Retry-After, 500 on DELETE);
// - a delay before the request is forwarded (past the client's timeout: the server never sees it in time);
// - `holdMs`: the request IS forwarded and completed by the server, but its answer is held back (past the client's
//   timeout: "the create completed after we gave up", the orphan case);
// - `drop`: the connection is reset, before forwarding or after the server did the work.
// Rules match by method, path (exact, prefix with '*', or RegExp) and role (envd requests carry E2b-Sandbox-Id);
// the first matching rule with uses left applies. Everything else is piped through unchanged, streams included.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxyRule {
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
  /** How many matching requests this rule applies to (default: all). */
  times?: number;
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
    void (async () => {
      if (rule?.delayMs) await wait(rule.delayMs);
      // The client gave up during the delay: like a real network, the request never reaches the server.
      if (rule?.delayMs && req.socket.destroyed) return;
      if (rule?.drop === 'before') {
        req.socket.destroy();
        return;
      }
      if (rule?.status !== undefined) {
        record.status = rule.status;
        req.resume();
        const headers: Record<string, string> = { 'content-type': 'application/json', connection: 'close' };
        if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
        res.writeHead(rule.status, headers);
        res.end(rule.body ?? JSON.stringify({ code: rule.status, message: `injected ${rule.status}` }));
        return;
      }
      const headers = { ...req.headers, host: target.host };
      const up = http.request({ host: target.hostname, port: target.port, method, path: req.url, headers, agent }, (upRes) => {
        record.status = upRes.statusCode;
        void (async () => {
          if (rule?.holdMs || rule?.drop === 'after') {
            // The server's answer is complete before we decide what the client sees.
            const chunks: Buffer[] = [];
            for await (const c of upRes) chunks.push(c as Buffer);
            if (rule.drop === 'after') {
              req.socket.destroy();
              return;
            }
            await wait(rule.holdMs ?? 0);
            if (res.destroyed) return;
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            res.end(Buffer.concat(chunks));
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
