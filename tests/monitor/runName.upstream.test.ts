// Which RUN_NAME a run folder's trajectories are filed under (services/monitor/runName.ts), held against the
// launcher's own shell (dressage_env_defaults.sh: the trajectory dirs it makes and the `Clearing …` line it prints),
// also after the folder is renamed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { namesStatedIn, resolveRunName } from '../../src/services/monitor/runName.js';
import { TrajectoryIndex } from '../../src/services/monitor/trajIndex.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { UPSTREAM_DRESSAGE_DIR, upstreamMissing } from '../helpers/upstreamDir.js';

const DEFAULTS = path.join(UPSTREAM_DRESSAGE_DIR, 'examples/scripts/default/dressage_env_defaults.sh');

async function session(root: string, instance: string, id: string, file = 'session.json'): Promise<void> {
  await mkdir(path.join(root, instance, id), { recursive: true });
  await writeFile(path.join(root, instance, id, file), '{}');
}

test('the launcher\'s own shell: its trajectory dirs and `Clearing …` lines name RUN_NAME, also after the folder is renamed', { skip: upstreamMissing([DEFAULTS]) }, async () => {
  const dir = await tempDir();
  try {
    // Names a folder would not be called: spaces, a plus, dots (Dressage joins RUN_NAME into the path as is).
    for (const runName of ['swegym-qwen3.5-4b-claude-code-grpo-sync', 'my run+1', 'a.b_c']) {
      const logDir = path.join(dir, 'outputs', 'logs', runName);
      const script = `set -e; source "$1"; dressage_apply_common_defaults ignored blackbox e2b; dressage_clear_trajectory_logs; echo "PAYLOAD=$DRESSAGE_TRAJECTORY_PAYLOAD_LOG_DIR"; echo "Dressage proxy failed; see \${PROXY_LOG_FILE}"`;
      const out = execFileSync('bash', ['-c', script, 'x', DEFAULTS], { env: { PATH: process.env.PATH, HOME: dir, REPO_ROOT: dir, LOG_DIR: logDir, RUN_NAME: runName, PROXY_PUBLIC_HOST: '127.0.0.1', SGLANG_ROUTER_HOST: '127.0.0.1' }, encoding: 'utf8' });
      const payload = /PAYLOAD=(.*)/.exec(out)?.[1] as string;
      assert.equal(payload, path.join(logDir, 'traj_payload', runName));
      // What Dressage's writer does: <dir>/<safe instance>/<safe session>/session.json.
      await session(payload, 'getmoto__moto-1', 'bbs-1');
      const log = out.split('\n').filter((l) => !l.startsWith('PAYLOAD=')).join('\n');
      assert.deepEqual([...new Set(namesStatedIn(log).map((s) => s.name))], [runName], log);
      await writeFile(path.join(logDir, 'run.log'), log);
      const moved = path.join(dir, `copied-${Math.random().toString(36).slice(2)}`);
      await rename(logDir, moved);
      const guess = await resolveRunName({ runDir: moved, logFile: path.join(moved, 'run.log') });
      assert.equal(guess.name, runName);
      assert.equal(guess.from, 'log');
      const entries = await new TrajectoryIndex(moved, guess.name).refresh();
      assert.deepEqual(entries.map((e) => [e.instance, e.session]), [['getmoto__moto-1', 'bbs-1']]);
    }
  } finally {
    await removeDir(dir);
  }
});
