// `sandboxes list|kill` headless commands against the fake E2B (configured through the E2B_* variables, as a user
// would) and the local provider: only console-tagged sandboxes are listed or touched.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { listCommand, killCommand } from '../../src/cli/commands/sandboxes.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { ConsoleError } from '../../src/services/errors.js';
import { createProvider, buildMinimalLocalTemplate, type LocalProvider } from '../../src/services/sandbox/index.js';
import type { CommandContext, OptionValue } from '../../src/cli/context.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

function ctxFor(opts: { provider: 'e2b' | 'local'; env: NodeJS.ProcessEnv; workspace: string; json?: boolean; positionals?: string[]; options?: Record<string, OptionValue> }) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const ctx: CommandContext = {
    command: ['sandboxes'],
    positionals: opts.positionals ?? [],
    options: opts.options ?? {},
    global: { workspace: opts.workspace, provider: opts.provider, debug: false, color: false, json: opts.json ?? false },
    paths: recipePaths(opts.workspace),
    stdout,
    stderr,
    env: opts.env,
    signal: new AbortController().signal,
  };
  return { ctx, out: () => out, err: () => err };
}

describe('sandboxes list/kill on E2B (fake)', () => {
  let fake: FakeE2b;
  let env: NodeJS.ProcessEnv;
  let ws: string;
  before(async () => {
    fake = await startFakeE2b({ templates: ['tpl'], foreignSandboxes: [{ templateID: 'tpl', metadata: { owner: 'dressage' } }] });
    env = { E2B_API_KEY: fake.apiKey, E2B_API_URL: fake.url, E2B_SANDBOX_URL: fake.url };
    ws = await tempDir('swegym-cli-sbx-');
  });
  after(async () => {
    await fake.close();
    await removeDir(ws);
  });

  it('lists only console sandboxes, as JSON and as a table', async () => {
    const p = createProvider('e2b', { env });
    const a = await p.create({ template: 'tpl', timeoutMs: 60_000, metadata: { run: 'r1' } });
    const j = ctxFor({ provider: 'e2b', env, workspace: ws, json: true });
    assert.equal(await listCommand(j.ctx), 0);
    const doc = JSON.parse(j.out()) as { provider: string; sandboxes: { id: string; metadata: Record<string, string> }[] };
    assert.equal(doc.provider, 'e2b');
    assert.deepEqual(doc.sandboxes.map((s) => s.id), [a.id]);
    const t = ctxFor({ provider: 'e2b', env, workspace: ws });
    assert.equal(await listCommand(t.ctx), 0);
    assert.match(t.out(), new RegExp(`${a.id}\\s+tpl\\s+running`));
    assert.match(t.out(), /run=r1/);
    assert.doesNotMatch(t.out(), /dressage/);
    await a.kill();
  });

  it('refuses to touch a sandbox that is not ours, and needs --yes without a terminal', async () => {
    const foreign = fake.alive().find((s) => s.metadata.owner === 'dressage');
    assert.ok(foreign);
    const r = ctxFor({ provider: 'e2b', env, workspace: ws, positionals: [foreign.sandboxID], options: { yes: true } });
    assert.equal(await killCommand(r.ctx), 1);
    assert.match(r.err(), /refusing/);
    assert.equal(foreign.alive, true);

    const p = createProvider('e2b', { env });
    const mine = await Promise.all([1, 2].map(() => p.create({ template: 'tpl', timeoutMs: 60_000 })));
    const noYes = ctxFor({ provider: 'e2b', env, workspace: ws, options: { 'all-console': true }, json: true });
    await assert.rejects(killCommand(noYes.ctx), (e) => e instanceof ConsoleError && e.exitCode === 3 && /--yes/.test(e.fix ?? ''));
    assert.ok(mine.every((s) => fake.sandboxes.get(s.id)?.alive));

    const all = ctxFor({ provider: 'e2b', env, workspace: ws, options: { 'all-console': true, yes: true }, json: true });
    assert.equal(await killCommand(all.ctx), 0);
    const doc = JSON.parse(all.out()) as { killed: string[]; refused: string[] };
    assert.deepEqual(doc.killed.sort(), mine.map((s) => s.id).sort());
    assert.equal(foreign.alive, true, 'the foreign sandbox survives --all-console');
  });

  it('explains a missing or wrong key', async () => {
    const r = ctxFor({ provider: 'e2b', env: { E2B_API_URL: fake.url }, workspace: ws });
    await assert.rejects(listCommand(r.ctx), (e) => e instanceof ConsoleError && e.exitCode === 3 && /E2B_API_KEY/.test(e.fix ?? ''));
    const usage = ctxFor({ provider: 'e2b', env, workspace: ws });
    await assert.rejects(killCommand(usage.ctx), (e) => e instanceof ConsoleError && e.exitCode === 2);
  });
});

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

describe('sandboxes list/kill on the local provider', { skip: hasBwrap ? false : 'bubblewrap is not installed' }, () => {
  it('lists and kills local sandboxes of the workspace', async () => {
    const ws = await tempDir('swegym-cli-local-');
    const p = createProvider('local', { workspace: ws }) as LocalProvider;
    try {
      await buildMinimalLocalTemplate(p, 'mini');
      const s = await p.create({ template: 'mini', timeoutMs: 60_000 });
      const l = ctxFor({ provider: 'local', env: {}, workspace: ws, json: true });
      assert.equal(await listCommand(l.ctx), 0);
      assert.deepEqual((JSON.parse(l.out()) as { sandboxes: { id: string }[] }).sandboxes.map((x) => x.id), [s.id]);
      const k = ctxFor({ provider: 'local', env: {}, workspace: ws, positionals: [s.id], options: { yes: true } });
      assert.equal(await killCommand(k.ctx), 0);
      assert.match(k.out(), new RegExp(`killed ${s.id}`));
      assert.deepEqual(await p.list({}), []);
    } finally {
      await p.killAll();
      await removeDir(ws);
    }
  });
});
