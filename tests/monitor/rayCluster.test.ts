// The whole cluster and the run's job from the Ray dashboard (a fake that answers as Ray's code does), through the
// real sources and the monitor service; and the liveness of a registry run whose writer is killed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fetchClusterGpus, fetchRayJobStatus, rayDashboardUrlFrom } from '../../src/services/monitor/rayCluster.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { startFakeRayDashboard } from '../fakes/rayDashboard.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { loopbackFetch, registerRun, runLogText, startWriter } from './runFixtures.js';

const noGpu = async () => ({ ok: false, stdout: '', error: 'nvidia-smi not found on this node' });

test('Ray dashboard: every node with its GPUs (head first), MiB and % as the reporter agent gives them', async () => {
  const ray = await startFakeRayDashboard();
  try {
    // A worker node down: still listed, with its state.
    ray.nodes[3]!.state = 'DEAD';
    const r = await fetchClusterGpus(ray.url + '/');
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(ray.requests, ['GET /nodes?view=summary']);
    assert.deepEqual(r.value.map((n) => [n.hostname, n.ip, n.isHead, n.state, n.gpus.length]), [
      ['gpu-node-0', '10.1.0.10', true, 'ALIVE', 8],
      ['gpu-node-1', '10.1.0.11', false, 'ALIVE', 8],
      ['gpu-node-2', '10.1.0.12', false, 'ALIVE', 8],
      ['gpu-node-3', '10.1.0.13', false, 'DEAD', 8],
    ]);
    const g = r.value[1]!.gpus[2]!;
    assert.deepEqual({ i: g.index, u: g.util, used: g.memUsed, total: g.memTotal, free: g.memFree, t: g.temp, p: g.power, lim: g.powerLimit, name: g.name }, { i: 2, u: 93, used: 120_200, total: 143771, free: 23571, t: 57, p: 601, lim: 700, name: 'NVIDIA H200' });
    // utilizationGpu may be null (a GPU that does not report it): unknown, not 0.
    ray.nodes[0]!.gpus[0]!.util = null;
    const again = await fetchClusterGpus(ray.url);
    assert.equal(again.ok && again.value[0]!.gpus[0]!.util, undefined);
  } finally {
    await ray.close();
  }
  // Down: a value that says where it looked.
  const down = await fetchClusterGpus('http://127.0.0.1:1');
  assert.equal(down.ok, false);
  assert.match(!down.ok ? down.error : '', /Ray dashboard not reachable at http:\/\/127\.0\.0\.1:1/);
  assert.equal(rayDashboardUrlFrom({ RAY_ADDRESS: 'http://head:8265' }), 'http://head:8265');
  assert.equal(rayDashboardUrlFrom({ RAY_ADDRESS: 'auto' }), 'http://127.0.0.1:8265');
});

test('Ray jobs API: the named job, else the newest submission; status and driver_exit_code', async () => {
  const ray = await startFakeRayDashboard({
    jobs: [
      { submission_id: 'raysubmit_old', status: 'SUCCEEDED', driver_exit_code: 0, start_time: 1 },
      { submission_id: 'raysubmit_new', status: 'FAILED', driver_exit_code: 1, message: 'Job entrypoint command failed with exit code 1', start_time: 2 },
    ],
  });
  try {
    const named = await fetchRayJobStatus(ray.url, 'raysubmit_old');
    assert.deepEqual(named.ok && named.value, { id: 'raysubmit_old', status: 'SUCCEEDED', exitCode: 0, message: undefined });
    const newest = await fetchRayJobStatus(ray.url, undefined);
    assert.deepEqual(newest.ok && newest.value, { id: 'raysubmit_new', status: 'FAILED', exitCode: 1, message: 'Job entrypoint command failed with exit code 1' });
    const none = await fetchRayJobStatus(ray.url, 'raysubmit_missing');
    assert.equal(none.ok && none.value, undefined);
  } finally {
    await ray.close();
  }
});

test('the monitor shows the whole cluster grouped by node from Ray, and this node labelled as such without it', async () => {
  const ws = await tempDir();
  const ray = await startFakeRayDashboard({ jobs: [{ submission_id: 'raysubmit_run', status: 'RUNNING' }] });
  try {
    const log = path.join(ws, 'run.log');
    await writeFile(log, runLogText(2));
    const svc = new MonitorService({ paths: recipePaths(ws), store: createMonitorStore(), fetchImpl: loopbackFetch, rayDashboardUrl: ray.url, gpuRunner: noGpu, refreshMs: 20, pollMs: { log: 50, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 50, cluster: 50, writer: 50 } });
    try {
      await svc.open(log);
      await waitFor(() => (svc.store.getState().snapshot?.gpuPanel.nodes.length ?? 0) === 4 && (svc.store.getState().snapshot?.gpuPanel.nodes[0]?.gpus[0]?.util.length ?? 0) > 0, { timeoutMs: 10_000 });
      const p = svc.store.getState().snapshot!.gpuPanel;
      assert.equal(p.source, 'ray');
      assert.equal(p.label, 'Ray cluster · 4 nodes · 32 GPUs · via node summary');
      assert.deepEqual(p.nodes.map((n) => [n.label, n.isHead]), [['gpu-node-0', true], ['gpu-node-1', false], ['gpu-node-2', false], ['gpu-node-3', false]]);
      // A hot GPU and a lost worker node, on other nodes than this one: alerts name the node.
      ray.nodes[2]!.gpus[5]!.temp = 91;
      ray.nodes[3]!.state = 'DEAD';
      await waitFor(() => (svc.store.getState().snapshot?.alerts ?? []).some((a) => a.text === 'GPU 5 of gpu-node-2 at 91°C'), { timeoutMs: 10_000 });
      assert.ok(svc.store.getState().snapshot!.alerts.some((a) => a.level === 'fail' && a.text === 'Ray node gpu-node-3 is DEAD'));
      // The job went to FAILED on Ray: crashed, whatever the log says.
      ray.jobs = [{ submission_id: 'raysubmit_run', status: 'FAILED', message: 'actor died' }];
      await waitFor(() => svc.store.getState().snapshot?.header.liveness?.state === 'crashed', { timeoutMs: 10_000 });
      assert.match(svc.store.getState().snapshot!.header.liveness!.why, /Ray job raysubmit_run FAILED: actor died/);
    } finally {
      await svc.close();
    }
    // No Ray dashboard: this node's GPUs (here none), and the panel says what was tried.
    const alone = new MonitorService({ paths: recipePaths(ws), store: createMonitorStore(), fetchImpl: loopbackFetch, rayDashboardUrl: 'http://127.0.0.1:1', gpuRunner: noGpu, refreshMs: 20, pollMs: { log: 50, gpu: 50, proxy: 60_000, sandboxes: 60_000, ray: 60_000, cluster: 50, writer: 50 } });
    try {
      await alone.open(log);
      await waitFor(() => /Ray dashboard not reachable/.test(alone.store.getState().snapshot?.gpuPanel.note ?? ''), { timeoutMs: 10_000 });
      const p = alone.store.getState().snapshot!.gpuPanel;
      assert.equal(p.source, 'nvidia-smi');
      assert.match(p.label, /^this node \(.+, nvidia-smi\) only$/);
      assert.match(p.note!, /nvidia-smi not found/);
    } finally {
      await alone.close();
    }
  } finally {
    await ray.close();
    await removeDir(ws);
  }
});

test('a registry run whose launcher is killed: running, then crashed within the writer poll; no ETA once not running', async () => {
  const ws = await tempDir();
  const paths = recipePaths(ws);
  const writer = startWriter();
  try {
    const log = path.join(ws, 'launch.log');
    await writeFile(log, runLogText(3));
    await registerRun(paths, { name: 'swegym-test-20261201-100000', logFile: log, writer });
    const svc = new MonitorService({ paths, store: createMonitorStore(), fetchImpl: loopbackFetch, rayDashboardUrl: 'http://127.0.0.1:1', gpuRunner: noGpu, refreshMs: 20, pollMs: { log: 50, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 60_000, cluster: 60_000, writer: 50 } });
    try {
      // Opened by the log's path: the registry entry that launched it is found.
      await svc.open(log);
      await waitFor(() => svc.store.getState().snapshot?.header.liveness !== undefined, { timeoutMs: 10_000 });
      let h = svc.store.getState().snapshot!.header;
      assert.equal(h.liveness!.state, 'running', h.liveness!.why);
      assert.match(h.liveness!.why, /the launcher is running/);
      assert.ok(h.etaSec !== undefined && h.etaSec > 0, 'an ETA while running');
      process.kill(-writer.pid!, 'SIGKILL');
      await waitFor(() => svc.store.getState().snapshot?.header.liveness?.state === 'crashed', { timeoutMs: 10_000 });
      h = svc.store.getState().snapshot!.header;
      assert.match(h.liveness!.why, new RegExp(`pid ${writer.pid}\\) is gone and left no exit code`));
      assert.equal(h.etaSec, undefined);
      assert.ok(svc.store.getState().snapshot!.alerts.some((a) => a.id === 'crashed' && a.level === 'fail'));
    } finally {
      await svc.close();
    }
  } finally {
    try {
      process.kill(-writer.pid!, 'SIGKILL');
    } catch {}
    await removeDir(ws);
  }
});

test('a static log nobody writes any more (no registry entry, days old): stalled, never running, and no ETA', async () => {
  const ws = await tempDir();
  try {
    const log = path.join(ws, 'old-run.log');
    await writeFile(log, runLogText(3));
    const old = new Date(Date.now() - 3 * 24 * 3_600_000);
    await utimes(log, old, old);
    const svc = new MonitorService({ paths: recipePaths(ws), store: createMonitorStore(), fetchImpl: loopbackFetch, rayDashboardUrl: 'http://127.0.0.1:1', gpuRunner: noGpu, refreshMs: 20, pollMs: { log: 50, gpu: 60_000, proxy: 60_000, sandboxes: 60_000, ray: 60_000, cluster: 60_000, writer: 50 } });
    try {
      await svc.open(log);
      const s = svc.store.getState().snapshot!;
      assert.equal(s.header.liveness?.state, 'stalled');
      assert.match(s.header.liveness!.why, /no new line for 3 d .*no writer known/);
      assert.equal(s.header.etaSec, undefined);
      assert.ok(s.alerts.some((a) => a.id === 'no-progress' && /^stalled: no new line for 3 d/.test(a.text)), JSON.stringify(s.alerts));
    } finally {
      await svc.close();
    }
  } finally {
    await removeDir(ws);
  }
});

test("Ray without the private node summary: the GPUs from Ray's Prometheus metrics (service discovery, or SWEGYM_RAY_METRICS), and the panel says so", async () => {
  const ray = await startFakeRayDashboard({ summary: false, metrics: true });
  try {
    const r = await fetchClusterGpus(ray.url, { env: {} });
    assert.ok(r.ok, JSON.stringify(r));
    assert.match(r.via ?? '', /^Prometheus 4\/4$/);
    assert.ok(ray.requests.includes('GET /nodes?view=summary') && ray.requests.includes('GET /api/prometheus/sd'), ray.requests.join('\n'));
    assert.deepEqual(r.value.map((n) => [n.ip, n.gpus.length]), [['10.1.0.10', 8], ['10.1.0.11', 8], ['10.1.0.12', 8], ['10.1.0.13', 8]]);
    // The same numbers as the summary gives for that GPU (util %, MiB used, total = used + available).
    const g = r.value[1]!.gpus[2]!;
    assert.deepEqual({ i: g.index, u: g.util, used: g.memUsed, total: g.memTotal, name: g.name }, { i: 2, u: 93, used: 120_200, total: 143771, name: 'NVIDIA H200' });
    // Named endpoints (a laptop's tunnels): one of them down is said, the others used.
    const named = await fetchClusterGpus('http://127.0.0.1:1', { env: { SWEGYM_RAY_METRICS: `${ray.metricsTargets[0]}, http://${ray.metricsTargets[1]}/metrics,127.0.0.1:1` } });
    assert.ok(named.ok, JSON.stringify(named));
    assert.equal(named.value.length, 2);
    assert.match(named.via ?? '', /^Prometheus 2\/3 \(1 not reachable\)$/);
  } finally {
    await ray.close();
  }
  const none = await fetchClusterGpus('http://127.0.0.1:1', { env: {} });
  assert.equal(none.ok, false);
  assert.match(!none.ok ? none.error : '', /Ray dashboard not reachable at http:\/\/127\.0\.0\.1:1.*; no Prometheus metrics either/);
});

test('parsePrometheusText: labels with escapes, comments, timestamps, NaN; malformed lines skipped', async () => {
  const { parsePrometheusText } = await import('../../src/services/ray/prometheus.js');
  const text = ['# HELP x y', '# TYPE x gauge', 'a{ip="1.2.3.4",q="say \\"hi\\"\\\\n"} 1.5 1700000000000', 'b 2', 'c{} NaN', 'd{x="1"} +Inf', 'garbage here', 'e{x="1" 3'].join('\n');
  const s = parsePrometheusText(text);
  assert.deepEqual(s.map((x) => [x.name, x.labels, x.value]), [
    ['a', { ip: '1.2.3.4', q: 'say "hi"\\n' }, 1.5],
    ['b', {}, 2],
    ['c', {}, NaN],
    ['d', { x: '1' }, Infinity],
  ]);
});
