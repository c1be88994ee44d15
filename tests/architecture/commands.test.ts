// A headless command is options → a job from the registry → an exit code: nothing under src/cli/commands opens or
// constructs a sandbox provider (the registry's dependencies hold the providers, so a test puts its scripted one
// there), and no command holds a test hook.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const COMMANDS = fileURLToPath(new URL('../../src/cli/commands/', import.meta.url));

/** What opening a provider looks like: the factories, a provider's constructor, or importing either. */
const OPENS_A_PROVIDER: [RegExp, string][] = [
  [/\b(createProvider|openSandboxProvider|openMonitorProvider)\b/, 'opens a provider (take it from registryOf(ctx).deps.providers)'],
  [/\bnew\s+\w*Provider\s*\(/, 'constructs a provider'],
];

test('no command under src/cli/commands opens a provider or exports a *ForTests hook', () => {
  const offenders: string[] = [];
  for (const name of readdirSync(COMMANDS).filter((f) => /\.tsx?$/.test(f))) {
    const code = readFileSync(path.join(COMMANDS, name), 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const [re, what] of OPENS_A_PROVIDER) if (re.test(code)) offenders.push(`${name}: ${what}`);
    for (const m of code.matchAll(/\bexport\s+(?:async\s+)?(?:function|const|let)\s+(\w*ForTests)\b/g)) offenders.push(`${name}: exports the test hook ${m[1]} (inject through the registry's dependencies)`);
  }
  assert.deepEqual(offenders, []);
});
