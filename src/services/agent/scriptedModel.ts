// A scripted Anthropic Messages API server on 127.0.0.1 (or a Unix socket), written from the public API reference (POST /v1/messages,
// JSON or `stream: true` server-sent events: message_start, content_block_start/delta/stop, message_delta,
// message_stop; errors as `{"type":"error","error":{"type","message"}}` with 500 api_error / 529 overloaded_error),
// so the real Claude Code CLI can run offline against it. The CLI also probes `HEAD /` before its first request.
//
//   const api = await startAnthropicServer({ script: [toolUse([{ name: 'Bash', input: { command: 'ls' } }]), text('done')] });
//   ... ANTHROPIC_BASE_URL=api.url claude -p ... ...
//   await api.close();
//
// The script answers the agent's requests (those carrying `tools`) in order, one step per request; a step can be
// an error (`apiError(529)`, answered that many times in a row, so the CLI's retries consume it) or a stream cut
// short (`brokenStream()`, cut once; the request after it gets the whole reply). Requests without tools (side queries such as a title) get a short text reply and do
// not consume the script. When the script runs out, the server answers with a final text. A subagent (the Agent
// tool) asks concurrently with its parent: `lanes` give it its own script, picked by a text its first user message
// holds (the Agent call's prompt), so the order of the two agents' requests does not decide who gets which step.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };

export type Step =
  | { kind: 'reply'; blocks: Block[]; usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number }; /** Answer after this long (a slow model, a subagent still working). */ delayMs?: number }
  | { kind: 'error'; status: number; times: number; message?: string }
  | { kind: 'broken'; afterBlocks: number; blocks: Block[] };

export const text = (t: string): Step => ({ kind: 'reply', blocks: [{ type: 'text', text: t }] });
export const reply = (...blocks: Block[]): Step => ({ kind: 'reply', blocks });
export const toolUse = (calls: { name: string; input: Record<string, unknown> }[], opts: { thinking?: string; text?: string } = {}): Step => ({
  kind: 'reply',
  blocks: [
    ...(opts.thinking ? [{ type: 'thinking' as const, thinking: opts.thinking }] : []),
    ...(opts.text ? [{ type: 'text' as const, text: opts.text }] : []),
    ...calls.map((c) => ({ type: 'tool_use' as const, ...c })),
  ],
});
/** An HTTP error answered `times` requests in a row (500 api_error, 529 overloaded_error, 429 rate_limit_error). */
export const apiError = (status: number, times = 1, message?: string): Step => ({ kind: 'error', status, times, message });
/** A streamed reply whose connection is destroyed after `afterBlocks` complete content blocks (no message_stop);
 * the next request gets the whole reply. */
export const brokenStream = (blocks: Block[], afterBlocks = 0): Step => ({ kind: 'broken', blocks, afterBlocks });

export interface RecordedRequest {
  method: string;
  path: string;
  stream: boolean;
  agent: boolean;
  model?: string;
  /** tool_result blocks of the last user message: what the CLI reported back. */
  toolResults: { tool_use_id: string; is_error: boolean; content: string }[];
  status: number;
  /** Whether the request carried an x-api-key / bearer token, and which (tests check where keys travel). */
  apiKey?: string;
  /** The reply it got (status 200): its message id, tool calls and usage; `cut` when the stream was broken off. */
  reply?: { id: string; toolUses: { id: string; name: string }[]; usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number }; cut: boolean };
}

export interface AnthropicServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const ERROR_TYPE: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' };
const ERROR_MESSAGE: Record<number, string> = { 429: 'Number of requests has exceeded your rate limit', 500: 'Internal server error', 529: 'Overloaded' };

export async function startAnthropicServer(o: {
  script: Step[];
  finalText?: string;
  model?: string;
  /** Listen on a Unix socket instead of 127.0.0.1 (a sandbox reaches it through a bind mount). */ socketPath?: string;
  /**
   * Scripts for the requests whose first user message contains `match` (a subagent's prompt). `hold`: the lane's
   * requests are answered once it settles (the CLI prints a subagent's and its parent's replies in the order they
   * come back, so a recording that shows one order must not leave it to a race).
   */
  lanes?: { match: string; script: Step[]; hold?: Promise<unknown> }[];
}): Promise<AnthropicServer> {
  const copy = (script: Step[]) => script.map((s) => (s.kind === 'error' ? { ...s } : s));
  const main = copy(o.script);
  const lanes = (o.lanes ?? []).map((l) => ({ match: l.match, queue: copy(l.script), hold: l.hold }));
  const requests: RecordedRequest[] = [];
  let msgSeq = 0;
  let toolSeq = 0;
  const sockets = new Set<import('node:net').Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const record = (status: number, extra: Partial<RecordedRequest> = {}) =>
        requests.push({ method: req.method ?? '', path, stream: false, agent: false, toolResults: [], status, apiKey: keyOf(req), ...extra });
      if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) {
        record(200);
        res.writeHead(200).end();
        return;
      }
      if (req.method !== 'POST' || !/^\/v1\/messages(\/count_tokens)?$/.test(path)) {
        record(404);
        sendError(res, 404, 'not_found_error', `Not found: ${req.method} ${path}`);
        return;
      }
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        record(400);
        sendError(res, 400, 'invalid_request_error', 'body is not JSON');
        return;
      }
      if (path.endsWith('/count_tokens')) {
        record(200);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 }));
        return;
      }
      const agent = Array.isArray(body.tools) && body.tools.length > 0;
      const stream = body.stream === true;
      const last = Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
      const toolResults = Array.isArray(last?.content)
        ? last.content
            .filter((c: any) => c?.type === 'tool_result')
            .map((c: any) => ({ tool_use_id: String(c.tool_use_id), is_error: c.is_error === true, content: typeof c.content === 'string' ? c.content : JSON.stringify(c.content) }))
        : [];
      const model = typeof body.model === 'string' ? body.model : (o.model ?? 'claude-scripted');
      const opening = firstUserText(body.messages);
      const lane = lanes.find((l) => opening.includes(l.match));
      const queue = lane?.queue ?? main;
      const inputTokens = 1000 + 100 * (Array.isArray(body.messages) ? body.messages.length : 0);
      let step: Step = { kind: 'reply', blocks: [{ type: 'text', text: agent ? (o.finalText ?? 'Done.') : 'Scripted side reply' }] };
      // The reply takes its step, its ids and its place among the recorded requests when it is answered.
      const answerRequest = () => {
        if (agent && queue.length > 0) {
          const head = queue[0] as Step;
          if (head.kind === 'error') {
            step = head;
            head.times--;
            if (head.times <= 0) queue.shift();
          } else if (head.kind === 'broken' && stream) {
            // The cut stream is answered once; the CLI's retry (or its non-streaming fallback) gets the whole reply.
            step = head;
            queue[0] = { kind: 'reply', blocks: head.blocks };
          } else step = queue.shift() as Step;
        }
        if (step.kind === 'error') {
          record(step.status, { stream, agent, model, toolResults });
          // retry-after 0 keeps the CLI's backoff short; the CLI still reports each retry.
          sendError(res, step.status, ERROR_TYPE[step.status] ?? 'api_error', step.message ?? ERROR_MESSAGE[step.status] ?? 'error', { 'retry-after': '0' });
          return;
        }
        record(200, { stream, agent, model, toolResults });
        const id = `msg_scripted_${String(++msgSeq).padStart(4, '0')}`;
        const content = step.blocks.map((b) => (b.type === 'tool_use' ? { ...b, id: `toolu_scripted_${String(++toolSeq).padStart(4, '0')}` } : b));
        const hasTool = content.some((b) => b.type === 'tool_use');
        const cache = step.kind === 'reply' && step.usage ? { ...(step.usage.cache_read_input_tokens !== undefined ? { cache_read_input_tokens: step.usage.cache_read_input_tokens } : {}), ...(step.usage.cache_creation_input_tokens !== undefined ? { cache_creation_input_tokens: step.usage.cache_creation_input_tokens } : {}) } : {};
        const usage = { input_tokens: (step.kind === 'reply' && step.usage?.input_tokens) || inputTokens, output_tokens: (step.kind === 'reply' && step.usage?.output_tokens) || 20 + 10 * content.length, ...cache };
        const stopReason = hasTool ? 'tool_use' : 'end_turn';
        const served = requests.at(-1);
        if (served) served.reply = { id, toolUses: content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name }] : [])), usage, cut: step.kind === 'broken' };
        // A slow reply: the CLI keeps its request open (a subagent still working, a model thinking).
        const delayMs = step.kind === 'reply' ? (step.delayMs ?? 0) : 0;
        const answer = step;
        const respond = () => {
          if (!stream) {
            const full = content.map((b) => (b.type === 'thinking' ? { ...b, signature: 'sig-scripted' } : b));
            res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
            res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: full, stop_reason: stopReason, stop_sequence: null, usage }));
            return;
          }
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
          const sse = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
          sse('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
          content.forEach((b, index) => {
            if (answer.kind === 'broken' && index >= answer.afterBlocks) return;
            if (b.type === 'text') {
              sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
              sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
            } else if (b.type === 'thinking') {
              sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
              sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: b.thinking } });
              sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig-scripted' } });
            } else {
              sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
              sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
            }
            sse('content_block_stop', { type: 'content_block_stop', index });
          });
          if (answer.kind === 'broken') {
            // Cut the connection mid-message: what a proxy or load balancer dropping the stream looks like.
            res.socket?.destroy();
            return;
          }
          sse('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
          sse('message_stop', { type: 'message_stop' });
          res.end();
        };
        if (delayMs > 0) setTimeout(respond, delayMs);
        else respond();
      };
      const hold = agent ? lane?.hold : undefined;
      if (!hold || !lane) return answerRequest();
      lane.hold = undefined;
      void hold.then(answerRequest);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  if (o.socketPath) await new Promise<void>((resolve, reject) => server.once('error', reject).listen(o.socketPath, resolve));
  else await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: o.socketPath ? `unix:${o.socketPath}` : `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The text of the conversation's first user message (a subagent's is the prompt its parent gave it). */
function firstUserText(messages: unknown): string {
  const first = Array.isArray(messages) ? messages.find((m: any) => m?.role === 'user') : undefined;
  const c = first?.content;
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.map((b: any) => (typeof b?.text === 'string' ? b.text : '')).join('\n') : '';
}

function sendError(res: http.ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

function keyOf(req: http.IncomingMessage): string | undefined {
  const k = req.headers['x-api-key'];
  if (typeof k === 'string') return k;
  const auth = req.headers.authorization;
  return typeof auth === 'string' ? auth.replace(/^Bearer /i, '') : undefined;
}
