// redact() against secrets that appear in part or in disguise (issue 16, point 7). Fake keys only: short, obviously
// made up, assembled at run time so that no key-shaped literal sits in the repo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { redact, redactEnv, isSecretName, MASK } from '../../src/services/secrets.js';

const hex = (seed: string, n: number) => Array.from({ length: n }, (_, i) => '0123456789abcdef'[(seed.charCodeAt(i % seed.length) + i * 7) % 16]).join('');
const WANDB = hex('wandb', 40);
const E2B = 'e2b' + '_' + hex('e2b', 40);
const HF = 'hf' + '_' + 'Fake' + hex('hf', 30);
const env = { WANDB_API_KEY: WANDB, E2B_API_KEY: E2B, HF_TOKEN: HF, TOKEN_BUILD_MODE: 'fast', PATH: '/usr/bin' };

function assertHidden(out: string, secret: string, what: string): void {
  for (let len = 8; len <= secret.length; len++) {
    for (const part of [secret.slice(0, len), secret.slice(-len)]) {
      if (/\d/.test(part) && len >= 12) assert.ok(!out.toLowerCase().includes(part.toLowerCase()), `${what}: "${part}" (${len} chars of the key) shown in: ${out}`);
    }
  }
}

test('a 20-character prefix and the last 12 characters of a key are masked', () => {
  const out = redact(`wandb: key ${WANDB.slice(0, 20)}… and e2b …${E2B.slice(-12)} done`, env);
  assertHidden(out, WANDB, 'W&B prefix');
  assertHidden(out, E2B, 'E2B suffix');
  assert.match(out, /^wandb: key \*\*\*\*… and e2b …\*\*\*\* done$/);
});

test('e2b_ followed by 7 characters is masked', () => {
  assert.equal(redact(`key=${'e2b_'}${E2B.slice(4, 11)} rest`, {}), `key=${MASK} rest`);
});

test('"api_key": "…" inside JSON, any case and quoting', () => {
  const other = 'x9' + hex('json', 10);
  assert.equal(redact(`{"api_key": "${other}", "name": "run"}`, {}), `{"api_key": "${MASK}", "name": "run"}`);
  assert.equal(redact(`{'HF_TOKEN': '${other}'}`, {}), `{'HF_TOKEN': '${MASK}'}`);
  assert.equal(redact('{"api_key": ""}', {}), '{"api_key": ""}', 'an empty value is not a secret');
});

test('URL-encoded and upper-cased keys, and a key wrapped over two lines', () => {
  const encoded = encodeURIComponent(HF).replace('_', '%5F');
  assert.ok(!redact(`GET /x?token=${encoded}`, env).includes(encoded.slice(6)));
  assert.ok(!redact(`url E2B_API_KEY%3D${E2B}`, {}).includes(E2B.slice(4)));
  const upper = redact(`KEY ${WANDB.toUpperCase()}`, env);
  assertHidden(upper, WANDB, 'upper-cased');
  const wrapped = redact(`key: ${WANDB.slice(0, 23)}\n${WANDB.slice(23)} end`, env);
  assertHidden(wrapped, WANDB, 'wrapped');
  assert.match(wrapped, /end$/);
});

test('no over-masking: TOKEN_BUILD_MODE is a setting, and words a secret contains stay readable', () => {
  assert.equal(isSecretName('TOKEN_BUILD_MODE'), false);
  assert.equal(isSecretName('HF_TOKEN'), true);
  assert.equal(redactEnv(env).TOKEN_BUILD_MODE, 'fast');
  assert.equal(redact('TOKEN_BUILD_MODE=fast', env), 'TOKEN_BUILD_MODE=fast');
  // Words shorter than a fragment (8 characters) that a pass phrase contains stay readable; 8 and more do not
  // (issue 25: every fragment of 8+ characters is masked).
  const phrase = { MY_SECRET: 'zz-train-key-abcdef' };
  assert.equal(redact('train run started', phrase), 'train run started');
  assert.equal(redact('key-abcdef rotated', phrase), `${MASK} rotated`);
  // A file path in a secret-named variable is masked whole, not by fragment (its fragments are other paths).
  const creds = { GOOGLE_APPLICATION_CREDENTIALS: path.join(process.cwd(), 'tests', 'service.json') };
  const other = path.join(process.cwd(), 'data', 'train.parquet');
  assert.equal(redact(`reading ${other}`, creds), `reading ${other}`);
  assert.equal(redact(`opened ${creds.GOOGLE_APPLICATION_CREDENTIALS}`, creds), `opened ${MASK}`);
});
