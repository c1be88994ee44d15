// The doctor against fake environments: each trap detected, and no secret value in any output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile, chmod, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { runDoctor } from '../../src/services/doctor/doctor.js';
import { classifyProxyUrl } from '../../src/services/doctor/checks.js';
import { VERIFIED_DRESSAGE_COMMIT } from '../../src/services/recipe.js';
import { SWEGYM_HARNESS_COMMIT } from '../../src/services/recipe.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';
import type { DoctorCheck } from '../../src/services/doctor/types.js';

// Tests check behaviour, not speed: a loaded CI machine must not turn a check into a time-out.
const SLOW_MACHINE_MS = 60_000;
const SECRET = 'e2b_5ecret5ecret';
const TRAIN_SECRET = 'e2b_7rain7rain7r';

interface FakeTools {
  python?: { modules: Record<string, boolean>; dists: Record<string, { version: string; vcs_commit?: string }> } | 'missing';
  uv?: boolean;
  nvidiaSmi?: string;
  ray?: string;
  bwrap?: boolean;
}

/** A bin directory with stand-ins for the programs the doctor probes, plus the real shell tools. */
async function fakeBin(tools: FakeTools): Promise<string> {
  const dir = await tempDir('swegym-bin-');
  const script = async (name: string, body: string) => {
    const f = path.join(dir, name);
    await writeFile(f, `#!/bin/sh\n${body}\n`);
    await chmod(f, 0o755);
  };
  if (tools.python !== 'missing') {
    const report = JSON.stringify({ python: '3.11.7', ...(tools.python ?? { modules: {}, dists: {} }) });
    await script('python3', `/bin/cat <<'JSON'\n${report}\nJSON`);
  }
  if (tools.uv) await script('uv', 'echo "uv 0.9.0"');
  if (tools.nvidiaSmi !== undefined) await script('nvidia-smi', `/bin/cat <<'OUT'\n${tools.nvidiaSmi}\nOUT`);
  if (tools.ray) await script('ray', `echo "${tools.ray}"`);
  if (tools.bwrap) await script('bwrap', 'echo "bubblewrap 0.8.0"');
  for (const t of ['git', 'curl', 'tar', 'sha256sum']) await script(t, `exec /usr/bin/${t} "$@"`);
  return dir;
}

function byId(checks: DoctorCheck[], id: string): DoctorCheck {
  const c = checks.find((x) => x.id === id);
  assert.ok(c, `no check ${id}; have ${checks.map((x) => x.id).join(',')}`);
  return c;
}

const allInstalled = {
  modules: { dressage: true, blackbox_server: true, pyarrow: true, huggingface_hub: true, swegym: true, build: true, e2b: true },
  dists: {
    dressage: { version: '0.1.0' },
    'dressage-blackbox-server': { version: '1.1.0' },
    swegym: { version: '0.1', vcs_commit: SWEGYM_HARNESS_COMMIT },
    pyarrow: { version: '21' },
    huggingface_hub: { version: '1' },
    build: { version: '1' },
  },
};

test('a well-prepared head node: every check ok or skipped, key verified against the E2B API', async () => {
  const ws = await fakeDressageCheckout();
  let seenKey = '';
  const server = http.createServer((req, res) => {
    seenKey = String(req.headers['x-api-key'] ?? '');
    res.writeHead(seenKey === SECRET ? 200 : 401, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const bin = await fakeBin({ python: allInstalled, uv: true, nvidiaSmi: 'NVIDIA H200, 143771 MiB\nNVIDIA H200, 143771 MiB', ray: 'ray, version 2.55.1', bwrap: true });
  try {
    await mkdir(path.join(ws, 'data', 'claude-code-artifacts'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'claude-code-artifacts', 'claude-2.1.207-linux-x64'), 'x');
    await writeFile(path.join(ws, 'data', 'claude-code-artifacts', 'claude-code-runtime-python-3.10.20-bbs-1.1.0.tar.gz'), 'x');
    await writeFile(path.join(ws, 'data', 'swegym-images.txt'), 'img/a:latest\nimg/b:latest\n');
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify({ 'img/a:latest': 'ta', 'img/b:latest': 'tb' }));
    // A checkout at the Dressage commit the console was verified against (a detached HEAD).
    await mkdir(path.join(ws, '.git'), { recursive: true });
    await writeFile(path.join(ws, '.git', 'HEAD'), `${VERIFIED_DRESSAGE_COMMIT}\n`);
    const env = {
      PATH: bin,
      E2B_API_KEY: SECRET,
      DRESSAGE_E2B_API_KEY: SECRET,
      E2B_API_URL: `http://127.0.0.1:${port}`,
      DRESSAGE_PROXY_URL: 'https://proxy.example.com',
      ACTOR_NUM_NODES: '4',
      HOSTFILE: path.join(ws, 'hosts'),
      RAY_SSH_USER: 'root',
    };
    await writeFile(env.HOSTFILE, '10.0.0.1 slots=8\n10.0.0.2\n10.0.0.3\n10.0.0.4\n');
    const checks = await runDoctor({ paths: recipePaths(ws), env, provider: 'e2b', timeoutMs: SLOW_MACHINE_MS });
    const bad = checks.filter((c) => c.status === 'fail' || c.status === 'warn');
    // Disk space on a test machine may be low; everything else must be clean.
    assert.deepEqual(bad.filter((c) => c.id !== 'disk').map((c) => `${c.id}: ${c.detail}`), []);
    assert.equal(seenKey, SECRET);
    assert.match(byId(checks, 'e2b-key').detail, /accepted by 127\.0\.0\.1/);
    assert.match(byId(checks, 'gpus').detail, /2 × NVIDIA H200/);
    assert.doesNotMatch(JSON.stringify(checks), /5ecret/);
  } finally {
    server.close();
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('every known trap is detected, with a fix, and no key value is ever printed', async () => {
  const ws = await fakeDressageCheckout({ slime: false });
  const bin = await fakeBin({
    python: { modules: { ...allInstalled.modules, build: false }, dists: { ...allInstalled.dists, swegym: { version: '0.1', vcs_commit: 'deadbeef'.repeat(5) } } },
    uv: false,
  });
  try {
    await mkdir(path.join(ws, 'data', 'claude-code-artifacts'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'claude-code-artifacts', 'claude-code-runtime-python-3.10.20-bbs-custom.tar.gz'), 'x');
    await writeFile(path.join(ws, 'data', 'swegym-images.txt'), 'img/a:latest\nimg/b:latest\n');
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify({ 'img/a:latest': 'ta' }));
    const env = {
      PATH: bin,
      E2B_API_KEY: SECRET,
      DRESSAGE_E2B_API_KEY: TRAIN_SECRET,
      E2B_API_URL: 'http://127.0.0.1:9', // nothing listens: cannot verify
      CLAUDE_CODE_BBS_WHEEL_URL: '/x/dressage_blackbox_server-1.1.0-py3-none-any.whl',
      CLAUDE_CODE_RUNTIME_URL: 'https://example.com/rt.tgz',
      DRESSAGE_PROXY_URL: 'http://127.0.0.1:8800',
      WORLD_SIZE: '2',
      HOSTFILE: path.join(ws, 'hosts'),
      DRESSAGE_E2B_BLACKBOX_PORT: '8080',
    };
    const checks = await runDoctor({ paths: recipePaths(ws), env, provider: 'local', timeoutMs: SLOW_MACHINE_MS });
    const expectations: [string, DoctorCheck['status'], RegExp][] = [
      ['slime', 'fail', /not initialised/],
      ['py-build', 'fail', /not installed/],
      ['uv', 'fail', /uv is not on PATH/],
      ['py-swegym', 'fail', /not the pinned 16dd480cce9b/],
      ['e2b-key', 'skip', /provider local/],
      ['e2b-train-key', 'warn', /differs from E2B_API_KEY/],
      ['bootstrap-urls', 'warn', /CLAUDE_CODE_BBS_WHEEL_URL, CLAUDE_CODE_RUNTIME_URL/],
      ['artifacts', 'fail', /bbs-custom/],
      ['template-map', 'warn', /1\/2 images have a template; first missing: img\/b:latest/],
      ['proxy-url', 'fail', /local-only host 127\.0\.0\.1/],
      ['nodes', 'warn', /uses WORLD_SIZE=2; the 4-node recipe needs 4/],
      ['hostfile', 'fail', /RAY_SSH_USER is required when HOSTFILE is set/],
      ['bbs-port', 'fail', /fixed port 31000/],
      ['gpus', 'warn', /nvidia-smi not found/],
      ['bwrap', 'fail', /needs it/],
    ];
    for (const [id, status, detail] of expectations) {
      const c = byId(checks, id);
      assert.equal(c.status, status, `${id}: ${c.detail}`);
      assert.match(c.detail, detail, id);
      if (status === 'fail' || status === 'warn') assert.ok(c.fix || id === 'gpus', `${id} has no fix`);
    }
    const text = JSON.stringify(checks);
    assert.doesNotMatch(text, /5ecret|7rain/);
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('the E2B key check says when the key is refused', async () => {
  const ws = await fakeDressageCheckout();
  const server = http.createServer((_req, res) => res.writeHead(401).end('{"code":401,"message":"Invalid API key"}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const bin = await fakeBin({ python: 'missing' });
  try {
    const env = { PATH: bin, E2B_API_KEY: SECRET, E2B_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const checks = await runDoctor({ paths: recipePaths(ws), env, provider: 'e2b', timeoutMs: SLOW_MACHINE_MS });
    const key = byId(checks, 'e2b-key');
    assert.equal(key.status, 'fail');
    assert.match(key.detail, /refused .*HTTP 401/);
    assert.equal(byId(checks, 'python').status, 'fail');
    assert.doesNotMatch(JSON.stringify(checks), /5ecret/);
  } finally {
    server.close();
    await removeDir(ws);
    await removeDir(bin);
  }
});

test('a directory that is not a Dressage checkout is named as such', async () => {
  const dir = await tempDir();
  try {
    const checks = await runDoctor({ paths: recipePaths(dir), env: { PATH: '/usr/bin:/bin' }, provider: 'e2b', timeoutMs: SLOW_MACHINE_MS });
    assert.equal(byId(checks, 'checkout').status, 'fail');
    assert.match(byId(checks, 'checkout').fix ?? '', /--workspace/);
  } finally {
    await removeDir(dir);
  }
});

test('proxy URL classification follows the launcher rule and flags private ranges', () => {
  assert.equal(classifyProxyUrl('ftp://x.com').kind, 'invalid');
  assert.equal(classifyProxyUrl('not a url').kind, 'invalid');
  for (const u of ['http://localhost:8800', 'http://127.0.0.5:1', 'http://0.0.0.0:8800', 'http://[::1]:8800']) assert.equal(classifyProxyUrl(u).kind, 'local', u);
  for (const u of ['http://10.1.2.3:8800', 'http://192.168.0.2', 'http://172.20.0.1', 'http://head-node:8800']) assert.equal(classifyProxyUrl(u).kind, 'private', u);
  assert.equal(classifyProxyUrl('https://proxy.example.com').kind, 'public');
  assert.equal(classifyProxyUrl('http://172.32.0.1').kind, 'public');
});

test('doctor --json through the built binary: shape, exit code 3 on failure, no secrets', async () => {
  const ws = await fakeDressageCheckout({ slime: false });
  try {
    const { execFile } = await import('node:child_process');
    const bin = path.resolve('bin/swegym-console');
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [bin, 'doctor', '--json', '--workspace', ws], { env: { ...process.env, E2B_API_KEY: SECRET, E2B_API_URL: 'http://127.0.0.1:9', SWEGYM_DOCTOR_TIMEOUT_MS: String(SLOW_MACHINE_MS) } }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
      );
    });
    assert.equal(result.code, 3, result.stderr);
    const parsed = JSON.parse(result.stdout) as { checks: Record<string, string>[] };
    assert.ok(parsed.checks.length > 10);
    for (const c of parsed.checks) {
      assert.deepEqual(Object.keys(c).sort(), ['detail', 'fix', 'id', 'status', 'title']);
      assert.ok(['ok', 'warn', 'fail', 'skip'].includes(c.status as string));
    }
    assert.ok(parsed.checks.some((c) => c.id === 'slime' && c.status === 'fail'));
    assert.doesNotMatch(result.stdout + result.stderr, /5ecret/);
    void readFile;
  } finally {
    await removeDir(ws);
  }
});

test('shell tools are found on PATH without starting them: a missing or non-executable one is named', async () => {
  const ws = await fakeDressageCheckout();
  const bin = await fakeBin({ python: allInstalled });
  try {
    const { rm } = await import('node:fs/promises');
    await rm(path.join(bin, 'curl'));
    await chmod(path.join(bin, 'tar'), 0o644);
    // A tool that exists only in a second PATH entry counts.
    const other = await tempDir('swegym-bin2-');
    await writeFile(path.join(other, 'sha256sum'), '#!/bin/sh\nexit 1\n');
    await chmod(path.join(other, 'sha256sum'), 0o755);
    await rm(path.join(bin, 'sha256sum'));
    const checks = await runDoctor({ paths: recipePaths(ws), env: { PATH: `${bin}${path.delimiter}${other}` }, provider: 'local', timeoutMs: SLOW_MACHINE_MS });
    const tools = byId(checks, 'tools');
    assert.equal(tools.status, 'fail');
    assert.match(tools.detail, /missing curl, tar \(/);
    await removeDir(other);
  } finally {
    await removeDir(ws);
    await removeDir(bin);
  }
});
