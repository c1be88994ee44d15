import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { templatesStatusCommand, templatesSmokeCommand } from '../../src/cli/commands/templates.js';
import { commandRegistry } from '../../src/cli/context.js';
import { FakeProvider } from './fakeProvider.js';
import type { CommandContext } from '../../src/cli/context.js';
import { readTemplateMap } from '../../src/services/templates/map.js';
import { templateWorkspace, imageNames, readJson } from './helpers.js';
import { removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import type { RecipePaths } from '../../src/services/workspace/paths.js';

const NODE = process.execPath;
const CHILD = path.resolve('tests/templates/buildChild.ts');

function startChild(ws: string, stateFile: string, buildMs: number, buildsLog: string, args: string[]) {
  const child = spawn(NODE, ['--import', 'tsx', CHILD, stateFile, String(buildMs), buildsLog, '--', 'templates', 'build', '--workspace', ws, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => out, err: () => err };
}

/** Reads a JSON file that must be valid whenever it exists. */
function readValid(file: string): any {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  return JSON.parse(text);
}

/**
 * The templates journal as it is on disk at this moment: its snapshot (valid JSON whenever it exists) and its log,
 * every complete line of which must be valid JSON (only a last line without its newline may be cut).
 */
function readJournalValid(file: string): any {
  const items: Record<string, unknown> = { ...(readValid(file)?.items ?? {}) };
  const log = `${file}.log`;
  if (existsSync(log)) {
    const lines = readFileSync(log, 'utf8').split('\n');
    lines.pop(); // '' after the last newline, or a line still being appended
    for (const line of lines) {
      const rec = JSON.parse(line) as { k: string; v?: unknown; d?: 1 };
      if (rec.d) delete items[rec.k];
      else items[rec.k] = rec.v;
    }
  }
  return { items };
}

function builds(log: string, kind: 'start' | 'done'): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith(kind + ' ')).map((l) => l.slice(kind.length + 1));
}

test('kill -9 in the middle, then resume: the map and journal are valid JSON throughout and nothing finished is redone', { timeout: 120_000 }, async () => {
  const images = imageNames(12);
  const { ws, paths } = await templateWorkspace(images);
  const stateFile = path.join(ws, 'fake-e2b.json');
  const log1 = path.join(ws, 'builds-1.log');
  const log2 = path.join(ws, 'builds-2.log');
  const journalFile = path.join(paths.journalsDir, 'templates.json');
  try {
    const run1 = startChild(ws, stateFile, 400, log1, ['--concurrency', '3']);
    let reads = 0;
    await waitFor(
      () => {
        // Every read of the map and the journal parses (the writes are atomic renames).
        readValid(paths.templateMap);
        readJournalValid(journalFile);
        reads++;
        const map = readValid(paths.templateMap) ?? {};
        return Object.keys(map).length >= 4;
      },
      { timeoutMs: 60_000, message: () => `child output:\n${run1.err()}` },
    );
    run1.child.kill('SIGKILL');
    await run1.exited;
    assert.ok(reads > 0);
    const mappedAtKill = readValid(paths.templateMap) as Record<string, string>;
    const journalAtKill = readJournalValid(journalFile);
    assert.ok(Object.keys(mappedAtKill).length >= 4 && Object.keys(mappedAtKill).length < 12, 'killed in the middle');
    for (const [image, name] of Object.entries(mappedAtKill)) {
      assert.equal(journalAtKill.items[image]?.template ?? name, name);
    }

    const run2 = startChild(ws, stateFile, 5, log2, ['--concurrency', '3', '--json']);
    const code = await run2.exited;
    assert.equal(code, 0, run2.err());
    const rebuilt = builds(log2, 'start');
    const finishedBefore = Object.values(journalAtKill.items as Record<string, { state: string; template: string }>).filter((r) => r.state === 'built').map((r) => r.template);
    for (const name of [...Object.values(mappedAtKill), ...finishedBefore]) assert.ok(!rebuilt.includes(name), `${name} was finished before the kill and built again`);
    const everBuilt = new Set([...builds(log1, 'done'), ...builds(log2, 'done')]);
    assert.equal(everBuilt.size, 12);
    const summary = JSON.parse(run2.out());
    assert.equal(summary.failed, 0);
    assert.equal(summary.mapComplete, true);
    const map = await readTemplateMap(paths.templateMap, images);
    assert.equal(Object.keys(map).length, 12);
    assert.equal(existsSync(paths.lockFile), false);
  } finally {
    await removeDir(ws);
  }
});

test('Ctrl-C stops launching, waits for running builds, exits 130; the next run finishes the rest', { timeout: 120_000 }, async () => {
  const images = imageNames(9);
  const { ws, paths } = await templateWorkspace(images);
  const stateFile = path.join(ws, 'fake-e2b.json');
  const log1 = path.join(ws, 'builds-1.log');
  const log2 = path.join(ws, 'builds-2.log');
  try {
    const run1 = startChild(ws, stateFile, 1500, log1, ['--concurrency', '2']);
    await waitFor(() => builds(log1, 'start').length === 2, { timeoutMs: 60_000, message: () => run1.err() });
    run1.child.kill('SIGINT');
    const code = await run1.exited;
    assert.equal(code, 130, run1.err());
    assert.match(run1.err(), /stopping: no new builds; waiting for 2 running build/);
    const started = builds(log1, 'start');
    assert.equal(started.length, 2, 'nothing new was launched after Ctrl-C');
    assert.deepEqual(builds(log1, 'done').sort(), started.sort(), 'the running builds were allowed to finish');
    assert.equal(Object.keys(await readJson(paths.templateMap)).length, 2);

    const run2 = startChild(ws, stateFile, 5, log2, ['--concurrency', '4']);
    assert.equal(await run2.exited, 0, run2.err());
    assert.equal(builds(log2, 'start').length, 7);
    assert.match(run2.out(), /7 built, 2 already there, 0 failed/);
  } finally {
    await removeDir(ws);
  }
});

function capture(paths: RecipePaths): { ctx: CommandContext; out: () => string } {
  let out = '';
  const sink = new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } });
  const ctx: CommandContext = {
    command: ['templates', 'status'],
    positionals: [],
    options: {},
    global: { workspace: paths.root, provider: 'e2b', debug: false, color: false, json: true },
    paths,
    stdout: sink,
    stderr: new Writable({ write(_c, _e, cb) { cb(); } }),
    env: {},
    signal: new AbortController().signal,
  };
  return { ctx, out: () => out };
}

test('templates status --json prints every image with template, state, smoke and error, plus counts', async () => {
  const images = imageNames(3);
  const { ws, paths } = await templateWorkspace(images);
  try {
    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(paths.journalsDir, { recursive: true });
    await writeFile(path.join(paths.journalsDir, 'templates.json'), JSON.stringify({
      version: 1,
      updatedAt: new Date().toISOString(),
      items: {
        [images[0]!]: { image: images[0], state: 'built', template: 'swegym-a', smoke: 'passed', updatedAt: 'x' },
        [images[1]!]: { image: images[1], state: 'failed', template: 'swegym-b', reason: 'access denied — image pull denied', updatedAt: 'x' },
      },
    }));
    await writeFile(paths.templateMap, JSON.stringify({ [images[0]!]: 'swegym-a' }));
    const { ctx, out } = capture(paths);
    assert.equal(await templatesStatusCommand(ctx), 0);
    const doc = JSON.parse(out());
    assert.deepEqual(doc.templates[0], { image: images[0], template: 'swegym-a', state: 'built', smoke: 'passed', error: '' });
    assert.deepEqual(doc.templates[1], { image: images[1], template: 'swegym-b', state: 'failed', smoke: null, error: 'access denied — image pull denied' });
    assert.equal(doc.templates[2].state, 'queued');
    assert.equal(doc.templates[2].template, 'swegym-proj2_s_repo2-102');
    assert.equal(doc.counts.total, 3);
    assert.equal(doc.counts.built, 1);
    assert.equal(doc.counts.failed, 1);
    assert.equal(doc.counts.queued, 1);
    assert.equal(doc.counts.smokePassed, 1);
    assert.equal(doc.counts.mapped, 1);
  } finally {
    await removeDir(ws);
  }
});

test('templates smoke --all --json smokes every mapped template, records the journal, exits 1 when one fails', async () => {
  const images = imageNames(2);
  const { ws, paths } = await templateWorkspace(images);
  const provider = new FakeProvider();
  provider.templates.add('swegym-a');
  provider.templates.add('swegym-b');
  provider.smoke.set('swegym-b', { health: { ok: false, error: 'connection refused' } });
  try {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(paths.templateMap, JSON.stringify({ [images[0]!]: 'swegym-a', [images[1]!]: 'swegym-b' }));
    const { ctx, out } = capture(paths);
    ctx.command = ['templates', 'smoke'];
    ctx.options = { all: true };
    // The health wait steps by the operator's backoff: 4 waits of 5, 10, 15, 20 ms instead of 1 to 4 s.
    ctx.env = { SWEGYM_RETRY_BASE_MS: '5' };
    // The scripted provider goes into the registry's dependencies: the command opens nothing itself.
    ctx.registry = commandRegistry(ctx, { providers: { open: async () => provider } });
    assert.equal(await templatesSmokeCommand(ctx), 1);
    const doc = JSON.parse(out());
    assert.equal(doc.counts.passed, 1);
    assert.equal(doc.counts.failed, 1);
    const b = doc.results.find((r: { template: string }) => r.template === 'swegym-b');
    assert.equal(b.code, 'no_start_command');
    assert.equal(b.killed, true);
    const journal = await readJson(path.join(paths.journalsDir, 'templates.json'));
    assert.equal(journal.items[images[0]!].smoke, 'passed');
    assert.equal(journal.items[images[1]!].smoke, 'failed');
    assert.equal(provider.liveSandboxes(), 0);
    assert.ok(b.durationMs < 5000, `the health waits followed SWEGYM_RETRY_BASE_MS: ${b.durationMs} ms`);
    // Neither --template nor --all: a usage error.
    const bare = capture(paths);
    await assert.rejects(templatesSmokeCommand(bare.ctx), /say which templates to smoke/);
  } finally {
    await removeDir(ws);
  }
});
