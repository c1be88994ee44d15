// The detached launch and the run registry: the launcher outlives the console (SIGKILL of the console process,
// SIGHUP to its process group, the headless CLI exiting), and the registry derives exited / stopped / lost /
// starting / running from process liveness and the wrapper's exit file. Secrets never reach the registry or logs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildLaunchPlan, launchDetached } from '../../src/services/train/launch.js';
import { runLaunchChecks } from '../../src/services/train/checks.js';
import { findActiveRuns, findLatestCheckpoint, findRun, isGroupAlive, listRuns, readRun, runStatus, writeRun, type RunRecord } from '../../src/services/train/registry.js';
import { stopRun } from '../../src/services/train/stop.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { isProcessAlive } from '../../src/services/workspace/lock.js';
import { waitFor } from '../helpers/wait.js';
import { BIN } from '../helpers/shipped.js';
import { removeDir } from '../helpers/workspace.js';
import { NODE, REPO, SECRET, killGroupIfOurs, trainWorkspace, type TrainWorkspace } from './helpers.js';

const dirs: string[] = [];
const groups: { pgid?: number; procStart?: string }[] = [];
after(async () => {
  for (const g of groups) await killGroupIfOurs(g.pgid, g.procStart);
  for (const d of dirs) await removeDir(d);
});

async function workspace(): Promise<TrainWorkspace> {
  const w = await trainWorkspace();
  dirs.push(w.root);
  return w;
}

async function launch(w: TrainWorkspace, extra: NodeJS.ProcessEnv, log = new CommandLog()): Promise<RunRecord> {
  const plan = buildLaunchPlan({ paths: w.paths, env: { ...w.env, ...extra } });
  const checks = await runLaunchChecks(plan, { skipRay: true });
  const run = await launchDetached(plan, { checks, log });
  groups.push({ pgid: run.pgid, procStart: run.procStart });
  return run;
}

async function status(w: TrainWorkspace, name: string) {
  const rec = await readRun(w.paths, name);
  assert.ok(rec);
  return runStatus(w.paths, rec);
}

async function logText(run: RunRecord): Promise<string> {
  return readFile(run.logFile, 'utf8').catch(() => '');
}

function countMatches(text: string, re: RegExp): number {
  return text.split('\n').filter((l) => re.test(l)).length;
}

const TIMEOUT = 60_000;

test('a run that ends is "exited" with the launcher exit code, recorded by the wrapper; the log has the documented lines', { timeout: TIMEOUT }, async () => {
  const w = await workspace();
  const log = new CommandLog();
  const run = await launch(w, { FAKE_LAUNCHER_ROLLOUTS: '2', FAKE_LAUNCHER_SAMPLES: '3', FAKE_LAUNCHER_EXIT_CODE: '3', SAVE_INTERVAL: '1' }, log);
  assert.equal(run.status, 'starting');
  assert.ok(run.pid && run.pgid === run.pid);
  await waitFor(async () => (await status(w, run.name)).status === 'exited', { timeoutMs: 30_000 });
  const v = await status(w, run.name);
  assert.equal(v.exitCode, 3);
  const text = await logText(run);
  assert.equal(countMatches(text, /^effective_/), 5);
  assert.equal(countMatches(text, /SWE-Gym reward=/), 6);
  assert.match(text, /step 1: \{'train\/loss'/);
  assert.match(text, /\[swegym-console\] launcher exited with code 3/);
  // The console recorded the detached process, secrets masked.
  const entries = log.entries();
  assert.equal(entries.length, 1);
  assert.equal(entries[0]?.status, 'detached');
  assert.deepEqual(entries[0]?.argv, ['bash', w.paths.launcherScript]);
  // Registry: config redacted, paths recorded.
  const raw = await readFile(path.join(w.paths.runsDir, run.name, 'run.json'), 'utf8');
  assert.ok(!raw.includes(SECRET), 'secret in run.json');
  const rec = JSON.parse(raw) as RunRecord;
  assert.equal(rec.config.effective.DRESSAGE_E2B_API_KEY, '****');
  // The log's inode as the launcher got it: monitor --once --json tells a file put over it later (log_since_record).
  const logStat = await stat(run.logFile);
  assert.deepEqual([rec.logInode, rec.logDevice], [logStat.ino, logStat.dev]);
  assert.equal(rec.outputsLogDir, path.join(w.root, 'outputs', 'logs', 'swegym-qwen3.5-4b-claude-code-grpo-sync'));
  assert.equal(rec.checkpointDir, path.join(w.root, 'outputs', 'checkpoints', 'swegym-qwen3.5-4b-claude-code-grpo-sync'));
  assert.ok(!text.includes(SECRET), 'secret in the run log');
  // Checkpoints appear like Megatron's, and resume is offered from the latest.
  const ckpt = await findLatestCheckpoint(rec.checkpointDir);
  assert.equal(ckpt?.step, 1);
  assert.equal(ckpt?.source, 'tracker');
});

test('starting until progress shows, then running; stop TERMs the group (proxy child included) and records "stopped"', { timeout: TIMEOUT }, async () => {
  const w = await workspace();
  const run = await launch(w, { FAKE_LAUNCHER_ROLLOUTS: '0', FAKE_LAUNCHER_HOLD: '1' });
  await waitFor(async () => countMatches(await logText(run), /^Current Ray node count/) > 0, { timeoutMs: 30_000 });
  let v = await status(w, run.name);
  assert.equal(v.status, 'starting');
  assert.deepEqual((await findActiveRuns(w.paths)).map((r) => r.name), [run.name]);
  const proxyPidFile = path.join(w.root, 'outputs', 'logs', 'swegym-qwen3.5-4b-claude-code-grpo-sync', 'proxy', 'swegym-qwen3.5-4b-claude-code-grpo-sync.pid');
  const proxyPid = Number((await readFile(proxyPidFile, 'utf8')).trim());
  assert.ok(isProcessAlive(proxyPid));

  const r = await stopRun(w.paths, run.name, { graceMs: 20_000 });
  assert.equal(r.signal, 'TERM');
  assert.equal(r.run.status, 'stopped');
  assert.equal(isGroupAlive(run.pgid!), false);
  assert.equal(isProcessAlive(proxyPid), false, 'the launcher trap killed its proxy');
  v = await status(w, run.name);
  assert.equal(v.status, 'stopped');
  assert.deepEqual(await findActiveRuns(w.paths), []);

  const w2 = await workspace();
  const run2 = await launch(w2, { FAKE_LAUNCHER_ROLLOUTS: '1', FAKE_LAUNCHER_SAMPLES: '2', FAKE_LAUNCHER_HOLD: '1' });
  await waitFor(async () => (await status(w2, run2.name)).status === 'running', { timeoutMs: 30_000 });
  assert.ok(JSON.parse(await readFile(path.join(w2.paths.runsDir, run2.name, 'status.json'), 'utf8')).progressAt, 'progress persisted');
  await stopRun(w2.paths, run2.name, { graceMs: 20_000 });
});

test('a launcher that ignores TERM gets KILL after the grace period', { timeout: TIMEOUT }, async () => {
  const w = await workspace();
  // A launcher that traps TERM and keeps going.
  const { writeFile } = await import('node:fs/promises');
  await writeFile(w.paths.launcherScript, "#!/bin/bash\ntrap 'echo ignoring TERM' TERM\necho started\nwhile :; do sleep 0.2; done\n");
  const run = await launch(w, {});
  await waitFor(async () => (await logText(run)).includes('started'), { timeoutMs: 30_000 });
  const r = await stopRun(w.paths, run.name, { graceMs: 500 });
  assert.equal(r.signal, 'KILL');
  assert.equal(r.run.status, 'stopped');
  assert.equal(isGroupAlive(run.pgid!), false);
});

test('a run whose processes vanish without an exit file is "lost"', { timeout: TIMEOUT }, async () => {
  const w = await workspace();
  const run = await launch(w, { FAKE_LAUNCHER_ROLLOUTS: '0', FAKE_LAUNCHER_HOLD: '1' });
  await waitFor(async () => (await logText(run)).includes('effective_grpo'), { timeoutMs: 30_000 });
  process.kill(-run.pgid!, 'SIGKILL');
  await waitFor(() => !isGroupAlive(run.pgid!), { timeoutMs: 10_000 });
  const v = await status(w, run.name);
  assert.equal(v.status, 'lost');
  assert.equal(JSON.parse(await readFile(path.join(w.paths.runsDir, run.name, 'status.json'), 'utf8')).status, 'lost', 'persisted');
});

function startConsoleChild(w: TrainWorkspace, extra: NodeJS.ProcessEnv): { child: ChildProcess; first: Promise<{ name: string; pid: number; pgid: number }> } {
  const child = spawn(NODE, ['--import', 'tsx', path.join(REPO, 'tests', 'fakes', 'trainLaunchChild.ts'), w.root], {
    cwd: REPO,
    env: { ...w.env, ...extra, PATH: `${path.dirname(NODE)}:${w.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, like a shell job in a terminal: a hangup is delivered to the whole group.
    detached: true,
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const first = new Promise<{ name: string; pid: number; pgid: number }>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.on('exit', (code) => reject(new Error(`console child exited ${code}: ${err}`)));
  });
  return { child, first };
}

for (const how of ['SIGKILL of the console process', 'SIGHUP to the console process group'] as const) {
  test(`the launcher survives ${how}`, { timeout: TIMEOUT }, async (t) => {
    const w = await workspace();
    const { child, first } = startConsoleChild(w, { FAKE_LAUNCHER_ROLLOUTS: '100000', FAKE_LAUNCHER_SAMPLES: '1', FAKE_LAUNCHER_LINE_DELAY: '0.05', FAKE_LAUNCHER_PID_FILE: path.join(w.root, 'launcher.pid') });
    const info = await first;
    groups.push({ pgid: info.pgid, procStart: (await findRun(w.paths, info.name)).procStart });
    assert.notEqual(info.pgid, child.pid, 'the launcher is not in the console process group');
    const exited = new Promise((r) => child.once('exit', r));
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    if (how.startsWith('SIGKILL')) child.kill('SIGKILL');
    else process.kill(-child.pid!, 'SIGHUP');
    await exited;
    assert.equal(isProcessAlive(child.pid!), false, 'the console is gone');
    // The launcher may not have written its pid yet when the console died; it must get there on its own.
    let launcherPid = 0;
    await waitFor(async () => (launcherPid = Number((await readFile(path.join(w.root, 'launcher.pid'), 'utf8').catch(() => '')).trim())) > 0, { timeoutMs: 30_000 });
    assert.ok(isProcessAlive(launcherPid), 'the launcher lives (by pid)');
    assert.ok(isProcessAlive(info.pid), 'the wrapper lives (by pid)');
    // Even a hangup sent straight to the launcher's own group (a stray SIGHUP) does not stop it: the wrapper
    // ignores HUP and the launcher inherits that.
    if (how.startsWith('SIGHUP')) process.kill(-info.pgid, 'SIGHUP');
    // It keeps producing output after the console died.
    const run = await findRun(w.paths, info.name);
    const before = countMatches(await logText(run), /SWE-Gym reward=/);
    await waitFor(async () => countMatches(await logText(run), /SWE-Gym reward=/) > before + 3, { timeoutMs: 30_000 });
    assert.equal((await status(w, info.name)).status, 'running');
    const r = await stopRun(w.paths, info.name, { graceMs: 20_000 });
    assert.equal(r.run.status, 'stopped');
    assert.equal(isProcessAlive(launcherPid), false);
  });
}

function cli(w: TrainWorkspace, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [BIN, '--workspace', w.root, ...args], {
      cwd: REPO,
      env: { ...w.env, ...extra, PATH: `${path.dirname(NODE)}:${w.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('headless: train launch returns while the run goes on; list/status/stop (refuses without --yes and a TTY); resume offered', { timeout: 120_000 }, async () => {
  const w = await workspace();
  const env = { FAKE_LAUNCHER_ROLLOUTS: '100000', FAKE_LAUNCHER_SAMPLES: '1', FAKE_LAUNCHER_LINE_DELAY: '0.05', SAVE_INTERVAL: '1', PATH: `/nonexistent-ray:${w.env.PATH}` };
  const dry = await cli(w, ['train', 'launch', '--dry-run', '--set', 'WANDB_API_KEY=wandb-secret-value-1'], env);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /dry run: nothing started/);
  assert.ok(!dry.stdout.includes(SECRET) && !dry.stdout.includes('wandb-secret-value-1'));
  assert.equal((await listRuns(w.paths)).length, 0);

  const bad = await cli(w, ['train', 'launch', '--json', '--set', 'USE_TIS=yes'], env);
  assert.equal(bad.code, 3);
  const badDoc = JSON.parse(bad.stdout);
  assert.equal(badDoc.launched, false);
  assert.ok(badDoc.checks.some((c: { status: string; detail: string }) => c.status === 'fail' && c.detail.includes('USE_TIS must be 0 or 1; got yes')));

  const launched = await cli(w, ['train', 'launch', '--json'], env);
  assert.equal(launched.code, 0, launched.stderr);
  const doc = JSON.parse(launched.stdout);
  assert.equal(doc.launched, true);
  const name = doc.run.name as string;
  groups.push({ pgid: doc.run.pgid, procStart: (await findRun(w.paths, name)).procStart });
  assert.ok(!launched.stdout.includes(SECRET));
  // The CLI process has exited; the run is alive and producing output.
  assert.ok(isGroupAlive(doc.run.pgid));
  const list = await cli(w, ['train', 'list', '--json']);
  const runs = JSON.parse(list.stdout).runs as { name: string; status: string }[];
  assert.deepEqual(runs.map((r) => r.name), [name]);
  assert.ok(['starting', 'running'].includes(runs[0]!.status));
  await waitFor(async () => (await findLatestCheckpoint(doc.run.checkpointDir)) !== undefined, { timeoutMs: 30_000 });
  // A second launch is refused while this one runs.
  const second = await cli(w, ['train', 'launch', '--json'], env);
  assert.equal(second.code, 3);
  assert.ok(JSON.parse(second.stdout).checks.some((c: { id: string; status: string }) => c.id === 'active-run' && c.status === 'fail'));

  const refused = await cli(w, ['train', 'stop', name]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--yes/);
  assert.ok(isGroupAlive(doc.run.pgid), 'not stopped without confirmation');

  const stopped = await cli(w, ['train', 'stop', name, '--yes', '--json']);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(JSON.parse(stopped.stdout).run.status, 'stopped');
  assert.equal(isGroupAlive(doc.run.pgid), false);

  const st = await cli(w, ['train', 'status', name, '--json']);
  const sdoc = JSON.parse(st.stdout);
  assert.equal(sdoc.run.status, 'stopped');
  assert.equal(sdoc.effectiveLines.length, 5);
  assert.equal(sdoc.effectiveMismatch, false);
  assert.ok(sdoc.resume && sdoc.checkpoint.step >= 0);
  const resume = await cli(w, ['train', 'launch', '--resume', '--dry-run', '--json'], env);
  assert.equal(resume.code, 0, resume.stderr);
  const rdoc = JSON.parse(resume.stdout);
  assert.equal(rdoc.env.RESUME_FROM_CKPT, '1');
  assert.equal(rdoc.env.RESUME_CKPT_ROOT, doc.run.checkpointDir);
  assert.equal(rdoc.env.RESUME_CKPT_STEP, String(sdoc.checkpoint.step));
});

test('a stop is not lost while another console polls the registry (one writer per file)', { timeout: TIMEOUT }, async () => {
  const w = await workspace();
  const run = await launch(w, { FAKE_LAUNCHER_ROLLOUTS: '0', FAKE_LAUNCHER_HOLD: '1' });
  await waitFor(async () => (await logText(run)).includes('effective_grpo'), { timeoutMs: 30_000 });
  let polling = true;
  const seen = new Set<string>();
  const poller = (async () => {
    while (polling) for (const r of await listRuns(w.paths)) seen.add(r.status);
  })();
  const r = await stopRun(w.paths, run.name, { graceMs: 20_000 });
  polling = false;
  await poller;
  assert.equal(r.run.status, 'stopped');
  assert.equal((await status(w, run.name)).status, 'stopped');
  assert.equal((await status(w, run.name)).exitCode, 143, 'the wrapper recorded the launcher exit after TERM');
  assert.ok(!seen.has('lost'), `a poller saw: ${[...seen].join(',')}`);
});

test('a stop asked while the launch is still spawning waits for the pid instead of reporting "already ended"', { timeout: TIMEOUT }, async () => {
  const w = await workspace();
  const run = await launch(w, { FAKE_LAUNCHER_ROLLOUTS: '0', FAKE_LAUNCHER_HOLD: '1' });
  // Put the registry back to its pre-spawn state (registered, no pid yet), then let the "launch" finish later.
  const { pid: _pid, pgid: _pgid, procStart: _ps, startedAt: _sa, ...preSpawn } = run;
  await writeRun(w.paths, preSpawn as RunRecord);
  let waiting = false;
  const stopping = stopRun(w.paths, run.name, { graceMs: 20_000, onProgress: (m) => (waiting ||= /has not recorded its pid/.test(m)) });
  // The stop has seen the record without a pid, and only then does the launch write it.
  await waitFor(() => waiting, { message: () => 'the stop never said it waits for the pid' });
  await writeRun(w.paths, run);
  const r = await stopping;
  assert.equal(r.signal, 'TERM');
  assert.equal(r.run.status, 'stopped');
  assert.equal(isGroupAlive(run.pgid!), false);
});

test('a stop is not "stopped" while the rest of the process group still lives, even once the launcher has exited', { timeout: TIMEOUT }, async () => {
  const w = await workspace();
  // The launcher ends on TERM; a child that ignores TERM outlives it (a dying Ray worker, say) until the test lets it
  // go: a fixed `sleep 4` once ended on its own before the launcher's exit was seen on a loaded machine.
  const { writeFile } = await import('node:fs/promises');
  const release = path.join(w.root, 'release-the-child');
  await writeFile(w.paths.launcherScript, `#!/bin/bash\n(trap '' TERM; while [ ! -e ${JSON.stringify(release)} ]; do sleep 0.1; done) &\ntrap 'exit 0' TERM\necho started\nwhile :; do sleep 0.2; done\n`);
  const run = await launch(w, {});
  await waitFor(async () => (await logText(run)).includes('started'), { timeoutMs: 30_000 });
  const stopping = stopRun(w.paths, run.name, { graceMs: 20_000 });
  await waitFor(async () => (await readFile(run.exitFile, 'utf8').catch(() => '')) !== '', { timeoutMs: 20_000 });
  assert.ok(isGroupAlive(run.pgid!), 'the TERM-ignoring child is still alive');
  assert.notEqual((await status(w, run.name)).status, 'stopped');
  await writeFile(release, '');
  const r = await stopping;
  assert.equal(r.run.status, 'stopped');
  assert.equal(isGroupAlive(run.pgid!), false);
});
