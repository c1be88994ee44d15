// The factory and smoke tests end to end through the real E2B adapter and the real `e2b` SDK against the fake
// E2B server: 429 storms, a permanently failing image, an alias owned by someone else, kill -9 of the headless
// command in the middle and a resume, and smoke tests whose sandboxes are always killed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { E2bProvider } from '../../src/services/sandbox/e2b.js';
import { TemplateFactory } from '../../src/services/templates/factory.js';
import { assignTemplateNames } from '../../src/services/templates/naming.js';
import { readTemplateMap } from '../../src/services/templates/map.js';
import { smokeMany } from '../../src/services/templates/smoke.js';
import { templatesJournal } from '../../src/services/templates/records.js';
import { templateWorkspace, imageNames, VERSIONS, readJson, readJournal } from './helpers.js';
import { removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { BIN } from '../helpers/shipped.js';

function provider(fake: FakeE2b): E2bProvider {
  return new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url, sdkRetries: 0, retry: { attempts: 2, baseMs: 10, maxMs: 50 } });
}

function buildsFor(fake: FakeE2b, name: string): number {
  return [...fake.builds.values()].filter((b) => b.name === name).length;
}

test('against the fake E2B server: 429 storm, one permanently failing image, the recipe on the wire, no rebuild on rerun', { timeout: 120_000 }, async () => {
  const images = imageNames(8);
  const names = assignTemplateNames(images);
  const failing = names.get(images[5]!)!;
  const fake = await startFakeE2b({
    builds: { [failing]: { fail: { message: "access denied to 'xingyaoww/sweb.eval.x86_64.proj5_s_repo5-105:latest': you don't have permission to pull this image" } } },
    faults: [{ role: 'control', method: 'POST', path: '/v3/templates', status: 429, retryAfter: 1, times: 6 }],
  });
  const { ws, paths } = await templateWorkspace(images);
  try {
    const retries: string[] = [];
    const factory = new TemplateFactory({
      provider: provider(fake),
      paths,
      artifacts: { artifactDir: paths.artifactDir, versions: VERSIONS },
      concurrency: 4,
      retry: { baseMs: 50, maxMs: 500 },
      onEvent: (e) => (e.type === 'retry' ? retries.push(e.image) : undefined),
    });
    const result = await factory.run();
    assert.equal(result.built, 7, JSON.stringify(result.records.filter((r) => r.state !== 'built')));
    assert.equal(result.failed, 1);
    assert.ok(fake.requests.filter((r) => r.status === 429).length === 6, 'the storm happened');
    const failed = result.records.find((r) => r.template === failing)!;
    assert.equal(failed.code, 'pull_denied');
    assert.match(failed.reason ?? '', /permission to pull/);
    assert.equal(buildsFor(fake, failing), 1, 'a real build failure is not retried');
    const map = await readJson(paths.templateMap);
    assert.equal(Object.keys(map).length, 7);
    assert.equal(map[images[5]!], undefined);

    // The recipe as E2B receives it.
    const b = [...fake.builds.values()].find((x) => x.name === names.get(images[0]!))!;
    assert.equal(b.request.cpuCount, 4);
    assert.equal(b.request.memoryMB, 8192);
    const trigger = b.trigger as { fromImage: string; steps: { type: string; args: string[] }[]; startCmd: string; readyCmd: string };
    assert.equal(trigger.fromImage, images[0]);
    const wire = JSON.stringify(trigger.steps);
    for (const needle of ['ca-certificates', '/usr/local/bin/claude', '/tmp/cc-runtime.tar.gz', 'tar -xzf /tmp/cc-runtime.tar.gz', 'claude-2.1.207-linux-x64']) {
      assert.ok(wire.includes(needle), `${needle} in the build steps`);
    }
    assert.match(trigger.startCmd, /BBS_PORT=31000/);
    assert.match(trigger.readyCmd, /127\.0\.0\.1:31000\/health/);

    // Rerun: the 7 built are found (alias check) and not rebuilt; the failed one is tried again.
    const before = fake.builds.size;
    const again = await new TemplateFactory({ provider: provider(fake), paths, artifacts: { artifactDir: paths.artifactDir, versions: VERSIONS }, concurrency: 4 }).run();
    assert.equal(again.skipped, 7);
    assert.equal(again.failed, 1);
    assert.equal(fake.builds.size, before + 1);
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});

test('an alias owned by another team fails with "alias taken" and the fix', { timeout: 60_000 }, async () => {
  const images = imageNames(1);
  const name = assignTemplateNames(images).get(images[0]!)!;
  const fake = await startFakeE2b({ foreignTemplates: [name] });
  const { ws, paths } = await templateWorkspace(images);
  try {
    const result = await new TemplateFactory({ provider: provider(fake), paths, artifacts: { artifactDir: paths.artifactDir, versions: VERSIONS } }).run();
    assert.equal(result.failed, 1);
    assert.equal(result.records[0]!.code, 'alias_taken');
    assert.match(result.records[0]!.reason ?? '', /--prefix/);
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});

test('kill -9 of the built `templates build` (real SDK) in the middle, then resume: nothing finished is rebuilt', { timeout: 180_000 }, async () => {
  const images = imageNames(10);
  const fake = await startFakeE2b({ builds: Object.fromEntries([...assignTemplateNames(images).values()].map((n) => [n, { pollsBeforeDone: 4 }])) });
  const { ws, paths } = await templateWorkspace(images);
  const env = { ...process.env, E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url, NO_COLOR: '1' };
  const run = () => {
    const child = spawn(process.execPath, [BIN, 'templates', 'build', '--workspace', ws, '--concurrency', '3', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    return { child, exited: new Promise<number | null>((r) => child.on('exit', (c) => r(c))), out: () => out, err: () => err };
  };
  const journalFile = path.join(paths.journalsDir, 'templates.json');
  try {
    const first = run();
    await waitFor(
      () => {
        for (const f of [paths.templateMap, journalFile]) if (existsSync(f)) JSON.parse(readFileSync(f, 'utf8'));
        return existsSync(paths.templateMap) && Object.keys(JSON.parse(readFileSync(paths.templateMap, 'utf8'))).length >= 3;
      },
      { timeoutMs: 90_000, message: () => first.err() },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const mapped = JSON.parse(readFileSync(paths.templateMap, 'utf8')) as Record<string, string>;
    assert.ok(Object.keys(mapped).length < 10, 'killed in the middle');
    const buildsBefore = new Map([...new Set([...fake.builds.values()].map((b) => b.name))].map((n) => [n, buildsFor(fake, n)]));

    const second = run();
    assert.equal(await second.exited, 0, second.err());
    for (const name of Object.values(mapped)) assert.equal(buildsFor(fake, name), buildsBefore.get(name), `${name} was finished before the kill and built again`);
    const summary = JSON.parse(second.out());
    assert.equal(summary.mapComplete, true);
    assert.equal(Object.keys(await readTemplateMap(paths.templateMap, images)).length, 10);
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});

test('smoke through the real adapter: healthy BBS passes, a template without the service names the start command; sandboxes are killed', { timeout: 60_000 }, async () => {
  const healthy = () => ({ status: 200, body: '{"healthy":true,"version":"1.1.0"}', contentType: 'application/json' });
  const fake = await startFakeE2b({
    templates: ['swegym-ok', 'swegym-noport'],
    services: { 'swegym-ok': { 31000: healthy } },
    exec: (req) => {
      if (req.command.includes('claude --version')) return { chunks: [{ stream: 'stdout', data: '2.1.207 (Claude Code)\n' }], exitCode: 0 };
      if (req.command.includes('blackbox-server.log')) return { chunks: [{ stream: 'stdout', data: 'ModuleNotFoundError: No module named blackbox_server\n' }], exitCode: 0 };
      return undefined;
    },
  });
  const { ws, paths } = await templateWorkspace(imageNames(2));
  try {
    const journal = await templatesJournal(paths).load();
    const images = imageNames(2);
    const results = await smokeMany({
      provider: provider(fake),
      journal,
      targets: [{ image: images[0], template: 'swegym-ok' }, { image: images[1], template: 'swegym-noport' }],
      smoke: { healthAttempts: 2, healthRetryMs: 10 },
    });
    const ok = results.find((r) => r.template === 'swegym-ok')!;
    const bad = results.find((r) => r.template === 'swegym-noport')!;
    assert.equal(ok.ok, true, ok.error);
    assert.equal(ok.health?.version, '1.1.0');
    assert.match(ok.claudeVersion ?? '', /2\.1\.207/);
    assert.equal(bad.ok, false);
    assert.equal(bad.code, 'no_start_command');
    assert.match(bad.error ?? '', /start command is missing or failed/);
    assert.equal(fake.alive().length, 0, 'every smoke sandbox was killed');
    const saved = await readJournal(journal.file);
    assert.equal(saved.items[images[0]!].smoke, 'passed');
    assert.equal(saved.items[images[1]!].smoke, 'failed');
  } finally {
    await fake.close();
    await removeDir(ws);
  }
});
