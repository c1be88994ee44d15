// Dressage's first-rollout refusals as the console judges them (no upstream needed; the differential tier in
// tests/train/firstRollout.upstream.test.ts holds the same rules against the real Python). Each case of issue 24: blocked in
// Dressage's words with a fix, or accepted as Dressage accepts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLaunchPlan } from '../../src/services/train/launch.js';
import { staticChecks } from '../../src/services/train/checks.js';
import { bashArithmetic } from '../../src/services/train/checkParts.js';
import { compactThresholdVerdict, maxStepsVerdict, pyInt, pyRepr, proxyUrlRefusal } from '../../src/services/train/dressageRules.js';
import { recipePaths } from '../../src/services/workspace/paths.js';

function checks(sets: Record<string, string>, env: Record<string, string> = { DRESSAGE_E2B_API_KEY: 'e2b_fake' }) {
  return staticChecks(buildLaunchPlan({ paths: recipePaths('/w/dressage'), env: { MODEL_ROOT: '/m', ...env }, sets, hostIp: '203.0.113.5' }));
}
const failing = (sets: Record<string, string>, env?: Record<string, string>) => checks(sets, env).filter((c) => c.status === 'fail');

test("Python's int(), str() repr and urlsplit hostname, as the rules use them", () => {
  assert.deepEqual(['50', ' 50 ', '+5', '5_0', '٥', '007', '-0', '3.5', '0x10', '1000+1', '5__0', '_5', '', ' \x1c5'].map(pyInt), [50, 50, 5, 50, 5, 7, 0, undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
  assert.equal(pyRepr("it's"), `"it's"`);
  assert.equal(pyRepr('a\tb\x00'), "'a\\tb\\x00'");
  assert.equal(proxyUrlRefusal('https://proxy.example.com/'), undefined);
  assert.match(proxyUrlRefusal('http://[::1]:8800') ?? '', /local-only host: 'http:\/\/\[::1\]:8800'/);
  assert.match(proxyUrlRefusal(' HTTP://Localhost') ?? '', /local-only host/);
  assert.equal(proxyUrlRefusal('http://[::1'), 'Invalid IPv6 URL');
});

test("bash's arithmetic as the launcher's [[ X -le 0 ]] reads it", () => {
  const v = (t: string) => {
    const r = bashArithmetic(t);
    return typeof r === 'object' ? Number(r.value) : r;
  };
  assert.deepEqual(['50', ' 50 ', '0x10', '010', '1000+1', '10-15', '2#101', ' ', '3.5', '12abc', '08', 'half'].map(v), [50, 50, 16, 8, 1001, -5, 5, 0, 'error', 'error', 'error', 'unknown']);
});

test('local-only proxy URLs in any spelling are blocked, in Dressage words, saying the launcher misses them', () => {
  const cases: Record<string, string>[] = [{ DRESSAGE_PROXY_URL: 'http://127.0.0.1:8800' }, { DRESSAGE_PROXY_URL: 'http://LOCALHOST:8800' }, { PROXY_PUBLIC_HOST: '127.0.0.1' }];
  for (const sets of cases) {
    const f = failing(sets);
    assert.equal(f.length, 1, JSON.stringify(sets));
    assert.equal(f[0]?.id, 'proxy-url');
    assert.match(f[0]?.detail ?? '', /BlackboxAgentPaddock.*cannot use a local-only host: 'http:\/\/(127\.0\.0\.1|LOCALHOST):8800'.*launcher's own check, dressage_validate_proxy_defaults, misses this spelling/);
    assert.ok(f[0]?.fix);
  }
});

test('the compaction threshold: int() or refused; the launcher words where it refuses first', () => {
  for (const t of ['3.5', '12abc', '0x10', '1000+1', 'half']) {
    const f = failing({ DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: t });
    assert.equal(f[0]?.id, 'compaction', t);
    assert.match(f[0]?.detail ?? '', new RegExp(`must be a positive integer no greater than the context window, got '${t.replace(/[+.]/g, '\\$&')}'`), t);
  }
  assert.match(failing({ DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: '10-15' })[0]?.detail ?? '', /must be positive; got 10-15/);
  assert.deepEqual(failing({ DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: ' 300 ' }), []);
  assert.deepEqual(compactThresholdVerdict('\t', 65536), { threshold: undefined });
});

test('paddock mode, provider case, E2B key and port, max steps', () => {
  assert.match(failing({ DRESSAGE_PADDOCK_MODE: 'whitebox' })[0]?.detail ?? '', /runtime\.py.*does not support whitebox mode/);
  assert.match(failing({ DRESSAGE_PADDOCK_MODE: 'Greybox ' })[0]?.detail ?? '', /unsupported DRESSAGE_PADDOCK_MODE='greybox'; expected blackbox\|whitebox/);
  assert.deepEqual(failing({ DRESSAGE_PADDOCK_MODE: ' BlackBox' }), []);
  const key = failing({ DRESSAGE_SANDBOX_PROVIDER: 'E2B' }, {});
  assert.equal(key[0]?.id, 'e2b-key');
  assert.match(key[0]?.detail ?? '', /reads 'E2B' as e2b and starts E2B without a key.*misses this spelling/);
  assert.deepEqual(failing({ DRESSAGE_SANDBOX_PROVIDER: 'E2B' }), []);
  assert.deepEqual(failing({ DRESSAGE_E2B_BLACKBOX_PORT: ' 31000 ' }), []);
  assert.match(failing({ DRESSAGE_E2B_BLACKBOX_PORT: 'abc' })[0]?.detail ?? '', /DRESSAGE_E2B_BLACKBOX_PORT must be an integer, got 'abc'/);
  assert.deepEqual(failing({ DRESSAGE_BLACKBOX_MAX_STEPS: ' 50 ' }), []);
  assert.deepEqual(maxStepsVerdict(' 50 '), { steps: 50 });
  assert.match(failing({ DRESSAGE_BLACKBOX_MAX_STEPS: '-3' })[0]?.detail ?? '', /must be a positive integer or 0 to disable the limit, got '-3'/);
});

test('ROLLOUT_NUM_GPUS_PER_ENGINE=3 is a warning that states the rule, not a block', () => {
  const all = checks({ ROLLOUT_NUM_GPUS_PER_ENGINE: '3' });
  assert.deepEqual(all.filter((c) => c.status === 'fail'), []);
  const w = all.find((c) => c.id === 'engine-gpus');
  assert.equal(w?.status, 'warn');
  assert.match(w.detail, /get_base_gpu_id.*engine 2 would need GPUs 6–8.*16 attention heads/);
  assert.equal(checks({}).find((c) => c.id === 'engine-gpus'), undefined);
});

test('the launcher runtime-env keys are settings; no_proxy set by hand is replaced by the launcher', () => {
  const all = checks({ TMPDIR: '/scratch', WANDB_MODE: 'offline', no_proxy: 'x' });
  assert.ok(!all.some((c) => c.id === 'forwarding'), JSON.stringify(all.filter((c) => c.id === 'forwarding')));
  assert.match(all.find((c) => c.id === 'overwritten')?.detail ?? '', /no_proxy=x: the launcher exports its own value \(127\.0\.0\.1,localhost,203\.0\.113\.5,203\.0\.113\.5,203\.0\.113\.5\)/);
});
