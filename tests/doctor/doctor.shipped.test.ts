// Shipped tier: the newcomer's first commands with the built console — doctor (every warn or fail carries a fix,
// secrets never printed), a closed pipe (`| head`), and the README's way of calling it by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';
import { BIN, explain, runShipped } from '../helpers/shipped.js';
import { startFakeE2b } from '../fakes/e2bServer.js';

interface Check {
  id: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix: string;
}


for (const kind of ['an empty folder', 'a Dressage checkout without tools']) {
  test(`shipped: doctor in ${kind}: exit 3, every warn and fail says how to fix it, the key is not printed`, { timeout: 120_000 }, async () => {
    const ws = kind.startsWith('an empty') ? await tempDir() : await fakeDressageCheckout();
    const fake = await startFakeE2b();
    const E2B_KEY = fake.apiKey;
    try {
      const r = await runShipped(['doctor', '-w', ws, '--json'], { env: { E2B_API_KEY: E2B_KEY, E2B_API_URL: fake.url, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` } });
      assert.equal(r.code, 3, explain(r));
      const checks = (JSON.parse(r.out) as { checks: Check[] }).checks;
      assert.ok(checks.length >= 15, `${checks.length} checks`);
      const withoutFix = checks.filter((c) => (c.status === 'warn' || c.status === 'fail') && !c.fix.trim());
      assert.deepEqual(withoutFix.map((c) => `${c.id}: ${c.detail}`), []);
      assert.ok(checks.some((c) => c.id === 'e2b-key' && c.status === 'ok'), 'the key was verified against E2B_API_URL');
      assert.ok(fake.requests.some((q) => q.method === 'GET'), 'doctor asked the E2B endpoint');
      assert.ok(!r.out.includes(E2B_KEY.slice(4)) && !r.err.includes(E2B_KEY.slice(4)), 'no part of the key is printed');
    } finally {
      await fake.close();
      await removeDir(ws);
    }
  });
}

function sh(command: string, cwd: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) =>
    execFile('bash', ['-c', command], { cwd, env: { ...process.env, NO_COLOR: '1' }, timeout: 90_000 }, (err, out, errOut) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out, err: errOut }),
    ),
  );
}

test('shipped: a reader that closes the pipe early (`| head`) ends the console quietly, without a stack trace', { timeout: 120_000 }, async () => {
  const ws = await tempDir();
  try {
    for (const args of ['doctor -w ' + ws, '--help']) {
      const r = await sh(`set -o pipefail; "${process.execPath}" "${BIN}" ${args} | head -1`, ws);
      assert.equal(r.out.split('\n').filter(Boolean).length, 1, r.out);
      assert.doesNotMatch(r.err, /EPIPE|at .*\.mjs|node:events/, r.err);
    }
  } finally {
    await removeDir(ws);
  }
});

// Not `npx swegym-console`: for a package's own folder npm packs it first, which runs `prepare` (the build) and
// replaces dist/ under every other running console.
test('shipped: on PATH by name (bin/ itself, or a symlink to it as `npm link` makes), from any folder, on the machine\'s own Node', { timeout: 120_000 }, async () => {
  const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  const elsewhere = await tempDir('swegym-path-');
  try {
    await symlink(BIN, path.join(elsewhere, 'swegym-console'));
    // /usr/bin first: where the machine's Node is older than 22.12, bin/ re-runs itself on the project's Node 24.
    for (const dir of [path.dirname(BIN), elsewhere]) {
      const r = await sh(`PATH="${dir}:/usr/bin:/bin:$PATH" swegym-console --version`, tmpdir());
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, `${version}\n`, `from ${dir}`);
    }
  } finally {
    await removeDir(elsewhere);
  }
});
