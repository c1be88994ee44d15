// launcher.log keeps what the launcher printed (issue 16, point 7): the file stays 0600, and `train status`, which
// shows its last lines, masks the keys in them (built binary, fake launcher). A guard: this already held on main.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { removeDir } from '../helpers/workspace.js';
import { trainWorkspace, killGroupIfOurs, SECRET } from './helpers.js';
import { findRun } from '../../src/services/train/registry.js';

test('train status shows the launcher log tail with keys masked; the log itself is 0600', { skip: builtMissing(), timeout: 60_000 }, async () => {
  const w = await trainWorkspace();
  const env = { ...w.env, FAKE_LAUNCHER_ROLLOUTS: '100000', FAKE_LAUNCHER_LINE_DELAY: '0.05', PATH: `${path.dirname(process.execPath)}:/nonexistent-ray:${w.env.PATH}` };
  let run;
  try {
    const launched = await runConsole(['train', 'launch', '--json', '-w', w.root], env);
    assert.equal(launched.code, 0, launched.err);
    run = await findRun(w.paths, JSON.parse(launched.out).run.name);
    const shaped = 'e2b' + '_' + 'ab12'.repeat(10);
    await appendFile(run.logFile, `launcher: using key ${shaped}\nexport DRESSAGE_E2B_API_KEY=${SECRET}\n`);
    assert.equal((await stat(run.logFile)).mode & 0o777, 0o600);
    const st = await runConsole(['train', 'status', run.name, '--json', '-w', w.root], env);
    assert.equal(st.code, 0, st.err);
    const tail = (JSON.parse(st.out) as { logTail: string[] }).logTail.join('\n');
    assert.match(tail, /launcher: using key \*\*\*\*/);
    assert.ok(!st.out.includes(shaped) && !st.out.includes(SECRET), st.out);
    const text = await runConsole(['train', 'status', run.name, '-w', w.root], env);
    assert.ok(!text.out.includes(shaped) && !text.out.includes(SECRET));
  } finally {
    if (run) await killGroupIfOurs(run.pgid, run.procStart);
    await removeDir(w.root);
  }
});
