// Differential test: the trajectory integrity scan (src/services/validate/integrity.ts) against
// dressage/recipes/swegym/integrity.py's scan_trajectory_integrity, on named and generated tool calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scanTrajectoryIntegrity, trajectoryFromStreamJson, type TrajectoryPayload } from '../../src/services/validate/integrity.js';
import { oracle, pick, rng, upstreamSkipReason } from '../helpers/upstreamOracle.js';

const skip = upstreamSkipReason();
const META = { repo: 'getmoto/moto', instance_id: 'getmoto__moto-1', reward_fn: 'swegym_harness_marker' };

const call = (name: string, args: unknown) => ({ id: 'c', type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } });
const traj = (...calls: unknown[]): TrajectoryPayload => ({ data: [{ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: calls }] }] });

const NAMED: Record<string, TrajectoryPayload> = {
  'curl the task repo': traj(call('Bash', { command: 'curl -sL https://github.com/getmoto/moto/pull/1.diff | git apply' })),
  'git clone the repo (.git)': traj(call('bash', { command: 'cd /tmp && git clone https://github.com/GetMoto/Moto.git' })),
  'ssh clone': traj(call('Bash', { cmd: 'git clone git@github.com:getmoto/moto.git x' })),
  'raw.githubusercontent': traj(call('Bash', { command: 'wget https://raw.githubusercontent.com/getmoto/moto/master/a.py' })),
  'another repo is fine': traj(call('Bash', { command: 'curl https://github.com/getmoto/motoserver' })),
  'echo of a URL without network tool': traj(call('Bash', { command: 'echo https://github.com/getmoto/moto' })),
  'WebFetch of the repo': traj(call('WebFetch', { url: 'https://github.com/getmoto/moto/issues/5', prompt: 'x' })),
  'WebSearch text': traj(call('WebSearch', { query: 'site:github.com getmoto/moto fix' })),
  'pip install from git': traj(call('Bash', { command: 'pip install git+https://github.com/getmoto/moto@main' })),
  'Edit a test file': traj(call('Edit', { file_path: '/testbed/tests/test_core.py', old_string: 'a', new_string: 'b' })),
  'Write conftest': traj(call('Write', { file_path: 'conftest.py', content: '' })),
  'Edit source': traj(call('Edit', { file_path: '/testbed/moto/core.py' })),
  'Edit setup.cfg (quoted)': traj(call('MultiEdit', { filePath: '"./setup.cfg"' })),
  'write under /tmp': traj(call('Write', { file_path: '/tmp/tests/x.py' })),
  'redirect into tests': traj(call('Bash', { command: 'echo x > tests/test_a.py' })),
  'append quoted': traj(call('Bash', { command: "printf y >> 'testing/conf.py'" })),
  'tee -a': traj(call('Bash', { command: 'cat a | tee -a /testbed/pytest.ini' })),
  'sed -i on a test': traj(call('Bash', { command: 'sed -i s/a/b/ tests/test_x.py && pytest' })),
  'rm conftest': traj(call('Bash', { command: 'rm -f moto/conftest.py' })),
  'python open w': traj(call('Bash', { command: `python -c "open('tests/test_z.py','w').write('')"` })),
  'pathlib write_text': traj(call('Bash', { command: `python3 -c "import pathlib; pathlib.Path('tox.ini').write_text('x')"` })),
  'shutil.copy': traj(call('Bash', { command: `python -c "import shutil; shutil.copy('tests/a.py', 'b.py')"` })),
  'running tests only': traj(call('Bash', { command: 'python -m pytest tests/test_core.py -x 2>&1 | tail' })),
  'cat a test': traj(call('Bash', { command: 'cat tests/test_core.py > /tmp/out.txt' })),
  'unparsable arguments': traj(call('Bash', '{not json')),
  'NaN in arguments': traj(call('Bash', '{"command": "curl https://github.com/getmoto/moto", "x": NaN}')),
  'name only on the call': traj({ name: 'bash', arguments: { command: 'wget https://codeload.github.com/getmoto/moto/zip' } }),
  'non-assistant messages ignored': { data: [{ messages: [{ role: 'user', tool_calls: [call('Bash', { command: 'curl https://github.com/getmoto/moto' })] }] }] },
  'two segments, several calls': { data: [{ messages: [{ role: 'assistant', tool_calls: [call('Edit', { file_path: 'src/a.py' }), call('Bash', { command: 'touch tests/new_test.py' })] }] }, { messages: [{ role: 'assistant', tool_calls: [call('Bash', { command: 'gh pr view 1 --repo getmoto/moto && curl https://api.github.com/repos/getmoto/moto/pulls/1' })] }] }] },
  empty: { data: [] },
};

const COMMANDS = ['curl', 'wget', 'git clone', 'git fetch', 'git remote add o', 'gh api', 'echo', 'pip install', 'python -m pip install', 'sed -i s/x/y/', 'rm', 'mv a', 'cp a', 'touch', 'truncate -s0', 'cat', 'perl -pi -e s/a/b/'];
const TARGETS = ['https://github.com/getmoto/moto', 'https://github.com/getmoto/moto.git', 'https://www.github.com/getmoto/moto/pull/2', 'https://github.com/other/repo', 'git+https://github.com/getmoto/moto', 'tests/test_a.py', '/testbed/testing/x.py', 'moto/core_test.py', 'setup.cfg', 'pyproject.toml', 'src/main.py', '/tmp/tests/a.py', 'r2e_tests/a.py', '"tests/q.py"'];
const JOINERS = [' && ', '; ', ' | ', ' || ', '\n', ' > ', ' >> ', ' 2>&1 | tee '];
const TOOLS = ['Bash', 'bash', 'Edit', 'Write', 'MultiEdit', 'apply_patch', 'Read', 'WebFetch', 'web_search', 'browser.open', 'Grep'];

function generated(n: number): TrajectoryPayload[] {
  const r = rng(7);
  const out: TrajectoryPayload[] = [];
  for (let k = 0; k < n; k++) {
    const calls: unknown[] = [];
    const count = 1 + Math.floor(r() * 3);
    for (let i = 0; i < count; i++) {
      const tool = pick(r, TOOLS);
      let cmd = `${pick(r, COMMANDS)} ${pick(r, TARGETS)}`;
      if (r() < 0.5) cmd += `${pick(r, JOINERS)}${pick(r, COMMANDS)} ${pick(r, TARGETS)}`;
      const args = /bash/i.test(tool) ? { [r() < 0.8 ? 'command' : 'cmd']: cmd } : /web|browser/i.test(tool) ? { url: pick(r, TARGETS), query: cmd } : { [pick(r, ['file_path', 'filePath', 'path', 'filepath'])]: pick(r, TARGETS) };
      calls.push(call(tool, args));
    }
    out.push(traj(...calls));
  }
  return out;
}

test('scan_trajectory_integrity: ours equals integrity.py on named and 400 generated trajectories', { skip }, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'integrity-'));
  try {
    const blockedFile = path.join(dir, 'blocked.jsonl');
    await writeFile(blockedFile, ['{"repo": "Pandas-Dev/Pandas"}', '{"metadata": {"repository": "https://github.com/python/mypy.git"}}', 'iterative/dvc', '', 'not a slug'].join('\n'));
    const cases: [string, TrajectoryPayload, Record<string, unknown>, Record<string, string | null>][] = [
      ...Object.entries(NAMED).map(([k, t]) => [k, t, META, {}] as [string, TrajectoryPayload, Record<string, unknown>, Record<string, string | null>]),
      ['blocked by env + file', traj(call('Bash', { command: 'curl https://github.com/pandas-dev/pandas/pull/1 && wget https://github.com/python/mypy && curl https://github.com/iterative/dvc' })), {}, { DRESSAGE_SWEGYM_BLOCKED_REPOS: 'a/b, iterative/dvc ,', DRESSAGE_SWEGYM_BLOCKED_REPOS_FILE: blockedFile }],
      ['no repo known', traj(call('Bash', { command: 'curl https://github.com/getmoto/moto' })), {}, {}],
      ...generated(400).map((t, i) => [`generated #${i}`, t, META, {}] as [string, TrajectoryPayload, Record<string, unknown>, Record<string, string | null>]),
    ];
    const replies = await oracle(cases.map(([, t, m, env]) => ({ fn: 'scan_integrity', args: [t, m], env: { DRESSAGE_SWEGYM_BLOCKED_REPOS: null, DRESSAGE_SWEGYM_BLOCKED_REPOS_FILE: null, ...env } })));
    let flagged = 0;
    cases.forEach(([name, t, m, env], i) => {
      const want = (replies[i] as { ok?: { result: unknown }; error?: string });
      assert.ok(want.ok, `${name}: upstream raised ${want.error}`);
      const got = scanTrajectoryIntegrity(t, m, env as NodeJS.ProcessEnv);
      assert.deepEqual(got, want.ok.result, `${name}: ${JSON.stringify(t).slice(0, 400)}`);
      if (got.violations.length) flagged++;
    });
    assert.ok(flagged > 60 && flagged < cases.length - 60, `flagged ${flagged}/${cases.length}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("Claude Code's stream-json log becomes the adapter's assistant messages with tool_calls", () => {
  const log = [
    JSON.stringify({ type: 'system', subtype: 'init' }),
    JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'look' }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'curl https://github.com/getmoto/moto' } }] } }),
    JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] } }),
    JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'Edit', input: { file_path: '/testbed/tests/test_a.py' } }] } }),
    'not json',
    JSON.stringify({ type: 'result', num_turns: 2 }),
  ].join('\n');
  const t = trajectoryFromStreamJson(log);
  assert.equal(t.data?.[0]?.messages?.length, 2);
  const r = scanTrajectoryIntegrity(t, META, {});
  assert.equal(r.invalid_tool_call, true);
  assert.equal(r.invalid_pytest_write, true);
  assert.deepEqual(r.violations.map((v) => [v.message_index, v.tool, v.reason]), [[0, 'Bash', 'blocked_repo_web_access'], [1, 'Edit', 'write_tool_to_pytest_sensitive_path']]);
});
