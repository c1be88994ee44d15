// Differential, property-based: the console's verdict on a launch's settings against what Dressage's own code does
// with them: the launcher's shell checks first (its real text and defaults file, run by bash), then the Python that
// the first rollout reaches (backend options merge, runtime/paddock factory, sandbox factory, provider construction,
// BlackboxAgentPaddock.__init__, E2B create), run from the checkout by tests/helpers/upstreamFirstRollout.py. Values are
// generated (fast-check): numbers with spaces, signs, floats, hex, underscores, expressions and other digits; case
// variants of enum values, schemes and hosts. SWEGYM_UPSTREAM=DIR picks the checkout (default ../shared/upstream).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { buildLaunchPlan } from '../../src/services/train/launch.js';
import { staticChecks } from '../../src/services/train/checks.js';
import { FORWARDED_TO_RAY } from '../../src/services/train/settings.js';
import { bashArithmetic } from '../../src/services/train/checkParts.js';
import { pyInt, pyRepr, proxyUrlRefusal } from '../../src/services/train/dressageRules.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { PythonJudge, firstRolloutSkip, launcherJudge } from '../helpers/upstreamFirstRolloutOracle.js';

const skip = firstRolloutSkip() ?? false;
if (skip) console.log(`# ${skip}`);

let python: PythonJudge;
before(() => {
  if (!skip) python = new PythonJudge();
});
after(() => python?.close());

const NUM_RUNS = Number(process.env.SWEGYM_PROPERTY_RUNS) || 200;

// ---------------------------------------------------------------------------------------------------------------
// Generators

const space = fc.constantFrom('', '', ' ', '  ', '\t', '\n', '\u3000', '\xa0', '\x1c');
const sign = fc.constantFrom('', '', '+', '-', '--', '+-');
const small = fc.nat(70_000);
const numberCore = fc.oneof(
  small.map(String),
  fc.nat(99).map((n) => `0${n}`),
  fc.nat(0xffff).map((n) => `0x${n.toString(16)}`),
  fc.tuple(small, fc.nat(999)).map(([a, b]) => `${a}.${b}`),
  fc.tuple(small, fc.nat(99)).map(([a, b]) => `${a}_${b}`),
  fc.tuple(small, fc.nat(99)).map(([a, b]) => `${a}__${b}`),
  fc.tuple(small, fc.constantFrom('+', '-', '*', '/', '%', ' + '), fc.nat(2000)).map(([a, op, b]) => `${a}${op}${b}`),
  fc.tuple(fc.nat(60), fc.nat(0xfff)).map(([b, n]) => `${b}#${n.toString(Math.max(2, Math.min(36, b)))}`),
  fc.constantFrom('half', '12abc', '1e3', 'inf', 'nan', '٥٠', '１２', '٣٢٠٠٠', '(3)', '0', '00', '-0', '0_0', '', '2**10'),
);
const numberText = fc.tuple(space, sign, numberCore, space).map(([a, s, n, b]) => `${a}${s}${n}${b}`);

/** Random upper/lower case per character. */
const caseVariant = (base: fc.Arbitrary<string>) =>
  fc.tuple(base, fc.array(fc.boolean(), { minLength: 24, maxLength: 24 })).map(([s, flips]) => [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join(''));

const hostCore = fc.constantFrom(
  'localhost', 'localhost.', '127.0.0.1', '127.1.2.3', '127.', '127', '0.0.0.0', '0.0.0.00', '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '[::]',
  '203.0.113.7', 'proxy.example.com', 'Proxy.Example.COM', '10.0.0.5', '[2001:db8::1]', 'user@localhost', 'user:pw@203.0.113.7', 'local-host', '[127.0.0.1]', '[::1', 'x]',
);
const host = caseVariant(hostCore);
const url = fc
  .tuple(
    fc.constantFrom('', '', ' ', '\t'),
    caseVariant(fc.constantFrom('http', 'https', 'ftp', 'ws')),
    fc.constantFrom('://', '://', '://', ':/', ':'),
    host,
    fc.constantFrom('', ':8800', ':443', ':', ':x'),
    fc.constantFrom('', '', '/', '//', '/v1', '?a=1', '#f'),
  )
  .map(([lead, scheme, sep, h, port, tail]) => `${lead}${scheme}${sep}${h}${port}${tail}`);

const providerText = fc.oneof(caseVariant(fc.constantFrom('e2b', 'local_bwrap', 'custom', 'modal')), fc.constantFrom(' e2b', 'e2b ', '\te2b', ' local_bwrap '));
const modeText = fc.oneof(caseVariant(fc.constantFrom('blackbox', 'whitebox', 'greybox')), fc.constantFrom(' blackbox ', '', ' ', 'white box'));
const portText = fc.constantFrom('31000', ' 31000 ', '031000', '+31000', '31_000', '31001', '0x7918', 'abc', '', '３１０００');

// ---------------------------------------------------------------------------------------------------------------
// The rules, one by one, against the Python functions they follow

test("pyInt is Python's int() on generated number texts", { skip }, async () => {
  await fc.assert(
    fc.asyncProperty(numberText, async (text) => {
      const r = await python.call('py_int', [text]);
      const want = 'ok' in r ? (r.ok as number) : undefined;
      assert.equal(pyInt(text), want, `int(${JSON.stringify(text)}): Python ${'ok' in r ? r.ok : r.error}`);
    }),
    { numRuns: NUM_RUNS * 2 },
  );
});

// Characters assigned in Unicode 14 (Python 3.11's tables), so that both sides agree on what is printable.
const reprUnit = fc.oneof(
  fc.constantFrom("'", '"', '\\', '\n', '\t', '\r', '\x00', '\x1b', '\x7f', '\x85', '\xa0', '\u2028', '\u200b', '\ufeff', '\u3000', 'é', '日', '😀'),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
);

test("pyRepr is Python's repr() of a str", { skip }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(url, numberText, fc.string({ unit: reprUnit, maxLength: 12 })), async (text) => {
      const r = await python.call('py_repr', [text]);
      assert.equal(pyRepr(text), (r as { ok: string }).ok);
    }),
    { numRuns: NUM_RUNS },
  );
});

test("the proxy URL rule is BlackboxAgentPaddock's (_validate_public_proxy_url) on generated URLs", { skip }, async () => {
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(url, async (u) => {
      const r = await python.call('validate_proxy_url', [u]);
      const want = 'error' in r ? r.error.replace(/^ValueError: /, '') : undefined;
      if (want) refused++;
      assert.equal(proxyUrlRefusal(u), want, `${JSON.stringify(u)}`);
    }),
    { numRuns: NUM_RUNS * 2 },
  );
  assert.ok(refused > 0, 'the generated URLs include refused ones');
});

test("the launcher's reading of the threshold ([[ X -le 0 ]]) is bash's on generated number texts", { skip }, () => {
  fc.assert(
    fc.property(numberText.filter((t) => !/[A-Za-z_]/.test(t.replace(/^\s*[+-]*\s*0[xX]/, ''))), (text) => {
      const judged = launcherJudge({ DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: text, DRESSAGE_SANDBOX_PROVIDER: 'e2b', DRESSAGE_E2B_API_KEY: 'k', DRESSAGE_PROXY_URL: 'https://proxy.example.com', SGLANG_ROUTER_URL: 'http://10.0.0.9:8000', PROXY_PUBLIC_HOST: 'x' });
      const ours = bashArithmetic(text);
      const oursRefuses = typeof ours === 'object' && ours.value <= 0n;
      assert.equal(oursRefuses, judged.refused, `${JSON.stringify(text)}: bash ${judged.refused ? `refuses (${(judged as { said: string }).said})` : 'carries on'}, ours ${typeof ours === 'object' ? ours.value : ours}`);
    }),
    { numRuns: NUM_RUNS },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// The whole verdict: a plan's checks against the launcher, then the first rollout

const settings = fc.record(
  {
    DRESSAGE_SANDBOX_PROVIDER: providerText,
    DRESSAGE_PADDOCK_MODE: modeText,
    DRESSAGE_BLACKBOX_MAX_STEPS: numberText,
    DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: numberText,
    DRESSAGE_E2B_BLACKBOX_PORT: portText,
    DRESSAGE_PROXY_URL: url,
    PROXY_PUBLIC_HOST: host.filter((h) => /^[A-Za-z0-9._:[\]-]+$/.test(h)),
    DRESSAGE_E2B_API_KEY: fc.constantFrom('e2b_fake_key_for_tests', ''),
  },
  { requiredKeys: ['DRESSAGE_E2B_API_KEY'] },
);

function planFor(sets: Record<string, string>) {
  return buildLaunchPlan({
    paths: recipePaths('/w/dressage'),
    env: { MODEL_ROOT: '/m', PROMPT_DATA: '/w/dressage/data/x.jsonl', DRESSAGE_SKIP_PROXY_HEALTHCHECK: '1' },
    sets: Object.fromEntries(Object.entries(sets).filter(([, v]) => v !== '')),
    hostIp: '203.0.113.5',
  });
}

test('every generated launch is refused by the console exactly when the launcher or the first rollout refuses it, in their words', { skip }, async () => {
  const seen = { launcher: 0, python: 0, accepted: 0 };
  await fc.assert(
    fc.asyncProperty(settings, async (sets) => {
      const plan = planFor(sets);
      const e = plan.effective;
      const failing = staticChecks(plan).filter((c) => c.status === 'fail');
      const where = `${JSON.stringify(sets)}\n  console: ${failing.map((c) => `[${c.id}] ${c.detail}`).join(' | ') || '(accepts)'}`;

      // 1. The launcher, with the values it holds at those checks.
      const shell = launcherJudge({
        DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: e.DRESSAGE_BLACKBOX_COMPACT_THRESHOLD ?? '',
        DRESSAGE_SANDBOX_PROVIDER: e.DRESSAGE_SANDBOX_PROVIDER ?? '',
        DRESSAGE_PADDOCK_CLASS: e.DRESSAGE_PADDOCK_CLASS ?? '',
        DRESSAGE_E2B_API_KEY: e.DRESSAGE_E2B_API_KEY ?? '',
        DRESSAGE_PROXY_URL: e.DRESSAGE_PROXY_URL ?? '',
        SGLANG_ROUTER_URL: e.SGLANG_ROUTER_URL ?? '',
        PROXY_PUBLIC_HOST: e.PROXY_PUBLIC_HOST ?? '',
      });
      if (shell.refused) {
        seen.launcher++;
        assert.ok(failing.length > 0, `the launcher refuses (${shell.said}), the console does not: ${where}`);
        if (!/unbound variable/.test(shell.said)) assert.ok(failing.some((c) => c.detail.includes(shell.said)), `not in the launcher's words "${shell.said}": ${where}`);
        return;
      }

      // 2. The first rollout, with the runtime env the launcher forwards to Ray.
      const env = Object.fromEntries([...FORWARDED_TO_RAY].filter((k) => e[k]).map((k) => [k, e[k] as string]));
      const args = { max_tokens_per_gpu: Number(e.MAX_TOKENS_PER_GPU), context_parallel_size: Number(e.CP_SIZE), rollout_max_response_len: Number(e.ROLLOUT_MAX_RESPONSE_LEN), rollout_temperature: 1.0 };
      const reply = await python.call('first_rollout', [args], env);
      assert.ok('ok' in reply, `oracle error: ${JSON.stringify(reply)}`);
      const r = reply.ok as { stage: string; error?: string; sdk?: { api_key: boolean } };
      const pythonError = r.error?.replace(/^\w+: /, '');
      const e2bWithoutKey = r.stage === 'ok' && r.sdk !== undefined && !r.sdk.api_key;
      if (pythonError) {
        seen.python++;
        assert.ok(failing.some((c) => c.detail.includes(pythonError)), `Dressage refuses at ${r.stage} with "${pythonError}", the console not in those words: ${where}`);
      } else if (e2bWithoutKey) {
        seen.python++;
        assert.ok(failing.some((c) => c.id === 'e2b-key'), `Dressage starts E2B without a key, the console does not refuse: ${where}`);
      } else {
        seen.accepted++;
        assert.deepEqual(failing, [], `Dressage accepts it (stage ${r.stage}), the console refuses: ${where}`);
      }
    }),
    // The recipe's own settings (accepted by both) and a local-only proxy URL (the first rollout refuses it) are always
    // among the cases, so that every outcome is reached whatever the seed.
    { numRuns: NUM_RUNS, examples: [[{ DRESSAGE_E2B_API_KEY: 'e2b_fake_key_for_tests' }], [{ DRESSAGE_E2B_API_KEY: 'e2b_fake_key_for_tests', DRESSAGE_PROXY_URL: 'http://LOCALHOST:8800' }], [{ DRESSAGE_E2B_API_KEY: 'e2b_fake_key_for_tests', DRESSAGE_BLACKBOX_COMPACT_THRESHOLD: 'half' }]] },
  );
  for (const [k, n] of Object.entries(seen)) assert.ok(n > 0, `no generated case was ${k} (${JSON.stringify(seen)})`);
});
