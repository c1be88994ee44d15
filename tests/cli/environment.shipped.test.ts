// The environment reference is generated from the settings module (src/services/config/envSettings.ts, through the
// command table's ENVIRONMENT): `--help` (the built binary) lists each one; the README's table is checked by
// tests/architecture/settings.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENVIRONMENT } from '../../src/cli/commandTable.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';

test('--help lists every variable', { skip: builtMissing() }, async () => {
  const help = await runConsole(['--help']);
  for (const v of ENVIRONMENT) assert.match(help.out, new RegExp(`^ {2}${v.name} +\\S`, 'm'), v.name);
});
