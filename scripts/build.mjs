// Bundles the console into dist/ with esbuild, in two parts:
//   - dist/chunks/ui-vendor.cjs: Ink, React and yoga as one classic script (src/vendor/uiVendor.ts), which the
//     console runs with a V8 code cache (src/vendor/uiVendorLoader.ts);
//   - dist/swegym-console.mjs and its chunks: the console itself, ES modules with production React, where heavy
//     libraries (e2b, apache-arrow, parquet-wasm) stay in lazily loaded chunks. Its imports of `ink` and `react` are
//     shims that read the UI bundle's modules.
// Patches to dependencies (scripts/startup-patches.mjs) keep slow work out of start-up; each fails the build if the
// code it patches has changed.
import { build } from 'esbuild';
import { mkdir, writeFile, rm, readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createRequire, isBuiltin } from 'node:module';
import {
  patchInkLineUpdate,
  patchInkReconcilerWithoutTopLevelAwait,
  patchInkRenderThrottle,
  patchStringWidth,
  patchTerminalSize,
  patchYogaIndexFromGlobal,
  patchYogaBase64,
  patchYogaWithoutFetch,
} from './startup-patches.mjs';
import { checkLazyLibraries, lazyLibraryImports } from './lazy-libraries.mjs';
import { firstFramePreludes, firstFramePreludePlugin, preludeImports } from './first-frame-prelude.mjs';

const requireHere = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `--outdir DIR` builds elsewhere (the benchmarks build the working tree without touching dist/).
const outdirFlag = process.argv.indexOf('--outdir');
const outdir = outdirFlag > 0 && process.argv[outdirFlag + 1] ? path.resolve(process.argv[outdirFlag + 1]) : path.join(root, 'dist');
const stub = path.join(outdir, '.devtools-stub.mjs');
const uiVendorFile = path.join(outdir, 'chunks', 'ui-vendor.cjs');

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
// Ink guards a dynamic import of react-devtools-core; alias it to an inert stub.
await writeFile(stub, 'export default { connectToDevTools() {}, initialize() {} };\n');

/** Names of the patch plugins that ran (each must, or its target is no longer bundled). */
const appliedPatches = new Set();

/** An esbuild plugin that rewrites the files matching `filter` with `patch`. */
function patchPlugin(name, filter, patch) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, async (args) => {
        const contents = patch(await readFile(args.path, 'utf8'), args.path);
        appliedPatches.add(name);
        return { contents, loader: 'js' };
      });
    },
  };
}

const uiPatches = [
  patchPlugin('yoga-without-fetch', /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/, (source, file) => patchYogaBase64(patchYogaWithoutFetch(source, file), file)),
  patchPlugin('yoga-from-global', /yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/, patchYogaIndexFromGlobal),
  patchPlugin('ink-without-top-level-await', /[\\/]ink[\\/]build[\\/]reconciler\.js$/, patchInkReconcilerWithoutTopLevelAwait),
  patchPlugin('string-width-lazy-rgi', /[\\/]string-width[\\/]index\.js$/, patchStringWidth),
  patchPlugin('terminal-size-lazy-child-process', /[\\/]terminal-size[\\/]index\.js$/, patchTerminalSize),
  patchPlugin('ink-render-throttle', /[\\/]ink[\\/]build[\\/]ink\.js$/, (source, file) => patchInkRenderThrottle(source, path.join(root, 'src/vendor/renderThrottle.ts'), file)),
  patchPlugin('ink-line-update', /[\\/]ink[\\/]build[\\/]log-update\.js$/, (source, file) => patchInkLineUpdate(source, path.join(root, 'src/vendor/lineUpdate.ts'), file)),
];

// signal-exit 3 (used by Ink and restore-cursor) requires all of `node:assert` (≈ 17 ms to load) for one
// `assert.equal(typeof cb, 'function', …)`; give it that one function.
const signalExitAssert = {
  name: 'signal-exit-assert',
  setup(b) {
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      /[\\/]signal-exit[\\/]/.test(args.importer) ? { path: 'signal-exit-assert', namespace: 'signal-exit-assert' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'signal-exit-assert' }, () => ({
      loader: 'js',
      contents:
        'exports.equal = function equal(actual, expected, message) {\n' +
        '  if (actual != expected) { var e = new Error(message || actual + " == " + expected); e.name = "AssertionError"; e.code = "ERR_ASSERTION"; throw e; }\n' +
        '};\n',
    }));
  },
};

// Importing a Node built-in as an ES module builds a module facade that reads every export of the built-in, and
// some exports are getters that load more of Node (node:fs's `promises` loads readline; node:util's load its diff
// and worker code): ≈ 10 ms for the half-dozen built-ins that the console imports before its first frame. In the
// CommonJS UI bundle, esbuild instead copies every property of the built-in for each default import (Ink has a dozen
// of `import process from 'node:process'`). `process.getBuiltinModule` (Node ≥ 22.3) returns the built-in itself:
// each import statement of a built-in becomes that call, exporting the default and exactly the names that the
// importing file asks for (found in its import statements). A name missed that way fails the build ("No matching
// export"), loudly.
const importerSources = new Map();
async function namesImported(importer, specifier) {
  if (!importerSources.has(importer)) importerSources.set(importer, await readFile(importer, 'utf8').catch(() => ''));
  const source = importerSources.get(importer);
  // A generated module (no file to read) gets every name, like a namespace import.
  if (!source) return { names: [], namespace: true };
  const names = new Set();
  let namespace = false;
  const quoted = specifier.replace(/[/]/g, '\\/');
  const statement = new RegExp(`(?:^|[^\\w$.])(?:import|export)\\s*(?:type\\s+)?([^;]*?)\\s*from\\s*['"]${quoted}['"]`, 'g');
  for (const [, clause] of source.matchAll(statement)) {
    if (/\*\s*as\s/.test(clause) || clause.trim() === '*') namespace = true;
    for (const [, list] of clause.matchAll(/\{([^}]*)\}/g)) {
      for (const item of list.split(',')) {
        const name = item.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]?.trim();
        if (name && /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default') names.add(name);
      }
    }
  }
  return { names: [...names].sort(), namespace };
}
const builtinsWithoutFacades = {
  name: 'builtins-without-facades',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z][a-z0-9_/]*$/ }, async (args) => {
      const name = args.path.replace(/^node:/, '');
      if (args.kind !== 'import-statement' || !isBuiltin(name)) return undefined;
      const { names, namespace } = await namesImported(args.importer, args.path);
      return { path: `${name}:${namespace ? '*' : names.join(',')}`, namespace: 'node-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
      const [name, list] = args.path.split(':');
      const builtin = requireHere(`node:${name}`);
      // A namespace import gets every name that is a plain value (reading getters is what this avoids).
      const names =
        list === '*'
          ? Object.keys(builtin).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k) && 'value' in Object.getOwnPropertyDescriptor(builtin, k))
          : list.split(',').filter(Boolean);
      const contents =
        `const builtin = process.getBuiltinModule(${JSON.stringify(`node:${name}`)});\n` +
        'export default builtin;\n' +
        (names.length ? `export const { ${names.join(', ')} } = builtin;\n` : '');
      return { contents, loader: 'js' };
    });
  },
};

// The console's imports of the UI libraries become shims over the modules that the UI bundle's start() returns
// (one React for everything). Export names are read from the real packages, as production loads them.
process.env.NODE_ENV = 'production';
const uiModules = {
  ink: { key: 'ink', names: Object.keys(await import('ink')) },
  react: { key: 'react', names: Object.keys(requireHere('react')) },
  'react/jsx-runtime': { key: 'jsxRuntime', names: Object.keys(requireHere('react/jsx-runtime')) },
};
const UI_LOADED = 'ui-vendor-loaded';
const uiVendorShims = {
  name: 'ui-vendor-shims',
  setup(b) {
    b.onResolve({ filter: /^(ink|react|react\/jsx-runtime)$/ }, (args) => ({ path: args.path, namespace: 'ui-vendor-shim' }));
    b.onResolve({ filter: new RegExp(`^${UI_LOADED}$`) }, () => ({ path: UI_LOADED, namespace: UI_LOADED }));
    b.onLoad({ filter: /.*/, namespace: UI_LOADED }, () => ({
      loader: 'js',
      resolveDir: root,
      // This module must land in dist/chunks/, beside ui-vendor.cjs (checked below).
      contents:
        `import { loadUiVendor } from ${JSON.stringify(path.join(root, 'src/vendor/uiVendorLoader.ts'))};\n` +
        `import { fileURLToPath } from 'node:url';\n` +
        `export const uiVendor = (await loadUiVendor(fileURLToPath(new URL('./ui-vendor.cjs', import.meta.url)))).modules;\n`,
    }));
    b.onLoad({ filter: /.*/, namespace: 'ui-vendor-shim' }, (args) => {
      const { key, names } = uiModules[args.path];
      const named = names.filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
      return {
        loader: 'js',
        resolveDir: root,
        contents:
          `import { uiVendor } from '${UI_LOADED}';\n` +
          `const ns = uiVendor.${key};\n` +
          'export default ns.default;\n' +
          `export const { ${named.join(', ')} } = ns;\n`,
      };
    });
  },
};

// Inside the UI bundle, each file's `import React from 'react'` (36 of them in Ink) makes esbuild copy every export of
// React's CommonJS module into a new object of getters. One ES module in front of React does that once.
const reactOnce = {
  name: 'react-as-one-es-module',
  setup(b) {
    b.onResolve({ filter: /^react$/ }, () => ({ path: 'react', namespace: 'react-once' }));
    b.onLoad({ filter: /.*/, namespace: 'react-once' }, () => ({
      loader: 'js',
      resolveDir: root,
      contents:
        `import React from ${JSON.stringify(requireHere.resolve('react'))};\n` +
        'export default React;\n' +
        `export const { ${uiModules.react.names.filter((n) => /^[A-Za-z_$][\w$]*$/.test(n)).join(', ')} } = React;\n`,
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  // Every bundled `Intl.Segmenter` (Ink's text helpers build one each when they load) becomes the lazy one in
  // src/ui/graphemeSegmenter.ts: the first Intl object initialises ICU, ≈ 20 ms before the first frame.
  define: { 'process.env.NODE_ENV': '"production"', 'Intl.Segmenter': 'LazyGraphemeSegmenter' },
  inject: [path.join(root, 'src/ui/graphemeSegmenter.ts')],
  alias: { 'react-devtools-core': stub },
  legalComments: 'none',
  minify: true,
  sourcemap: false,
  metafile: true,
  logLevel: 'warning',
};

const vendor = await build({
  ...common,
  entryPoints: [path.join(root, 'src/vendor/uiVendor.ts')],
  outfile: uiVendorFile,
  format: 'cjs',
  plugins: [...uiPatches, signalExitAssert, reactOnce, builtinsWithoutFacades],
  // yoga's emscripten loader reads import.meta.url only to locate a wasm file; its wasm is inline.
  logOverride: { 'empty-import-meta': 'silent' },
});
for (const p of uiPatches) {
  if (!appliedPatches.has(p.name)) throw new Error(`${p.name}: the file it patches was not bundled into the UI bundle; update scripts/build.mjs`);
}

const mainOptions = {
  ...common,
  // The `monitor --once` scan workers run their own entry (src/services/monitor/parallel.ts finds it beside this one).
  entryPoints: {
    'swegym-console': path.join(root, 'src/cli/main.ts'),
    'warm-ui-cache': path.join(root, 'src/cli/warmUiCache.tsx'),
    'monitor-scan-worker': path.join(root, 'src/services/monitor/scanWorker.ts'),
  },
  outdir,
  splitting: true,
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
};
// The second pass adds the preludes, and the lazily imported libraries' modules import them too.
const mainPlugins = (preludes = []) => [
  ...(preludes.length ? [firstFramePreludePlugin(root, preludes)] : []),
  uiVendorShims,
  lazyLibraryImports(root, (key) => preludeImports(preludes, key)),
  signalExitAssert,
  builtinsWithoutFacades,
];
// Twice: the first build (not written) shows which modules the entry imports statically and who else reaches them;
// the second puts them into one chunk (scripts/first-frame-prelude.mjs).
const firstPass = await build({ ...mainOptions, plugins: mainPlugins(), write: false });
const preludes = firstFramePreludes(firstPass.metafile, {
  entry: 'src/cli/main.ts',
  interactive: 'src/cli/interactive.tsx',
  uiLoader: `${UI_LOADED}:${UI_LOADED}`,
  otherEntries: ['src/cli/warmUiCache.tsx'],
});
const main = await build({ ...mainOptions, plugins: mainPlugins(preludes) });

// Every lazily imported library in the bundle must export what Node gives the source (scripts/lazy-libraries.mjs).
const lazy = await checkLazyLibraries(main.metafile, root);
if (lazy.problems.length) throw new Error(`lazily imported libraries lost exports in the bundle:\n  ${lazy.problems.join('\n  ')}`);
if (!lazy.checked.includes('e2b')) throw new Error('the bundle has no lazily loaded e2b chunk; scripts/lazy-libraries.mjs found nothing to check');

// Checks on the output: the UI libraries exist once (in the UI bundle), the loader sits beside that bundle, and the
// Intl.Segmenter define reached every module (only the shim itself may name the native one).
const outputs = { ...vendor.metafile.outputs, ...main.metafile.outputs };
for (const [file, output] of Object.entries(main.metafile.outputs)) {
  const inputs = Object.keys(output.inputs);
  const duplicated = inputs.find((i) => /node_modules[\\/](ink|react|react-reconciler|scheduler|yoga-layout)[\\/]/.test(i));
  if (duplicated) throw new Error(`${file} bundles ${duplicated}, which belongs in the UI bundle only; import it as ink/react`);
  if (inputs.includes(`${UI_LOADED}:${UI_LOADED}`) && path.resolve(path.dirname(file)) !== path.dirname(uiVendorFile)) {
    throw new Error(`the UI bundle loader landed in ${file}, not beside ${uiVendorFile}`);
  }
}
for (const file of Object.keys(outputs).filter((f) => /\.(mjs|cjs)$/.test(f))) {
  const text = await readFile(path.resolve(file), 'utf8');
  const natives = text.split('Intl.Segmenter').length - 1;
  if (natives > (text.includes('globalThis.Intl.Segmenter') ? 1 : 0)) {
    throw new Error(`${file} still builds Intl.Segmenter directly; the define of Intl.Segmenter in scripts/build.mjs did not apply`);
  }
}
await writeFile(path.join(outdir, 'meta.json'), JSON.stringify({ ui: vendor.metafile, main: main.metafile }));

// Draw the home screen off-screen once so that the UI bundle's code cache exists before the first start
// (src/cli/warmUiCache.tsx). Not fatal: without it the first start writes the cache itself.
// Colours on, as in a terminal (its output is a pipe here), so that the cache holds the colour paths too.
const warm = spawnSync(process.execPath, [path.join(outdir, 'warm-ui-cache.mjs')], {
  encoding: 'utf8',
  timeout: 60_000,
  env: { ...process.env, FORCE_COLOR: '2' },
});
if (warm.status !== 0) {
  const why = (warm.stderr || warm.error?.message || `exit ${warm.status ?? warm.signal}`).trim().split('\n').pop();
  process.stderr.write(`note: the UI code cache was not written at build time (${why}); the first start will write it\n`);
}
const kib = (f) => Math.round((outputs[Object.keys(outputs).find((o) => o.endsWith(f))]?.bytes ?? 0) / 1024);
const startChunk = Object.keys(main.metafile.outputs).find((o) => main.metafile.outputs[o].inputs['src/services/errors.ts']);
process.stderr.write(`built dist/swegym-console.mjs with what every command loads (${kib(startChunk ?? '?')} KiB) and dist/chunks/ui-vendor.cjs (${kib('ui-vendor.cjs')} KiB)\n`);
