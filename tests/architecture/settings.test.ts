// One settings module: every environment variable the console reads for itself is declared once, in
// src/services/config/envSettings.ts (name, default, parse, description, secret), and read through `setting(env, NAME)`.
// This fails on a declared variable read anywhere else (`env.NAME`, `ctx.env.NAME`, `process.env.NAME`,
// `env['NAME']`), on any SWEGYM_ variable read outside the module (declare it first), on a second name for the E2B
// plan limit, on a secret the redactor would not know, and when the README's "Environment" table drifts from the
// module (tests/cli/environment.shipped.test.ts checks --help of the built binary).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ENV_SETTINGS, environmentReference, setting, settingDefault } from '../../src/services/config/envSettings.js';
import { ENVIRONMENT } from '../../src/cli/commandTable.js';
import { environmentMarkdown } from '../../src/cli/completion.js';
import { SETTINGS as TRAIN_FORM } from '../../src/services/train/settings.js';
import { isSecretName } from '../../src/services/secrets.js';

const MODULE = path.join('src', 'services', 'config', 'envSettings.ts');

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(p)));
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Every `<something>env.NAME`, `env?.NAME` and `env['NAME']` read in a file (comments left out). */
function envReads(text: string): { name: string; line: number }[] {
  const code = text.replace(/\/\*[^]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/[^\n]*/g, '');
  const out: { name: string; line: number }[] = [];
  for (const m of code.matchAll(/(?:\benv|Env)\??\.([A-Z][A-Z0-9_]+)\b|(?:\benv|Env)\??\.?\[\s*['"]([A-Z][A-Z0-9_]+)['"]\s*\]/g)) {
    out.push({ name: (m[1] ?? m[2]) as string, line: code.slice(0, m.index).split('\n').length });
  }
  return out;
}

test('a declared setting, or any SWEGYM_ variable, is read only through the settings module', async () => {
  const declared = new Set(Object.keys(ENV_SETTINGS));
  const offenders: string[] = [];
  let scanned = 0;
  for (const file of await sources('src')) {
    if (file === MODULE || file.startsWith(path.join('src', 'generated'))) continue;
    scanned++;
    for (const r of envReads(await readFile(file, 'utf8'))) {
      if (declared.has(r.name) || r.name.startsWith('SWEGYM_')) offenders.push(`${file}:${r.line}: ${r.name} (use setting(env, '${r.name}'))`);
    }
  }
  assert.ok(scanned > 100, `only ${scanned} files scanned`);
  assert.deepEqual(offenders, []);
});

test('the check catches the shapes a read takes', () => {
  const found = envReads("const a = ctx.env.SWEGYM_X; const b = process.env.NO_COLOR; const c = o.env?.SWEGYM_Y; const d = env['E2B_API_KEY']; // env.SWEGYM_IN_COMMENT").map((r) => r.name);
  assert.deepEqual(found, ['SWEGYM_X', 'NO_COLOR', 'SWEGYM_Y', 'E2B_API_KEY']);
});

test('one name per setting: the E2B plan limit has one, read alike everywhere', async () => {
  const names = Object.keys(ENV_SETTINGS).filter((n) => /E2B.*(LIMIT|CONCURRENCY)/.test(n));
  assert.deepEqual(names, ['SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT']);
  for (const file of await sources('src')) assert.doesNotMatch(await readFile(file, 'utf8'), /SWEGYM_E2B_SANDBOX_LIMIT/, file);
  assert.equal(setting({ SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT: '20' }, 'SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT'), 20);
  assert.equal(setting({ SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT: 'x' }, 'SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT'), 100);
});

test('the reference is the module: --help and the README list exactly the declared settings', async () => {
  const readme = await readFile('README.md', 'utf8');
  const block = /<!-- environment: [^\n]*-->\n([^]*?)<!-- \/environment -->/.exec(readme)?.[1];
  assert.equal(block, environmentMarkdown(ENVIRONMENT), 'README.md: regenerate the table between the environment markers from src/services/config/envSettings.ts');
  assert.deepEqual(ENVIRONMENT.map((v) => v.name), Object.keys(ENV_SETTINGS));
  assert.deepEqual(environmentReference().map((v) => v.name), Object.keys(ENV_SETTINGS));
  for (const [key, s] of Object.entries(ENV_SETTINGS)) {
    assert.equal(s.name, key);
    assert.ok(s.description.length > 10, key);
  }
});

test("the Train form's console-only settings are declared here, with the form's defaults taken from here", () => {
  const formOwn = TRAIN_FORM.filter((s) => s.key.startsWith('SWEGYM_'));
  assert.ok(formOwn.length >= 4);
  for (const s of formOwn) {
    assert.ok(s.key in ENV_SETTINGS, `${s.key} is not in the settings module`);
    assert.equal(s.defaultText, settingDefault(s.key as keyof typeof ENV_SETTINGS), s.key);
  }
});

test('a secret setting is one the redactor masks; no other is marked secret by accident', () => {
  for (const s of Object.values(ENV_SETTINGS)) assert.equal(s.secret, isSecretName(s.name), s.name);
});

test('parsing keeps each rule: defaults for unset or unusable text', () => {
  assert.equal(setting({}, 'SWEGYM_DOCTOR_TIMEOUT_MS'), 3000);
  assert.equal(setting({ SWEGYM_DOCTOR_TIMEOUT_MS: '50' }, 'SWEGYM_DOCTOR_TIMEOUT_MS'), 50);
  assert.equal(setting({}, 'SWEGYM_EXIT_GRACE_MS'), 10_000);
  assert.equal(setting({ SWEGYM_EXIT_GRACE_MS: '0' }, 'SWEGYM_EXIT_GRACE_MS'), 10_000);
  assert.equal(setting({ SWEGYM_LATE_CREATE_WAIT_MS: '0' }, 'SWEGYM_LATE_CREATE_WAIT_MS'), 0);
  assert.equal(setting({}, 'SWEGYM_LATE_CREATE_WAIT_MS'), 30_000);
  assert.equal(setting({ SWEGYM_RETRY_BASE_MS: ' 5 ' }, 'SWEGYM_RETRY_BASE_MS'), 5);
  assert.equal(setting({ SWEGYM_RETRY_BASE_MS: '5ms' }, 'SWEGYM_RETRY_BASE_MS'), undefined);
  assert.equal(setting({ SWEGYM_DASHBOARD_REFRESH_MS: '100' }, 'SWEGYM_DASHBOARD_REFRESH_MS'), undefined);
  assert.equal(setting({ SWEGYM_DASHBOARD_REFRESH_MS: '500' }, 'SWEGYM_DASHBOARD_REFRESH_MS'), 500);
  assert.deepEqual(setting({ SWEGYM_RAY_METRICS: ' a:1, ,b:2 ' }, 'SWEGYM_RAY_METRICS'), ['a:1', 'b:2']);
  assert.equal(setting({ SWEGYM_MONITOR_WORKERS: '1.5' }, 'SWEGYM_MONITOR_WORKERS'), undefined);
  assert.equal(setting({ SWEGYM_MONITOR_MAIN_SCANS: '0' }, 'SWEGYM_MONITOR_MAIN_SCANS'), false);
  assert.equal(setting({}, 'SWEGYM_MONITOR_MARKER_SEARCH'), 'wasm');
  assert.equal(setting({ NO_COLOR: '' }, 'NO_COLOR'), false);
  assert.equal(setting({ NO_COLOR: '1' }, 'NO_COLOR'), true);
  assert.equal(setting({ SWEGYM_SANDBOX_PORT_URL: '  ' }, 'SWEGYM_SANDBOX_PORT_URL'), undefined);
  assert.equal(setting({}, 'SWEGYM_PYTHON'), 'python3');
});
