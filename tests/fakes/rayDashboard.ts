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
// Everything else answers 404 as aiohttp does for an unknown route.
import http from 'node:http';
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
}

export interface FakeRayDashboard {
  url: string;
  nodes: FakeNode[];
  jobs: FakeJob[];
  requests: string[];
  close(): Promise<void>;
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

export async function startFakeRayDashboard(init: { nodes?: FakeNode[]; jobs?: FakeJob[] } = {}): Promise<FakeRayDashboard> {
  const state = { nodes: init.nodes ?? fourNodeCluster(), jobs: init.jobs ?? [], requests: [] as string[] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    state.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/nodes' && url.searchParams.get('view') === 'summary') {
      return json(200, { result: true, msg: 'Node summary fetched.', data: { summary: state.nodes.map(nodeSummary), nodeLogicalResources: {} } });
    }
    if (req.method === 'GET' && (url.pathname === '/api/jobs/' || url.pathname === '/api/jobs')) return json(200, state.jobs.map(jobDetails));
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
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
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
    close: () => new Promise((r) => server.close(() => r())),
  };
}
