import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { wrapLines } from '../../src/screens/DataScreen.js';
import { imageForInstance } from '../../src/services/dataset/imageName.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { makeInstances, parquetBytes, writeParquetFixture } from '../fixtures/parquetFixtures.js';
import { startFakeHub } from '../fakes/hfHub.js';

async function setup(size = { width: 130, height: 34 }) {
  const ws = await fakeDressageCheckout();
  const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog(), initialScreen: 'data' });
  return {
    ws,
    services,
    render: () => renderInk(<App services={services} size={size} />),
  };
}

async function type(ui: ReturnType<typeof renderInk>, text: string) {
  for (const ch of text) await ui.press(ch);
}

test('wrapLines hard-wraps long lines and keeps blank lines', () => {
  assert.deepEqual(wrapLines('abcdefg\n\nxy', 3), ['abc', 'def', 'g', '', 'xy']);
  // Wide graphemes take two columns and are never split (a statement in CJK or with emoji stays inside the pane).
  assert.deepEqual(wrapLines('日本語テ👍🏽x', 5), ['日本', '語テ', '👍🏽x']);
});

test('summary, histogram, filter (captures input), task detail with its template', async () => {
  const s = await setup();
  const instances = makeInstances(293, { seed: 21 });
  await writeParquetFixture(path.join(s.ws, 'data/swegym-source/train.parquet'), instances);
  const monai = instances.filter((i) => i.repo === 'Project-MONAI/MONAI');
  const target = monai[2]!;
  const image = imageForInstance(target.instance_id, target.repo);
  await writeFile(path.join(s.ws, 'data/e2b-template-map.json'), JSON.stringify({ [image]: 'swegym-monai-tpl' }));
  const ui = s.render();
  try {
    await ui.waitForText('293 tasks');
    let f = ui.frame();
    assert.match(f, /\[2 Data\]/);
    assert.match(f, /images: 293 unique · data\/swegym-images\.txt missing \(i writes it\) · 1\/293 images have a template/);
    assert.match(f, /Summary — 293 tasks in 11 repos/);
    assert.match(f, /getmoto\/moto +27 █+/);
    assert.match(f, /instance_id +repo +F2P +P2P tpl/);

    await ui.press('/');
    await waitFor(() => s.services.app.getState().inputCaptured);
    await type(ui, 'monai');
    await ui.waitForText(`(${monai.length}/293; Enter keeps, Esc cancels)`);
    // While typing, global keys are text: q does not quit, 2/3 do not switch screens.
    await type(ui, 'q');
    await ui.waitForText(`no task matches "monaiq"`);
    await ui.press(KEYS.backspace);
    await ui.waitForText(`/ monai▏`);
    await ui.press(KEYS.enter);
    await waitFor(() => !s.services.app.getState().inputCaptured);
    await ui.waitForText(`filter: monai (${monai.length}/293)`);
    f = ui.frame();
    assert.ok(!f.includes('getmoto__moto'), 'only MONAI rows are listed');

    await ui.press(KEYS.down);
    await ui.press(KEYS.down);
    await ui.press(KEYS.enter);
    await ui.waitForText(`${target.instance_id}  (row `);
    f = ui.frame();
    assert.match(f, new RegExp(`image +${image.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(f, /template +swegym-monai-tpl/);
    assert.match(f, new RegExp(`FAIL_TO_PASS \\(${target.FAIL_TO_PASS.length}\\):`));
    assert.ok(f.includes(target.FAIL_TO_PASS[0]!));
    assert.ok(f.includes(target.problem_statement.trim().split('\n')[0]!.slice(0, 40)));

    await ui.press(KEYS.escape);
    await ui.waitForText(`filter: monai (${monai.length}/293)`);
    await ui.press(KEYS.escape);
    await ui.waitForText('293 tasks · / filters');
    // A task without a template says so.
    await ui.press(KEYS.enter);
    await ui.waitForText('template  none yet — no entry in data/e2b-template-map.json');
  } finally {
    ui.unmount();
    await removeDir(s.ws);
  }
});

test('i writes the image list like list-images and the header then says it matches', async () => {
  const s = await setup();
  const instances = makeInstances(23, { seed: 2 });
  await writeParquetFixture(path.join(s.ws, 'data/swegym-source/validation.parquet'), instances, { encoding: 'json' });
  const ui = s.render();
  try {
    await ui.waitForText('train.parquet is not downloaded yet');
    await ui.press('t');
    await ui.waitForText('23 tasks');
    await ui.press('i');
    await ui.waitForText('wrote 23 unique images from data/swegym-source/validation.parquet to data/swegym-images.txt');
    await ui.waitForText('data/swegym-images.txt matches');
    const text = await readFile(path.join(s.ws, 'data/swegym-images.txt'), 'utf8');
    assert.equal(text, instances.map((i) => imageForInstance(i.instance_id, i.repo) + '\n').join(''));
  } finally {
    ui.unmount();
    await removeDir(s.ws);
  }
});

test('a broken split shows every problem with its fix', async () => {
  const s = await setup();
  const instances = makeInstances(292);
  instances[7]!.instance_id = instances[3]!.instance_id;
  await writeParquetFixture(path.join(s.ws, 'data/swegym-source/train.parquet'), instances, { overrides: { 9: { FAIL_TO_PASS: null } } });
  const ui = s.render();
  try {
    await ui.waitForText('failed validation: 3 problems');
    const f = ui.frame();
    assert.match(f, /- file: expected 293 train rows, got 292/);
    assert.match(f, /- row 7 \(.+\): instance_id: duplicate id \(first seen in row 3\)/);
    assert.match(f, /- row 9 \(.+\): FAIL_TO_PASS: missing \(null\)/);
    assert.match(f, /fix: +Fix the listed rows/);
  } finally {
    ui.unmount();
    await removeDir(s.ws);
  }
});

test('d downloads the split as a job with bytes, rate and ETA, then shows it', async () => {
  const s = await setup();
  const bytes = await parquetBytes(makeInstances(293, { seed: 4 }));
  const hub = await startFakeHub({ files: [{ repo: 'NovaSky-AI/SkyRL-v0-293-data', path: 'train.parquet', content: bytes }] });
  hub.faults.throttle = { chunkBytes: Math.ceil(bytes.length / 40), pauseMs: 40 };
  const saved = { HF_ENDPOINT: process.env.HF_ENDPOINT, HF_HUB_DISABLE_IMPLICIT_TOKEN: process.env.HF_HUB_DISABLE_IMPLICIT_TOKEN };
  process.env.HF_ENDPOINT = hub.endpoint;
  process.env.HF_HUB_DISABLE_IMPLICIT_TOKEN = '1';
  const ui = s.render();
  try {
    await ui.waitForText('train.parquet is not downloaded yet');
    await ui.press('d');
    await ui.waitForText(/downloading [\d.]+ (B|KiB|MiB) \/ [\d.]+ (KiB|MiB) \(\d+%\) · .* · ETA /, 10_000);
    assert.match(ui.frame(), /running: download train\.parquet/);
    assert.ok(s.services.jobs.getState().jobs['data-download-train']);
    await ui.waitForText('293 tasks', 60_000);
    await ui.waitForText(/downloaded train\.parquet \([\d.]+ KiB, sha256 verified\)/);
    assert.equal(Object.keys(s.services.jobs.getState().jobs).length, 0);
    assert.deepEqual(await readFile(path.join(s.ws, 'data/swegym-source/train.parquet')), Buffer.from(bytes));
  } finally {
    ui.unmount();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await hub.close();
    await removeDir(s.ws);
  }
});

test('a failed download says why on the screen and leaves no job behind', async () => {
  const s = await setup();
  const hub = await startFakeHub({ files: [{ repo: 'someone/else', path: 'x', content: new Uint8Array(3) }] });
  const saved = process.env.HF_ENDPOINT;
  process.env.HF_ENDPOINT = hub.endpoint;
  const ui = s.render();
  try {
    await ui.waitForText('not downloaded yet');
    await mkdir(path.join(s.ws, 'data'), { recursive: true });
    await ui.press('d');
    await ui.waitForText(/download failed: .*refused train\.parquet of NovaSky-AI\/SkyRL-v0-293-data \(HTTP 401/);
    assert.equal(Object.keys(s.services.jobs.getState().jobs).length, 0);
  } finally {
    ui.unmount();
    if (saved === undefined) delete process.env.HF_ENDPOINT;
    else process.env.HF_ENDPOINT = saved;
    await hub.close();
    await removeDir(s.ws);
  }
});

test('compact terminal: one panel at a time (Tab switches), no line wider than the terminal', async () => {
  const s = await setup({ width: 72, height: 20 });
  await writeParquetFixture(path.join(s.ws, 'data/swegym-source/train.parquet'), makeInstances(293, { seed: 8, size: 'realistic' }));
  const ui = s.render();
  try {
    await ui.waitForText('293 tasks');
    const widest = () => Math.max(...ui.frame().split('\n').map((l) => [...l].length));
    assert.ok(widest() <= 72, ui.frame());
    assert.doesNotMatch(ui.frame(), /Summary —/);
    await ui.press(KEYS.tab);
    await ui.waitForText('Summary — 293 tasks in 11 repos');
    assert.ok(widest() <= 72);
    await ui.press(KEYS.tab);
    await ui.waitForText('instance_id');
    await ui.press('G');
    await ui.press(KEYS.enter);
    await ui.waitForText('problem statement');
    assert.ok(widest() <= 72, ui.frame());
    assert.equal(ui.frame().split('\n').length, 20);
    // Scrolling the statement moves the text.
    const before = ui.frame();
    await ui.press(KEYS.down);
    await ui.press(KEYS.down);
    await waitFor(() => ui.frame() !== before);
  } finally {
    ui.unmount();
    await removeDir(s.ws);
  }
});

test('opening the screen again picks up files changed on disk meanwhile (a manual step)', async () => {
  const s = await setup();
  const ui = s.render();
  try {
    await ui.waitForText('train.parquet is not downloaded yet');
    await ui.press('1');
    await ui.waitForText('[1 Home]');
    // The operator downloads the file by hand while the console runs.
    await writeParquetFixture(path.join(s.ws, 'data/swegym-source/train.parquet'), makeInstances(293, { seed: 30 }));
    await ui.press('2');
    await ui.waitForText('293 tasks');
    await ui.waitForText('Summary — 293 tasks');
  } finally {
    ui.unmount();
    await removeDir(s.ws);
  }
});

test('c cancels a running download from the screen; the partial file stays for a resume', async () => {
  const s = await setup();
  const bytes = await parquetBytes(makeInstances(293, { seed: 6, size: 'realistic' }));
  const hub = await startFakeHub({ files: [{ repo: 'NovaSky-AI/SkyRL-v0-293-data', path: 'train.parquet', content: bytes }] });
  hub.faults.throttle = { chunkBytes: 64 * 1024, pauseMs: 30 };
  const saved = process.env.HF_ENDPOINT;
  process.env.HF_ENDPOINT = hub.endpoint;
  const ui = s.render();
  try {
    await ui.waitForText('not downloaded yet');
    await ui.press('d');
    await ui.waitForText(/downloading [\d.]+ [KM]iB \/ /, 10_000);
    await ui.press('x');
    await ui.waitForText('download failed: download of train.parquet interrupted');
    assert.equal(Object.keys(s.services.jobs.getState().jobs).length, 0);
    const { stat } = await import('node:fs/promises');
    const part = await stat(path.join(s.ws, 'data/swegym-source/train.parquet.part'));
    assert.ok(part.size > 0 && part.size < bytes.length);
  } finally {
    ui.unmount();
    if (saved === undefined) delete process.env.HF_ENDPOINT;
    else process.env.HF_ENDPOINT = saved;
    await hub.close();
    await removeDir(s.ws);
  }
});
