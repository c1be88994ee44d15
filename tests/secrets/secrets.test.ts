import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redact, redactArgv, redactEnv, isSecretName, describeSecret } from '../../src/services/secrets.js';

const KEY = 'e2b_0123456789ab';

test('values of secret env vars are masked wherever they appear', () => {
  const env = { E2B_API_KEY: 'sekrit-value-123', HF_TOKEN: 'hf_abcdefghijklmnopqrstuvwxyz', WANDB_API_KEY: 'w'.repeat(40), PATH: '/usr/bin' };
  const text = `key sekrit-value-123 token hf_abcdefghijklmnopqrstuvwxyz wandb ${'w'.repeat(40)} path /usr/bin`;
  const out = redact(text, env);
  assert.doesNotMatch(out, /sekrit-value-123|hf_abc|wwwwwwww/);
  assert.match(out, /path \/usr\/bin/);
});

test('token shapes, NAME=value pairs and auth headers are masked even when not in the environment', () => {
  const out = redact(`E2B_API_KEY=${KEY} export DRESSAGE_E2B_API_KEY="abc def" curl -H "X-API-Key: xyz123456" -H 'Authorization: Bearer tok123456' ${KEY}`, {});
  assert.doesNotMatch(out, /0123456789ab/);
  assert.doesNotMatch(out, /abc def|xyz123456|tok123456/);
  assert.match(out, /E2B_API_KEY=\*\*\*\*/);
});

test('placeholders in help text survive', () => {
  assert.equal(redact('export E2B_API_KEY=<your key>', {}), 'export E2B_API_KEY=<your key>');
  assert.equal(redact('export DRESSAGE_E2B_API_KEY=$E2B_API_KEY', {}), 'export DRESSAGE_E2B_API_KEY=$E2B_API_KEY');
});

test('argv: --api-key VALUE and --token=VALUE', () => {
  assert.deepEqual(redactArgv(['tool', '--api-key', 'abcdefgh', '--hf-token=zzzzzzzz', 'plain'], {}), ['tool', '--api-key', '****', '--hf-token=****', 'plain']);
});

test('env maps for dry runs keep names and mask secret values', () => {
  assert.deepEqual(redactEnv({ DRESSAGE_E2B_API_KEY: 'x1', MODEL_ROOT: '/m', WANDB_KEY: '', EMPTY: undefined }), { DRESSAGE_E2B_API_KEY: '****', MODEL_ROOT: '/m', WANDB_KEY: '' });
  assert.ok(isSecretName('DRESSAGE_E2B_API_KEY') && isSecretName('HF_TOKEN') && isSecretName('MY_SECRET') && !isSecretName('MODEL_ROOT') && !isSecretName('KEYBOARD'));
  assert.equal(describeSecret(KEY), `set (${KEY.length} chars)`);
  assert.equal(describeSecret(undefined), 'not set');
});
