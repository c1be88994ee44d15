// Shipped tier: the built console watches and stops a run through Ray's Jobs REST API alone (no `ray` on PATH), as a
// laptop with an SSH tunnel to the head's dashboard does. The dashboard is the fake built from Ray's source
// (tests/fakes/rayDashboard.ts: JobDetails, JobLogsResponse, JobStopResponse, the logs/tail WebSocket).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { startConsole } from '../helpers/builtCli.js';
import { waitFor } from '../helpers/wait.js';
import { startFakeRayDashboard } from '../fakes/rayDashboard.js';

interface Doc {
  rollouts: { rollout: number }[];
  samples: { total: number };
  run: { phase: string };
}

async function simulatedRun(ws: string): Promise<{ log: string; text: string; jobId: string }> {
  const sim = path.join(ws, 'sim');
  const made = await runShipped(['simulate', sim, '--rollouts', '4', '--prompts', '2', '--json']);
  assert.equal(made.code, 0, explain(made));
  const log = path.join(sim, 'run.log');
  const text = await readFile(log, 'utf8');
  const jobId = /Job '(raysubmit_[A-Za-z0-9]+)' submitted successfully/.exec(text)?.[1];
  assert.ok(jobId, 'the simulated launcher output names its Ray job');
  return { log, text, jobId };
}

async function registryRun(ws: string, name: string, log: string): Promise<void> {
  const entry = path.join(ws, '.swegym-console', 'runs', name);
  await mkdir(entry, { recursive: true });
  await writeFile(
    path.join(entry, 'run.json'),
    JSON.stringify({
      version: 1,
      name,
      runName: 'swegym-qwen3.5-4b-claude-code-grpo-sync',
      // Launched on the head; this console is elsewhere (a laptop): no local process can say anything.
      host: 'gpu-node-0.cluster.example',
      createdAt: '2026-12-01T00:00:00.000Z',
      pid: 4242,
      pgid: 4242,
      command: { argv: ['bash', 'launch.sh'], cwd: ws },
      logFile: log,
      exitFile: path.join(entry, 'exit.json'),
      outputsLogDir: path.dirname(log),
      checkpointDir: path.join(ws, 'ckpt'),
      config: { explicit: {}, effective: {}, sources: {} },
      expectedEffectiveLines: [],
      status: 'running',
    }),
  );
}

test('shipped: with no `ray` here, monitor RAY_JOB reads the job log, follows its tail to the end, and train list/status/stop go through the Jobs API', { timeout: 180_000 }, async () => {
  const ws = await tempDir('swegym-shipped-rayapi-');
  const ray = await startFakeRayDashboard({ nodes: [] });
  try {
    const { log, text, jobId } = await simulatedRun(ws);
    const env = { SWEGYM_RAY_BIN: path.join(ws, 'no-ray-here'), SWEGYM_RAY_DASHBOARD: ray.url, RAY_ADDRESS: '' };
    const fromFile = JSON.parse((await runShipped(['monitor', log, '--once', '--json'])).out) as Doc;

    // --once: GET /api/jobs/{id}/logs, the same document as the file gives.
    ray.jobs = [{ submission_id: jobId, status: 'RUNNING', logs: text }];
    const once = await runShipped(['-w', ws, 'monitor', jobId, '--once', '--json'], { env });
    assert.equal(once.code, 0, explain(once));
    const doc = JSON.parse(once.out) as Doc;
    assert.deepEqual(doc.rollouts.map((r) => r.rollout), fromFile.rollouts.map((r) => r.rollout));
    assert.equal(doc.samples.total, fromFile.samples.total);
    assert.ok(ray.requests.includes(`GET /api/jobs/${jobId}/logs`), ray.requests.join('\n'));

    // Following: the tail WebSocket; half the log now, the rest later, then the job ends and so does the command.
    const cut = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
    ray.jobs = [{ submission_id: jobId, status: 'RUNNING', logs: text.slice(0, cut) }];
    const follow = startConsole(['-w', ws, 'monitor', jobId], env);
    await waitFor(() => ray.requests.includes(`WS /api/jobs/${jobId}/logs/tail`), { message: () => `no tail opened:\n${ray.requests.join('\n')}\n${follow.err()}` });
    await waitFor(() => /rollouts: \d+/.test(follow.out()), { message: () => `nothing printed: ${follow.out()} ${follow.err()}` });
    ray.appendLog(jobId, text.slice(cut));
    ray.endJob(jobId, 'SUCCEEDED', 0);
    const ended = await follow.exited;
    assert.equal(ended.code, 0, `${follow.out()}\n${follow.err()}`);
    const last = follow.out().trim().split('\n').pop() ?? '';
    assert.match(last, new RegExp(`rollouts: ${fromFile.rollouts.length} `), follow.out());
    assert.match(last, new RegExp(`samples: ${fromFile.samples.total} `));

    // A registry run launched on the head: its state is Ray's, and says so.
    const name = 'swegym-rayapi-20261201-000000';
    await registryRun(ws, name, log);
    ray.jobs = [{ submission_id: jobId, status: 'RUNNING', logs: text }];
    const list = await runShipped(['-w', ws, 'train', 'list', '--json'], { env });
    assert.equal(list.code, 0, explain(list));
    const runs = (JSON.parse(list.out) as { runs: { name: string; status: string; stateFrom: { kind: string; detail: string; rayJobId: string } }[] }).runs;
    assert.equal(runs[0]?.status, 'running');
    assert.equal(runs[0]?.stateFrom.kind, 'ray-api');
    assert.equal(runs[0]?.stateFrom.rayJobId, jobId);
    const listText = await runShipped(['-w', ws, 'train', 'list'], { env });
    assert.match(listText.out, new RegExp(`${name} +running .*\\(from Ray job ${jobId}\\)`));
    const status = await runShipped(['-w', ws, 'train', 'status', name], { env });
    assert.match(status.out, new RegExp(`state from Ray's Jobs API at ${ray.url.replace(/[.]/g, '\\.')}: job ${jobId} RUNNING`));

    const stop = await runShipped(['-w', ws, 'train', 'stop', name, '--yes', '--json'], { env });
    assert.equal(stop.code, 0, explain(stop));
    assert.deepEqual((JSON.parse(stop.out) as { rayJob: unknown }).rayJob, { id: jobId, ok: true, stopped: true, detail: `Ray stopped job ${jobId} (POST ${ray.url}/api/jobs/${jobId}/stop)` });
    assert.equal(ray.jobs[0]?.status, 'STOPPED');
    const after = JSON.parse((await runShipped(['-w', ws, 'train', 'list', '--json'], { env })).out) as { runs: { status: string }[] };
    assert.equal(after.runs[0]?.status, 'stopped');
    // By id, with no registry entry needed; a stopped job is "not running" (JobStopResponse stopped=false).
    const again = await runShipped(['-w', ws, 'train', 'stop', jobId, '--yes'], { env });
    assert.equal(again.code, 0, explain(again));
    assert.match(again.out, new RegExp(`Ray job ${jobId} was not running`));

    // No dashboard: the registry's view, and why not Ray's.
    await ray.close();
    const blind = await runShipped(['-w', ws, 'train', 'list'], { env });
    assert.equal(blind.code, 0, explain(blind));
    assert.match(blind.out, /\(from the registry only\)/);
    assert.match(blind.err, new RegExp(`Ray job ${jobId}: Ray's dashboard is not reachable at`));
    const noStop = await runShipped(['-w', ws, 'train', 'stop', jobId, '--yes'], { env });
    assert.equal(noStop.code, 3, explain(noStop));
    assert.match(noStop.err, /ssh -L 8265:127\.0\.0\.1:8265/);
  } finally {
    await ray.close().catch(() => {});
    await removeDir(ws);
  }
});
