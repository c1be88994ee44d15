import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { writeFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { TemplateFactory, type FactoryConfig } from '../../src/services/templates/factory.js';
import { TEMPLATE_BUILD_RETRY as DEFAULT_RETRY, backoffDelay as retryDelayMs } from '../../src/services/util/retry.js';
import { assignTemplateNames } from '../../src/services/templates/naming.js';
import { readTemplateMap } from '../../src/services/templates/map.js';
import { acquireLock } from '../../src/services/workspace/lock.js';
import { ConsoleError } from '../../src/services/errors.js';
import { FakeProvider } from './fakeProvider.js';
import { templateWorkspace, imageNames, VERSIONS, readJson } from './helpers.js';
import { journalLogFile, readJournalItems } from '../../src/services/workspace/journal.js';

/** The templates journal as readers see it (snapshot + appended log). */
async function readTemplatesJournal(paths: { journalsDir: string }): Promise<any> {
  return { items: (await readJournalItems(path.join(paths.journalsDir, 'templates.json'))) ?? {} };
}
import { removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const fastRetry = { baseMs: 2, maxMs: 20, random: () => 0.5 };

function config(provider: FactoryConfig['provider'], paths: FactoryConfig['paths'], extra: Partial<FactoryConfig> = {}): FactoryConfig {
  return { provider, paths, artifacts: { artifactDir: paths.artifactDir, versions: VERSIONS }, retry: fastRetry, ...extra };
}

test('builds every image with bounded concurrency; the map is valid JSON after every success and covers the list', async () => {
  const images = imageNames(23);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider({ buildMs: 5 });
  let release!: () => void;
  provider.gate = new Promise<void>((r) => (release = r));
  const mapChecks: number[] = [];
  const builtNames: string[] = [];
  try {
    const factory = new TemplateFactory(
      config(provider, paths, {
        concurrency: 5,
        onEvent: (e) => {
          // At every state change the map on disk parses and holds every template built so far.
          if (e.type !== 'state') return;
          if (e.record.state === 'built') builtNames.push(e.record.template);
          if (!existsSync(paths.templateMap)) return assert.equal(builtNames.length, 0);
          const map = JSON.parse(readFileSync(paths.templateMap, 'utf8')) as Record<string, string>;
          for (const name of builtNames) assert.ok(Object.values(map).includes(name), `${name} missing from the map`);
          mapChecks.push(Object.keys(map).length);
        },
      }),
    );
    const running = factory.run();
    await waitFor(() => provider.active === 5, { message: () => `active=${provider.active}` });
    release();
    const result = await running;
    assert.equal(result.built, 23);
    assert.equal(result.failed, 0);
    assert.equal(result.skipped, 0);
    assert.ok(provider.maxActive <= 5, `max active ${provider.maxActive}`);
    assert.equal(provider.maxActive, 5);
    assert.ok(mapChecks.length >= 23);
    const map = await readTemplateMap(paths.templateMap, images);
    assert.deepEqual(Object.keys(map), images, 'map keys follow the image list');
    const names = assignTemplateNames(images);
    for (const image of images) assert.equal(map[image], names.get(image));
    const journal = await readTemplatesJournal(paths);
    for (const image of images) {
      const rec = journal.items[image];
      assert.equal(rec.state, 'built');
      assert.equal(rec.template, names.get(image));
      assert.equal(typeof rec.durationMs, 'number');
      assert.ok(rec.fingerprint);
      assert.ok(rec.updatedAt);
    }
    // The lock was released.
    assert.equal(existsSync(paths.lockFile), false);

    // Second run: nothing is rebuilt.
    const before = provider.builds.length;
    const again = await new TemplateFactory(config(provider, paths, { concurrency: 5 })).run();
    assert.equal(again.skipped, 23);
    assert.equal(again.built, 0);
    assert.equal(provider.builds.length, before);

    // --rebuild rebuilds everything; --only narrows.
    const only = await new TemplateFactory(config(provider, paths, { rebuild: true, only: [images[3]!] })).run();
    assert.equal(only.built, 1);
    assert.equal(provider.builds.length, before + 1);
  } finally {
    await removeDir(ws);
  }
});

test('429 storms are retried after Retry-After (all workers pause); real failures are not retried', async () => {
  const images = imageNames(8);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider({ buildMs: 5 });
  for (const image of images.slice(0, 6)) provider.scripts.set(image, { rateLimited: 3, retryAfterSec: 0.02 });
  provider.scripts.set(images[6]!, { fail: "access denied to 'xingyaoww/x': you don't have permission to pull this image" });
  provider.scripts.set(images[7]!, { transient: 2 });
  const retries: string[] = [];
  try {
    const result = await new TemplateFactory(
      config(provider, paths, { concurrency: 4, onEvent: (e) => (e.type === 'retry' ? retries.push(e.image) : undefined) }),
    ).run();
    assert.equal(result.built, 7);
    assert.equal(result.failed, 1);
    const names = assignTemplateNames(images);
    assert.equal(provider.attempts.get(names.get(images[6]!)!), 1, 'a build failure is not retried');
    assert.equal(provider.attempts.get(names.get(images[0]!)!), 4);
    assert.equal(provider.attempts.get(names.get(images[7]!)!), 3);
    assert.equal(retries.filter((i) => i === images[0]).length, 3);
    const journal = await readTemplatesJournal(paths);
    const failed = journal.items[images[6]!];
    assert.equal(failed.state, 'failed');
    assert.equal(failed.code, 'pull_denied');
    assert.match(failed.reason, /image pull denied/);
    assert.ok(failed.logTail.some((l: string) => l.includes('access denied')));
    assert.equal(journal.items[images[0]!].attempts, 4);
    const map = await readJson(paths.templateMap);
    assert.equal(map[images[6]!], undefined, 'a failed image is not mapped');
    assert.equal(Object.keys(map).length, 7);

    // The next run retries only the failed image.
    provider.scripts.delete(images[6]!);
    const before = provider.builds.length;
    const again = await new TemplateFactory(config(provider, paths, { concurrency: 4 })).run();
    assert.equal(again.built, 1);
    assert.equal(again.skipped, 7);
    assert.equal(provider.builds.length, before + 1);
  } finally {
    await removeDir(ws);
  }
});

test('rate limits that never end fail the image after maxAttempts with the cause', async () => {
  const images = imageNames(1);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider();
  provider.scripts.set(images[0]!, { rateLimited: 100 });
  try {
    const result = await new TemplateFactory(config(provider, paths, { retry: { ...fastRetry, attempts: 3 } })).run();
    assert.equal(result.failed, 1);
    const rec = result.records[0]!;
    assert.equal(rec.code, 'rate_limited');
    assert.match(rec.reason ?? '', /lower --concurrency/);
  } finally {
    await removeDir(ws);
  }
});

test('stop() launches nothing new and lets running builds finish; the rest resumes later', async () => {
  const images = imageNames(10);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider({ buildMs: 5 });
  let release!: () => void;
  provider.gate = new Promise<void>((r) => (release = r));
  const ctl = new AbortController();
  try {
    const factory = new TemplateFactory(config(provider, paths, { concurrency: 3, signal: ctl.signal }));
    const running = factory.run();
    await waitFor(() => provider.active === 3);
    ctl.abort();
    release();
    const result = await running;
    assert.equal(result.stopped, true);
    assert.equal(result.built, 3, 'the three running builds finished');
    assert.equal(result.notStarted, 7);
    assert.equal(provider.builds.length, 3);
    const again = await new TemplateFactory(config(provider, paths, { concurrency: 3 })).run();
    assert.equal(again.built, 7);
    assert.equal(again.skipped, 3);
    assert.equal(provider.builds.length, 10, 'nothing finished is redone');
  } finally {
    await removeDir(ws);
  }
});

test('abandon() stops waiting for running builds and queues them again', async () => {
  const images = imageNames(5);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider({ buildMs: 10_000 });
  try {
    const factory = new TemplateFactory(config(provider, paths, { concurrency: 2 }));
    const running = factory.run();
    await waitFor(() => provider.active === 2);
    factory.stop();
    assert.equal(factory.snapshot().stopping, true);
    factory.abandon();
    const result = await running;
    assert.equal(result.abandoned, 2);
    assert.equal(result.built, 0);
    const journal = await readTemplatesJournal(paths);
    const abandoned = Object.values(journal.items) as { state: string; reason: string }[];
    assert.equal(abandoned.length, 2);
    for (const r of abandoned) {
      assert.equal(r.state, 'queued');
      assert.match(r.reason, /abandoned/);
    }
  } finally {
    await removeDir(ws);
  }
});

test('a journal left in "building" (kill -9) is rebuilt; a changed artifact rebuilds; a template missing upstream rebuilds', async () => {
  const images = imageNames(3);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider();
  try {
    await new TemplateFactory(config(provider, paths)).run();
    assert.equal(provider.builds.length, 3);
    const jf = path.join(paths.journalsDir, 'templates.json');
    const journal = await readTemplatesJournal(paths);
    journal.items[images[0]!].state = 'building';
    // Killed mid-build: the journal says `building` (a snapshot, as a compaction leaves it).
    await rm(journalLogFile(jf), { force: true });
    await writeFile(jf, JSON.stringify(journal));
    provider.templates.delete(journal.items[images[1]!].template);
    const r2 = await new TemplateFactory(config(provider, paths)).run();
    assert.equal(r2.built, 2);
    assert.equal(r2.skipped, 1);
    // New runtime tarball → every fingerprint changes.
    await writeFile(path.join(paths.artifactDir, 'claude-code-runtime-python-3.10.20-bbs-1.1.0.tar.gz'), 'new runtime\n');
    const r3 = await new TemplateFactory(config(provider, paths)).run();
    assert.equal(r3.built, 3);
  } finally {
    await removeDir(ws);
  }
});

test('templates built outside the console (in the map) are adopted, not rebuilt', async () => {
  const images = imageNames(2);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider();
  provider.templates.add('manual-template-0');
  await mkdir(path.dirname(paths.templateMap), { recursive: true });
  await writeFile(paths.templateMap, JSON.stringify({ [images[0]!]: 'manual-template-0' }));
  try {
    const result = await new TemplateFactory(config(provider, paths)).run();
    assert.equal(result.skipped, 1);
    assert.equal(result.built, 1);
    const map = await readTemplateMap(paths.templateMap, images);
    assert.equal(map[images[0]!], 'manual-template-0');
    assert.match(result.records[0]!.reason ?? '', /adopted/);
  } finally {
    await removeDir(ws);
  }
});

test('preconditions: missing artifacts, damaged map, busy workspace, bad concurrency, bad key', async () => {
  const images = imageNames(2);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider();
  try {
    await assert.rejects(
      new TemplateFactory(config(provider, paths, { artifacts: { artifactDir: paths.artifactDir, versions: { ...VERSIONS, bbsVersion: 'custom' } } })).run(),
      (e: unknown) => e instanceof ConsoleError && /missing sandbox artifact: .*bbs-custom\.tar\.gz/.test(e.what) && /artifacts build/.test(e.fix ?? ''),
    );
    await assert.rejects(
      new TemplateFactory(config(new FakeProvider({ name: 'e2b' }), paths, { concurrency: 21 })).run(),
      (e: unknown) => e instanceof ConsoleError && e.exitCode === 2 && /20/.test(e.causeText ?? ''),
    );
    await writeFile(paths.templateMap, '{not json');
    await assert.rejects(new TemplateFactory(config(provider, paths)).run(), /invalid sandbox image map/);
    assert.equal(readFileSync(paths.templateMap, 'utf8'), '{not json', 'a damaged map is never overwritten');
    await writeFile(paths.templateMap, '{}');
    const lock = await acquireLock(paths.lockFile, 'other');
    // Same pid holds it: simulate another owner by rewriting the pid to a live foreign process (our parent).
    await writeFile(paths.lockFile, JSON.stringify({ pid: process.ppid, startedAt: new Date().toISOString(), purpose: 'templates smoke' }));
    await assert.rejects(new TemplateFactory(config(provider, paths)).run(), /workspace is busy/);
    await writeFile(paths.lockFile, JSON.stringify({ pid: process.pid }));
    await lock.release();
    provider.unauthorized = true;
    const result = await new TemplateFactory(config(provider, paths, { concurrency: 1 })).run();
    assert.match(result.fatal ?? '', /E2B_API_KEY/);
    assert.equal(result.failed, 1, 'a bad key stops the run after the first failure');
  } finally {
    await removeDir(ws);
  }
});

test('retry delays: exponential with jitter, capped, never shorter than Retry-After', () => {
  const p = { ...DEFAULT_RETRY, random: () => 0 };
  assert.equal(retryDelayMs(p, 1), 1000);
  assert.equal(retryDelayMs(p, 2), 2000);
  const capped = retryDelayMs({ ...p, random: () => 0.999999 }, 20);
  assert.ok(capped > 59_999 && capped <= 60_000, String(capped));
  assert.ok(retryDelayMs(p, 1, 30) >= 30_000);
  const spread = new Set([0.1, 0.5, 0.9].map((r) => retryDelayMs({ ...p, random: () => r }, 3, 5)));
  assert.equal(spread.size, 3, 'workers told the same Retry-After do not all wake at once');
});

test('secrets in build logs and failure messages never reach the journal', async () => {
  const images = imageNames(1);
  const { ws, paths } = await templateWorkspace(images);
  const secret = 'e2b_0123SECRET45';
  const provider = new FakeProvider();
  provider.scripts.set(images[0]!, { fail: `registry said no for X-API-Key: ${secret}` });
  const build = provider.buildTemplate.bind(provider);
  provider.buildTemplate = async (spec, opts) => {
    opts?.onLog?.(`using E2B_API_KEY=${secret}`);
    return build(spec, opts);
  };
  try {
    const result = await new TemplateFactory(config(provider, paths)).run();
    assert.equal(result.failed, 1);
    const jf = path.join(paths.journalsDir, 'templates.json');
    const text = [jf, journalLogFile(jf)].filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8')).join('\n');
    assert.ok(text.length > 0);
    assert.ok(!text.includes(secret), text);
    assert.match(text, /\*\*\*\*/);
  } finally {
    await removeDir(ws);
  }
});
