// The bundle's lazily imported libraries: esbuild alone gives a code-split CommonJS package (e2b, undici) only a
// `default` export, so `(await import('e2b')).Sandbox` was undefined in dist/ while the source worked. The build's
// plugin re-exports what Node gives, and its check compares each chunk with Node's namespace. Both are exercised here
// on a real bundle of a dynamic import, with and without the plugin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
// @ts-expect-error: a plain ES module of the build scripts, without types
import { checkLazyLibraries, compareNamespaces, lazyLibraryImports, nodeNamespace } from '../../scripts/lazy-libraries.mjs';

const root = path.resolve('.');

async function bundleDynamicImport(specifier: string, withPlugin: boolean): Promise<{ dir: string; metafile: Metafile; load: () => Promise<Record<string, unknown>> }> {
  const dir = await mkdtemp(path.join(root, 'dist-test-lazy-'));
  const entry = path.join(dir, 'entry.mjs');
  await writeFile(entry, `export const load = () => import(${JSON.stringify(specifier)});\n`);
  const r = await build({
    entryPoints: [entry],
    outdir: path.join(dir, 'out'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    metafile: true,
    logLevel: 'silent',
    banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
    plugins: withPlugin ? [lazyLibraryImports(root)] : [],
  });
  const load = async () => ((await import(pathToFileURL(path.join(dir, 'out', 'entry.js')).href)) as { load: () => Promise<Record<string, unknown>> }).load();
  return { dir, metafile: r.metafile, load };
}

// undici is CommonJS only; (e2b, which also ships an ES build, lost its names only in the console's full build.)
for (const specifier of ['undici']) {
  test(`${specifier}: without the plugin the bundled namespace loses its names (the check says which); with it, it matches Node's`, { timeout: 60_000 }, async () => {
    const node = (await nodeNamespace(specifier, root)) as Record<string, unknown>;
    const plain = await bundleDynamicImport(specifier, false);
    const fixed = await bundleDynamicImport(specifier, true);
    try {
      const lost = compareNamespaces(specifier, await plain.load(), node) as string[];
      assert.ok(lost.length > 10, `esbuild alone drops the named exports (${lost.length} problems)`);
      assert.ok(lost.some((p) => /does not export/.test(p)));
      const bundled = await fixed.load();
      assert.deepEqual(compareNamespaces(specifier, bundled, node), []);
      const checked = (await checkLazyLibraries(fixed.metafile, root)) as { checked: string[]; problems: string[] };
      assert.deepEqual(checked, { checked: [specifier], problems: [] });
    } finally {
      await rm(plain.dir, { recursive: true, force: true });
      await rm(fixed.dir, { recursive: true, force: true });
    }
  });
}

test('the built dist/ passed the same check for every lazily imported library', async () => {
  const meta = JSON.parse(await readFile(path.resolve('dist/meta.json'), 'utf8')) as { main: Metafile };
  const r = (await checkLazyLibraries(meta.main, root)) as { checked: string[]; problems: string[] };
  assert.deepEqual(r.problems, []);
  for (const lib of ['e2b', 'undici', 'apache-arrow', 'parquet-wasm/esm']) assert.ok(r.checked.includes(lib), `${lib} is checked (${r.checked.join(', ')})`);
});
