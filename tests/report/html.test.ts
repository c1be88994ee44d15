// The report page's inlining rules: the data JSON cannot end its <script> element whatever the run's strings hold,
// and it reads back as the same value; secrets in launch settings are masked by name and by value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { jsonForScript, escapeHtml } from '../../src/services/report/html.js';
import { maskSetting } from '../../src/services/report/data.js';

test('jsonForScript: no "<" survives (so no </script> or <!--), and JSON.parse gives the value back', () => {
  const value = fc.jsonValue();
  fc.assert(
    fc.property(value, fc.constantFrom('</script>', '</SCRIPT ', '<!--', '\u2028', '\u2029', '<'), (v, nasty) => {
      const wrapped = { v, s: `a${nasty}b` };
      const text = jsonForScript(wrapped);
      assert.ok(!text.includes('<'), text);
      assert.ok(!text.includes('\u2028') && !text.includes('\u2029'));
      assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(wrapped)));
    }),
  );
});

test('escapeHtml: the text reads back, no markup character left', () => {
  fc.assert(
    fc.property(fc.string(), (s) => {
      const e = escapeHtml(s);
      assert.ok(!/[<>"']/.test(e));
      const back = e.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
      assert.equal(back, s);
    }),
  );
});

test('maskSetting: secret settings masked whole, secret values masked inside other settings, the rest as it is', () => {
  const env = { E2B_API_KEY: 'e2b_fake_key_for_mask_tests_5c2e' };
  assert.equal(maskSetting('WANDB_API_KEY', 'abc', env), '****');
  assert.equal(maskSetting('HF_TOKEN', 'hf_whatever', env), '****');
  assert.equal(maskSetting('E2B_API_KEY', '', env), '');
  assert.equal(maskSetting('NOTE', `uses ${env.E2B_API_KEY}`, env), 'uses ****');
  assert.equal(maskSetting('NUM_ROLLOUT', '500', env), '500');
});
