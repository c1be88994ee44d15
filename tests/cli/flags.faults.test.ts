// Flags and paths through the built binary (issue 16, point 10): numbers are plain decimal numbers, negative
// values are explained rather than "ambiguous", sandbox concurrency has a ceiling, and a download into a
// workspace that does not exist refuses instead of creating the tree. Each refusal writes nothing.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

describe('flags and paths', { skip: builtMissing() }, () => {
  let ws: string;
  // Nothing may reach a service: the E2B address is a closed port.
  const env = { E2B_API_KEY: 'fake-key', E2B_API_URL: 'http://127.0.0.1:9', E2B_SANDBOX_URL: 'http://127.0.0.1:9', HF_ENDPOINT: 'http://127.0.0.1:9' };
  before(async () => {
    ws = await tempDir('swegym-faults-flags-');
    await mkdir(path.join(ws, 'data'), { recursive: true });
    await writeFile(path.join(ws, 'data', 'e2b-template-map.json'), JSON.stringify({ 'img/a:latest': 'swegym-a' }));
  });
  after(() => removeDir(ws));

  it('smoke and validate --concurrency have an upper bound', async () => {
    const smoke = await runConsole(['templates', 'smoke', '--all', '--concurrency', '10000', '-w', ws], env);
    assert.equal(smoke.code, 2, smoke.err);
    assert.match(smoke.err, /--concurrency 10000 is above the limit of 100/);
    const validate = await runConsole(['validate', 'harness', '--all', '--concurrency', '10000', '-w', ws], env);
    assert.equal(validate.code, 2, validate.err);
    assert.match(validate.err, /--concurrency 10000 is above the limit/);
  });

  for (const raw of ['1e3', '0x10', '2.5', ' 8']) {
    it(`--concurrency "${raw}" is not a number`, async () => {
      const r = await runConsole(['templates', 'smoke', '--all', '--concurrency', raw, '-w', ws], env);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /--concurrency must be a whole number >= 1/);
    });
  }

  it('--concurrency -1 says what is wrong with -1 (not "argument is ambiguous")', async () => {
    const r = await runConsole(['templates', 'smoke', '--all', '--concurrency', '-1', '-w', ws], env);
    assert.equal(r.code, 2, r.err);
    assert.doesNotMatch(r.err, /ambiguous/);
    assert.match(r.err, /--concurrency must be a whole number >= 1, got "-1"/);
  });

  it('refusals write nothing: no lock, no journal', async () => {
    assert.deepEqual((await readdir(ws)).sort(), ['data']);
  });

  it('data download -w /no/such/dir refuses and creates nothing', async () => {
    const missing = path.join(ws, 'no', 'such', 'dir');
    const r = await runConsole(['data', 'download', '-w', missing], env);
    assert.equal(r.code, 3, r.err);
    assert.match(r.err, /the workspace .*no\/such\/dir does not exist/);
    assert.equal(existsSync(path.join(ws, 'no')), false);
  });
});
