import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { createTemplatesService } from '../../src/services/templates/controller.js';
import { createTemplatesStore } from '../../src/state/templates.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { FakeProvider } from './fakeProvider.js';
import { templateWorkspace, imageNames, readJournal } from './helpers.js';
import { createHash } from 'node:crypto';

const ENV = { CLAUDE_CODE_BINARY_SHA256: createHash('sha256').update('fake claude binary\n').digest('hex') };

test('Templates screen: table, build all with live progress, filter, build log, retry failed, smoke selected', { timeout: 60_000 }, async () => {
  const images = imageNames(6);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider({ buildMs: 5 });
  provider.scripts.set(images[2]!, { fail: "access denied to 'x': you don't have permission to pull this image" });
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'templates' });
  services.templates = createTemplatesService({ paths, store: createTemplatesStore(), jobs: services.jobs, openProvider: async () => provider, env: ENV });
  const ui = renderInk(<App services={services} size={{ width: 160, height: 30 }} />);
  try {
    await ui.waitForText('one E2B template per image');
    await ui.waitForText('6 images: 0 built');
    assert.match(ui.frame(), /swegym-proj0_s_repo0-100/);
    assert.match(ui.frame(), /artifacts ok/);
    await ui.press('b');
    await ui.waitForText('5 built, 1 failed', 20_000);
    assert.match(ui.frame(), /✗ failed {3}swegym-proj2_s_repo2-102 .*access denied/);
    await ui.waitForText('mapped 5');
    assert.equal(Object.keys(services.jobs.getState().jobs).length, 0, 'the job is gone when the run ends');
    // Filter to the failed one and open its log.
    await ui.press('/');
    for (const ch of 'failed') await ui.press(ch);
    await ui.press(KEYS.enter);
    await ui.waitForText('(1/6)');
    await ui.press(KEYS.enter);
    await ui.waitForText('Build log — ' + images[2]);
    await ui.waitForText('failed: access denied');
    // The whole log was kept on disk by the factory (not only the journal's tail).
    assert.match(ui.frame(), /\(build log .*\.swegym-console\/build-logs\//);
    assert.match(ui.frame(), /Requesting build for template: swegym-proj2_s_repo2-102/, 'the log tail kept in the journal');
    await ui.press(KEYS.escape);
    await ui.waitForText('(1/6)');
    // Retry failed: the image now builds.
    provider.scripts.delete(images[2]!);
    await ui.press('F');
    await ui.waitForText('1 built, 0 already there, 0 failed', 20_000);
    // Smoke the selected row (clear the filter first: Backspace ×6).
    await ui.press('/');
    for (let i = 0; i < 6; i++) await ui.press(KEYS.backspace);
    await ui.press(KEYS.enter);
    await ui.press('s');
    await ui.waitForText('smoke: 1 passed', 20_000);
    const journal = await readJournal(`${paths.journalsDir}/templates.json`);
    assert.equal(journal.items[images[0]!].smoke, 'passed');
    assert.equal(provider.liveSandboxes(), 0);
  } finally {
    ui.unmount();
    services.dispose();
    await removeDir(ws);
  }
});

test('Templates screen: x stops launching while builds run; a abandons them', { timeout: 60_000 }, async () => {
  const images = imageNames(6);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider({ buildMs: 60_000 });
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'templates' });
  services.templates = createTemplatesService({ paths, store: createTemplatesStore(), jobs: services.jobs, openProvider: async () => provider, env: ENV, concurrency: 2 });
  const ui = renderInk(<App services={services} size={{ width: 160, height: 30 }} />);
  try {
    await ui.waitForText('6 images: 0 built');
    await ui.press('b');
    await waitFor(() => provider.active === 2);
    await ui.waitForText('2 running');
    assert.ok(services.jobs.getState().jobs['templates-build']);
    await ui.press('x');
    await ui.waitForText('stopping: no new builds; 2 still running');
    // Abandoning loses work: the first X asks, the second abandons.
    await ui.press('X');
    await ui.waitForText('X again abandons 2 running build(s)');
    assert.equal(provider.builds.length, 2);
    await ui.press('X');
    await ui.waitForText('not built (stopped)', 20_000);
    assert.equal(provider.builds.length, 2);
    const journal = await readJournal(`${paths.journalsDir}/templates.json`);
    assert.equal(Object.values(journal.items).filter((r: any) => /abandoned/.test(r.reason)).length, 2);
  } finally {
    ui.unmount();
    services.dispose();
    await removeDir(ws);
  }
});

test('Templates screen: A builds the artifacts with the output in the log view, then the status line turns ok', { timeout: 60_000 }, async () => {
  const { copyFile, writeFile, rm } = await import('node:fs/promises');
  const path = await import('node:path');
  const images = imageNames(2);
  const { ws, paths } = await templateWorkspace(images);
  await rm(paths.artifactDir, { recursive: true });
  await copyFile(path.resolve('tests/fakes/fakeArtifactsScript.sh'), paths.artifactsScript);
  const source = path.join(ws, 'claude-download');
  await writeFile(source, 'fake claude binary\n');
  const env = { ...ENV, PATH: process.env.PATH, FAKE_CLAUDE_SOURCE: source, SWEGYM_PYTHON: path.resolve('tests/fakes/fakePythonBuild.sh') };
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'templates' });
  services.templates = createTemplatesService({ paths, store: createTemplatesStore(), jobs: services.jobs, openProvider: async () => new FakeProvider(), env });
  const ui = renderInk(<App services={services} size={{ width: 160, height: 30 }} />);
  try {
    await ui.waitForText('artifacts: missing claude-2.1.207-linux-x64');
    await ui.press('A');
    await ui.waitForText('Build log — artifacts build');
    await ui.waitForText('claude_code_runtime_file=', 20_000);
    await waitFor(() => Object.keys(services.jobs.getState().jobs).length === 0, { timeoutMs: 20_000 });
    await ui.press(KEYS.escape);
    await ui.waitForText('artifacts built in');
    await ui.waitForText('artifacts ok: claude 2.1.207, runtime py 3.10.20 bbs 1.1.0');
    assert.match(ui.frame(), /manual: TASK_IMAGE=xingyaoww\/sweb\.eval\.x86_64\.proj0_s_repo0-100:latest TEMPLATE_NAME=swegym-proj0_s_repo0-100/);
  } finally {
    ui.unmount();
    services.dispose();
    await removeDir(ws);
  }
});
