// An E2B error body that quotes the API key, in part and in disguise (issue 25, point 1), through the built binary
// against the fake E2B behind the fault proxy: no 8 characters of the key reach stderr, the --json document or any
// file under .swegym-console/ (journals, build logs, the lock), as written, URL-decoded or JSON-unescaped; and
// those files are 0600 in 0700 folders, also where an older console had left them 0644/0755.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeE2b, type FakeE2b } from '../fakes/e2bServer.js';
import { startFaultProxy, type FaultProxy } from '../fakes/faultProxy.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { removeDir } from '../helpers/workspace.js';
import { templateWorkspace, imageNames } from '../templates/helpers.js';

const hex4 = (c: number) => c.toString(16).padStart(4, '0');
const jsonEscaped = (s: string) => [...s].map((c) => `\\u${hex4(c.charCodeAt(0))}`).join('');

/** Every way the body quotes the key: the part after e2b_, its first 16 and last 14 characters, escaped, encoded. */
function quotingBody(key: string): string {
  const bare = key.slice(4);
  const message = [
    `invalid key ${bare}`,
    `prefix=${bare.slice(0, 16)}…`,
    `…suffix:${bare.slice(-14)}`,
    `url=https://api.e2b.app/?k=${encodeURIComponent(key)}`,
  ].join('; ');
  // The escaped form is spliced in after JSON.stringify, as a server that escapes non-ASCII-safe output sends it.
  return JSON.stringify({ code: 400, message }).replace('"}', `; escaped ${jsonEscaped(bare.slice(2, 20))}"}`);
}

function decodedViews(text: string): string[] {
  const unescaped = text.replace(/\\+u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  const decoded = unescaped.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return [text, unescaped, decoded].map((v) => v.toLowerCase());
}

function leak(text: string, key: string): string | undefined {
  const views = decodedViews(text);
  const k = key.toLowerCase();
  for (let i = 0; i + 8 <= k.length; i++) if (views.some((v) => v.includes(k.slice(i, i + 8)))) return k.slice(i, i + 8);
  return undefined;
}

async function walk(dir: string): Promise<{ file: string; dir: boolean }[]> {
  const out: { file: string; dir: boolean }[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    out.push({ file: p, dir: e.isDirectory() });
    if (e.isDirectory()) out.push(...(await walk(p)));
  }
  return out;
}

async function assertPrivateAndClean(consoleDir: string, key: string): Promise<void> {
  assert.equal((await stat(consoleDir)).mode & 0o777, 0o700, `${consoleDir} is 0700`);
  const entries = await walk(consoleDir);
  assert.ok(entries.some((e) => !e.dir), 'the console wrote its state');
  for (const e of entries) {
    const mode = (await stat(e.file)).mode & 0o777;
    assert.equal(mode, e.dir ? 0o700 : 0o600, `${path.relative(consoleDir, e.file)} is ${mode.toString(8)}`);
    if (!e.dir) {
      const text = await readFile(e.file, 'utf8');
      const l = leak(text, key);
      assert.equal(l, undefined, `"${l}" of the key is in ${path.relative(consoleDir, e.file)}: ${text.slice(0, 2000)}`);
    }
  }
}

describe('an E2B error body quoting the key: masked in every output and file', { skip: builtMissing() }, () => {
  let fake: FakeE2b;
  let proxy: FaultProxy;
  before(async () => {
    fake = await startFakeE2b({ templates: ['swegym-a'] });
    proxy = await startFaultProxy(fake.url);
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  it('templates build --json: stderr, the document, the journal and the build logs hold no 8 characters of it', { timeout: 60_000 }, async () => {
    const { ws, paths } = await templateWorkspace(imageNames(2));
    const key = fake.apiKey;
    assert.match(key, /^e2b_/);
    proxy.clearRules();
    proxy.addRule({ kind: 'status', role: 'control', method: 'POST', path: '/v3/templates', status: 400, body: quotingBody(key) });
    try {
      // An older console's state, world-readable: made private by the next writes.
      await mkdir(path.join(paths.consoleDir, 'journals'), { recursive: true, mode: 0o755 });
      await chmod(paths.consoleDir, 0o755);
      const r = await runConsole(['templates', 'build', '--json', '-w', ws], { E2B_API_KEY: key, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url });
      assert.equal(r.code, 1, r.out + r.err);
      assert.ok(proxy.requests.some((q) => q.path === '/v3/templates' && q.status === 400), 'the body was served');
      const doc = JSON.parse(r.out) as { failed: number; templates: { error: string }[] };
      assert.equal(doc.failed, 2);
      assert.match(doc.templates[0]!.error, /invalid key \*\*\*\*/);
      for (const [where, text] of [['stdout', r.out], ['stderr', r.err]] as const) {
        const l = leak(text, key);
        assert.equal(l, undefined, `"${l}" of the key is on ${where}: ${text}`);
      }
      await assertPrivateAndClean(paths.consoleDir, key);
    } finally {
      await removeDir(ws);
    }
  });

  it('templates smoke --json: a create refused with the key quoted leaks nothing either', { timeout: 60_000 }, async () => {
    const { ws, paths } = await templateWorkspace(imageNames(1));
    const key = fake.apiKey;
    proxy.clearRules();
    proxy.addRule({ kind: 'status', role: 'control', method: 'POST', path: '/v2/sandboxes', status: 400, body: quotingBody(key) });
    try {
      await writeFile(paths.templateMap, JSON.stringify({ [imageNames(1)[0]!]: 'swegym-a' }));
      const r = await runConsole(['templates', 'smoke', '--all', '--json', '-w', ws], { E2B_API_KEY: key, E2B_API_URL: proxy.url, E2B_SANDBOX_URL: proxy.url });
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.out + r.err, /\*\*\*\*/);
      for (const [where, text] of [['stdout', r.out], ['stderr', r.err]] as const) {
        const l = leak(text, key);
        assert.equal(l, undefined, `"${l}" of the key is on ${where}: ${text}`);
      }
      await assertPrivateAndClean(paths.consoleDir, key);
    } finally {
      await removeDir(ws);
    }
  });
});
