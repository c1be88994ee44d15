// Hang signatures in the log (torch's ProcessGroupNCCL: watchdog timeout, heartbeat monitor, NCCL errors): classified
// with the rank and the node (the Ray prefix's ip), summed per signature into one alert beside the stall alert, gone
// once the run logs progress again (hangs.shipped.test.ts: `monitor --once --json` through the built binary).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLine } from '../../src/services/monitor/lines.js';
import { RunModel } from '../../src/services/monitor/runModel.js';
import { computeAlerts } from '../../src/services/monitor/alerts.js';
import { runLogText } from './runFixtures.js';
import { rolloutLines } from './builders.js';
import { olderWatchdog, watchdog } from './hangLines.js';

test('torch\'s NCCL hang lines are classified with their rank and node', () => {
  const a = parseLine(watchdog(3, '10.0.0.2')).event;
  assert.deepEqual(a && a.kind === 'hang' ? { s: a.signature, r: a.rank, n: a.node, d: a.detail } : a, { s: 'nccl-watchdog-timeout', r: 3, n: '10.0.0.2', d: 'ALLREDUCE SeqNum=1234 ran 600 s (timeout 600 s)' });
  const b = parseLine(olderWatchdog).event;
  assert.deepEqual(b && b.kind === 'hang' ? [b.rank, b.node, b.detail] : b, [7, '10.0.0.3', '_ALLGATHER_BASE SeqNum=88 ran 1800 s (timeout 1800 s)']);
  const c = parseLine('(MegatronTrainRayActor pid=1, ip=10.0.0.4) [rank0]:[E1201 10:45:00.000000000 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=2').event;
  assert.deepEqual(c && c.kind === 'hang' ? [c.signature, c.rank, c.node] : c, ['nccl-heartbeat-timeout', 0, '10.0.0.4']);
  const d = parseLine('(MegatronTrainRayActor pid=1, ip=10.0.0.5) torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, remote process exited or there was a network error, NCCL version 2.21.5').event;
  assert.deepEqual(d && d.kind === 'hang' ? [d.signature, d.node, d.detail] : d, ['nccl-error', '10.0.0.5', 'remote process exited or there was a network error']);
  // Not a hang: NCCL's own benign start-up chatter, an env setting echoed.
  assert.equal(parseLine('node-1:12:12 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so').event, undefined);
  assert.equal(parseLine('export TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=1800').event, undefined);
});

test('one alert per signature naming every rank and node, beside the stall alert; progress afterwards clears it', () => {
  const m = new RunModel();
  for (const l of runLogText(1).split('\n')) m.ingestLine(l);
  for (const [rank, ip] of [[0, '10.0.0.2'], [3, '10.0.0.2'], [9, '10.0.0.3']] as const) m.ingestLine(watchdog(rank, ip));
  const alerts = computeAlerts({ model: m, now: Date.now(), live: true });
  const hang = alerts.filter((a) => a.id.startsWith('hang-'));
  assert.equal(hang.length, 1, JSON.stringify(alerts));
  assert.equal(hang[0]?.level, 'fail');
  assert.match(hang[0]?.text ?? '', /^NCCL watchdog timeout on ranks 0, 3, 9 on nodes 10\.0\.0\.2, 10\.0\.0\.3 at 10:15:32 \(12-01\): ALLREDUCE SeqNum=1234 ran 600 s \(timeout 600 s\)/);
  for (const l of rolloutLines(1, 128)) m.ingestLine(l);
  assert.deepEqual(computeAlerts({ model: m, now: Date.now(), live: true }).filter((a) => a.id.startsWith('hang-')), []);
});
