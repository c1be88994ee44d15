// Shipped tier: `data download` of the built console against the fake hub, whose LFS files live on a CDN of another
// origin: a connection cut in the middle is resumed with Range, a killed download resumes from its .part on the next
// run, the sha256 is checked, and the token goes to the hub only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { startFakeHub } from '../fakes/hfHub.js';
import { makeInstances, parquetBytes } from '../fixtures/parquetFixtures.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { waitFor } from '../helpers/wait.js';

const REPO = 'NovaSky-AI/SkyRL-v0-293-data';
const TOKEN = 'hf_shippedtest';

async function setup() {
  const ws = await fakeDressageCheckout();
  const bytes = await parquetBytes(makeInstances(293, { seed: 3, size: 'realistic' }));
  const hub = await startFakeHub({ files: [{ repo: REPO, path: 'train.parquet', content: bytes }] });
  const env = { HF_ENDPOINT: hub.endpoint, HF_TOKEN: TOKEN, HOME: ws, HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' };
  const target = path.join(ws, 'data/swegym-source/train.parquet');
  return { ws, bytes, hub, env, target };
}

test('shipped: data download through a hub and a CDN on another origin, a cut resumed with Range, sha256 checked, the token only to the hub', { timeout: 120_000 }, async () => {
  const s = await setup();
  try {
    assert.ok(s.bytes.byteLength > 100_000, `fixture large enough to cut (${s.bytes.byteLength} bytes)`);
    const cutAt = Math.floor(s.bytes.byteLength / 2);
    s.hub.faults.dropAfterBytes = { bytes: cutAt, times: 1 };
    const r = await runShipped(['data', 'download', '-w', s.ws, '--json'], { env: s.env });
    assert.equal(r.code, 0, explain(r));
    const doc = JSON.parse(r.out) as { rows: number; sha256: string; upToDate?: boolean };
    assert.equal(doc.rows, 293);
    assert.equal(doc.sha256, s.hub.sha256(s.bytes));
    assert.deepEqual(await readFile(s.target), Buffer.from(s.bytes));

    const cdn = s.hub.requests.filter((q) => q.server === 'cdn' && q.method === 'GET');
    assert.ok(cdn.length >= 2, 'the cut transfer was taken up again');
    assert.match(cdn.at(-1)?.range ?? '', /^bytes=[1-9]\d*-$/, 'resumed from where the cut left it, not from 0');
    assert.ok(cdn.every((q) => q.authorization === undefined), 'the token never goes to the CDN');
    assert.ok(s.hub.requests.some((q) => q.server === 'hub' && q.authorization === `Bearer ${TOKEN}`), 'the hub gets the token');
    assert.ok(!r.out.includes(TOKEN) && !r.err.includes(TOKEN), 'the token is never printed');
  } finally {
    await s.hub.close();
    await removeDir(s.ws);
  }
});

test('shipped: a download killed in the middle resumes from its .part on the next run; a corrupt transfer fails its checksum', { timeout: 120_000 }, async () => {
  const s = await setup();
  try {
    s.hub.faults.throttle = { chunkBytes: 16_384, pauseMs: 40 };
    const killed = await runShipped(['data', 'download', '-w', s.ws], {
      env: s.env,
      onSpawn: (child) => {
        void waitFor(async () => ((await stat(s.target + '.part').catch(() => undefined))?.size ?? 0) > 50_000, { timeoutMs: 60_000 }).then(() => child.kill('SIGKILL'));
      },
    });
    assert.equal(killed.signal, 'SIGKILL', explain(killed));
    await assert.rejects(stat(s.target), 'nothing under the final name');
    const part = (await stat(s.target + '.part')).size;
    assert.ok(part > 0 && part < s.bytes.byteLength, `part ${part}`);

    delete s.hub.faults.throttle;
    const resumed = await runShipped(['data', 'download', '-w', s.ws, '--json'], { env: s.env });
    assert.equal(resumed.code, 0, explain(resumed));
    assert.deepEqual(await readFile(s.target), Buffer.from(s.bytes));
    const last = s.hub.requests.filter((q) => q.server === 'cdn' && q.method === 'GET').at(-1);
    assert.equal(last?.range, `bytes=${part}-`, 'the second run asked only for what the first did not get');

    // Corrupt bytes from the CDN: the checksum fails, exit 1, nothing is left under the final name.
    const other = path.join(s.ws, 'again');
    s.hub.faults.corrupt = true;
    const bad = await runShipped(['data', 'download', '-w', s.ws, '--dir', other], { env: s.env });
    assert.equal(bad.code, 1, explain(bad));
    assert.match(bad.err, /failed its checksum/);
    await assert.rejects(stat(path.join(other, 'train.parquet')));
  } finally {
    await s.hub.close();
    await removeDir(s.ws);
  }
});
