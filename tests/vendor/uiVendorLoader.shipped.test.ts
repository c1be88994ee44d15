// The UI bundle runs with a V8 code cache written after the first frames. Each case runs in a fresh Node process,
// since V8 decides whether to take a cache only when it compiles the script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codeCacheFile } from '../../src/vendor/uiVendorLoader.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LOADER = pathToFileURL(path.join(REPO, 'src/vendor/uiVendorLoader.ts')).href;

interface Outcome {
  cache?: string;
  modules?: Record<string, unknown>;
  saved?: boolean;
  savedAgain?: boolean;
  error?: string;
}

/** Loads `bundle` in a new Node with the loader, runs `probe` (an expression over `modules`), then saves the cache. */
function loadInChild(bundle: string, probe = 'modules'): Promise<Outcome> {
  const script = `
    const { loadUiVendor, saveUiCodeCache } = await import(${JSON.stringify(LOADER)});
    try {
      const { modules, cache } = await loadUiVendor(${JSON.stringify(bundle)});
      const saved = saveUiCodeCache();
      process.stdout.write(JSON.stringify({ cache, modules: await (${probe}), saved, savedAgain: saveUiCodeCache() }));
    } catch (err) {
      process.stdout.write(JSON.stringify({ error: err.message }));
    }`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Outcome),
    ),
  );
}

const FIXTURE = `'use strict';
const path = require('node:path');
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
exports.start = async function start() {
  return { value: fib(20), dir: __dirname, file: path.basename(__filename), imported: typeof (await import('node:os')).cpus };
};
`;

async function fixtureBundle(source = FIXTURE): Promise<{ dir: string; bundle: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-ui-vendor-'));
  const bundle = path.join(dir, 'ui-vendor.cjs');
  await writeFile(bundle, source);
  return { dir, bundle };
}

test('first start: no cache, runs the bundle as CommonJS, writes the cache once; next start takes it', async () => {
  const { dir, bundle } = await fixtureBundle();
  try {
    const first = await loadInChild(bundle);
    assert.equal(first.cache, 'missing');
    assert.deepEqual(first.modules, { value: 6765, dir, file: 'ui-vendor.cjs', imported: 'function' });
    assert.equal(first.saved, true);
    assert.equal(first.savedAgain, false, 'the second save does nothing');
    const cacheFile = codeCacheFile(bundle);
    assert.ok((await stat(cacheFile)).size > 0);
    assert.match(path.basename(cacheFile), new RegExp(`^ui-vendor\\.cjs\\.${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`));

    const second = await loadInChild(bundle);
    assert.equal(second.cache, 'accepted');
    assert.equal(second.saved, false, 'an accepted cache is not rewritten');
    assert.equal((second.modules as { value: number }).value, 6765);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a corrupt cache, or one for other source, is rejected by V8 and replaced; the bundle still runs', async () => {
  const { dir, bundle } = await fixtureBundle();
  try {
    const cacheFile = codeCacheFile(bundle);
    await writeFile(cacheFile, Buffer.from('not a V8 code cache at all'));
    const corrupt = await loadInChild(bundle);
    assert.equal(corrupt.cache, 'rejected');
    assert.equal(corrupt.saved, true);
    assert.equal((await loadInChild(bundle)).cache, 'accepted');

    // A rebuilt bundle (different source) with the old cache beside it.
    await appendFile(bundle, '// rebuilt\nexports.extra = 1;\n');
    const rebuilt = await loadInChild(bundle);
    assert.equal(rebuilt.cache, 'rejected');
    assert.equal((rebuilt.modules as { value: number }).value, 6765);
    assert.equal((await loadInChild(bundle)).cache, 'accepted');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a cache that cannot be read or written costs nothing but time', async () => {
  const { dir, bundle } = await fixtureBundle();
  try {
    // A directory where the cache file should be: reading and renaming onto it both fail.
    const cacheFile = codeCacheFile(bundle);
    await mkdir(path.join(cacheFile, 'occupied'), { recursive: true });
    const outcome = await loadInChild(bundle);
    assert.equal(outcome.error, undefined);
    assert.equal(outcome.cache, 'missing');
    assert.equal((outcome.modules as { value: number }).value, 6765);
    assert.equal(outcome.saved, false, 'reported as not written');
    assert.ok((await stat(cacheFile)).isDirectory(), 'left alone');
    assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith('.tmp')), [], 'no temp file left behind');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a file that is not the UI bundle, or a failing start(), is reported, not swallowed', async () => {
  const notBundle = await fixtureBundle("'use strict'; exports.other = 1;\n");
  const failing = await fixtureBundle("'use strict'; exports.start = async () => { throw new Error('yoga failed to load'); };\n");
  try {
    assert.match((await loadInChild(notBundle.bundle)).error ?? '', /is not the console's UI bundle.*npm run build/);
    assert.equal((await loadInChild(failing.bundle)).error, 'yoga failed to load');
  } finally {
    await rm(notBundle.dir, { recursive: true, force: true });
    await rm(failing.dir, { recursive: true, force: true });
  }
});

/** Names that files under src/ import from `pkg` (`import { a, type B } from 'pkg'`). */
async function namesImportedBySource(pkg: string): Promise<string[]> {
  const names = new Set<string>();
  const files = (await readdir(path.join(REPO, 'src'), { recursive: true })).filter((f) => /\.tsx?$/.test(f));
  for (const file of files) {
    const source = await readFile(path.join(REPO, 'src', file), 'utf8');
    for (const [, list] of source.matchAll(new RegExp(`import\\s+(?!type\\s)(?:\\w+\\s*,\\s*)?\\{([^}]*)\\}\\s*from\\s*'${pkg}'`, 'g'))) {
      for (const item of (list ?? '').split(',')) {
        const name = item.trim();
        if (name && !name.startsWith('type ')) names.add(name.split(/\s+as\s+/)[0] as string);
      }
    }
  }
  return [...names].sort();
}

const BUILT = path.join(REPO, 'dist/chunks/ui-vendor.cjs');
test('the built UI bundle exposes what the console imports from ink and react, and one React', { skip: !existsSync(BUILT) && 'not built (npm run build)' }, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-ui-vendor-built-'));
  try {
    const bundle = path.join(dir, 'ui-vendor.cjs');
    await copyFile(BUILT, bundle);
    const probe = `({
      ink: Object.keys(modules.ink).sort(),
      react: Object.keys(modules.react).filter((k) => k !== 'default').sort(),
      reactVersion: modules.react.version,
      sameReact: modules.react.default.useState === modules.react.useState,
      jsx: typeof modules.jsxRuntime.jsx,
      element: modules.jsxRuntime.jsx(modules.ink.Text, { children: 'x' }).$$typeof === Symbol.for('react.transitional.element'),
    })`;
    const first = await loadInChild(bundle, probe);
    assert.equal(first.error, undefined);
    const require = createRequire(import.meta.url);
    const realInk = (await import('ink')) as Record<string, unknown>;
    const m = first.modules as Record<string, unknown>;
    assert.deepEqual(m.ink, Object.keys(realInk).sort());
    // Production React has fewer exports than the development build that tests load; every name the console
    // imports from react must be there.
    const imported = await namesImportedBySource('react');
    assert.ok(imported.length >= 5, imported.join(' '));
    for (const name of imported) assert.ok((m.react as string[]).includes(name), `react.${name} is missing from the bundle`);
    for (const name of await namesImportedBySource('ink')) assert.ok((m.ink as string[]).includes(name), `ink.${name} is missing`);
    assert.equal(m.reactVersion, (require('react/package.json') as { version: string }).version);
    assert.equal(m.sameReact, true);
    assert.equal(m.jsx, 'function');
    assert.equal(m.element, true);
    assert.equal(first.cache, 'missing');
    assert.equal((await loadInChild(bundle, probe)).cache, 'accepted');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the build-time warm-up draws the home screen off-screen and leaves a cache that the next start accepts', { skip: !existsSync(path.join(REPO, 'dist/warm-ui-cache.mjs')) && 'not built (npm run build)' }, async () => {
  // A private copy of dist/, so that other tests' starts do not touch the cache under test.
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-warm-dist-'));
  try {
    await cp(path.join(REPO, 'dist'), dir, { recursive: true, filter: (src) => !src.endsWith('.v8cache') });
    const bundle = path.join(dir, 'chunks/ui-vendor.cjs');
    assert.equal(existsSync(codeCacheFile(bundle)), false);
    const warmed = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [path.join(dir, 'warm-ui-cache.mjs')], { timeout: 60_000 }, (err, _stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    assert.equal(warmed.code, 0, warmed.stderr);
    assert.ok((await stat(codeCacheFile(bundle))).size > 100_000, 'a cache with the compiled UI');
    assert.equal((await loadInChild(bundle, 'Object.keys(modules)')).cache, 'accepted');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
