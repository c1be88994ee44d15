// E2B's own per-sandbox metrics (GET /sandboxes/{id}/metrics, the SDK's Sandbox.getMetrics) against the fake E2B
// service: `sandboxes list` of the built console shows each sandbox's CPU and memory (a sandbox whose memory ran to
// its total says so) and the E2B CLI's own commands; the dashboard's sandbox drill-in shows the same and, once the
// sandbox is gone, whether it reached its timeout or ended before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { E2bProvider } from '../../src/services/sandbox/e2b.js';
import { MonitorService } from '../../src/services/monitor/session.js';
import { createMonitorStore } from '../../src/state/monitor.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { waitFor } from '../helpers/wait.js';
import { loopbackFetch, runLogText } from '../monitor/runFixtures.js';
import { drillLines } from '../../src/screens/dashboard/DrillIn.js';

const GiB = 2 ** 30;
const metric = (t: number, memUsed: number, cpu: number) => ({ timestampUnix: t, cpuCount: 2, cpuUsedPct: cpu, memUsed, memTotal: 2 * GiB, memCache: 0, diskUsed: GiB, diskTotal: 10 * GiB });

test('shipped: sandboxes list shows E2B metrics per sandbox and the E2B CLI equivalents', { timeout: 120_000 }, async () => {
  const fake = await startFakeE2b({ templates: ['tpl'] });
  const ws = await tempDir('swegym-e2b-metrics-');
  try {
    const provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url });
    const sbx = await provider.create({ template: 'tpl', timeoutMs: 60_000 });
    const now = Math.floor(Date.now() / 1000);
    fake.sandboxes.get(sbx.id)!.metrics = [metric(now - 10, 1.99 * GiB, 90), metric(now - 5, 1.2 * GiB, 35)];
    const env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url };
    const r = await runShipped(['sandboxes', 'list', '-w', ws, '--provider', 'e2b'], { env });
    assert.equal(r.code, 0, explain(r));
    assert.match(r.out, new RegExp(`${sbx.id} .* cpu 35% of 2 · mem 1\\.2G/2\\.0G \\(peak 100%\\) · ran out of memory\\?`));
    assert.match(r.out, /^by hand: e2b sandbox list --metadata swegym_console=1 {3}· {3}e2b sandbox kill --all --metadata swegym_console=1$/m);
    assert.ok(fake.requests.some((q) => q.method === 'GET' && q.path === `/sandboxes/${sbx.id}/metrics`), 'the metrics came from the API');
    const j = await runShipped(['sandboxes', 'list', '-w', ws, '--provider', 'e2b', '--json'], { env });
    const doc = JSON.parse(j.out) as { sandboxes: { id: string; usage: { cpuPct: number; memUsed: number; memPeak: number; nearMemLimit: boolean } }[]; e2bCli: { list: string } };
    assert.deepEqual(doc.sandboxes.map((s) => [s.id, s.usage.cpuPct, s.usage.memUsed, s.usage.memPeak, s.usage.nearMemLimit]), [[sbx.id, 35, 1.2 * GiB, 1.99 * GiB, true]]);
    assert.equal(doc.e2bCli.list, 'e2b sandbox list --metadata swegym_console=1');
    await sbx.kill();
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});

test('dashboard drill-in: E2B CPU/memory of the followed sandbox, then "ended before its timeout" once it is killed early', { timeout: 60_000 }, async () => {
  const fake = await startFakeE2b({ templates: ['tpl'] });
  const ws = await tempDir('swegym-e2b-drill-');
  const provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url });
  const svc = new MonitorService({ paths: recipePaths(ws), store: createMonitorStore(), fetchImpl: loopbackFetch, rayDashboardUrl: 'http://127.0.0.1:1', gpuRunner: async () => ({ ok: false, stdout: '', error: 'none' }), provider: async () => provider, refreshMs: 20 });
  try {
    const log = path.join(ws, 'run.log');
    await writeFile(log, runLogText(2));
    // Dressage's agent sandbox (its metadata), an hour of lifetime left.
    const sbx = await provider.create({ template: 'tpl', timeoutMs: 3_600_000, metadata: { paddock_mode: 'blackbox', trajectory_id: 'bbs-1234' } });
    const now = Math.floor(Date.now() / 1000);
    fake.sandboxes.get(sbx.id)!.metrics = [metric(now, 0.5 * GiB, 12)];
    await svc.open(log, { live: false });
    await svc.pollSandboxes();
    await svc.followSandbox(sbx.id);
    await waitFor(() => svc.store.getState().snapshot?.sandboxStream?.usage !== undefined, { timeoutMs: 10_000, message: () => JSON.stringify(svc.store.getState().snapshot?.sandboxStream) });
    assert.equal(svc.store.getState().snapshot!.sandboxStream!.usage, 'cpu 12% of 2 · mem 0.5G/2.0G (peak 25%)');
    const text = () => {
      const d = drillLines(svc.store.getState().snapshot!, svc.store.getState(), 'sandboxes', 160);
      return [...d.pinned, ...d.body].map((l) => l.text).join('\n');
    };
    assert.match(text(), /^ {2}E2B: cpu 12% of 2 · mem 0\.5G\/2\.0G \(peak 25%\)$/m);
    // Killed long before its endAt (as an eviction or a kill looks from outside).
    await sbx.kill();
    await svc.pollSandboxes();
    await svc.pollStream();
    svc.publish(true);
    await waitFor(() => svc.store.getState().snapshot?.sandboxStream?.ending !== undefined, { timeoutMs: 10_000 });
    assert.match(svc.store.getState().snapshot!.sandboxStream!.ending!, /^ended (59|60) min before its timeout: killed \(sample finished, or by hand\) or evicted$/);
    assert.match(text(), /^ {2}ended (59|60) min before its timeout/m);
  } finally {
    await svc.close();
    await fake.close();
    await removeDir(ws);
  }
});
