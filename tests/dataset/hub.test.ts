import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import net from 'node:net';
import { randomBytes, createHash } from 'node:crypto';
import { downloadHubFile, hubConfig, resolveUrl, type DownloadProgress } from '../../src/services/dataset/hub.js';
import { ConsoleError, formatError } from '../../src/services/errors.js';
import { startFakeHub, startFakeProxy } from '../fakes/hfHub.js';
import { tempDir, removeDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

const REPO = 'NovaSky-AI/SkyRL-v0-293-data';
const TOKEN = 'hf_abcdefghijklmnopqrstuvwxyz123456';

async function setup(opts: { content?: Buffer; privateToken?: string; lfs?: boolean } = {}) {
  const content = opts.content ?? randomBytes(300_000);
  const hub = await startFakeHub({
    files: [
      { repo: REPO, path: 'train.parquet', content, lfs: opts.lfs },
      { repo: REPO, path: 'validation.parquet', content: randomBytes(1000), lfs: opts.lfs },
    ],
    privateRepos: opts.privateToken ? { [REPO]: opts.privateToken } : undefined,
    renamed: { 'NovaSky-AI/old-name': REPO },
  });
  const dir = await tempDir('swegym-hub-');
  const target = path.join(dir, 'data', 'swegym-source', 'train.parquet');
  const env: NodeJS.ProcessEnv = { HF_ENDPOINT: hub.endpoint, HOME: dir, HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' };
  return { hub, dir, target, env, content, sha: createHash('sha256').update(content).digest('hex') };
}

/** A local port with nothing listening (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function expectError(p: Promise<unknown>): Promise<ConsoleError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ConsoleError, `expected ConsoleError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the download to fail');
}

test('resolveUrl and hubConfig follow the hub conventions', async () => {
  assert.equal(resolveUrl('https://huggingface.co/', REPO, 'train.parquet'), 'https://huggingface.co/datasets/NovaSky-AI/SkyRL-v0-293-data/resolve/main/train.parquet');
  const dir = await tempDir();
  try {
    assert.equal((await hubConfig({ HOME: dir })).endpoint, 'https://huggingface.co');
    const c = await hubConfig({ HF_ENDPOINT: 'https://mirror.example/', HUGGING_FACE_HUB_TOKEN: TOKEN, HOME: dir, HTTPS_PROXY: 'http://u:p@proxy:3128' });
    assert.equal(c.endpoint, 'https://mirror.example');
    assert.equal(c.token, TOKEN);
    assert.equal(c.tokenSource, 'HUGGING_FACE_HUB_TOKEN');
    assert.equal(c.proxy.https, 'http://u:p@proxy:3128');
    // `huggingface-cli login` token file
    await mkdir(path.join(dir, '.cache', 'huggingface'), { recursive: true });
    await writeFile(path.join(dir, '.cache', 'huggingface', 'token'), TOKEN + '\n');
    const fromFile = await hubConfig({ HOME: dir });
    assert.equal(fromFile.token, TOKEN);
    assert.match(fromFile.tokenSource ?? '', /huggingface\/token$/);
    assert.equal((await hubConfig({ HOME: dir, HF_TOKEN: 'hf_other_token_value_123456' })).tokenSource, 'HF_TOKEN');
  } finally {
    await removeDir(dir);
  }
});

test('downloads through the hub redirect to the CDN, verifies sha256, renames atomically', async () => {
  const s = await setup();
  try {
    const seen: DownloadProgress[] = [];
    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env, onProgress: (p) => seen.push(p), progressIntervalMs: 0 });
    assert.deepEqual(await readFile(s.target), s.content);
    assert.equal(r.sha256, s.sha);
    assert.deepEqual(r.verified, { size: true, sha256: true });
    assert.equal(r.upToDate, false);
    assert.equal(r.bytes, s.content.length);
    // Only the target is left: no .part, no .part.json
    assert.deepEqual(await readdir(path.dirname(s.target)), ['train.parquet']);
    // Hub got a HEAD, CDN a GET; the phases came in order and ended done with all bytes.
    assert.deepEqual(s.hub.requests.map((q) => `${q.server} ${q.method} ${q.status}`), ['hub HEAD 302', 'cdn GET 200']);
    const phases = [...new Set(seen.map((p) => p.phase))];
    assert.deepEqual(phases, ['probing', 'downloading', 'verifying', 'done']);
    assert.equal(seen.at(-1)?.received, s.content.length);
    assert.equal(seen.find((p) => p.phase === 'downloading')?.total, s.content.length);
    // Second run: already present and identical → no GET.
    const again = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env });
    assert.equal(again.upToDate, true);
    assert.equal(s.hub.requests.filter((q) => q.server === 'cdn').length, 1);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('a token goes to the hub only, never to the CDN; a private repo without it is refused with a clear 401', async () => {
  const s = await setup({ privateToken: TOKEN });
  try {
    const err = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env }));
    assert.equal(err.exitCode, 3);
    assert.match(err.what, /refused train\.parquet .*HTTP 401/);
    assert.match(err.causeText ?? '', /RepoNotFound/);
    assert.match(err.fix ?? '', /HF_TOKEN/);
    await assert.rejects(stat(s.target));

    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: { ...s.env, HF_TOKEN: TOKEN } });
    assert.equal(r.sha256, s.sha);
    const hubAuth = s.hub.requests.filter((q) => q.server === 'hub' && q.status === 302).map((q) => q.authorization);
    assert.deepEqual(hubAuth, [`Bearer ${TOKEN}`]);
    assert.ok(s.hub.requests.filter((q) => q.server === 'cdn').every((q) => q.authorization === undefined));
    // The token never appears in what an error would show.
    const err2 = await expectError(downloadHubFile({ repo: REPO, filename: 'nope.parquet', target: s.target + '2', env: { ...s.env, HF_TOKEN: TOKEN } }));
    assert.doesNotMatch(formatError(err2, true), new RegExp(TOKEN));
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('missing file and missing repo give 404/401 errors naming the host and the manual way', async () => {
  const s = await setup();
  try {
    const e404 = await expectError(downloadHubFile({ repo: REPO, filename: 'test.parquet', target: s.target, env: s.env }));
    assert.match(e404.what, /has no test\.parquet in NovaSky-AI\/SkyRL-v0-293-data@main \(HTTP 404\)/);
    assert.match(e404.causeText ?? '', /EntryNotFound/);
    assert.match(e404.fix ?? '', /by hand/);
    const e401 = await expectError(downloadHubFile({ repo: 'nobody/nothing', filename: 'train.parquet', target: s.target, env: s.env }));
    assert.match(e401.causeText ?? '', /No token is set/);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('a dropped connection is resumed with Range from the .part file; the result is byte-exact', async () => {
  const s = await setup({ content: randomBytes(1_000_000) });
  try {
    s.hub.faults.dropAfterBytes = { bytes: 200_000, times: 2 };
    const seen: DownloadProgress[] = [];
    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env, retryDelayMs: 1, onProgress: (p) => seen.push(p), progressIntervalMs: 0 });
    assert.deepEqual(await readFile(s.target), s.content);
    assert.equal(r.sha256, s.sha);
    const gets = s.hub.requests.filter((q) => q.server === 'cdn');
    assert.equal(gets.length, 3);
    assert.equal(gets[0]?.range, undefined);
    assert.match(gets[1]?.range ?? '', /^bytes=\d+-$/);
    assert.equal(gets[1]?.status, 206);
    assert.ok(Number(/=(\d+)-/.exec(gets[2]?.range ?? '')?.[1]) >= Number(/=(\d+)-/.exec(gets[1]?.range ?? '')?.[1]));
    assert.ok(seen.some((p) => p.phase === 'retrying'));
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('a drop that outlasts the retries leaves a .part that the next run resumes', async () => {
  const s = await setup({ content: randomBytes(500_000) });
  try {
    s.hub.faults.dropAfterBytes = { bytes: 100_000, times: 2 };
    const err = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env, retries: 1, retryDelayMs: 1 }));
    assert.match(err.what, /could not download train\.parquet: cannot reach 127\.0\.0\.1:\d+ while downloading \(UND_ERR_SOCKET\), after 2 attempts/);
    assert.match(err.fix ?? '', /HF_ENDPOINT/);
    assert.match(err.fix ?? '', /by hand/);
    await assert.rejects(stat(s.target), 'no half file under the final name');
    const partSize = (await stat(s.target + '.part')).size;
    // What was read before each drop is kept (the last piece in flight may be lost with the connection).
    assert.ok(partSize > 0 && partSize <= 200_000, `part ${partSize}`);
    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env });
    assert.equal(r.resumedFrom, partSize);
    assert.deepEqual(await readFile(s.target), s.content);
    assert.equal(s.hub.requests.filter((q) => q.server === 'cdn').at(-1)?.range, `bytes=${partSize}-`);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('a corrupted transfer fails the checksum and leaves nothing behind', async () => {
  const s = await setup();
  try {
    s.hub.faults.corrupt = true;
    const err = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env }));
    assert.match(err.what, /failed its checksum/);
    assert.deepEqual(await readdir(path.dirname(s.target)), []);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('a .part from another version of the file is discarded, not resumed', async () => {
  const s = await setup();
  try {
    await mkdir(path.dirname(s.target), { recursive: true });
    await writeFile(s.target + '.part', randomBytes(1000));
    await writeFile(s.target + '.part.json', JSON.stringify({ url: 'x', etag: 'old', size: 5 }));
    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env });
    assert.equal(r.resumedFrom, 0);
    assert.deepEqual(await readFile(s.target), s.content);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('5xx answers and an expired signed URL are retried; a server that ignores Range restarts cleanly', async () => {
  const s = await setup();
  try {
    s.hub.faults.hubStatuses = [503];
    s.hub.faults.cdnStatuses = [502];
    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env, retryDelayMs: 1 });
    assert.equal(r.sha256, s.sha);

    // Resume against a CDN that ignores Range, with a signature that expires after one use.
    const t2 = s.target.replace('train', 'again');
    s.hub.faults.dropAfterBytes = { bytes: 50_000, times: 1 };
    s.hub.faults.signatureUses = 1;
    s.hub.faults.ignoreRange = true;
    const before = s.hub.requests.filter((q) => q.server === 'hub').length;
    const r2 = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: t2, env: s.env, retryDelayMs: 1 });
    assert.deepEqual(await readFile(t2), s.content);
    assert.equal(r2.sha256, s.sha);
    assert.ok(s.hub.requests.filter((q) => q.server === 'hub').length - before >= 2, 'resolved again after the 403');
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('a renamed repo (relative redirect) keeps the token on the hub; a non-LFS file verifies its size', async () => {
  const s = await setup({ lfs: false, privateToken: TOKEN });
  try {
    const r = await downloadHubFile({ repo: 'NovaSky-AI/old-name', filename: 'train.parquet', target: s.target, env: { ...s.env, HF_TOKEN: TOKEN } });
    assert.deepEqual(await readFile(s.target), s.content);
    assert.deepEqual(r.verified, { size: true, sha256: false });
    assert.deepEqual(s.hub.requests.map((q) => `${q.method} ${q.status} ${q.authorization ? 'auth' : '-'}`), ['HEAD 307 auth', 'HEAD 200 auth', 'GET 200 auth']);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('an unreachable host fails fast with its name, HF_ENDPOINT and the manual path', async () => {
  const dir = await tempDir();
  try {
    const target = path.join(dir, 'train.parquet');
    const port = await closedPort();
    const err = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target, env: { HF_ENDPOINT: `http://127.0.0.1:${port}`, HOME: dir }, retryDelayMs: 1 }));
    assert.equal(err.what, `could not download train.parquet: cannot reach 127.0.0.1:${port} while resolving the file (ECONNREFUSED)`);
    assert.match(err.causeText ?? '', /refused/);
    assert.match(err.fix ?? '', /HF_ENDPOINT at a reachable mirror/);
    assert.match(err.fix ?? '', new RegExp(`place it at ${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} by hand`));
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await removeDir(dir);
  }
});

test('HTTP_PROXY is honoured (credentials never shown), NO_PROXY bypasses it', async () => {
  const s = await setup();
  const proxy = await startFakeProxy();
  try {
    await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: { ...s.env, HTTP_PROXY: proxy.url } });
    assert.ok(proxy.targets.length >= 2, `proxy saw ${proxy.targets.join(', ')}`);
    const hubHost = new URL(s.hub.endpoint).host;
    const cdnHost = new URL(s.hub.cdnOrigin).host;
    assert.ok(proxy.targets.includes(hubHost) && proxy.targets.includes(cdnHost));
    const n = proxy.targets.length;
    const t2 = s.target + '.2';
    await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: t2, env: { ...s.env, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } });
    assert.equal(proxy.targets.length, n);
    // A dead proxy: the error names it without its credentials.
    const port = await closedPort();
    const err = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target + '.3', env: { ...s.env, HTTP_PROXY: `http://user:secretpw@127.0.0.1:${port}` }, retryDelayMs: 1, retries: 0 }));
    assert.match(err.what, new RegExp(`through proxy 127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(formatError(err, false), /secretpw/);
  } finally {
    await proxy.close();
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('cancelling keeps the .part for a later resume', async () => {
  const s = await setup({ content: randomBytes(400_000) });
  try {
    s.hub.faults.throttle = { chunkBytes: 20_000, pauseMs: 5 };
    const ac = new AbortController();
    let received = 0;
    const p = downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env, signal: ac.signal, progressIntervalMs: 0, onProgress: (pr) => (received = pr.received) });
    await waitFor(() => received >= 60_000, { timeoutMs: 10_000 });
    ac.abort();
    const err = await expectError(p);
    assert.match(err.what, /interrupted/);
    const part = (await stat(s.target + '.part')).size;
    assert.ok(part > 0);
    s.hub.faults.throttle = undefined;
    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env });
    assert.equal(r.resumedFrom, part);
    assert.deepEqual(await readFile(s.target), s.content);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('HF_HUB_OFFLINE and an HF_ENDPOINT with credentials are refused before any request', async () => {
  const s = await setup();
  try {
    const off = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: { ...s.env, HF_HUB_OFFLINE: '1' } }));
    assert.equal(off.exitCode, 3);
    assert.match(off.what, /HF_HUB_OFFLINE is set/);
    const u = new URL(s.hub.endpoint);
    u.username = 'me';
    u.password = 'hunter22secret';
    const cred = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: { ...s.env, HF_ENDPOINT: u.toString() } }));
    assert.equal(cred.exitCode, 2);
    assert.doesNotMatch(formatError(cred, true), /hunter22secret/);
    assert.equal(s.hub.requests.length, 0);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('one download per target: a second concurrent one is refused, the lock goes away afterwards', async () => {
  const s = await setup({ content: randomBytes(300_000) });
  try {
    s.hub.faults.throttle = { chunkBytes: 30_000, pauseMs: 10 };
    const first = downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env });
    await waitFor(async () => (await readdir(path.dirname(s.target)).catch((): string[] => [])).includes('train.parquet.lock'));
    const err = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env }));
    assert.match(err.what, /already being downloaded by this console/);
    await first;
    assert.deepEqual(await readdir(path.dirname(s.target)), ['train.parquet']);
    // A lock left by a dead process is taken over.
    await writeFile(s.target + '.lock', JSON.stringify({ pid: 2 ** 22 + 12345 }));
    const r = await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env });
    assert.equal(r.upToDate, true);
    assert.deepEqual(await readdir(path.dirname(s.target)), ['train.parquet']);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('two downloads of one target started in the same tick: one runs, the other is refused, the file is whole', async () => {
  const s = await setup({ content: randomBytes(300_000) });
  try {
    s.hub.faults.throttle = { chunkBytes: 30_000, pauseMs: 5 };
    const results = await Promise.allSettled([
      downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env }),
      downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: s.env }),
    ]);
    const done = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(done.length, 1);
    assert.equal(refused.length, 1);
    assert.match((refused[0]?.reason as ConsoleError).what, /already being downloaded by this console/);
    assert.equal((await stat(s.target)).size, 300_000);
    assert.deepEqual(await readdir(path.dirname(s.target)), ['train.parquet']);
  } finally {
    await s.hub.close();
    await removeDir(s.dir);
  }
});

test('a proxy given without a scheme works like curl; a malformed one is a clear usage error', async () => {
  const s = await setup();
  const proxy = await startFakeProxy();
  try {
    await downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target, env: { ...s.env, HTTP_PROXY: proxy.url.replace('http://', '') } });
    assert.ok(proxy.targets.length >= 2);
    const err = await expectError(downloadHubFile({ repo: REPO, filename: 'train.parquet', target: s.target + '.b', env: { ...s.env, HTTP_PROXY: 'http://us er:pw@[bad' } }));
    assert.equal(err.exitCode, 2);
    assert.match(err.what, /proxy settings are not usable/);
    assert.doesNotMatch(formatError(err, false), /us er:pw/);
  } finally {
    await proxy.close();
    await s.hub.close();
    await removeDir(s.dir);
  }
});
