import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { NumberRing } from '../../src/services/monitor/ring.js';
import { GpuMonitor, parseGpuCsv, gpuLevels, parseRayNodes, fetchRayNodes, NVIDIA_SMI_ARGS, GPU_FIELDS, cellNumber } from '../../src/services/monitor/gpu.js';

const FIX = path.join(import.meta.dirname, '..', 'fixtures', 'nvidia-smi');
const fixture = (name: string) => readFile(path.join(FIX, name), 'utf8');

test('the query the console runs is the one recorded in the fixtures', () => {
  assert.deepEqual(NVIDIA_SMI_ARGS, [`--query-gpu=${GPU_FIELDS.join(',')}`, '--format=csv,noheader,nounits']);
  assert.equal(GPU_FIELDS.join(','), 'index,uuid,name,utilization.gpu,utilization.memory,memory.total,memory.used,memory.free,temperature.gpu,power.draw,power.limit,clocks.sm,clocks.mem,fan.speed,pstate');
});

test('parses the real H200 output under load (reference recording)', async () => {
  const { gpus, problems } = parseGpuCsv(await fixture('query-common-load-nounits.csv'));
  assert.deepEqual(problems, []);
  assert.equal(gpus.length, 1);
  const g = gpus[0]!;
  assert.equal(g.index, 0);
  assert.equal(g.name, 'NVIDIA H200');
  assert.equal(g.uuid, 'GPU-1b475f8a-aea1-0936-3f6f-56fd2e33def8');
  assert.equal(g.util, 99);
  assert.equal(g.memUtil, 25);
  assert.equal(g.memTotal, 143771);
  assert.equal(g.memUsed, 42099);
  assert.equal(g.memFree, 101058);
  assert.equal(g.temp, 56);
  assert.equal(g.power, 689.87);
  assert.equal(g.powerLimit, 700);
  assert.equal(g.fan, undefined, '[N/A] on data-centre GPUs');
  assert.equal(g.pstate, 'P0');
  assert.deepEqual(gpuLevels(g), { temp: 'ok', mem: 'ok', util: 'ok', power: 'warn' });
});

test('parses the idle output checked live on an H200 with the exact argv, with and without units', async () => {
  const a = parseGpuCsv(await fixture('query-console-idle-nounits.csv'));
  const b = parseGpuCsv(await fixture('query-console-idle-units.csv'));
  assert.deepEqual(a.problems, []);
  assert.deepEqual(b.problems, []);
  assert.equal(a.gpus.length, 1);
  assert.equal(a.gpus[0]!.util, 0);
  assert.equal(a.gpus[0]!.memUsed, 0);
  assert.equal(a.gpus[0]!.temp, 31);
  assert.equal(gpuLevels(a.gpus[0]!).util, 'idle');
  // The unit-bearing form gives the same numbers (power sampled a moment later).
  const { power: _p1, ...restA } = a.gpus[0]!;
  const { power: _p2, ...restB } = b.gpus[0]!;
  assert.deepEqual(restA, restB);
  assert.equal(b.gpus[0]!.power, 122.76);
});

test('thresholds, malformed rows and N/A cells', () => {
  assert.equal(cellNumber('[Not Supported]'), undefined);
  assert.equal(cellNumber('N/A'), undefined);
  assert.equal(cellNumber('42099 MiB'), 42099);
  const hot = '3, GPU-x, NVIDIA H200, 100, 90, 143771, 142000, 1771, 91, 700.00, 700.00, 1980, 3201, [N/A], P0';
  const { gpus, problems } = parseGpuCsv(`${hot}\ngarbage line\n\n`);
  assert.equal(gpus.length, 1);
  assert.equal(problems.length, 1);
  assert.deepEqual(gpuLevels(gpus[0]!), { temp: 'fail', mem: 'fail', util: 'ok', power: 'warn' });
});

test('GpuMonitor keeps capped history; a missing nvidia-smi is reported, not thrown', async () => {
  const text = await fixture('query-common-load-nounits.csv');
  const m = new GpuMonitor(async () => ({ ok: true, stdout: text }), { historyLength: 5 });
  for (let i = 0; i < 12; i++) await m.pollOnce();
  assert.equal(m.history.get(0)?.util.size, 5);
  assert.equal(m.history.get(0)?.util.last(), 99);
  assert.ok(Math.abs((m.history.get(0)?.mem.last() ?? 0) - (42099 / 143771) * 100) < 1e-9);
  const missing = new GpuMonitor(async () => ({ ok: false, stdout: '', error: 'nvidia-smi not found on this node' }));
  await missing.pollOnce();
  assert.equal(missing.error, 'nvidia-smi not found on this node');
  assert.deepEqual(missing.latest, []);
});

test('sparkline buckets: aligned to the push count, so a full bucket never changes and only the newest one grows', () => {
  const r = new NumberRing(12);
  const means: number[][] = [];
  for (let v = 1; v <= 17; v++) {
    r.push(v === 9 ? NaN : v);
    means.push(r.bucketMeans(5));
  }
  // Pushes 1..5 → bucket 0, 6..10 → bucket 1 (9 is NaN, skipped), 11..15 → bucket 2, 16..17 → bucket 3 (partial).
  assert.deepEqual(means[4], [3]);
  assert.deepEqual(means[5], [3, 6]);
  // The ring keeps pushes 6..17: bucket 0 is gone, bucket 1 is whole again (6, 7, 8, NaN, 10).
  assert.deepEqual(means[16], [7.75, 13, 16.5]);
  // Between bucket boundaries only the last value moves.
  for (let i = 12; i < 14; i++) assert.deepEqual(means[i]!.slice(0, -1), means[i + 1]!.slice(0, -1));
  // Once the ring has dropped part of the oldest bucket, that bucket is left out rather than shown short.
  const cut = new NumberRing(12);
  for (let v = 1; v <= 14; v++) cut.push(v);
  assert.deepEqual(cut.bucketMeans(5), [8, 12.5]);
  assert.deepEqual(new NumberRing(4).bucketMeans(5), []);
});

test('Ray dashboard node list: parsed defensively; unreachable is an error value', async () => {
  const nodes = parseRayNodes({ result: true, msg: '', data: { result: { total: 2, result: [
    { node_id: 'a1', node_ip: '10.0.0.1', state: 'ALIVE', is_head_node: true, node_name: 'head', resources_total: { GPU: 8, CPU: 128 } },
    { node_id: 'b2', node_ip: '10.0.0.2', state: 'DEAD', is_head_node: false, node_name: 'w1', resources_total: { CPU: 128 } },
  ] } } });
  assert.deepEqual(nodes.map((n) => [n.ip, n.state, n.isHead, n.gpus]), [['10.0.0.1', 'ALIVE', true, 8], ['10.0.0.2', 'DEAD', false, undefined]]);
  assert.deepEqual(parseRayNodes({ nonsense: 1 }), []);
  const r = await fetchRayNodes('http://127.0.0.1:1', { timeoutMs: 500 });
  assert.equal(r.ok, false);
});
