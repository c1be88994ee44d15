// The Convert screen (hotkey 4): edit the form, run the (fake) converter, see the streamed output, the
// verification report and the row preview; a bad value is refused with the converter's wording.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import path from 'node:path';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { App } from '../../src/screens/App.js';
import { createAppServices } from '../../src/app/domain.js';
import { CommandLog } from '../../src/services/process/commandLog.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { makeInstances, parquetBytes } from '../fixtures/parquetFixtures.js';
import { imageForInstance } from '../../src/services/dataset/imageName.js';
import { waitFor } from '../helpers/wait.js';

const here = path.dirname(fileURLToPath(import.meta.url));

test('form → converter → verified rows → preview', async () => {
  const ws = await fakeDressageCheckout();
  const paths = recipePaths(ws);
  const saved = { FAKE_SWEGYM_INSTANCES: process.env.FAKE_SWEGYM_INSTANCES, PYTHONPATH: process.env.PYTHONPATH };
  try {
    await copyFile(path.join(here, '..', 'fakes', 'converter.py'), paths.prepareDataScript);
    const instances = makeInstances(293, { seed: 11 });
    await mkdir(paths.sourceDir, { recursive: true });
    await writeFile(paths.parquet('train'), await parquetBytes(instances));
    await writeFile(path.join(ws, 'instances.json'), JSON.stringify(instances));
    await writeFile(paths.templateMap, JSON.stringify(Object.fromEntries(instances.map((i) => [imageForInstance(i.instance_id, i.repo), `tpl-${i.instance_id.toLowerCase().replace(/_/g, '-')}`]))));
    const pkg = path.join(ws, 'pypkg');
    await mkdir(path.join(pkg, 'swegym', 'harness'), { recursive: true });
    for (const f of ['__init__.py', 'harness/__init__.py', 'harness/test_spec.py', 'harness/log_parsers.py']) await writeFile(path.join(pkg, 'swegym', f), '');
    process.env.FAKE_SWEGYM_INSTANCES = path.join(ws, 'instances.json');
    process.env.PYTHONPATH = pkg;

    const services = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
    const ui = renderInk(<App services={services} size={{ width: 150, height: 40 }} />);
    try {
      await ui.press('4');
      await ui.waitForText('manual: unset CLAUDE_CODE_BBS_WHEEL_URL');
      await ui.waitForText('on disk: no JSONL yet');
      // limit := 3
      await ui.press(KEYS.down);
      await ui.press(KEYS.enter);
      await ui.press('3');
      await ui.press(KEYS.enter);
      await waitFor(() => services.convert.store.getState().command?.includes('--limit 3') === true);
      // A refused value: permission mode bypassPermissions.
      await ui.press(KEYS.down);
      await ui.press(KEYS.down);
      await ui.press(KEYS.enter);
      for (let i = 0; i < 'acceptEdits'.length; i++) await ui.press(KEYS.backspace);
      for (const ch of 'bypassPermissions') await ui.press(ch);
      await ui.press(KEYS.enter);
      await ui.waitForText('cannot run: the template runs Claude Code as root');
      await ui.press(KEYS.enter);
      for (let i = 0; i < 'bypassPermissions'.length; i++) await ui.press(KEYS.backspace);
      for (const ch of 'plan') await ui.press(ch);
      await ui.press(KEYS.enter);
      await waitFor(() => services.convert.store.getState().command?.includes('--permission-mode plan') === true);
      await ui.press('b');
      await ui.waitForText('verified: 3 rows, no problems', 60_000);
      await ui.waitForText('| wrote 3 train rows from');
      await ui.press('p');
      await ui.waitForText(`row 1/3`);
      assert.match(ui.frame(), new RegExp(`${instances[0]!.instance_id}`));
      assert.match(ui.frame(), /backend: claude_code: max_turns 80, plan, cwd \/testbed/);
      await ui.press(KEYS.right);
      await ui.waitForText('row 2/3');
      assert.match(ui.frame(), new RegExp(instances[1]!.instance_id));
      await ui.waitForText(/on disk: 3 rows, [\d.]+ KiB, written \d+s ago \(V verifies it\)/);
    } finally {
      ui.unmount();
      services.dispose();
    }
    // A later console finds the JSONL: rows, age and a preview without converting again; then a newer template
    // map makes it stale.
    for (const stale of [false, true]) {
      if (stale) await writeFile(paths.templateMap, await readFile(paths.templateMap, 'utf8'));
      const again = createAppServices({ workspace: ws, provider: 'e2b', debug: false, color: false, json: false }, { commandLog: new CommandLog() });
      const ui2 = renderInk(<App services={again} size={{ width: 150, height: 40 }} />);
      try {
        await ui2.press('4');
        await ui2.waitForText(stale ? 'on disk: 3 rows' : /on disk: 3 rows, .* \(V verifies it\)/);
        if (stale) await ui2.waitForText('stale: the template map changed since; convert again');
        assert.match(ui2.frame(), /status: not run in this session/);
        await ui2.press('p');
        await ui2.waitForText('row 1/3');
      } finally {
        ui2.unmount();
        again.dispose();
      }
    }
  } finally {
    process.env.FAKE_SWEGYM_INSTANCES = saved.FAKE_SWEGYM_INSTANCES;
    if (saved.PYTHONPATH === undefined) delete process.env.PYTHONPATH;
    else process.env.PYTHONPATH = saved.PYTHONPATH;
    if (saved.FAKE_SWEGYM_INSTANCES === undefined) delete process.env.FAKE_SWEGYM_INSTANCES;
    await removeDir(ws);
  }
});
