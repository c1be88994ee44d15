// The built binary in a real terminal (tmux): the home screen's first frame comes before the doctor, its checks show
// as pending, answers arrive while the probe still runs, and the final header once all are in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';
import { fakeDressageCheckout, removeDir } from '../helpers/workspace.js';
import { gatedProbeBin } from '../helpers/doctorProbe.js';

const BIN = path.resolve('bin/swegym-console');
const built = existsSync(path.resolve('dist/swegym-console.mjs'));

test('built console in tmux: doctor results stream into the home screen while the probe still runs', { timeout: 90_000, skip: !hasTmux() ? 'tmux not installed' : !built ? 'run npm run build first' : false }, async () => {
  const ws = await fakeDressageCheckout();
  const { bin, gate } = await gatedProbeBin();
  const t = new TmuxSession('homedoctor');
  try {
    // Set by env(1) on the command itself: tmux's shell may reset PATH from the user's profile.
    t.start(['/usr/bin/env', `PATH=${bin}:/usr/bin:/bin`, 'SWEGYM_DOCTOR_TIMEOUT_MS=60000', process.execPath, BIN, '--workspace', ws], { cols: 120, rows: 40 });
    await t.waitForText('[1 Home]');
    const during = await t.waitForText(/Doctor — \d+ checking: \d+ ok/, 30_000);
    await t.waitForText('✓ dressage: dressage 0.1.0', 30_000);
    assert.match(t.screen(), /… dressage-blackbox-server: checking/);
    assert.doesNotMatch(during, /Doctor — \d+ ok/);
    await writeFile(gate, '');
    const done = await t.waitForText(/Doctor — \d+ ok, \d+ fail, \d+ warn/, 30_000);
    assert.doesNotMatch(done, /Doctor — \d+ checking|… [^\n]*: checking/);
    t.key('q');
    assert.equal(await t.exitCode(), 0);
  } finally {
    t.kill();
    await removeDir(ws);
    await removeDir(bin);
  }
});
