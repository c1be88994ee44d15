// The E2B plan's concurrent-sandbox limit has one name, read alike by the launch checks and the dashboard's gauge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sandboxLimitFromEnv } from '../../src/services/monitor/provider.js';
import { SETTINGS } from '../../src/services/train/settings.js';
import { ENVIRONMENT } from '../../src/cli/commandTable.js';

test('one name for the plan limit: the dashboard reads the setting the launch checks read', () => {
  assert.equal(sandboxLimitFromEnv({ SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT: '20' }), 20);
  assert.equal(sandboxLimitFromEnv({}), 100);
  assert.equal(sandboxLimitFromEnv({ SWEGYM_E2B_SANDBOX_LIMIT: '20' }), 100, 'the old second name is gone');
  assert.ok(SETTINGS.some((s) => s.key === 'SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT'));
  assert.deepEqual(ENVIRONMENT.filter((v) => /E2B.*(LIMIT|CONCURRENCY)/.test(v.name)).map((v) => v.name), ['SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT']);
});
