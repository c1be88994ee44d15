// Every job is written once: the headless command and the screen's controller are two listeners of the same job.
// Each test runs one job through both faces (on identical workspaces and fakes) and asserts that the job emitted
// the same event sequence to each, and that each face turned those events into its own output.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { tapJobEvents } from '../../src/services/jobs/events.js';
import { eventsOf, headless, withProvider } from './jobFaces.js';
import { templatesBuildCommand, templatesSmokeCommand } from '../../src/cli/commands/templates.js';
import { TemplatesController } from '../../src/services/templates/controller.js';
import { templateNameForImage } from '../../src/services/templates/naming.js';
import { createTemplatesStore } from '../../src/state/templates.js';
import { createJobsStore } from '../../src/state/jobs.js';
import { trainLaunch, trainStop } from '../../src/cli/commands/train.js';
import { createAppServices } from '../../src/app/domain.js';
import { findRun } from '../../src/services/train/registry.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { FakeProvider } from '../templates/fakeProvider.js';
import { imageNames, templateWorkspace } from '../templates/helpers.js';
import { killGroupIfOurs, trainWorkspace } from '../train/helpers.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { monitorCommand } from '../../src/cli/commands/monitor.js';
import { createMonitorService } from '../../src/app/monitorSources.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { TEST_WRITER_POLL_MS, loopbackFetch, registerRun, runLogText, startWriter, withFastWriterPolls } from '../monitor/runFixtures.js';
import { waitFor } from '../helpers/wait.js';
import { doctorCommand } from '../../src/cli/commands/doctor.js';
import { fakeDressageCheckout } from '../helpers/workspace.js';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { validateAgentCommand } from '../../src/cli/commands/validate.js';
import { ValidateController } from '../../src/services/validate/controller.js';
import { createValidateStore } from '../../src/state/validate.js';
import { agentProgressText } from '../../src/services/validate/agentRecord.js';
import { runValidateAgentJob } from '../../src/services/demo/agentJob.js';
import { replayAgentProvider, transcript } from '../validate/agentReplayProvider.js';

const dirs: string[] = [];

/** A TERM before the launcher has set its traps ends it some other way: stop once it is past its start. */
async function launcherStarted(logFile: string): Promise<void> {
  await waitFor(async () => /^Current Ray node count/m.test(await readFile(logFile, 'utf8').catch(() => '')), { timeoutMs: 30_000 });
}
const groups: { pgid?: number; procStart?: string }[] = [];
after(async () => {
  for (const g of groups) await killGroupIfOurs(g.pgid, g.procStart);
  for (const d of dirs) await removeDir(d);
});

/** A build event without its timing (durations, timestamps, log lines differ run to run). */
function buildShape(e: any): string {
  if (e.type === 'state') return `state ${e.image} ${e.record.state}${e.skipped ? ' skipped' : ''}${e.record.reason ? ` (${e.record.reason.split(':')[0]})` : ''}`;
  if (e.type === 'started') return `started total=${e.total} concurrency=${e.concurrency}`;
  if (e.type === 'finished') return `finished built=${e.result.built} skipped=${e.result.skipped} failed=${e.result.failed} mapComplete=${e.mapComplete}`;
  return e.type;
}

async function buildFixture() {
  const images = imageNames(4);
  const { ws, paths } = await templateWorkspace(images);
  dirs.push(ws);
  const provider = new FakeProvider({ buildMs: 2 });
  // Built by hand earlier (in the map and on E2B): adopted, not rebuilt.
  provider.templates.add(templateNameForImage(images[1]!));
  await writeFile(paths.templateMap, JSON.stringify({ [images[1]!]: templateNameForImage(images[1]!) }));
  provider.scripts.set(templateNameForImage(images[2]!), { fail: 'Dockerfile step failed' });
  return { images, paths, provider };
}

test('templates build: the CLI and the Templates screen get the same events from one build job', { timeout: 60_000 }, async () => {
  const cli = await buildFixture();
  const h = withProvider(headless(cli.paths, ['templates', 'build'], { concurrency: '1' }), cli.provider);
  const fromCli = await eventsOf('templates build', () => templatesBuildCommand(h.ctx));

  const screen = await buildFixture();
  const store = createTemplatesStore();
  const jobs = createJobsStore();
  const controller = new TemplatesController({ paths: screen.paths, store, jobs, env: {}, concurrency: 1, openProvider: async () => screen.provider });
  const fromScreen = await eventsOf('templates build', () => controller.build());

  const shapes = fromCli.events.filter((e) => e.type !== 'log').map(buildShape);
  assert.deepEqual(fromScreen.events.filter((e) => e.type !== 'log').map(buildShape), shapes);
  assert.equal(shapes[0], 'started total=4 concurrency=1');
  assert.equal(shapes.at(-1), 'finished built=2 skipped=1 failed=1 mapComplete=false');
  assert.ok(shapes.includes(`state ${cli.images[1]} built skipped (adopted)`), shapes.join('\n'));

  // Each listener turned them into its face: progress lines and a summary; rows and a message in the store.
  assert.equal(fromCli.value, 1);
  assert.match(h.err(), /\[1\/4\] built {5}swegym-/);
  assert.match(h.err(), /FAILED {4}swegym-\S+: .*Dockerfile step failed/);
  assert.match(h.out(), /^2 built, 1 already there, 1 failed in /m);
  assert.equal(store.getState().message?.text, '2 built, 1 already there, 1 failed');
  assert.deepEqual(store.getState().rows.map((r) => r.state), ['built', 'built', 'failed', 'built']);
  assert.deepEqual(Object.keys(jobs.getState().jobs), [], 'the job is finished in the jobs store');
});

async function smokeFixture() {
  const f = await buildFixture();
  const names = f.images.slice(0, 2).map((i) => templateNameForImage(i));
  for (const n of names) f.provider.templates.add(n);
  // A missing Claude Code binary fails at once (a closed port would be retried for seconds).
  f.provider.smoke.set(names[1]!, { claude: { exitCode: 127, stdout: '', stderr: 'bash: claude: No such file or directory', timedOut: false } });
  await writeFile(f.paths.templateMap, JSON.stringify({ [f.images[0]!]: names[0], [f.images[1]!]: names[1] }));
  return { ...f, names };
}

function smokeShape(e: any): string {
  if (e.type === 'result') return `result ${e.result.template} ${e.result.ok ? 'ok' : e.result.code} killed=${e.result.killed}`;
  if (e.type === 'finished') return `finished passed=${e.passed} failed=${e.failed} notRun=${e.notRun} notKilled=${e.notKilled.length}`;
  return `${e.type} ${e.targets}`;
}

test('templates smoke: the CLI and the Templates screen get the same events from one smoke job', { timeout: 60_000 }, async () => {
  const cli = await smokeFixture();
  const h = withProvider(headless(cli.paths, ['templates', 'smoke'], { template: cli.names, concurrency: '1' }), cli.provider);
  const fromCli = await eventsOf('templates smoke', () => templatesSmokeCommand(h.ctx));

  const screen = await smokeFixture();
  const store = createTemplatesStore();
  const controller = new TemplatesController({ paths: screen.paths, store, jobs: createJobsStore(), env: {}, openProvider: async () => screen.provider });
  const rows = screen.images.slice(0, 2).map((image, i) => ({ image, template: screen.names[i]!, state: 'built' as const, smoke: null, error: '', mapped: true }));
  const fromScreen = await eventsOf('templates smoke', () => controller.smoke(rows));

  // Results arrive in completion order; the screen smokes 4 at a time, the CLI here one at a time.
  const sorted = (events: any[]) => events.map(smokeShape).sort();
  assert.deepEqual(sorted(fromScreen.events), sorted(fromCli.events));
  assert.deepEqual(sorted(fromCli.events), [`finished passed=1 failed=1 notRun=0 notKilled=0`, `result ${cli.names[0]} ok killed=true`, `result ${cli.names[1]} claude_binary killed=true`, 'started 2'].sort());
  assert.equal(fromCli.value, 1);
  assert.match(h.err(), new RegExp(`FAILED  ${cli.names[1]}: `));
  assert.match(h.out(), /^1 passed, 1 failed$/m);
  assert.match(store.getState().message?.text ?? '', new RegExp(`^smoke: 1 failed — ${screen.names[1]}: `));
});

test('train launch (blocked, then launched) and stop: the CLI and the Train screen get the same events', { timeout: 120_000 }, async () => {
  const extra = { FAKE_LAUNCHER_ROLLOUTS: '0', FAKE_LAUNCHER_HOLD: '1' };
  const faces = [];
  for (const face of ['cli', 'screen'] as const) {
    const w = await trainWorkspace();
    dirs.push(w.root);
    const env = { ...w.env, ...extra };
    const launchEvents: string[] = [];
    const stopEvents: string[] = [];
    const untap = tapJobEvents((job, e: any) => {
      if (job === 'train launch') launchEvents.push(e.type === 'checked' ? `checked blocking=${e.blocking}` : e.type === 'not-launched' ? `not-launched ${e.reason} ${e.failing.map((c: { id: string }) => c.id).join(',')}` : e.type);
      // Progress texts carry the pid; their kinds are what must agree.
      if (job === 'train stop') stopEvents.push(e.type === 'progress' ? `progress ${e.text.replace(/\d+/g, 'N')}` : `stopped ${e.result.signal} ${e.result.run.status}`);
    });
    let seen: string;
    try {
      if (face === 'cli') {
        const blocked = headless(w.paths, ['train', 'launch'], { set: ['USE_TIS=yes'] }, env, true);
        assert.equal(await trainLaunch(blocked.ctx), 3);
        const launched = headless(w.paths, ['train', 'launch'], {}, env, true);
        assert.equal(await trainLaunch(launched.ctx), 0, launched.err());
        const name = JSON.parse(launched.out()).run.name as string;
        const run = await findRun(w.paths, name);
        groups.push({ pgid: run.pgid, procStart: run.procStart });
        await launcherStarted(run.logFile);
        const stopped = headless(w.paths, ['train', 'stop'], { yes: true }, env, true);
        stopped.ctx.positionals = [name];
        assert.equal(await trainStop(stopped.ctx), 0, stopped.err());
        seen = JSON.parse(stopped.out()).signal;
      } else {
        const services = createAppServices({ workspace: w.root, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), env });
        const flashes: string[] = [];
        services.app.subscribe((s) => (s.flash && flashes.at(-1) !== s.flash.text ? flashes.push(s.flash.text) : undefined));
        services.train.store.getState().set({ values: { USE_TIS: 'yes' } });
        await services.train.controller.launch();
        services.train.store.getState().set({ values: {} });
        await services.train.controller.launch();
        const run = services.train.store.getState().runs[0]!;
        groups.push({ pgid: run.pgid, procStart: (await findRun(w.paths, run.name)).procStart });
        await launcherStarted(run.logFile);
        await services.train.controller.stop(run.name, false);
        assert.match(flashes[0] ?? '', /^not launched: 1 blocking check\(s\) — /);
        assert.match(flashes[1] ?? '', new RegExp(`^launched ${run.name} \\(pid \\d+\\)`));
        assert.equal(flashes[2], `${run.name} stopped`);
        seen = 'TERM';
      }
    } finally {
      untap();
    }
    faces.push({ face, launchEvents, stopEvents, seen });
  }
  const [cli, screen] = faces;
  assert.deepEqual(screen!.launchEvents, cli!.launchEvents);
  assert.deepEqual(screen!.stopEvents, cli!.stopEvents);
  assert.equal(cli!.launchEvents[0], 'checking');
  assert.match(cli!.launchEvents[2]!, /^not-launched blocked \S+/);
  assert.deepEqual(cli!.launchEvents.slice(3), ['checking', 'checked blocking=0', 'launched']);
  assert.deepEqual(cli!.stopEvents, ['progress sending TERM to process group N', 'stopped TERM stopped']);
  assert.equal(cli!.seen, 'TERM');
});

/** A follow event without what differs run to run (times, versions, byte counts, the order of ticks). */
function followShape(e: any): string | undefined {
  if (e.type === 'opened') return `opened ${e.run} ${e.source} simulated=${e.simulated} from=${e.fromByte}`;
  if (e.type === 'state') return `state ${e.liveness.state}`;
  if (e.type === 'ended') return `ended failed=${e.failed}`;
  if (e.type === 'progress' || e.type === 'reading') return undefined;
  return e.type;
}

test('following a run: `monitor RUN` headless and the dashboard\'s service get the same events, until the writer dies', { timeout: 120_000 }, async () => {
  const name = 'swegym-test-20261201-100000';
  // A closed port: no Ray dashboard of this machine is asked.
  const env = { RAY_ADDRESS: 'http://127.0.0.1:1' };
  const faces: { face: string; events: string[] }[] = [];
  for (const face of ['cli', 'screen'] as const) {
    const ws = await tempDir();
    dirs.push(ws);
    const paths = recipePaths(ws);
    const writer = startWriter();
    groups.push({ pgid: writer.pid });
    const log = `${ws}/launch.log`;
    await writeFile(log, runLogText(2));
    await registerRun(paths, { name, logFile: log, writer });
    const events: string[] = [];
    const untap = tapJobEvents((job, e) => {
      const shape = job === 'monitor follow' ? followShape(e) : undefined;
      if (shape) events.push(shape);
    });
    try {
      if (face === 'cli') {
        const h = headless(paths, ['monitor'], {}, env);
        h.ctx.positionals = [name];
        withFastWriterPolls(h.ctx);
        const done = monitorCommand(h.ctx);
        await waitFor(() => /state: running · /.test(h.out()), { timeoutMs: 15_000, message: () => h.out() });
        process.kill(-writer.pid!, 'SIGKILL');
        assert.equal(await done, 1, h.out());
        // This face prints the events: the rollout line, then each state.
        const lines = h.out().trim().split('\n');
        assert.match(lines[0]!, /^\d\d:\d\d:\d\d phase: .* · rollouts: 2 · steps: \d+ · samples: 256 /);
        assert.match(lines.at(-1)!, /^\d\d:\d\d:\d\d state: crashed · .*the launcher \(pid \d+\) is gone/);
      } else {
        const monitor = createMonitorService(paths, 'e2b', env, { fetchImpl: loopbackFetch, refreshMs: 250, pollMs: { writer: TEST_WRITER_POLL_MS } });
        try {
          await monitor.open(name);
          const header = () => monitor.store.getState().snapshot?.header;
          // This face puts the events in the store: the dashboard's header reads them.
          assert.equal(header()?.liveness?.state, 'running');
          process.kill(-writer.pid!, 'SIGKILL');
          await waitFor(() => header()?.liveness?.state === 'crashed', { timeoutMs: 20_000, message: () => JSON.stringify(header()?.liveness) });
          assert.equal(monitor.store.getState().snapshot?.totals.total, 256);
          // The dashboard keeps showing an ended run; its job still says the run ended.
          await waitFor(() => events.some((e) => e.startsWith('ended')), { timeoutMs: 5000, message: () => events.join('\n') });
        } finally {
          await monitor.close();
        }
      }
    } finally {
      untap();
    }
    faces.push({ face, events });
  }
  const [cli, screen] = faces;
  assert.deepEqual(screen!.events, cli!.events);
  assert.deepEqual(cli!.events, [`opened ${name} registry simulated=false from=0`, 'read', 'state running', 'state crashed', 'ended failed=true']);
});

/** A checkout with a failing trap (no slime) and a bin directory: a python3 probe answering every package, uv. */
async function doctorFixture() {
  const ws = await fakeDressageCheckout({ slime: false });
  const bin = await tempDir('swegym-doctor-bin-');
  dirs.push(ws, bin);
  await mkdir(path.join(ws, 'data'), { recursive: true });
  const probe = [
    `echo '{"python": "3.11.7"}'`,
    `echo '{"modules": {"dressage": true, "blackbox_server": true, "pyarrow": false}, "dists": {"dressage": {"version": "0.1.0"}}}'`,
    `echo '{"modules": {"huggingface_hub": true, "swegym": true, "build": true}}'`,
  ];
  for (const [name, body] of [['python3', probe.join('\n')], ['uv', 'echo "uv 0.9.0"']] as const) {
    await writeFile(path.join(bin, name), `#!/bin/sh\n${body}\n`);
    await chmod(path.join(bin, name), 0o755);
  }
  return { paths: recipePaths(ws), env: { PATH: bin, ACTOR_NUM_NODES: '4', DRESSAGE_PROXY_URL: 'https://proxy.example.com', SWEGYM_DOCTOR_TIMEOUT_MS: '60000' } };
}

/** A doctor event without what differs run to run (free disk space). */
function doctorShape(e: any): string {
  const rows = (checks: { id: string; status: string }[]) => checks.map((c) => `${c.id}=${c.id === 'disk' ? '*' : c.status}`).join(',');
  if (e.type === 'started') return `started ${e.pending.map((p: { id: string }) => p.id).join(',')}`;
  if (e.type === 'result') return `result ${e.id}: ${rows(e.checks)}`;
  return `finished ${rows(e.checks)}`;
}

test('doctor: the CLI and the home screen get the same events from one doctor job', { timeout: 60_000 }, async () => {
  const cli = await doctorFixture();
  const h = headless(cli.paths, ['doctor'], {}, cli.env);
  const fromCli = await eventsOf('doctor', () => doctorCommand(h.ctx));

  const screen = await doctorFixture();
  const services = createAppServices({ workspace: screen.paths.root, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), env: screen.env });
  const fromScreen = await eventsOf('doctor', () => services.home.controller.refresh());

  // Results come in the order checks answer (which varies); the first and last events are fixed.
  const shapes = (events: any[]) => [doctorShape(events[0]), ...events.slice(1, -1).map(doctorShape).sort(), doctorShape(events.at(-1))];
  assert.deepEqual(shapes(fromScreen.events), shapes(fromCli.events));
  assert.equal(fromCli.events[0].type, 'started');
  assert.equal(fromCli.events.filter((e) => e.type === 'result').length, fromCli.events[0].pending.length, 'one result per started check');
  assert.match(doctorShape(fromCli.events.at(-1)), /slime=fail.*py-pyarrow=warn/);

  // The CLI printed every result in the doctor's order and exits 3 (slime fails); the store holds the same rows.
  assert.equal(fromCli.value, 3);
  const printed = [...h.out().matchAll(/^(ok {2}|warn|FAIL|skip) {2}([^:]+):/gm)].map((m) => m[2]);
  assert.deepEqual(printed, fromCli.events.at(-1).checks.map((c: { title: string }) => c.title));
  assert.match(h.out(), /^FAIL {2}slime submodule: slime\/ is not initialised/m);
  const home = services.home.store.getState();
  assert.deepEqual(home.checks.map((c) => `${c.id}=${c.status}`), fromScreen.events.at(-1).checks.map((c: { id: string; status: string }) => `${c.id}=${c.status}`));
  assert.deepEqual(home.pendingChecks, []);
  services.dispose();
});

/** A workspace with the sample task's row (its scripted replay ships with the console). */
async function agentFixture() {
  const { findSamplesDir, readManifest, sampleTemplateName } = await import('../../src/services/demo/demo.js');
  const { sampleRow } = await import('../../src/services/demo/sampleRow.js');
  const inst = (await readManifest(findSamplesDir() as string)).find((i) => i.instance_id === 'sample-org__calc-2')!;
  const ws = await tempDir('swegym-jobs-agent-');
  dirs.push(ws);
  const paths = recipePaths(ws);
  const row = sampleRow({ instance_id: inst.instance_id, repo: inst.repo, base_commit: inst.base_commit, problem_statement: inst.problem_statement, test_patch: inst.test_patch, test_cmd: inst.local.test_command, FAIL_TO_PASS: inst.FAIL_TO_PASS, PASS_TO_PASS: inst.PASS_TO_PASS, template: sampleTemplateName(inst) });
  await mkdir(path.dirname(paths.trainJsonl), { recursive: true });
  await writeFile(paths.trainJsonl, JSON.stringify(row) + '\n');
  // Any native binary that answers --version stands for the CLI: the replaying sandbox never runs it.
  const env = { CLAUDE_CODE_BIN: process.execPath, PATH: process.env.PATH };
  return { paths, row, env, provider: replayAgentProvider(row, transcript('success-parallel-tools')) };
}

/** An agent event without what differs run to run (times, the workspace's path). */
function agentShape(e: any): string {
  if (e.type === 'finished') {
    const { finishedAt: _f, durationMs: _d, logFile, ...rest } = e.record;
    return `finished ${JSON.stringify(rest)} log=${path.basename(logFile)}`;
  }
  return JSON.stringify(e);
}

test('validate agent: `validate agent --provider local` and the Validate screen get the same events from one agent job', { timeout: 60_000 }, async () => {
  const cli = await agentFixture();
  const h = withProvider(headless(cli.paths, ['validate', 'agent'], { instance: 'sample-org__calc-2' }, cli.env, false, 'local'), cli.provider);
  const fromCli = await eventsOf('validate agent', () => validateAgentCommand(h.ctx));

  const screen = await agentFixture();
  const store = createValidateStore();
  const jobs = createJobsStore();
  const controller = new ValidateController({ paths: screen.paths, store, jobs, env: screen.env, openProvider: async () => screen.provider, runAgentJob: runValidateAgentJob });
  const fromScreen = await eventsOf('validate agent', () => controller.runAgent('sample-org__calc-2'));

  assert.deepEqual(fromScreen.events.map(agentShape), fromCli.events.map(agentShape));
  const types = fromCli.events.map((e) => e.type);
  assert.equal(types[0], 'started');
  assert.equal(types.at(-1), 'finished');
  const progress = fromCli.events.filter((e) => e.type === 'progress');
  assert.ok(progress.length >= 2, 'Claude Code progress arrives while it runs');
  const record = fromCli.events.at(-1).record;
  assert.deepEqual([record.resolved, record.reward, record.claudeCode.status], [true, 1, 'success']);

  // The CLI printed each phase and each progress line, then the graded result; exit 0.
  assert.equal(fromCli.value, 0);
  for (const e of progress) assert.ok(h.err().includes(`  ${agentProgressText(e.progress)}`), `printed: ${agentProgressText(e.progress)}`);
  assert.match(h.err(), /^running$/m);
  assert.match(h.out(), /^ok {3}sample-org__calc-2: resolved F2P 2\/2 P2P 3\/3 → reward 1$/m);
  // The screen's store holds the same run, ended, and the task's record.
  const st = store.getState();
  assert.equal(st.agent?.running, false);
  assert.deepEqual(st.agent?.progress, fromScreen.events.at(-1).record.claudeCode);
  assert.deepEqual(st.agentRuns['sample-org__calc-2'], fromScreen.events.at(-1).record);
  assert.match(st.message?.text ?? '', /resolved \(reward 1\)/);
  assert.deepEqual(Object.keys(jobs.getState().jobs), [], 'the job is finished in the jobs store');
});

/** A checkout whose artifacts script and wheel build are the fakes (tests/artifacts/artifacts.test.ts's setup). */
async function artifactsFixture() {
  const { copyFile } = await import('node:fs/promises');
  const { createHash } = await import('node:crypto');
  const ws = await fakeDressageCheckout();
  dirs.push(ws);
  const paths = recipePaths(ws);
  await copyFile(path.resolve('tests/fakes/fakeArtifactsScript.sh'), paths.artifactsScript);
  const claude = 'fake claude 2.1.207 binary\n';
  const source = path.join(ws, 'claude-download');
  await writeFile(source, claude);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    FAKE_CLAUDE_SOURCE: source,
    CLAUDE_CODE_BINARY_SHA256: createHash('sha256').update(claude).digest('hex'),
    SWEGYM_PYTHON: path.resolve('tests/fakes/fakePythonBuild.sh'),
  };
  return { ws, paths, env };
}

test('artifacts build: `artifacts build` and the Templates screen (A) get the same events from one artifacts job', { timeout: 60_000 }, async () => {
  const { artifactsBuildCommand } = await import('../../src/cli/commands/artifacts.js');
  const cli = await artifactsFixture();
  const h = headless(cli.paths, ['artifacts', 'build'], {}, cli.env);
  const fromCli = await eventsOf('artifacts build', () => artifactsBuildCommand(h.ctx));

  const screen = await artifactsFixture();
  const store = createTemplatesStore();
  const jobs = createJobsStore();
  const controller = new TemplatesController({ paths: screen.paths, store, jobs, env: screen.env, openProvider: async () => new FakeProvider() });
  const fromScreen = await eventsOf('artifacts build', () => controller.buildArtifacts());

  // The same sequence, the workspace's path, the script's temp-file pid and the duration aside.
  const shape = (ws: string) => (e: any) => (e.type === 'finished' ? `finished skipped=${e.skipped} current=${e.current}` : JSON.stringify(e).replaceAll(ws, '<ws>').replace(/\.tmp\.\d+/g, '.tmp.<pid>'));
  const shapes = fromCli.events.map(shape(cli.ws));
  assert.deepEqual(fromScreen.events.map(shape(screen.ws)), shapes);
  assert.equal(shapes[0], '{"type":"started","force":false}');
  assert.equal(shapes.at(-1), 'finished skipped=false current=true');
  assert.ok(shapes.some((s) => s.includes('"type":"line"')), 'the script streamed its output');

  // Each face: the CLI printed the lines and the summary, exit 0; the screen's log view has the lines, its message
  // the summary, and the job is finished in the jobs store.
  assert.equal(fromCli.value, 0);
  const lines = fromCli.events.filter((e) => e.type === 'line').map((e) => e.line as string);
  for (const l of lines) assert.ok(h.err().includes(`  ${l}`), `printed: ${l}`);
  assert.match(h.out(), /^artifacts built in \d+s$/m);
  assert.deepEqual(store.getState().logLines, fromScreen.events.filter((e) => e.type === 'line').map((e) => e.line).slice(-500));
  assert.match(store.getState().message?.text ?? '', /^artifacts built in \d+s$/);
  assert.deepEqual(Object.keys(jobs.getState().jobs), []);
});
