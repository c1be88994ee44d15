// A local stand-in for the Ray dashboard on a head node (:8265), answering as Ray's own code does (ray-project/ray):
// - GET /nodes?view=summary: dashboard/modules/node/node_head.py get_all_nodes → rest_response(success=True,
//   message="Node summary fetched.", summary=…, node_logical_resources=…) (dashboard/optional_utils.py /
//   dashboard/utils.py rest_response: {"result", "msg", "data": to_google_style(kwargs)}, so data keys are
//   camelCase). Each summary entry is a node's reporter-agent stats (dashboard/modules/reporter/reporter_agent.py
//   _get_all_stats: now, hostname, ip, cpu, cpus, mem [total, available, percent, used], gpus, …) plus its raylet
//   (nodeId, state, isHeadNode, nodeManagerAddress, nodeManagerHostname, …; type in dashboard/client/src/type/
//   node.d.ts and raylet.d.ts). A GPU is gpustat's entry with "." → "_" then camelCased: index, uuid, name,
//   temperatureGpu, fanSpeed, utilizationGpu, utilizationEnc, utilizationDec, powerDraw, enforcedPowerLimit,
//   memoryUsed, memoryTotal (MiB), processes.
// - GET /api/jobs/: dashboard/modules/job/job_head.py list_jobs → a JSON list of JobDetails
//   (dashboard/modules/job/pydantic_models.py, snake_case: type, job_id, submission_id, driver_info, status,
//   entrypoint, message, error_type, start_time, end_time, metadata, runtime_env, driver_agent_http_address,
//   driver_node_id, driver_exit_code); GET /api/jobs/{id} → one, or 404.
// - GET /api/jobs/{id}/logs → JobLogsResponse {"logs": str} (common.py); POST /api/jobs/{id}/stop → JobStopResponse
//   {"stopped": bool} (false when the job is not running; job_manager.stop_job); an unknown id → 404 "Job {id} does
//   not exist" (job_head.py). WS /api/jobs/{id}/logs/tail: the log so far, then what is appended, as text messages;
//   closed when the job ends (the agent's tail iterator ends with the job's log).
// - With `metrics`: each node's reporter agent on its own port (its metrics export port) exports the GPU gauges
//   of reporter_agent.py, Ray-prefixed: ray_node_gpus_utilization, ray_node_gram_used, ray_node_gram_available
//   (MiB as gpustat gives them), labelled ip, SessionName, GpuIndex, GpuDeviceName; GET /api/prometheus/sd
//   (metrics_head.py) lists those endpoints as [{"labels": {"job": "ray"}, "targets": ["ip:port", …]}].
// - `summary: false`: a Ray whose private /nodes route is gone (404), for the metrics fallback.
// Everything else answers 404 as aiohttp does for an unknown route.
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';

export interface FakeGpu {
  util: number | null;
  memUsedMiB: number;
  memTotalMiB?: number;
  temp?: number;
  power?: number;
}

export interface FakeNode {
  hostname: string;
  ip: string;
  head?: boolean;
  state?: 'ALIVE' | 'DEAD';
  gpus: FakeGpu[];
}

export interface FakeJob {
  submission_id: string;
  status: 'PENDING' | 'RUNNING' | 'STOPPED' | 'SUCCEEDED' | 'FAILED';
  message?: string;
  driver_exit_code?: number | null;
  start_time?: number;
  end_time?: number | null;
  /** The job's log so far (GET …/logs, and the first message of a tail). */
  logs?: string;
}

export interface FakeRayDashboard {
  url: string;
  nodes: FakeNode[];
  jobs: FakeJob[];
  requests: string[];
  /** The per-node metrics endpoints (host:port), with `metrics`. */
  metricsTargets: string[];
  /** Appends to a job's log; open tails get it as a message. */
  appendLog(id: string, text: string): void;
  /** Ends a job (its tails close). */
  endJob(id: string, status: 'STOPPED' | 'SUCCEEDED' | 'FAILED', exitCode?: number): void;
  close(): Promise<void>;
}

/** A server → client WebSocket frame (RFC 6455 §5.2: FIN, opcode, unmasked payload length). */
function wsFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, n]) : n < 65536 ? Buffer.from([0x80 | opcode, 126, n >> 8, n & 255]) : Buffer.concat([Buffer.from([0x80 | opcode, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
  return Buffer.concat([head, payload]);
}

/** 4 nodes × 8 H200s (Dressage's 4-node recipe), the first the head. */
export function fourNodeCluster(): FakeNode[] {
  return Array.from({ length: 4 }, (_, n) => ({
    hostname: `gpu-node-${n}`,
    ip: `10.1.0.${n + 10}`,
    head: n === 0,
    gpus: Array.from({ length: 8 }, (_, i) => ({ util: 90 + ((n + i) % 10), memUsedMiB: 120_000 + 100 * i, temp: 55 + i, power: 600 + n })),
  }));
}

function nodeSummary(n: FakeNode, k: number) {
  return {
    now: Date.now() / 1000,
    hostname: n.hostname,
    ip: n.ip,
    cpu: 12.5,
    cpus: [192, 96],
    mem: [2_000_000_000_000, 1_500_000_000_000, 25.0, 500_000_000_000],
    shm: 1_000_000,
    bootTime: 1_760_000_000,
    loadAvg: [[1, 1, 1], [0.01, 0.01, 0.01]],
    disk: { '/': { total: 1, used: 0, free: 1, percent: 0 } },
    gpus: n.gpus.map((g, i) => ({
      index: i,
      uuid: `GPU-${k}${i}000000-0000-0000-0000-000000000000`,
      name: 'NVIDIA H200',
      temperatureGpu: g.temp ?? 50,
      fanSpeed: null,
      utilizationGpu: g.util,
      utilizationEnc: 0,
      utilizationDec: 0,
      powerDraw: g.power ?? 500,
      enforcedPowerLimit: 700,
      memoryUsed: g.memUsedMiB,
      memoryTotal: g.memTotalMiB ?? 143771,
      processes: [],
    })),
    networkSpeed: [0, 0],
    raylet: {
      nodeId: `${String(k).repeat(8)}${'ab'.repeat(24)}`.slice(0, 56),
      state: n.state ?? 'ALIVE',
      isHeadNode: Boolean(n.head),
      nodeManagerAddress: n.ip,
      nodeManagerHostname: n.hostname,
      nodeManagerPort: 40000 + k,
      numWorkers: 12,
      pid: 1000 + k,
      startTime: 1_760_000_000_000,
      terminateTime: -1,
    },
    logCounts: 0,
    errorCounts: 0,
    cmdline: ['/usr/bin/raylet'],
  };
}

function jobDetails(j: FakeJob) {
  return {
    type: 'SUBMISSION',
    job_id: '02000000',
    submission_id: j.submission_id,
    driver_info: { id: '02000000', node_ip_address: '10.1.0.10', pid: '4242' },
    status: j.status,
    entrypoint: 'python3 train.py',
    message: j.message ?? (j.status === 'RUNNING' ? 'Job is currently running.' : null),
    error_type: j.status === 'FAILED' ? 'JOB_ENTRYPOINT_COMMAND_ERROR' : null,
    start_time: j.start_time ?? 1_760_000_000_000,
    end_time: j.end_time ?? null,
    metadata: {},
    runtime_env: {},
    driver_agent_http_address: 'http://10.1.0.10:52365',
    driver_node_id: 'aa'.repeat(28),
    driver_exit_code: j.driver_exit_code ?? null,
  };
}

/** One node's reporter-agent gauges in the Prometheus text format. */
function nodeMetrics(n: FakeNode): string {
  const lines: string[] = [];
  const gauge = (name: string, help: string, value: (g: FakeGpu) => number | null) => {
    lines.push(`# HELP ray_${name} ${help}`, `# TYPE ray_${name} gauge`);
    n.gpus.forEach((g, i) => {
      const v = value(g);
      if (v !== null) lines.push(`ray_${name}{GpuDeviceName="NVIDIA H200",GpuIndex="${i}",SessionName="session_2026-12-01_00-00-00_000000_1",ip="${n.ip}"} ${v}`);
    });
  };
  gauge('node_gpus_utilization', 'Total GPUs usage on a ray node', (g) => g.util);
  gauge('node_gram_used', 'Total GPU RAM usage on a ray node', (g) => g.memUsedMiB);
  gauge('node_gram_available', 'Total GPU RAM available on a ray node', (g) => (g.memTotalMiB ?? 143771) - g.memUsedMiB);
  lines.push('# HELP ray_node_cpu_utilization Total CPU usage on a ray node', '# TYPE ray_node_cpu_utilization gauge', `ray_node_cpu_utilization{SessionName="s",ip="${n.ip}"} 12.5`);
  return lines.join('\n') + '\n';
}

export async function startFakeRayDashboard(init: { nodes?: FakeNode[]; jobs?: FakeJob[]; summary?: boolean; metrics?: boolean } = {}): Promise<FakeRayDashboard> {
  const state = { nodes: init.nodes ?? fourNodeCluster(), jobs: init.jobs ?? [], requests: [] as string[] };
  const tails = new Map<string, Set<Duplex>>();
  const TERMINAL = new Set(['STOPPED', 'SUCCEEDED', 'FAILED']);
  const closeTails = (id: string) => {
    for (const sock of tails.get(id) ?? []) sock.end(wsFrame(0x8, Buffer.from([0x03, 0xe8])));
    tails.delete(id);
  };
  const endJob = (j: FakeJob, status: 'STOPPED' | 'SUCCEEDED' | 'FAILED', exitCode?: number) => {
    j.status = status;
    j.end_time = Date.now();
    if (exitCode !== undefined) j.driver_exit_code = exitCode;
    closeTails(j.submission_id);
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    state.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/api/prometheus/sd' && init.metrics) {
      return json(200, [{ labels: { job: 'ray' }, targets: metricsTargets }]);
    }
    if (req.method === 'GET' && url.pathname === '/nodes' && url.searchParams.get('view') === 'summary' && init.summary !== false) {
      return json(200, { result: true, msg: 'Node summary fetched.', data: { summary: state.nodes.map(nodeSummary), nodeLogicalResources: {} } });
    }
    if (req.method === 'GET' && (url.pathname === '/api/jobs/' || url.pathname === '/api/jobs')) return json(200, state.jobs.map(jobDetails));
    const sub = /^\/api\/jobs\/([^/]+)\/(logs|stop)$/.exec(url.pathname);
    if (sub) {
      const j = state.jobs.find((x) => x.submission_id === sub[1]);
      if (!j) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end(`Job ${sub[1]} does not exist`);
      }
      if (sub[2] === 'logs' && req.method === 'GET') return json(200, { logs: j.logs ?? '' });
      if (sub[2] === 'stop' && req.method === 'POST') {
        if (TERMINAL.has(j.status)) return json(200, { stopped: false });
        endJob(j, 'STOPPED');
        j.message = 'Job was intentionally stopped.';
        return json(200, { stopped: true });
      }
    }
    const one = /^\/api\/jobs\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const j = state.jobs.find((x) => x.submission_id === one[1]);
      if (!j) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end(`Job ${one[1]} does not exist`);
      }
      return json(200, jobDetails(j));
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('404: Not Found');
  });
  server.on('upgrade', (req, socket: Duplex) => {
    const url = new URL(req.url ?? '/', 'http://x');
    state.requests.push(`WS ${url.pathname}`);
    const m = /^\/api\/jobs\/([^/]+)\/logs\/tail$/.exec(url.pathname);
    const j = m ? state.jobs.find((x) => x.submission_id === m[1]) : undefined;
    const key = req.headers['sec-websocket-key'];
    if (!j || typeof key !== 'string') {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket.on('error', () => {});
    // Frames from the client (its close) need no answer beyond ending the socket.
    socket.on('data', (d: Buffer) => {
      if ((d[0]! & 0x0f) === 0x8) socket.end(wsFrame(0x8, Buffer.alloc(0)));
    });
    socket.on('close', () => tails.get(j.submission_id)?.delete(socket));
    if (j.logs) socket.write(wsFrame(0x1, Buffer.from(j.logs)));
    if (TERMINAL.has(j.status)) return void socket.end(wsFrame(0x8, Buffer.from([0x03, 0xe8])));
    let set = tails.get(j.submission_id);
    if (!set) tails.set(j.submission_id, (set = new Set()));
    set.add(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // Each node's metrics endpoint: its own server (a node's agent serves only its own gauges).
  const metricsServers: http.Server[] = [];
  const metricsTargets: string[] = [];
  if (init.metrics) {
    for (let k = 0; k < state.nodes.length; k++) {
      const ms = http.createServer((req, res) => {
        state.requests.push(`METRICS ${k} ${req.url}`);
        const n = state.nodes[k];
        if (req.url !== '/metrics' || !n) {
          res.writeHead(404);
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(nodeMetrics(n));
      });
      await new Promise<void>((r) => ms.listen(0, '127.0.0.1', r));
      metricsServers.push(ms);
      metricsTargets.push(`127.0.0.1:${(ms.address() as AddressInfo).port}`);
    }
  }
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get nodes() {
      return state.nodes;
    },
    set nodes(v) {
      state.nodes = v;
    },
    get jobs() {
      return state.jobs;
    },
    set jobs(v) {
      state.jobs = v;
    },
    requests: state.requests,
    metricsTargets,
    appendLog(id, text) {
      const j = state.jobs.find((x) => x.submission_id === id);
      if (!j) throw new Error(`no job ${id}`);
      j.logs = (j.logs ?? '') + text;
      for (const sock of tails.get(id) ?? []) sock.write(wsFrame(0x1, Buffer.from(text)));
    },
    endJob(id, status, exitCode) {
      const j = state.jobs.find((x) => x.submission_id === id);
      if (!j) throw new Error(`no job ${id}`);
      endJob(j, status, exitCode);
    },
    close: () =>
      new Promise((r) => {
        for (const id of [...tails.keys()]) closeTails(id);
        server.closeAllConnections?.();
        for (const ms of metricsServers) ms.close();
        server.close(() => r());
      }),
  };
}
