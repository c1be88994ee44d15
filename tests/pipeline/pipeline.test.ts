import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile, utimes } from 'node:fs/promises';
import path from 'node:path';
import { pipelineStatus } from '../../src/services/pipeline/pipeline.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';

async function put(root: string, rel: string, content: string, ageSec = 0) {
  const f = path.join(root, rel);
  await mkdir(path.dirname(f), { recursive: true });
  await writeFile(f, content);
  if (ageSec) {
    const t = new Date(Date.now() - ageSec * 1000);
    await utimes(f, t, t);
  }
}

test('a fresh checkout: every step missing, with the next action and the manual command', async () => {
  const ws = await fakeDressageCheckout();
  try {
    const steps = await pipelineStatus(recipePaths(ws));
    assert.deepEqual(steps.map((s) => s.id), ['data', 'images', 'artifacts', 'templates', 'smoke', 'convert', 'validate', 'train']);
    for (const s of steps) {
      assert.equal(s.state, 'missing', s.id);
      assert.ok(s.next && s.manual, s.id);
    }
  } finally {
    await removeDir(ws);
  }
});

test('status is derived from the files: present, stale, partial and invalid', async () => {
  const ws = await fakeDressageCheckout();
  try {
    await put(ws, 'data/swegym-source/train.parquet', 'PAR1', 0);
    await put(ws, 'data/swegym-images.txt', 'img/a:latest\nimg/b:latest\n', 3600); // older than the parquet
    await put(ws, 'data/e2b-template-map.json', JSON.stringify({ 'img/a:latest': 'tpl-a' }));
    await put(ws, 'data/claude-code-artifacts/claude-2.1.207-linux-x64', 'bin');
    await put(ws, 'data/swegym-train-claude-code-e2b.jsonl', '{}\n{}\n', 7200); // older than the map
    await put(ws, '.swegym-console/journals/templates.json', JSON.stringify({ items: { a: { smoke: 'passed' }, b: { smoke: 'failed' } } }));
    await put(ws, '.swegym-console/journals/validate-harness.json', JSON.stringify({ items: { x: { ok: true }, y: { ok: true } } }));
    const byId = Object.fromEntries((await pipelineStatus(recipePaths(ws))).map((s) => [s.id, s]));
    assert.equal(byId.data?.state, 'present');
    assert.equal(byId.images?.state, 'stale');
    assert.match(byId.images?.detail ?? '', /2 images \(older than the parquet\)/);
    assert.equal(byId.artifacts?.state, 'partial');
    assert.equal(byId.templates?.state, 'partial');
    assert.equal(byId.templates?.detail, '1/2 images have a template');
    assert.equal(byId.smoke?.state, 'partial');
    assert.equal(byId.convert?.state, 'stale');
    assert.match(byId.convert?.detail ?? '', /^2 rows/);
    assert.equal(byId.validate?.state, 'present');
    await put(ws, 'data/e2b-template-map.json', '{broken');
    const again = Object.fromEntries((await pipelineStatus(recipePaths(ws))).map((s) => [s.id, s]));
    assert.equal(again.templates?.state, 'invalid');
  } finally {
    await removeDir(ws);
  }
});
