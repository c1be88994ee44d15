// The composition root: each domain service is created once, the environment reaches the stores and services
// from one place, and a domain field read too early says so instead of being undefined.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createAppServices } from '../../src/app/domain.js';
import { ServicesNotReadyError, startAppServices } from '../../src/app/core.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

const GLOBAL = { provider: 'local' as const, debug: false, color: false, json: false };

test('createAppServices: everything usable at once, each service created once, the env injected in one place', async () => {
  const ws = await tempDir('swegym-app-');
  const env = { SWEGYM_TEST_MARK: 'from-the-app' };
  const services = createAppServices({ workspace: ws, ...GLOBAL }, { commandLog: new CommandLog(), env });
  try {
    assert.equal(services.isReady(), true);
    const monitor = services.monitor;
    await services.whenReady();
    assert.equal(services.monitor, monitor, 'whenReady creates nothing twice');
    assert.equal(services.env, env);
    assert.ok(!('env' in services.train.store.getState()), 'the train store keeps no environment (it holds secrets); the controller reads the registry\'s env');
    assert.notEqual(services.validate.store, services.convert.store);
  } finally {
    services.dispose();
    await removeDir(ws);
  }
});

test('startAppServices: domain fields throw ServicesNotReadyError until whenReady, then stay the same objects', async () => {
  const ws = await tempDir('swegym-app-');
  const services = startAppServices({ workspace: ws, ...GLOBAL }, { commandLog: new CommandLog(), env: {} });
  try {
    assert.equal(services.isReady(), false);
    assert.throws(() => services.templates, (err: Error) => err instanceof ServicesNotReadyError && /services\.templates is not ready yet/.test(err.message));
    assert.ok(services.home.store.getState() !== undefined, 'the stores exist before the domain code');
    const [a, b] = [services.whenReady(), services.whenReady()];
    assert.equal(a, b, 'one load, however many screens ask');
    await a;
    assert.equal(services.isReady(), true);
    const templates = services.templates;
    await services.whenReady();
    assert.equal(services.templates, templates);
  } finally {
    services.dispose();
    await removeDir(ws);
  }
});
